/* nat_ibs.c — AMD IBS op samples (the ibs_op PMU's PERF_SAMPLE_RAW
 * records) into the normalized sample.
 *
 * Notes:
 *  - The record is a PERF_RECORD_SAMPLE with NAT_IBS_SAMPLE_TYPE: IP,
 *    pid/tid, time, PERIOD, then RAW: a u32 size and the driver's data, a
 *    u32 of IBS capabilities and the op registers as the kernel reads them
 *    (arch/x86/events/amd/ibs.c): IbsOpCtl, IbsOpRip, IbsOpData,
 *    IbsOpData2, IbsOpData3, IbsDcLinAd, IbsDcPhysAd (more may follow).
 *  - Field meanings from AMD's Processor Programming Reference (MSRs
 *    C001_1033..C001_1038): IbsOpData bit 38 IbsRipInvalid (then perf's
 *    IP stands); IbsOpData3 bit 0 IbsLdOp, 1 IbsStOp, 7 IbsDcMiss, 17
 *    IbsDcLinAddrValid, 20 IbsL2Miss, 32..47 IbsDcMissLat (cycles, valid
 *    on a DC miss); IbsOpData2 bits 0..2 and 6..7 DataSrc, valid after an
 *    L2 miss.
 *  - The serving level: no DC miss: L1; a DC miss without an L2 miss: L2;
 *    after an L2 miss, DataSrc 1 (the local CCX's L3), 2 (a near CCX's
 *    cache) and 5 (a far CCX's): the last-level cache, L3; anything else
 *    (DRAM 3, persistent or extension memory, a peer agent, I/O):
 *    memory.  Older families' codes (2 local cache, 4 remote cache) read
 *    the same way where they agree.
 *  - An op that is neither load nor store, or whose linear address is not
 *    valid, is no data sample.
 *  - The period is perf's PERIOD (the op counter's MaxCnt the session
 *    set); IbsOpCtl's own MaxCnt field holds it too, in units of 16 ops.
 */
#include <string.h>

#include "engine/native/nat.h"

_Static_assert(NAT_IBS_SAMPLE_TYPE == (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				     PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW), "core/smpfile.h's IBS bits");

#define NREGS 7
#define RAW_SIZE (4 + NREGS * 8)
#define REC_SIZE (sizeof(struct perf_event_header) + 4 * 8 + 4 + RAW_SIZE)

enum { OP_CTL, OP_RIP, OP_DATA, OP_DATA2, OP_DATA3, DC_LINAD, DC_PHYSAD };

#define OPDATA_RIP_INVALID (1ULL << 38)
#define D3_LD_OP (1ULL << 0)
#define D3_ST_OP (1ULL << 1)
#define D3_DC_MISS (1ULL << 7)
#define D3_LIN_VALID (1ULL << 17)
#define D3_L2_MISS (1ULL << 20)
#define D3_MISS_LAT_SHIFT 32
#define CTL_OP_EN (1ULL << 17)
#define CTL_OP_VAL (1ULL << 18)
/* capabilities: available, op sampling, op counting, MaxCnt extension */
#define CAPS 0x5d

static uint8_t level_of(uint64_t d2, uint64_t d3)
{
	unsigned src = (unsigned)((d2 & 7) | ((d2 >> 6) & 3) << 3);

	if (!(d3 & D3_DC_MISS))
		return 1;
	if (!(d3 & D3_L2_MISS))
		return 2;
	return src == 1 || src == 2 || src == 5 ? 3 : DC_SMP_MEM;
}

int nat_ibs_decode(const unsigned char *rec, size_t len, struct nat_smp *s)
{
	struct perf_event_header h;
	const unsigned char *p = rec + sizeof h, *raw;
	uint64_t r[NREGS];
	uint32_t raw_size;

	if (len < REC_SIZE)
		return -1;
	memcpy(&h, rec, sizeof h);
	memcpy(&raw_size, p + 32, 4);
	if (h.type != PERF_RECORD_SAMPLE || h.size > len || raw_size < RAW_SIZE ||
	    raw_size > h.size - sizeof h - 36)
		return -1;
	raw = p + 36 + 4;        /* the size, then the capabilities word */
	for (int i = 0; i < NREGS; i++)
		r[i] = nat_get64(raw + 8 * i);
	if (!(r[OP_DATA3] & (D3_LD_OP | D3_ST_OP)) || !(r[OP_DATA3] & D3_LIN_VALID))
		return -1;
	memset(s, 0, sizeof *s);
	s->ip = r[OP_DATA] & OPDATA_RIP_INVALID ? nat_get64(p) : r[OP_RIP];
	s->tid = (uint32_t)(nat_get64(p + 8) >> 32);
	s->time = nat_get64(p + 16);
	s->weight = nat_get64(p + 24);
	s->has_addr = true;
	s->addr = r[DC_LINAD];
	s->is_write = (r[OP_DATA3] & D3_ST_OP) != 0;
	s->level = level_of(r[OP_DATA2], r[OP_DATA3]);
	if (r[OP_DATA3] & D3_DC_MISS)
		s->latency = (uint32_t)((r[OP_DATA3] >> D3_MISS_LAT_SHIFT) & 0xffff);
	return s->weight ? 0 : -1;
}

size_t nat_ibs_encode(const struct nat_smp *s, unsigned char *buf, size_t cap)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, REC_SIZE };
	unsigned char *p = buf + sizeof h, *raw = p + 36;
	uint64_t r[NREGS] = { 0 };
	uint32_t raw_size = RAW_SIZE, caps = CAPS;
	uint64_t maxcnt = s->weight >> 4;

	if (cap < REC_SIZE)
		return 0;
	r[OP_CTL] = (maxcnt & 0xffff) | ((maxcnt >> 16) & 0x7f) << 20 | CTL_OP_EN | CTL_OP_VAL;
	r[OP_RIP] = s->ip;
	r[DC_LINAD] = s->addr;
	r[OP_DATA3] = (s->is_write ? D3_ST_OP : D3_LD_OP) | D3_LIN_VALID;
	if (s->level != 1) {
		r[OP_DATA3] |= D3_DC_MISS | (uint64_t)(s->latency & 0xffff) << D3_MISS_LAT_SHIFT;
		if (s->level != 2) {
			r[OP_DATA3] |= D3_L2_MISS;
			r[OP_DATA2] = s->level == 3 ? 1 : 3;   /* local CCX cache, DRAM */
		}
	}
	memcpy(buf, &h, sizeof h);
	nat_put64(p, s->ip);
	nat_put64(p + 8, (uint64_t)s->tid << 32 | s->tid);
	nat_put64(p + 16, s->time);
	nat_put64(p + 24, s->weight);
	memcpy(p + 32, &raw_size, 4);
	memcpy(raw, &caps, 4);
	for (int i = 0; i < NREGS; i++)
		nat_put64(raw + 4 + 8 * i, r[i]);
	return REC_SIZE;
}
