/* nat_pmu.c — live PEBS, IBS and SPE events: opened per thread as dcprof
 * record probed them, their rings read into the decoders.
 *
 * Notes:
 *  - DCPROF_NATIVE_PMU (set by record, src/cli/record_pmu.c, which built
 *    each perf_event_attr from sysfs and found the precise_ip that opens):
 *    one event per PMU, ';'-separated, each
 *    KIND:TYPE:CONFIG:CONFIG1:CONFIG2:PRECISE:EXCLUDE_KERNEL:LEADER with
 *    KIND pebs, ibs or spe, numbers in hex but TYPE, PRECISE and
 *    EXCLUDE_KERNEL, LEADER the config of Intel's mem-loads-aux group
 *    leader or "-".  The period is DCPROF_NATIVE_PERIOD; the sample_type
 *    is the kind's decoder's (core/smpfile.h).
 *  - Each thread opens every event (pid 0, cpu -1, as pagefault does); on
 *    a hybrid CPU a thread has one event per kind of core, of which only
 *    the one of the core it runs on counts.  A leader is a counting event
 *    (no samples) opened first, the sampling event in its group.  The
 *    reader thread polls the first event's ring; the second is read on the
 *    reader's 10 ms timer and at every drain.
 *  - PEBS and IBS write PERF_RECORD_SAMPLE into the data ring, decoded by
 *    nat_pebs.c and nat_ibs.c.  SPE writes its records into the AUX area
 *    (mapped after the data ring at aux_offset, aux_size), decoded by
 *    nat_spe.c with the period as weight; the data ring then holds
 *    PERF_RECORD_AUX, whose TRUNCATED flag is counted (meta
 *    samples_aux_truncated).  Both are read by nat_ring.c, the code the
 *    unit tests drive with synthetic buffers.
 *  - A decoded sample is the thread's (per-thread events: the record's tid
 *    is the thread) and goes to nat_sample, as replayed ones do.  IBS
 *    samples every op: ops that are no load or store are counted (meta
 *    samples_other), not attributed; each load or store sample stands for
 *    the period's ops, which makes samples x period an unbiased estimate
 *    of the accesses.  Samples with a kernel IP (IBS opened without
 *    exclude_kernel on kernels that refuse it) are counted (meta
 *    samples_kernel) and dropped.
 *  - None of this was run on hardware with these PMUs in this project's
 *    CI (docs/engine-native.md, "Live PMU events").
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/native/nat.h"
#include "engine/native/nat_ring.h"

#define RING_PAGES 64             /* data pages of a PEBS or IBS ring */
#define SPE_RING_PAGES 8          /* SPE's data ring holds only AUX records */
#define SPE_AUX_PAGES 64

static bool field_u64(const char **s, int base, uint64_t *v)
{
	char *end;

	*v = strtoull(*s, &end, base);
	if (end == *s || (*end != ':' && *end != ';' && *end))
		return false;
	*s = *end == ':' ? end + 1 : end;
	return true;
}

bool nat_pmu_configure(const char *spec)
{
	const char *s = spec;

	nat.npmu = 0;
	while (*s && nat.npmu < NAT_MAX_PMU) {
		struct nat_pmu *p = &nat.pmu[nat.npmu];
		uint64_t type, precise, excl;

		memset(p, 0, sizeof *p);
		if (!strncmp(s, "pebs:", 5))
			p->kind = NAT_PMU_PEBS;
		else if (!strncmp(s, "ibs:", 4))
			p->kind = NAT_PMU_IBS;
		else if (!strncmp(s, "spe:", 4))
			p->kind = NAT_PMU_SPE;
		else
			return false;
		s = strchr(s, ':') + 1;
		if (!field_u64(&s, 10, &type) || !field_u64(&s, 16, &p->config) ||
		    !field_u64(&s, 16, &p->config1) || !field_u64(&s, 16, &p->config2) ||
		    !field_u64(&s, 10, &precise) || !field_u64(&s, 10, &excl))
			return false;
		p->type = (uint32_t)type;
		p->precise_ip = (uint8_t)(precise & 3);
		p->exclude_kernel = excl != 0;
		if (*s == '-') {
			s++;
		} else {
			if (!field_u64(&s, 16, &p->leader))
				return false;
			p->has_leader = true;
		}
		if (*s == ';')
			s++;
		else if (*s)
			return false;
		nat.npmu++;
	}
	return nat.npmu > 0;
}

static int sys_open(struct perf_event_attr *a, int group)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static size_t ring_pages(uint8_t kind)
{
	return kind == NAT_PMU_SPE ? SPE_RING_PAGES : RING_PAGES;
}

static void close_one(struct nat_pmu_ring *r)
{
	if (r->aux)
		nat_sys_munmap(r->aux, SPE_AUX_PAGES * nat_page_size());
	if (r->ring)
		nat_sys_munmap(r->ring, (ring_pages(r->kind) + 1) * nat_page_size());
	if (r->fd >= 0)
		close(r->fd);
	if (r->leader_fd >= 0)
		close(r->leader_fd);
	r->fd = r->leader_fd = -1;
	r->ring = r->aux = NULL;
}

static int open_one(const struct nat_pmu *p, struct nat_pmu_ring *r)
{
	static const uint64_t sample_type[] = { NAT_PEBS_SAMPLE_TYPE, NAT_IBS_SAMPLE_TYPE,
						NAT_SPE_SAMPLE_TYPE };
	size_t pages = ring_pages(p->kind);
	struct perf_event_attr a;

	r->fd = r->leader_fd = -1;
	r->ring = r->aux = NULL;
	r->kind = p->kind;
	r->no_poll = false;
	r->lead = NULL;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = p->type;
	a.exclude_kernel = p->exclude_kernel;
	a.exclude_hv = p->exclude_kernel;
	if (p->has_leader) {
		a.config = p->leader;             /* counting: no period */
		r->leader_fd = sys_open(&a, -1);
		if (r->leader_fd < 0)
			return -1;
	}
	a.config = p->config;
	a.config1 = p->config1;
	a.config2 = p->config2;
	a.precise_ip = p->precise_ip;
	a.sample_period = nat.period;
	a.sample_type = sample_type[p->kind];
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(pages * nat_page_size() / 2);
	/* SPE: the reader is woken when the AUX area is half full, nat_rdx.c's
	 * handler (--reuse-sample) at every page, the least SPE interrupts at */
	if (p->kind == NAT_PMU_SPE)
		a.aux_watermark = (uint32_t)(nat.rdx_period ? nat_page_size()
							    : SPE_AUX_PAGES * nat_page_size() / 2);
	if (p->kind == NAT_PMU_IBS && nat.rdx_period) {   /* nat_rdx.c's handler: every sample */
		a.watermark = 0;
		a.wakeup_events = 1;
		r->no_poll = true;
	}
	r->fd = sys_open(&a, r->leader_fd);
	if (r->fd < 0)
		goto fail;
	r->ring = nat_sys_mmap(NULL, (pages + 1) * nat_page_size(), PROT_READ | PROT_WRITE,
			       MAP_SHARED, r->fd, 0);
	if (r->ring == MAP_FAILED) {
		r->ring = NULL;
		goto fail;
	}
	if (p->kind == NAT_PMU_SPE) {
		struct perf_event_mmap_page *mp = r->ring;
		mp->aux_offset = (pages + 1) * nat_page_size();
		mp->aux_size = SPE_AUX_PAGES * nat_page_size();
		r->aux = nat_sys_mmap(NULL, mp->aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
			      (off_t)mp->aux_offset);
		if (r->aux == MAP_FAILED) {
			r->aux = NULL;
			goto fail;
		}
	}
	return 0;
fail:
	close_one(r);
	return -1;
}

int nat_pmu_open(struct nat_thread *t)
{
	t->npmu = 0;
	t->fd = -1;
	for (uint32_t i = 0; i < nat.npmu; i++)
		if (!open_one(&nat.pmu[i], &t->pmu[t->npmu]))
			t->npmu++;
	if (!t->npmu)
		return -1;
	t->fd = t->pmu[0].fd;
	t->ring = t->pmu[0].ring;
	return 0;
}

void nat_pmu_close(struct nat_thread *t)
{
	for (uint32_t i = 0; i < t->npmu; i++)
		close_one(&t->pmu[i]);
	t->npmu = 0;
	t->fd = -1;
	t->ring = NULL;
}

/* In a forked child: the parent's events, whose rings the child has not
 * mapped (perf maps them VM_DONTCOPY); closed, not unmapped. */
void nat_pmu_forget(struct nat_thread *t)
{
	for (uint32_t i = 0; i < t->npmu; i++) {
		t->pmu[i].ring = t->pmu[i].aux = NULL;
		close_one(&t->pmu[i]);
	}
	t->npmu = 0;
	t->fd = -1;
	t->ring = NULL;
}

/* ---- reading ----------------------------------------------------------- */

struct reading {
	const struct nat_thread *t;
	uint8_t kind;
};

static void attribute(const struct reading *rd, int rc, struct nat_smp *s)
{
	if (rc) {
		nat.other_samples++;
		return;
	}
	if (s->ip >> 63) {
		nat.kernel_samples++;
		return;
	}
	s->thread = rd->t->num;
	nat_sample(s);
}

static void on_record(void *ud, const unsigned char *rec, size_t len)
{
	const struct reading *rd = ud;
	const struct perf_event_header *h = (const void *)rec;
	struct nat_smp s;

	if (h->type == PERF_RECORD_AUX) {
		/* aux_offset, aux_size, flags */
		if (len >= sizeof *h + 24 &&
		    nat_get64(rec + sizeof *h + 16) & PERF_AUX_FLAG_TRUNCATED)
			nat.aux_truncated++;
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE)
		return;
	if (rd->kind == NAT_PMU_PEBS)
		attribute(rd, nat_pebs_decode(rec, len, &s), &s);
	else if (rd->kind == NAT_PMU_IBS)
		attribute(rd, nat_ibs_decode(rec, len, &s), &s);
}

static void on_spe(void *ud, const unsigned char *rec, size_t len)
{
	struct nat_smp s;

	attribute(ud, nat_spe_decode(rec, len, nat.period, &s), &s);
}

void nat_pmu_drain(struct nat_thread *t)
{
	for (uint32_t i = 0; i < t->npmu; i++) {
		struct nat_pmu_ring *r = &t->pmu[i];
		struct perf_event_mmap_page *mp = r->ring;
		struct reading rd = { t, r->kind };
		struct nat_ring_stats st = { 0 };
		uint64_t lead = r->lead ? __atomic_load_n(r->lead, __ATOMIC_ACQUIRE) : UINT64_MAX;
		uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail;

		if (!r->aux && head > lead)
			head = lead;           /* what nat_rdx.c's handler has not read yet waits */
		tail = nat_ring_read((const unsigned char *)r->ring + nat_page_size(),
				     ring_pages(r->kind) * nat_page_size(), mp->data_tail, head,
				     on_record, &rd, &st);
		__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
		if (r->aux) {
			head = __atomic_load_n(&mp->aux_head, __ATOMIC_ACQUIRE);
			if (head > lead)
				head = lead;
			tail = nat_aux_read(r->aux, mp->aux_size, mp->aux_tail, head, on_spe, &rd,
					    &st);
			__atomic_store_n(&mp->aux_tail, tail, __ATOMIC_RELEASE);
		}
		nat.lost += st.lost;
		nat.ring_skipped += st.skipped;
	}
}
