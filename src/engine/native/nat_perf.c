/* nat_perf.c — perf_event_open per thread, its ring, and attribution.
 *
 * Notes:
 *  - pagefault: PERF_TYPE_SOFTWARE / PERF_COUNT_SW_PAGE_FAULTS with
 *    PERF_SAMPLE_IP | TID | TIME | ADDR, period 1 by default: the kernel
 *    reports every page fault of the thread with the faulting data address.
 *    A page counts once per object (the first fault: a read fault maps the
 *    zero page and the write after it faults again), so the count is the
 *    pages the object's code first touched — the first-touch placement
 *    question of NUMA.  Pages that the runtime's own code touches are not
 *    the program's: samples with an IP in the runtime are counted apart
 *    (meta samples_runtime).
 *  - cpu-clock: PERF_TYPE_SOFTWARE / PERF_COUNT_SW_CPU_CLOCK with
 *    PERF_SAMPLE_IP | TID | TIME, period in nanoseconds of CPU time: each
 *    sample adds the period to its code location (ipsamp).
 *  - exclude_kernel and exclude_hv: perf_event_paranoid 2 allows user-space
 *    events of the process's own threads, and only the program's code is
 *    wanted.  A page fault is a software event raised on behalf of the
 *    user-space access; its IP is that access's.
 *  - The ring: one header page and NAT_RING_PAGES data pages, read from
 *    data_tail to data_head (an acquire load of data_head, a release store
 *    of data_tail), records that wrap copied out whole.
 */
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/native/nat.h"

#define NAT_RING_PAGES 64

static size_t page_size(void)
{
	static size_t ps;

	if (!ps)
		ps = (size_t)sysconf(_SC_PAGESIZE);
	return ps;
}

int nat_perf_open(struct nat_thread *t)
{
	struct perf_event_attr a;
	size_t len;
	void *ring;
	int fd;

	if (nat.event == NAT_EV_REPLAY)
		return 0;
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
	a.wakeup_watermark = (uint32_t)(NAT_RING_PAGES * page_size() / 2);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	len = (NAT_RING_PAGES + 1) * page_size();
	ring = nat_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED) {
		close(fd);
		return -1;
	}
	t->fd = fd;
	t->ring = ring;
	return 0;
}

void nat_perf_close(struct nat_thread *t)
{
	if (t->fd < 0)
		return;
	nat_sys_munmap(t->ring, (NAT_RING_PAGES + 1) * page_size());
	close(t->fd);
	t->fd = -1;
	t->ring = NULL;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* One record of thread t's ring. */
static void record(const struct nat_thread *t, const unsigned char *rec, size_t len)
{
	const struct perf_event_header *h = (const void *)rec;
	const unsigned char *p = rec + sizeof *h;
	struct nat_smp s;

	if (h->type == PERF_RECORD_LOST && len >= sizeof *h + 16) {
		nat.lost += get64(p + 8);
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	memset(&s, 0, sizeof s);
	s.thread = t->num;
	s.weight = nat.period;
	/* IP, then TID (pid, tid), TIME, ADDR: the order of the sample_type bits */
	if (len < sizeof *h + 24 + (nat.event == NAT_EV_PAGEFAULT ? 8 : 0))
		return;
	s.ip = get64(p);
	if (nat.event == NAT_EV_PAGEFAULT) {
		s.has_addr = true;
		s.addr = get64(p + 24);
	}
	nat_sample(&s);
}

static void drain(struct nat_thread *t)
{
	struct perf_event_mmap_page *mp = t->ring;
	const unsigned char *data = (const unsigned char *)t->ring + page_size();
	uint64_t size = NAT_RING_PAGES * page_size();
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	unsigned char buf[256];

	while (tail < head) {
		uint64_t off = tail % size;
		struct perf_event_header h;

		if (off + sizeof h <= size) {
			memcpy(&h, data + off, sizeof h);
		} else {
			size_t first = (size_t)(size - off);
			memcpy(&h, data + off, first);
			memcpy((unsigned char *)&h + first, data, sizeof h - first);
		}
		if (h.size < sizeof h)
			break;
		if (h.size <= sizeof buf) {
			if (off + h.size <= size) {
				record(t, data + off, h.size);
			} else {
				size_t first = (size_t)(size - off);
				memcpy(buf, data + off, first);
				memcpy(buf + first, data, h.size - first);
				record(t, buf, h.size);
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

void nat_perf_drain_all(void)
{
	for (uint32_t i = 0; i < nat.nthreads; i++)
		if (nat.threads[i]->fd >= 0)
			drain(nat.threads[i]);
}

/* ---- attribution ----------------------------------------------------------- */

void nat_sample(const struct nat_smp *s)
{
	uint32_t loc, bucket;
	uint64_t seq;

	nat.samples++;
	if (s->ip >= nat.self_lo && s->ip < nat.self_hi) {
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
		uint64_t key = (s->addr >> 12) ^ (seq * 0x9e3779b97f4a7c15ULL);
		if (dc_blockset_add(&nat.touched, key) == 1) {
			uint32_t k[3] = { bucket, loc, s->thread };
			struct nat_ftouch *r = dc_rectab_get(&nat.ftouch, k);
			if (r)
				r->pages++;
		}
		return;
	}
	/* a data-address sample: the simulator's sampled-cost rule (costtab.h,
	 * dc_cost_count_n), the serving level from the sample's data source */
	struct dc_cost *c = dc_costtab_get(&nat.scosts, loc, bucket, s->thread);
	int served = s->served >= 1 && s->served <= nat.hier.nlevels + 1 ? s->served : 1;

	if (c)
		dc_cost_count_n(c, s->is_write, served, nat.lat, s->weight);
	else
		nat.unattributed++;
}
