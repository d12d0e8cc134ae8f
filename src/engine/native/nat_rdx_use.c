/* nat_rdx_use.c — RDX use points from AMD IBS op samples and Arm SPE
 * records: which sampled access of a buffer is a use (nat_rdx.c).
 *
 * Notes (Q. Wang, X. Liu, M. Chabbi, "Featherlight Reuse-distance
 * Measurement", HPCA 2019, §IV: a use is a sampled access with its data
 * address):
 *  - A pure function of the bytes: the signal handler of nat_rdx.c calls
 *    it on the live buffers, the unit tests (tests/unit/test_natrdx.c) on
 *    synthetic ones.  It allocates nothing, takes no lock and does no I/O
 *    (async-signal-safe): the walk is nat_ring.c's, the decoding
 *    nat_ibs.c's and nat_spe.c's, which copy a wrapped record to the stack.
 *  - IBS: the sampling event's PERF_RECORD_SAMPLEs in the data ring; the
 *    use's address is IbsDcLinAd, its instruction IbsOpRip (perf's IP
 *    where IbsRipInvalid), for a load or store op with IbsDcLinAddrValid.
 *  - SPE: the records of the AUX area; the address is the data virtual
 *    address packet (index 2), the instruction the PC packet (index 0), for
 *    an operation of class load/store.
 *  - Every `every`-th record with a data address is a use; records without
 *    one (ops that are no load or store, an invalid address, other packets
 *    or records) are skipped without counting.  A kernel IP (IBS opened
 *    without exclude_kernel) is no use: a user-space watchpoint cannot
 *    watch a kernel address.
 *  - IBS and SPE tag the operation itself: the address and IP are the
 *    sampled op's, with no skid, as PEBS's.
 */
#include <linux/perf_event.h>

#include "engine/native/nat.h"
#include "engine/native/nat_ring.h"

struct walk {
	struct nat_rdx_pick *p;
	nat_use_fn fn;
	void *ud;
};

static void pick(struct walk *w, int rc, const struct nat_smp *s)
{
	if (rc || !s->has_addr || s->ip >> 63)
		return;
	if (++w->p->seen % w->p->every == 0)
		w->fn(w->ud, s->addr, s->ip);
}

static void on_ibs(void *ud, const unsigned char *rec, size_t len)
{
	const struct perf_event_header *h = (const void *)rec;
	struct nat_smp s;

	if (h->type == PERF_RECORD_SAMPLE)
		pick(ud, nat_ibs_decode(rec, len, &s), &s);
}

static void on_spe(void *ud, const unsigned char *rec, size_t len)
{
	struct walk *w = ud;
	struct nat_smp s;

	pick(w, nat_spe_decode(rec, len, w->p->period, &s), &s);
}

uint64_t nat_rdx_uses(struct nat_rdx_pick *p, const unsigned char *buf, uint64_t size,
		      uint64_t from, uint64_t head, nat_use_fn fn, void *ud)
{
	struct walk w = { p, fn, ud };
	struct nat_ring_stats st = { 0 };   /* the reader counts them */

	if (!p->every)
		return from;
	if (p->kind == NAT_PMU_SPE)
		return nat_aux_read(buf, size, from, head, on_spe, &w, &st);
	return nat_ring_read(buf, size, from, head, on_ibs, &w, &st);
}
