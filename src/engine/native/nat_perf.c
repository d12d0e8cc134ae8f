/* nat_perf.c — perf_event_open per thread, its ring, and attribution.
 *
 * Notes:
 *  - pagefault: PERF_TYPE_SOFTWARE / PERF_COUNT_SW_PAGE_FAULTS with
 *    PERF_SAMPLE_IP | TID | TIME | ADDR, period 1 by default: the kernel
 *    reports every page fault of the thread with the faulting data address.
 *    A page counts once per object (the first fault: a read fault maps the
 *    zero page and the write after it faults again), so the count is the
 *    pages the object's code first touched — the first-touch placement
 *    question of NUMA.  Pages that the runtime touches are not the
 *    program's: samples with an IP in the runtime's code (its memset and
 *    memcpy included, nat_mem.c) or in a library loaded only for it
 *    (nat_deps.c) are counted apart (meta samples_runtime).
 *  - cpu-clock: PERF_TYPE_SOFTWARE / PERF_COUNT_SW_CPU_CLOCK with
 *    PERF_SAMPLE_IP | TID | TIME, period in nanoseconds of CPU time: each
 *    sample adds the period to its code location (ipsamp).
 *  - exclude_kernel and exclude_hv: perf_event_paranoid 2 allows user-space
 *    events of the process's own threads, and only the program's code is
 *    wanted.  A page fault is a software event raised on behalf of the
 *    user-space access; its IP is that access's.
 *  - Data-address samples (PEBS, IBS, SPE; live or from --replay) are
 *    charged as the simulator charges its samples (dc_cost_count_n): the
 *    period to the access count, a miss at each level above the one that
 *    served the access, and period x latency, the record's measured
 *    latency where it has one, else the serving level's (--latency).
 *  - The ring: one header page and ring_pages() data pages, read from
 *    data_tail to data_head (an acquire load of data_head, a release store
 *    of data_tail) by nat_ring.c, records that wrap copied out whole.
 *    Its size follows the event's sample rate: page faults (one sample per
 *    fault at the default period, up to about a million a second for a
 *    thread that touches fresh memory) keep 64 pages, whose half — the
 *    reader's wake-up — is ~3300 samples of 40 bytes, a few milliseconds;
 *    cpu-clock gets 100 ms of its samples (32 bytes a sample, one per
 *    period of CPU time), at least 4 pages: 4 at the default 1 ms, while
 *    the reader drains every 10 ms.  The kernel charges ring pages to the
 *    user's perf_event_mlock_kb (516 KiB by default; beyond it to
 *    RLIMIT_MEMLOCK), not to the program's resident set, so a smaller
 *    ring is what lets many threads open their events.
 *  - PEBS, IBS and SPE events (NAT_EV_PMU) are nat_pmu.c's: opened, closed
 *    and read there, attributed here.
 */
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/native/nat.h"
#include "engine/native/nat_ring.h"

#define NAT_RING_PAGES 64         /* page faults: see the Notes */
#define CLOCK_RING_MIN 4
#define CLOCK_RECORD 32           /* header, IP, TID, TIME */

size_t nat_page_size(void)
{
	static size_t ps;

	if (!ps)
		ps = (size_t)sysconf(_SC_PAGESIZE);
	return ps;
}

/* Data pages of a ring (a power of two, as the kernel wants). */
static size_t ring_pages(void)
{
	uint64_t bytes, pages = CLOCK_RING_MIN;

	if (nat.event != NAT_EV_CPUCLOCK)
		return NAT_RING_PAGES;
	/* 100 ms of samples: 1e8 ns over the period in ns */
	bytes = 100000000ULL / nat.period * CLOCK_RECORD;
	while (pages < NAT_RING_PAGES && pages * nat_page_size() < bytes)
		pages *= 2;
	return (size_t)pages;
}

int nat_perf_open(struct nat_thread *t)
{
	struct perf_event_attr a;
	size_t len;
	void *ring;
	int fd;

	if (nat.event == NAT_EV_REPLAY)
		return 0;
	if (nat.event == NAT_EV_PMU) {
		if (nat_pmu_open(t))
			return -1;
		nat_rdx_open(t);
		return 0;
	}
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = nat.event == NAT_EV_CPUCLOCK ? PERF_COUNT_SW_CPU_CLOCK
						: PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = nat.period;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (nat.event == NAT_EV_PAGEFAULT)
		a.sample_type |= PERF_SAMPLE_ADDR;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(ring_pages() * nat_page_size() / 2);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	len = (ring_pages() + 1) * nat_page_size();
	ring = nat_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		close(fd);
		return -1;
	}
	t->fd = fd;
	t->ring = ring;
	nat_rdx_open(t);
	return 0;
}

void nat_perf_close(struct nat_thread *t)
{
	nat_rdx_close(t);
	if (nat.event == NAT_EV_PMU) {
		nat_pmu_close(t);
		return;
	}
	if (t->fd < 0)
		return;
	nat_sys_munmap(t->ring, (ring_pages() + 1) * nat_page_size());
	close(t->fd);
	t->fd = -1;
	t->ring = NULL;
}

/* One record of thread t's ring (LOST ones nat_ring_read counts). */
static void record(void *ud, const unsigned char *rec, size_t len)
{
	const struct nat_thread *t = ud;
	const struct perf_event_header *h = (const void *)rec;
	const unsigned char *p = rec + sizeof *h;
	struct nat_smp s;

	if (h->type != PERF_RECORD_SAMPLE)
		return;
	memset(&s, 0, sizeof s);
	s.thread = t->num;
	s.weight = nat.period;
	/* IP, then TID (pid, tid), TIME, ADDR: the order of the sample_type bits */
	if (len < sizeof *h + 24 + (nat.event == NAT_EV_PAGEFAULT ? 8 : 0))
		return;
	s.ip = nat_get64(p);
	if (nat.event == NAT_EV_PAGEFAULT) {
		s.has_addr = true;
		s.addr = nat_get64(p + 24);
	}
	nat_sample(&s);
}

static void drain(struct nat_thread *t)
{
	struct perf_event_mmap_page *mp = t->ring;
	struct nat_ring_stats st = { 0 };
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = nat_ring_read((const unsigned char *)t->ring + nat_page_size(),
				      ring_pages() * nat_page_size(), mp->data_tail, head,
				      record, t, &st);

	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	nat.lost += st.lost;
	nat.ring_skipped += st.skipped;
}

void nat_perf_drain_all(void)
{
	for (uint32_t i = 0; i < nat.nthreads; i++)
		if (nat.threads[i]->fd >= 0) {
			if (nat.event == NAT_EV_PMU)
				nat_pmu_drain(nat.threads[i]);
			else
				drain(nat.threads[i]);
		}
	nat_rdx_drain_all();
}

/* ---- attribution ----------------------------------------------------------- */

/* The key of a page first touched in the object of identity ident
 * (nat_bucket_at's): a page counts once per object. */
static uint64_t touch_key(uint64_t page, uint64_t ident)
{
	return page ^ (ident * 0x9e3779b97f4a7c15ULL);
}

/* The compact map's blocks have no sequence number to tell a later block
 * at the same place from the one that ended: the pages of the one that
 * ended are forgotten instead (at most 2 for DC_BLOCKMAP_MAX bytes). */
void nat_perf_block_gone(uint64_t lo, uint64_t size)
{
	uint64_t last = (lo + (size ? size : 1) - 1) >> 12;

	if (nat.event != NAT_EV_PAGEFAULT || !nat.touched.n)
		return;
	for (uint64_t page = lo >> 12; page <= last; page++)
		dc_blockset_remove(&nat.touched, touch_key(page, nat_small_ident(lo)));
}

void nat_sample(const struct nat_smp *s)
{
	uint32_t loc, bucket;
	uint64_t seq;

	nat.samples++;
	if (nat_runtime_ip(s->ip)) {
		nat.runtime_samples++;
		return;
	}
	loc = nat_loc_get(s->ip);
	if (!s->has_addr) {
		uint32_t key[2] = { loc, s->thread };
		struct nat_ipsamp *r = dc_rectab_get(&nat.ipsamp, key);
		if (r)
			r->count += s->weight;
		return;
	}
	bucket = nat_bucket_at(s->addr, &seq);
	if (nat.event == NAT_EV_PAGEFAULT) {
		/* a page counts again for a later block at the same place */
		if (dc_blockset_add(&nat.touched, touch_key(s->addr >> 12, seq)) == 1) {
			uint32_t k[3] = { bucket, loc, s->thread };
			struct nat_ftouch *r = dc_rectab_get(&nat.ftouch, k);
			if (r)
				r->pages++;
		}
		return;
	}
	/* a data-address sample: the simulator's sampled-cost rule (costtab.h,
	 * dc_cost_count_n): the serving level from the sample's data source
	 * (memory, or a level below the hierarchy's last: a miss in all of
	 * them), its latency the record's own when it has one */
	struct dc_cost *c = dc_costtab_get(&nat.scosts, loc, bucket, s->thread);
	int n = nat.hier.nlevels;
	int served = !s->level ? 1 : s->level == DC_SMP_MEM || s->level > n ? n + 1 : s->level;
	uint32_t lat[DC_MAX_LEVELS + 2];

	if (!c) {
		nat.unattributed++;
		return;
	}
	memcpy(lat, nat.lat, sizeof lat);
	if (s->latency)
		lat[served] = s->latency;
	dc_cost_count_n(c, s->is_write, served, lat, s->weight);
}

uint32_t nat_thread_num(uint32_t tid)
{
	for (uint32_t i = 0; i < nat.nthreads; i++)
		if ((uint32_t)nat.threads[i]->tid == tid)
			return nat.threads[i]->num;
	return 0;
}
