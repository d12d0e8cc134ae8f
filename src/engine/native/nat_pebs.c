/* nat_pebs.c — Intel PEBS samples (mem-loads load latency, mem-stores) as
 * perf writes them, into the normalized sample.
 *
 * Notes:
 *  - The record is a PERF_RECORD_SAMPLE with NAT_PEBS_SAMPLE_TYPE: IP,
 *    pid/tid, time, ADDR (the data address), PERIOD, WEIGHT (the load's
 *    latency in cycles; 0 for stores) and DATA_SRC, in that order (the
 *    order of the sample_type bits; linux/perf_event.h,
 *    "PERF_RECORD_SAMPLE").
 *  - DATA_SRC is union perf_mem_data_src: mem_op says load or store; the
 *    level is mem_lvl_num where the kernel fills it (L1..L4, RAM, PMEM,
 *    CXL), else the older mem_lvl bits (L1, LFB, L2, L3, local and remote
 *    RAM, remote caches).  A line-fill-buffer hit (LFB: the line was
 *    already on its way after an L1 miss) and an L1 "miss" with no deeper
 *    level (mem-stores reports only L1 hit or miss) count as served by
 *    L2: the access missed L1 and the rest is not known.  Remote caches
 *    and memory are memory.
 */
#include <string.h>

#include "engine/native/nat.h"

_Static_assert(NAT_PEBS_SAMPLE_TYPE == (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				      PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |
				      PERF_SAMPLE_DATA_SRC), "core/smpfile.h's PEBS bits");

#define REC_SIZE (sizeof(struct perf_event_header) + 7 * 8)

static uint8_t level_of(uint64_t src)
{
	uint64_t lvl = (src >> PERF_MEM_LVL_SHIFT) & 0x3fff;
	uint64_t num = (src >> PERF_MEM_LVLNUM_SHIFT) & 0xf;

	switch (num) {
	case PERF_MEM_LVLNUM_L1: return 1;
	case PERF_MEM_LVLNUM_L2: return 2;
	case PERF_MEM_LVLNUM_L3: return 3;
	case PERF_MEM_LVLNUM_L4: return 4;
	case PERF_MEM_LVLNUM_LFB: return 2;
	case PERF_MEM_LVLNUM_RAM:
	case PERF_MEM_LVLNUM_PMEM:
	case PERF_MEM_LVLNUM_CXL:
	case PERF_MEM_LVLNUM_IO: return DC_SMP_MEM;
	default: break;
	}
	if (lvl & (PERF_MEM_LVL_LOC_RAM | PERF_MEM_LVL_REM_RAM1 | PERF_MEM_LVL_REM_RAM2 |
		   PERF_MEM_LVL_REM_CCE1 | PERF_MEM_LVL_REM_CCE2 | PERF_MEM_LVL_IO |
		   PERF_MEM_LVL_UNC))
		return DC_SMP_MEM;
	if (lvl & PERF_MEM_LVL_L3)
		return 3;
	if (lvl & (PERF_MEM_LVL_L2 | PERF_MEM_LVL_LFB))
		return 2;
	if (lvl & PERF_MEM_LVL_L1)
		return lvl & PERF_MEM_LVL_MISS ? 2 : 1;
	return 0;
}

int nat_pebs_decode(const unsigned char *rec, size_t len, struct nat_smp *s)
{
	struct perf_event_header h;
	const unsigned char *p = rec + sizeof h;
	uint64_t src, op;

	if (len < REC_SIZE)
		return -1;
	memcpy(&h, rec, sizeof h);
	if (h.type != PERF_RECORD_SAMPLE || h.size < REC_SIZE || h.size > len)
		return -1;
	src = nat_get64(p + 48);
	op = (src >> PERF_MEM_OP_SHIFT) & 0x1f;
	if (!(op & (PERF_MEM_OP_LOAD | PERF_MEM_OP_STORE)))
		return -1;
	memset(s, 0, sizeof *s);
	s->ip = nat_get64(p);
	s->tid = (uint32_t)(nat_get64(p + 8) >> 32);
	s->time = nat_get64(p + 16);
	s->addr = nat_get64(p + 24);
	s->has_addr = true;
	s->weight = nat_get64(p + 32);
	s->latency = (uint32_t)nat_get64(p + 40);
	s->is_write = (op & PERF_MEM_OP_STORE) != 0;
	s->level = level_of(src);
	return s->weight ? 0 : -1;
}

size_t nat_pebs_encode(const struct nat_smp *s, unsigned char *buf, size_t cap)
{
	static const uint64_t lvl[6] = { PERF_MEM_LVL_NA, PERF_MEM_LVL_L1, PERF_MEM_LVL_L2,
					 PERF_MEM_LVL_L3, PERF_MEM_LVL_NA, PERF_MEM_LVL_LOC_RAM };
	static const uint64_t num[6] = { PERF_MEM_LVLNUM_NA, PERF_MEM_LVLNUM_L1,
					 PERF_MEM_LVLNUM_L2, PERF_MEM_LVLNUM_L3,
					 PERF_MEM_LVLNUM_L4, PERF_MEM_LVLNUM_RAM };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, REC_SIZE };
	unsigned char *p = buf + sizeof h;
	uint8_t l = s->level <= DC_SMP_MEM ? s->level : 0;
	uint64_t op = s->is_write ? PERF_MEM_OP_STORE : PERF_MEM_OP_LOAD;
	uint64_t src = op << PERF_MEM_OP_SHIFT |
		       (lvl[l] | (l ? PERF_MEM_LVL_HIT : 0)) << PERF_MEM_LVL_SHIFT |
		       num[l] << PERF_MEM_LVLNUM_SHIFT;

	if (cap < REC_SIZE)
		return 0;
	memcpy(buf, &h, sizeof h);
	nat_put64(p, s->ip);
	/* pid (the process: the replay has none of its own) and tid */
	nat_put64(p + 8, (uint64_t)s->tid << 32 | s->tid);
	nat_put64(p + 16, s->time);
	nat_put64(p + 24, s->addr);
	nat_put64(p + 32, s->weight);
	nat_put64(p + 40, s->latency);
	nat_put64(p + 48, src);
	return REC_SIZE;
}
