/* nat_rdx.c — sampled reuse distances (RDX) with hardware watchpoints.
 *
 * Notes (Q. Wang, X. Liu, M. Chabbi, "Featherlight Reuse-distance
 * Measurement", HPCA 2019, §IV; docs/engine-native.md, "Reuse distances"):
 *  - Use points: each thread opens a second page-fault event with period
 *    N (--reuse-sample=N) and PERF_SAMPLE_IP | ADDR: every N-th page fault
 *    of the thread is a use point at its data address.  Page faults are
 *    the degenerate data-address source the issue allows without a PMU:
 *    a use point is the first touch of a page, so what is measured is when
 *    the first-touched 8 bytes of a page are next accessed.
 *  - Watchpoints: up to 4 PERF_TYPE_BREAKPOINT events per thread
 *    (HW_BREAKPOINT_RW, 8 bytes aligned, the thread's debug registers;
 *    x86 has 4), all writing into the use event's ring
 *    (PERF_EVENT_IOC_SET_OUTPUT).  Which use keeps a register is the
 *    core's reservoir (rdx.c, one struct dc_rdx per thread: debug
 *    registers are per thread, so a reuse by another thread is not seen).
 *  - Delivery: every event of the ring raises NAT_RDX_SIG on its own thread
 *    (O_ASYNC, F_SETSIG, F_SETOWN_EX F_OWNER_TID, wakeup_events 1).  The
 *    handler reads the thread's ring (only it does), arms and disarms
 *    registers (PERF_EVENT_IOC_MODIFY_ATTRIBUTES / _DISABLE) and queues what
 *    happened; the lock is never taken in the handler (the thread may hold
 *    it), and the dc_rdx's context table gets its memory from mmap, not
 *    malloc.  nat_rdx_drain_all, with the lock, turns the queue into
 *    buckets, locations and histogram counts, as nat_perf_drain_all does
 *    the rings (every free first drains, so a use's block still exists).
 *  - A page fault is reported before the faulting instruction completes:
 *    when the handler runs with the interrupted IP equal to the sample's,
 *    the instruction re-executes after it and its own access traps the new
 *    watchpoint once; that trap is the use, not a reuse, and is skipped.
 *  - A data watchpoint traps after the access; the sample's IP is the next
 *    instruction, so the reuse's location is IP - 1 (inside the access's
 *    instruction, which is what finalize symbolises).
 *  - Use points from a PMU.  PEBS (--event=mem-loads or mem-stores, whose
 *    records carry the data address in the ring): a second event of
 *    nat.pmu[0]'s encoding, sample_type IDENTIFIER | IP | ADDR, period N:
 *    every N-th sampled load or store is a use.  IBS and SPE (ibs-op,
 *    spe): no second event — Linux's IBS driver keeps one op event per
 *    core (arch/x86/events/amd/ibs.c, struct cpu_perf_ibs) and arm_spe is
 *    an exclusive PMU (a second event in the thread fails with EBUSY) —
 *    but the thread's sampling event (nat_pmu.c), routed to this signal:
 *    the handler reads its new records first (nat_rdx_use.c: IBS's RAW,
 *    SPE's AUX packets; every N-th with a data address is a use, at its
 *    address and IbsOpRip or PC), keeps the offset it read up to (lead),
 *    and the reader thread attributes the samples only up to there, so
 *    the kernel never overwrites a record the handler has yet to read.
 *    IBS's event then wakes on every sample (nat_pmu.c); SPE interrupts
 *    once a page of AUX is full at the soonest, so an SPE use is armed up
 *    to a page of records late (docs/engine-native.md).  Each use stands
 *    for N samples x the period (rx.use_weight).  PEBS, IBS and SPE
 *    records are written after their op: nothing re-executes, no trap is
 *    skipped.  The watchpoints then write into the first one's ring.
 *  - Distance: with a PMU event, a counter of the thread opened with the
 *    watchpoints: Intel's MEM_INST_RETIRED.ALL_LOADS and ALL_STORES (raw
 *    0xd0 umask 0x81 and 0x82 on the PMU of mem-loads, a group read in
 *    one read(); Intel SDM vol. 3B, "Performance Monitoring Events") where
 *    they open and the CPU is not hybrid (one event counts on one kind
 *    of core only): meta reuse_distance_unit "memory instructions"; else
 *    PERF_COUNT_HW_INSTRUCTIONS: "instructions".  Without a PMU event, or
 *    when neither opens, the thread's CPU time between use and reuse in ns
 *    (CLOCK_THREAD_CPUTIME_ID, the task-clock): "ns"; never presented as
 *    accesses.
 *  - A fault whose address is within 16 bytes after its IP fetched the
 *    instruction (code pages fault too): no data, not a use point.
 *  - A fault on bytes a watchpoint armed by a fault of the same,
 *    not yet completed instruction watches is that fault again (under
 *    load the kernel returned without mapping the page, up to 31 times
 *    in a row): not a new use, which would count the reuse as often.
 *  - Calling context of a use: its instruction only (no unwinding in a
 *    signal handler): proportional attribution weighs per instruction.
 *  - At the end (nat_rdx_end) the events of every thread are disabled
 *    first; a handler already running on another thread then may still
 *    change its own dc_rdx while the end drains it (the program exits
 *    with threads still running): such a use may be lost or counted twice.
 *  - Counts as the simulator engine writes them: weights x the accesses a
 *    use stands for (N page faults or PEBS samples, N x period for IBS and
 *    SPE; meta reuse_sample_period, reuse_use_event).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/rdx.h"
#include "core/reuse.h"
#include "core/util.h"
#include "engine/native/nat.h"

#define NAT_RDX_SIG (SIGRTMIN + 5)
#define RING_PAGES 8
#define QUEUE 1024                 /* events per thread between drains */
#define NO_WP 0xffffffffu
#define SUM_UNKNOWN 0x7fffffffffffffffULL

enum { EV_USE, EV_HIT, EV_UNSEEN };

struct rdx_ev {
	uint32_t type, wp;
	uint64_t addr, ip;         /* USE: the use; HIT: ip of the reuse */
	uint64_t dist, weight;     /* HIT, UNSEEN */
};

struct nat_rdx_thr {
	struct dc_rdx r;
	int fd_use, fd_wp[NAT_RDX_MAX_WP];
	int fd_ctr[2];             /* the distance counter, -1: CPU time */
	uint64_t id_use, id_wp[NAT_RDX_MAX_WP];
	struct perf_event_attr wp_attr[NAT_RDX_MAX_WP];
	void *ring;                /* the use event's, else the first watchpoint's */
	bool skip[NAT_RDX_MAX_WP]; /* the next trap is the use's own access */
	/* IBS, SPE: the thread's sampling event is the use event */
	struct nat_pmu_ring *pmu;
	struct nat_rdx_pick pick;
	uint64_t lead;             /* its ring or AUX area read up to here */
	/* the queue: the handler writes at head, the drain reads at tail */
	struct rdx_ev q[QUEUE];
	uint32_t head, tail;
	uint64_t q_dropped;
	/* the drain's: each watchpoint's use, attributed */
	uint32_t use_bucket[NAT_RDX_MAX_WP], use_loc[NAT_RDX_MAX_WP];
	bool closed;
};

struct rdx_bin {                   /* (bucket, bin) -> sampled reuses */
	uint32_t bucket, bin;
	uint64_t count, sum;
};

struct rdx_pair {                  /* (use loc, reuse loc) -> sampled reuses */
	uint32_t use, reuse;
	uint64_t count, sum;
};

struct rdx_unseen {
	uint32_t bucket, pad;
	uint64_t count;
};

static struct {
	struct nat_rdx_thr **thr;      /* every thread's, kept for the totals */
	uint32_t n, cap;
	struct dc_rectab bins, pairs, unseen;
	uint64_t samples, arms, replaced, dropped, traps, q_dropped, unwatched;
	int unit;                  /* enum unit, the same for every thread */
	uint64_t use_weight;       /* the accesses a use stands for */
} rx;

enum unit { U_NS, U_INSN, U_MEMINSN };
static const char *const unit_name[] = { "ns", "instructions", "memory instructions" };

/* ---- memory the signal handler may take: mmap, a size word in front ---- */

static void *sig_alloc(void *ud, size_t n, const char *label)
{
	size_t len = n + 16;
	void *p = nat_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	*(size_t *)p = len;
	return (char *)p + 16;
}

static void sig_free(void *ud, void *p)
{
	if (p) {
		char *b = (char *)p - 16;
		nat_sys_munmap(b, *(size_t *)b);
	}
}

static const struct dc_env sig_env = { sig_alloc, sig_free, NULL };

/* ---- per thread ------------------------------------------------------------ */

static __thread struct nat_rdx_thr *mine __attribute__((tls_model("initial-exec")));

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long perf_open(struct perf_event_attr *a)
{
	return syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The distance counter of unit u for this thread into fd[2]: 0, or -1
 * with nothing open. */
static int ctr_open(int u, int fd[2])
{
	struct perf_event_attr a;

	fd[0] = fd[1] = -1;
	if (u == U_NS)
		return 0;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (u == U_INSN) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
	} else {
		a.type = nat.pmu[0].type;
		a.config = 0x81d0;                 /* MEM_INST_RETIRED.ALL_LOADS */
		a.read_format = PERF_FORMAT_GROUP;
	}
	fd[0] = (int)perf_open(&a);
	if (fd[0] < 0)
		return -1;
	if (u == U_MEMINSN) {
		a.config = 0x82d0;                 /* MEM_INST_RETIRED.ALL_STORES */
		fd[1] = (int)syscall(SYS_perf_event_open, &a, 0, -1, fd[0], PERF_FLAG_FD_CLOEXEC);
		if (fd[1] < 0) {
			close(fd[0]);
			fd[0] = -1;
			return -1;
		}
	}
	return 0;
}

static void ctr_close(int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	fd[0] = fd[1] = -1;
}

/* The thread's distance clock: its counter, else its CPU time in ns. */
static uint64_t ctr_now(const struct nat_rdx_thr *x)
{
	uint64_t v[3] = { 0 };

	if (x->fd_ctr[0] < 0)
		return cpu_ns();
	if (read(x->fd_ctr[0], v, sizeof v) < 8)
		return 0;
	return rx.unit == U_MEMINSN ? v[1] + v[2] : v[0];   /* group: nr, then the values */
}

/* Signals of fd go to this thread. */
static int route(int fd)
{
	struct f_owner_ex own = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };

	if (fcntl(fd, F_SETOWN_EX, &own) || fcntl(fd, F_SETSIG, NAT_RDX_SIG) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC))
		return -1;
	return 0;
}

static void queue(struct nat_rdx_thr *x, uint32_t type, uint32_t wp, uint64_t addr,
		  uint64_t ip, uint64_t dist, uint64_t weight)
{
	uint32_t h = x->head, t = __atomic_load_n(&x->tail, __ATOMIC_ACQUIRE);
	struct rdx_ev *e;

	if (h - t == QUEUE) {
		x->q_dropped++;
		return;
	}
	e = &x->q[h % QUEUE];
	e->type = type;
	e->wp = wp;
	e->addr = addr;
	e->ip = ip;
	e->dist = dist;
	e->weight = weight;
	__atomic_store_n(&x->head, h + 1, __ATOMIC_RELEASE);
}

static void wp_point(struct nat_rdx_thr *x, unsigned i, uint64_t lo)
{
	x->wp_attr[i].bp_addr = lo;
	x->wp_attr[i].disabled = 0;
	ioctl(x->fd_wp[i], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &x->wp_attr[i]);
}

/* A use point at addr by the instruction ip; pending: the instruction has
 * not completed (it re-executes after the handler). */
static void use_point(struct nat_rdx_thr *x, uint64_t addr, uint64_t ip, bool pending)
{
	uint64_t arms = x->r.arms, t = ctr_now(x);

	if (nat_runtime_ip(ip))
		return;        /* the runtime's own fault, not the program's */
	if (addr - ip < 16)
		return;        /* an instruction fetch's: no data to watch */
	/* A fault the instruction takes again before it completes (the
	 * kernel returned without mapping the page: a retried fault, seen
	 * under load) is the same use: a second watchpoint on its bytes would
	 * count its reuse twice. */
	for (unsigned i = 0; pending && i < x->r.cfg.nwp; i++) {
		const struct dc_rdx_wp *w = &x->r.wp[i];
		if (w->armed && x->skip[i] && addr >= w->lo && addr < w->hi)
			return;
	}
	dc_rdx_sample(&x->r, addr, 8, t, dc_hash64(ip), NO_WP, 0);
	if (x->r.arms == arms)
		return;
	for (unsigned i = 0; i < x->r.cfg.nwp; i++) {
		struct dc_rdx_wp *w = &x->r.wp[i];
		if (w->armed && w->bucket == NO_WP) {
			w->bucket = i;      /* a hit names its register */
			x->skip[i] = pending;
			wp_point(x, i, w->lo);
			queue(x, EV_USE, i, addr, ip, 0, 0);
			return;
		}
	}
}

static void trap(struct nat_rdx_thr *x, unsigned j, uint64_t ip)
{
	struct dc_rdx_hit hits[DC_RDX_MAX_WP];
	uint64_t now;
	unsigned n;

	if (!x->r.wp[j].armed)
		return;        /* disarmed while its trap was in the ring */
	if (x->skip[j]) {
		x->skip[j] = false;
		return;
	}
	now = ctr_now(x);
	n = dc_rdx_access(&x->r, x->r.wp[j].lo, 8, hits);
	for (unsigned k = 0; k < n; k++) {
		unsigned i = hits[k].bucket;
		ioctl(x->fd_wp[i], PERF_EVENT_IOC_DISABLE, 0);
		queue(x, EV_HIT, i, 0, ip ? ip - 1 : 0,
		      now > hits[k].t_use ? now - hits[k].t_use : 0, hits[k].weight);
	}
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* Reads the thread's ring: samples are IDENTIFIER, IP, ADDR. */
static void read_ring(struct nat_rdx_thr *x, uint64_t ctx_ip)
{
	struct perf_event_mmap_page *mp = x->ring;
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	const unsigned char *data = (const unsigned char *)x->ring + ps;
	uint64_t size = RING_PAGES * ps;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	unsigned char rec[64];

	while (tail < head) {
		struct perf_event_header h;
		uint64_t off = tail % size;

		for (size_t k = 0; k < sizeof h; k++)
			((unsigned char *)&h)[k] = data[(off + k) % size];
		if (h.size < sizeof h)
			break;
		if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 24 && h.size <= sizeof rec) {
			uint64_t id, ip, addr;
			for (size_t k = 0; k < h.size; k++)
				rec[k] = data[(off + k) % size];
			id = get64(rec + sizeof h);
			ip = get64(rec + sizeof h + 8);
			addr = get64(rec + sizeof h + 16);
			if (x->fd_use >= 0 && id == x->id_use) {
				use_point(x, addr, ip, ip == ctx_ip && nat.event != NAT_EV_PMU);
			} else {
				for (unsigned j = 0; j < x->r.cfg.nwp; j++)
					if (id == x->id_wp[j])
						trap(x, j, ip);
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static void on_use(void *ud, uint64_t addr, uint64_t ip)
{
	use_point(ud, addr, ip, false);
}

/* The new records of the thread's IBS ring or SPE AUX area: its uses. */
static void read_pmu(struct nat_rdx_thr *x)
{
	struct perf_event_mmap_page *mp = x->pmu->ring;
	const unsigned char *buf = (const unsigned char *)x->pmu->ring + mp->data_offset;
	uint64_t size = mp->data_size, head, lead;

	if (x->pmu->kind == NAT_PMU_SPE) {
		buf = x->pmu->aux;
		size = mp->aux_size;
		head = __atomic_load_n(&mp->aux_head, __ATOMIC_ACQUIRE);
	} else {
		head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	}
	lead = nat_rdx_uses(&x->pick, buf, size, x->lead, head, on_use, x);
	__atomic_store_n(&x->lead, lead, __ATOMIC_RELEASE);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	struct nat_rdx_thr *x = mine;
	int e = errno;
	uint64_t ip = 0;

	if (x && !x->closed) {
#if defined(__x86_64__)
		ip = (uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
#endif
		read_ring(x, ip);
		if (x->pmu)
			read_pmu(x);
	}
	errno = e;
}

void nat_rdx_open(struct nat_thread *t)
{
	struct nat_rdx_thr *x;
	struct perf_event_attr a;
	struct dc_rdx_cfg cfg = { 0 };
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	void *ring;
	unsigned i;

	if (!nat.rdx_period)
		return;
	x = sig_alloc(NULL, sizeof *x, "nat.rdx.thr");
	if (!x)
		goto fail;
	memset(x, 0, sizeof *x);
	x->fd_use = -1;
	x->fd_ctr[0] = x->fd_ctr[1] = -1;
	for (i = 0; i < NAT_RDX_MAX_WP; i++)
		x->fd_wp[i] = -1;
	cfg.nwp = nat.rdx_wp;
	cfg.watch = DC_RDX_WATCH_DR;
	cfg.max_size = 8;
	cfg.replace = nat.rdx_oldest ? DC_RDX_OLDEST : DC_RDX_RESERVOIR;
	cfg.proportional = !nat.rdx_noattrib;
	cfg.seed = dc_hash64(nat.rdx_seed + 1 + t->num);
	if (dc_rdx_init(&x->r, &sig_env, &cfg))
		goto fail;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	if (nat.event == NAT_EV_PMU && nat.pmu[0].kind != NAT_PMU_PEBS) {
		if (!t->npmu || t->pmu[0].kind != nat.pmu[0].kind)
			goto fail;
		x->pmu = &t->pmu[0];       /* IBS, SPE: one unit per core (see the Notes) */
	} else if (nat.event == NAT_EV_PMU) {
		const struct nat_pmu *p = &nat.pmu[0];
		a.type = p->type;
		a.config = p->config;
		a.config1 = p->config1;
		a.config2 = p->config2;
		a.precise_ip = p->precise_ip;
	} else {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_PAGE_FAULTS;
	}
	if (ctr_open(rx.unit, x->fd_ctr))
		goto fail;
	a.sample_period = nat.rdx_period;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.wakeup_events = 1;
	a.disabled = 1;
	if (!x->pmu) {
		x->fd_use = (int)perf_open(&a);
		if (x->fd_use < 0)
			goto fail;
		ring = nat_sys_mmap(NULL, (RING_PAGES + 1) * ps, PROT_READ | PROT_WRITE, MAP_SHARED,
				    x->fd_use, 0);
		if (ring == MAP_FAILED)
			goto fail;
		x->ring = ring;
		if (ioctl(x->fd_use, PERF_EVENT_IOC_ID, &x->id_use) || route(x->fd_use))
			goto fail;
	}
	for (i = 0; i < cfg.nwp; i++) {
		struct perf_event_attr *w = &x->wp_attr[i];
		memset(w, 0, sizeof *w);
		w->size = sizeof *w;
		w->type = PERF_TYPE_BREAKPOINT;
		w->bp_type = HW_BREAKPOINT_RW;
		w->bp_addr = (uint64_t)(uintptr_t)&x->head;   /* parked: the runtime's word */
		w->bp_len = HW_BREAKPOINT_LEN_8;
		w->sample_period = 1;
		w->sample_type = a.sample_type;
		w->exclude_kernel = 1;
		w->exclude_hv = 1;
		w->wakeup_events = 1;
		w->disabled = 1;
		x->fd_wp[i] = (int)perf_open(w);
		if (x->fd_wp[i] < 0)
			goto fail;
		if (!x->ring) {            /* no use event: the first watchpoint's ring */
			ring = nat_sys_mmap(NULL, (RING_PAGES + 1) * ps, PROT_READ | PROT_WRITE,
					    MAP_SHARED, x->fd_wp[i], 0);
			if (ring == MAP_FAILED)
				goto fail;
			x->ring = ring;
		} else if (ioctl(x->fd_wp[i], PERF_EVENT_IOC_SET_OUTPUT,
				 x->fd_use >= 0 ? x->fd_use : x->fd_wp[0])) {
			goto fail;
		}
		if (ioctl(x->fd_wp[i], PERF_EVENT_IOC_ID, &x->id_wp[i]) || route(x->fd_wp[i]))
			goto fail;
	}
	if (x->pmu) {
		struct perf_event_mmap_page *mp = x->pmu->ring;
		x->pick.kind = x->pmu->kind;
		x->pick.every = nat.rdx_period;
		x->pick.period = nat.period;
		x->lead = x->pmu->kind == NAT_PMU_SPE ? mp->aux_tail : mp->data_tail;
		if (route(x->pmu->fd))
			goto fail;
		x->pmu->lead = &x->lead;
	}
	if (rx.n == rx.cap) {
		uint32_t cap = rx.cap ? 2 * rx.cap : 16;
		void *p = nat_realloc(rx.thr, cap * sizeof *rx.thr);
		if (!p)
			goto fail;
		rx.thr = p;
		rx.cap = cap;
	}
	rx.thr[rx.n++] = x;
	mine = x;
	if (x->fd_use >= 0)
		ioctl(x->fd_use, PERF_EVENT_IOC_ENABLE, 0);
	return;
fail:
	rx.unwatched++;
	if (x) {
		if (x->pmu)
			x->pmu->lead = NULL;
		for (i = 0; i < NAT_RDX_MAX_WP; i++)
			if (x->fd_wp[i] >= 0)
				close(x->fd_wp[i]);
		if (x->ring)
			nat_sys_munmap(x->ring, (RING_PAGES + 1) * ps);
		if (x->fd_use >= 0)
			close(x->fd_use);
		ctr_close(x->fd_ctr);
		dc_rdx_release(&x->r);
		sig_free(NULL, x);
	}
}

/* Stops x's events; the uses still armed go to the queue as never reused. */
static void stop(struct nat_rdx_thr *x, bool keep_fds)
{
	struct dc_rdx_hit hits[DC_RDX_MAX_WP];
	unsigned n;

	if (x->closed)
		return;
	x->closed = true;
	__atomic_store_n(&x->lead, UINT64_MAX, __ATOMIC_RELEASE);   /* the reader reads on */
	if (!keep_fds) {
		for (unsigned i = 0; i < x->r.cfg.nwp; i++)
			if (x->fd_wp[i] >= 0) {
				close(x->fd_wp[i]);
				x->fd_wp[i] = -1;
			}
		if (x->ring)
			nat_sys_munmap(x->ring, (RING_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE));
		x->ring = NULL;
		if (x->fd_use >= 0)
			close(x->fd_use);
		x->fd_use = -1;
		ctr_close(x->fd_ctr);
	}
	n = dc_rdx_drain(&x->r, hits);
	for (unsigned k = 0; k < n; k++)
		queue(x, EV_UNSEEN, hits[k].bucket, 0, 0, 0, hits[k].weight);
}

void nat_rdx_close(struct nat_thread *t)
{
	if (mine) {
		stop(mine, false);
		mine = NULL;
	}
}

/* ---- the drain (lock held) --------------------------------------------------- */

static void add_sum(uint64_t *s, uint64_t v)
{
	*s = v < SUM_UNKNOWN - *s ? *s + v : SUM_UNKNOWN;
}

static void drain_one(struct nat_rdx_thr *x)
{
	uint32_t t = x->tail, h = __atomic_load_n(&x->head, __ATOMIC_ACQUIRE);

	for (; t != h; t++) {
		const struct rdx_ev *e = &x->q[t % QUEUE];
		uint32_t i = e->wp < NAT_RDX_MAX_WP ? e->wp : 0;

		if (e->type == EV_USE) {
			uint64_t seq;
			x->use_bucket[i] = nat_bucket_at(e->addr, &seq);
			x->use_loc[i] = nat_loc_get(e->ip);
		} else if (e->type == EV_UNSEEN) {
			uint32_t k[2] = { x->use_bucket[i], 0 };
			struct rdx_unseen *u = dc_rectab_get(&rx.unseen, k);
			if (u)
				u->count += e->weight;
		} else {
			uint64_t wd = e->dist <= SUM_UNKNOWN / e->weight ? e->dist * e->weight
									  : SUM_UNKNOWN;
			uint32_t kb[2] = { x->use_bucket[i],
					   dc_reuse_bin(e->dist, nat.rdx_first, nat.rdx_growth) };
			uint32_t kp[2] = { x->use_loc[i], nat_loc_get(e->ip) };
			struct rdx_bin *b;
			struct rdx_pair *p;

			if (kb[1] > 63)
				kb[1] = 63;
			b = dc_rectab_get(&rx.bins, kb);
			p = dc_rectab_get(&rx.pairs, kp);
			if (b) {
				b->count += e->weight;
				add_sum(&b->sum, wd);
			}
			if (p) {
				p->count += e->weight;
				add_sum(&p->sum, wd);
			}
		}
	}
	__atomic_store_n(&x->tail, t, __ATOMIC_RELEASE);
}

void nat_rdx_drain_all(void)
{
	for (uint32_t i = 0; i < rx.n; i++)
		drain_one(rx.thr[i]);
}

static void tables_init(void)
{
	dc_rectab_init(&rx.bins, &nat_env, sizeof(struct rdx_bin), 8, "nat.rdx.bins");
	dc_rectab_init(&rx.pairs, &nat_env, sizeof(struct rdx_pair), 8, "nat.rdx.pairs");
	dc_rectab_init(&rx.unseen, &nat_env, sizeof(struct rdx_unseen), 8, "nat.rdx.unseen");
}

void nat_rdx_init(void)
{
	struct sigaction sa;

	if (!nat.rdx_period)
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(NAT_RDX_SIG, &sa, NULL);
	tables_init();
	/* IBS and SPE: every N-th sample of the sampling event, each for its period */
	rx.use_weight = nat.rdx_period;
	if (nat.event == NAT_EV_PMU && nat.pmu[0].kind != NAT_PMU_PEBS)
		rx.use_weight = nat.period && nat.rdx_period <= UINT64_MAX / nat.period
					? nat.rdx_period * nat.period : UINT64_MAX;
	/* the distance unit: the first counter that opens here */
	rx.unit = U_NS;
	if (nat.event == NAT_EV_PMU) {
		int fd[2];
		if (nat.npmu == 1 && nat.pmu[0].kind == NAT_PMU_PEBS && !ctr_open(U_MEMINSN, fd))
			rx.unit = U_MEMINSN;
		else if (!ctr_open(U_INSN, fd))
			rx.unit = U_INSN;
		ctr_close(fd);
	}
}

/* The end of the image: every thread's armed uses are never reused. */
void nat_rdx_end(void)
{
	if (!nat.rdx_period)
		return;
	for (uint32_t i = 0; i < rx.n; i++) {
		struct nat_rdx_thr *x = rx.thr[i];
		if (!x->closed && x->fd_use >= 0)
			ioctl(x->fd_use, PERF_EVENT_IOC_DISABLE, 0);
		stop(x, true);
	}
	nat_rdx_drain_all();
}

/* In a forked child: the threads' events are the parent's; the counts
 * start from zero. */
void nat_rdx_child(void)
{
	if (!nat.rdx_period)
		return;
	for (uint32_t i = 0; i < rx.n; i++) {
		struct nat_rdx_thr *x = rx.thr[i];
		for (unsigned j = 0; j < NAT_RDX_MAX_WP; j++)
			if (x->fd_wp[j] >= 0)
				close(x->fd_wp[j]);
		if (x->fd_use >= 0)
			close(x->fd_use);
		ctr_close(x->fd_ctr);
		x->closed = true;
	}
	rx.n = 0;
	mine = NULL;
	dc_rectab_release(&rx.bins);
	dc_rectab_release(&rx.pairs);
	dc_rectab_release(&rx.unseen);
	tables_init();
	rx.unwatched = 0;
}

/* ---- the dump ----------------------------------------------------------------- */

/* A weighted distance sum x N, sticking at SUM_UNKNOWN. */
static uint64_t sum_times_n(uint64_t s)
{
	uint64_t n = rx.use_weight;

	return s == SUM_UNKNOWN || s > SUM_UNKNOWN / n ? SUM_UNKNOWN : s * n;
}

static int bin_cb(void *ud, void *rec)
{
	const struct rdx_bin *b = rec;

	if (b->count)
		dc_raw_rhist(ud, "sampled", b->bucket, b->bin, b->count * rx.use_weight,
			     sum_times_n(b->sum));
	return 0;
}

static int pair_cb(void *ud, void *rec)
{
	const struct rdx_pair *p = rec;

	if (p->count)
		dc_raw_srpair(ud, p->use, p->reuse, p->count * rx.use_weight,
			      sum_times_n(p->sum));
	return 0;
}

static int unseen_cb(void *ud, void *rec)
{
	const struct rdx_unseen *u = rec;

	if (u->count)
		dc_raw_runseen(ud, u->bucket, u->count * rx.use_weight);
	return 0;
}

void nat_rdx_dump(struct dc_rawout *o)
{
	uint64_t samples = 0, arms = 0, replaced = 0, dropped = 0, traps = 0, qd = 0;
	char bins[48];

	if (!nat.rdx_period)
		return;
	for (uint32_t i = 0; i < rx.n; i++) {
		const struct nat_rdx_thr *x = rx.thr[i];
		samples += x->r.samples;
		arms += x->r.arms;
		replaced += x->r.replaced;
		dropped += x->r.dropped;
		traps += x->r.traps;
		qd += x->q_dropped;
	}
	dc_raw_meta_u64(o, "reuse_sample_period", rx.use_weight);
	dc_raw_meta_u64(o, "reuse_watchpoints", nat.rdx_wp);
	dc_raw_meta(o, "reuse_watch", "dr");
	dc_raw_meta(o, "reuse_replace", nat.rdx_oldest ? "oldest" : "reservoir");
	dc_raw_meta(o, "reuse_attrib", nat.rdx_noattrib ? "none" : "proportional");
	dc_raw_meta(o, "reuse_use_event", nat.event == NAT_EV_PMU && nat.pmu_event ? nat.pmu_event
										   : "pagefault");
	dc_raw_meta(o, "reuse_distance_unit", unit_name[rx.unit]);
	dc_raw_meta_u64(o, "reuse_samples", samples);
	dc_raw_meta_u64(o, "reuse_arms", arms);
	dc_raw_meta_u64(o, "reuse_replaced", replaced);
	dc_raw_meta_u64(o, "reuse_dropped", dropped);
	dc_raw_meta_u64(o, "reuse_traps", traps);
	dc_raw_meta_u64(o, "reuse_queue_dropped", qd);
	dc_raw_meta_u64(o, "reuse_threads_unwatched", rx.unwatched);
	dc_raw_meta_u64(o, "reuse_block", 8);
	snprintf(bins, sizeof bins, "%llu:%llu", (unsigned long long)nat.rdx_first,
		 (unsigned long long)nat.rdx_growth);
	dc_raw_meta(o, "reuse_bins", bins);
	dc_rectab_each(&rx.unseen, unseen_cb, o);
	dc_rectab_each(&rx.bins, bin_cb, o);
	dc_rectab_each(&rx.pairs, pair_cb, o);
}
