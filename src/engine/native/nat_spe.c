/* nat_spe.c — Arm SPE records (the packets of the arm_spe PMU's AUX
 * buffer) into the normalized sample.
 *
 * Notes:
 *  - A record is a run of packets ending with an End or a Timestamp packet
 *    (Arm Architecture Reference Manual for A-profile, chapter D10 "The
 *    Statistical Profiling Extension", "Packet headers").  The header byte
 *    names the packet; short headers carry a size code in bits 5:4 (1, 2,
 *    4 or 8 bytes) or imply it: Address 0b10110iii (8 bytes, index iii),
 *    Counter 0b10011iii (2 bytes), Events 0b01ss0010, Data source
 *    0b01ss0011, Context 0b01ss01ii, Operation type 0b01ss10cc, Timestamp
 *    0x71 (8), End 0x01, Padding 0x00; an extended header 0b001000hh
 *    before an Address or Counter header adds index bits hh << 3.
 *  - Used: Address index 0 (the instruction, bits 55:0) and 2 (the data
 *    virtual address, bits 55:0), Counter 0 (total latency, cycles),
 *    Operation type class 1 (load/store; payload bit 0: store), Events (bit
 *    2 L1D access, 3 L1D refill, 8 last-level cache access, 9 its miss),
 *    Data source, Context (CONTEXTIDR, which Linux sets to the thread id),
 *    Timestamp.  Other packets are skipped by their size.
 *  - The serving level: the Data source packet where there is one, in the
 *    encoding of Arm's Neoverse cores (as perf reads it: 0x0 L1D, 0x8 L2,
 *    0x9 a peer core, 0xa the local cluster, 0xb the system cache, 0xc a
 *    peer cluster: the last-level cache, L3; 0xd remote, 0xe DRAM:
 *    memory); else the Events: no L1D refill L1, a last-level miss
 *    memory, a last-level access L3, else L2.
 *  - A record has no period: SPE samples one operation every interval the
 *    session set, which the caller passes.
 */
#include <string.h>

#include "engine/native/nat.h"
#include "engine/native/nat_ring.h"

enum { ADDR_INS = 0, ADDR_DATA_VA = 2, CTR_TOTAL_LAT = 0 };
enum { EV_L1D_ACCESS = 2, EV_L1D_REFILL = 3, EV_LLC_ACCESS = 8, EV_LLC_MISS = 9 };
#define EV_RETIRED (1u << 1)

static uint64_t get_le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void put_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint8_t level_of_source(uint64_t src)
{
	switch (src) {
	case 0x0: return 1;
	case 0x8: return 2;
	case 0x9: case 0xa: case 0xb: case 0xc: return 3;
	case 0xd: case 0xe: return DC_SMP_MEM;
	default: return 0;
	}
}

static uint8_t level_of_events(uint64_t ev)
{
	if (!(ev & 1u << EV_L1D_REFILL))
		return 1;
	if (ev & 1u << EV_LLC_MISS)
		return DC_SMP_MEM;
	return ev & 1u << EV_LLC_ACCESS ? 3 : 2;
}

/* The packet header at rec[*i]: 0 padding, 1 End, 2 a packet of *n
 * payload bytes (header *h, extended index bits *ext) whose payload
 * starts at the new *i; -1 a byte that starts no packet, -2 cut short. */
static int header(const unsigned char *rec, size_t len, size_t *i, unsigned *h, unsigned *ext,
		  size_t *n)
{
	*h = rec[(*i)++];
	*ext = 0;
	if (*h == 0x00)
		return 0;
	if (*h == 0x01)
		return 1;
	if ((*h & 0xfc) == 0x20) {           /* extended header */
		if (*i == len)
			return -2;
		*ext = (*h & 3) << 3;
		*h = rec[(*i)++];
	}
	if (*h == 0x71 || (*h & 0xf8) == 0xb0)
		*n = 8;
	else if ((*h & 0xf8) == 0x98)
		*n = 2;
	else if ((*h & 0xc0) == 0x40)
		*n = (size_t)1 << ((*h >> 4) & 3);
	else
		return -1;
	return *n > len - *i ? -2 : 2;
}

long nat_spe_record_len(const unsigned char *p, size_t n, int *pad)
{
	size_t i = 0, lead = 0;

	*pad = 0;
	while (lead < n && p[lead] == 0x00)
		lead++;
	if (lead == n) {
		*pad = 1;
		return 0;
	}
	i = lead;
	while (i < n) {
		unsigned h, ext;
		size_t sz, at = i;
		int k = header(p, n, &i, &h, &ext, &sz);

		if (k == 1)
			return (long)i;
		if (k == -2)
			return 0;
		if (k == -1)            /* a record ends before a byte that is no packet */
			return at == lead ? -1 : (long)at;
		if (k == 2) {
			i += sz;
			if (h == 0x71)
				return (long)i;
		}
	}
	return 0;
}

int nat_spe_decode(const unsigned char *rec, size_t len, uint64_t period, struct nat_smp *s)
{
	bool has_ip = false, has_src = false, has_ev = false, ldst = false;
	uint64_t src = 0, ev = 0;
	size_t i = 0;

	memset(s, 0, sizeof *s);
	while (i < len) {
		unsigned h, ext;
		size_t n;
		int k = header(rec, len, &i, &h, &ext, &n);

		if (k == 0)
			continue;
		if (k == 1)
			break;
		if (k < 0)
			return -1;
		uint64_t v = get_le(rec + i, n);
		i += n;
		if (h == 0x71) {
			s->time = v;
			break;
		} else if ((h & 0xf8) == 0xb0) {
			unsigned idx = ext | (h & 7);
			if (idx == ADDR_INS) {
				s->ip = v & 0x00ffffffffffffffULL;
				has_ip = true;
			} else if (idx == ADDR_DATA_VA) {
				s->addr = v & 0x00ffffffffffffffULL;
				s->has_addr = true;
			}
		} else if ((h & 0xf8) == 0x98) {
			if ((ext | (h & 7)) == CTR_TOTAL_LAT)
				s->latency = (uint32_t)v;
		} else if ((h & 0xcf) == 0x42) {
			ev = v;
			has_ev = true;
		} else if ((h & 0xcf) == 0x43) {
			src = v;
			has_src = true;
		} else if ((h & 0xcc) == 0x44) {
			s->tid = (uint32_t)v;
		} else if ((h & 0xcc) == 0x48) {
			if ((h & 3) == 1) {
				ldst = true;
				s->is_write = v & 1;
			}
		}
	}
	if (!has_ip || !s->has_addr || !ldst || !period)
		return -1;
	s->weight = period;
	s->level = has_src ? level_of_source(src) : has_ev ? level_of_events(ev) : 0;
	return 0;
}

size_t nat_spe_encode(const struct nat_smp *s, unsigned char *buf, size_t cap)
{
	static const uint8_t source[6] = { 0, 0x0, 0x8, 0xb, 0, 0xe };
	uint8_t l = s->level <= DC_SMP_MEM ? s->level : 0;
	uint32_t ev = EV_RETIRED | 1u << EV_L1D_ACCESS;
	size_t k = 0;

	if (cap < 48)
		return 0;
	if (l != 1)
		ev |= 1u << EV_L1D_REFILL;
	if (l == 3 || l == DC_SMP_MEM)
		ev |= 1u << EV_LLC_ACCESS;
	if (l == DC_SMP_MEM)
		ev |= 1u << EV_LLC_MISS;
	buf[k++] = 0xb0 | ADDR_INS;        /* PC, EL0 (bits 62:61 zero), non-secure */
	put_le(buf + k, s->ip | 1ULL << 63, 8);
	k += 8;
	buf[k++] = 0x49;                   /* operation type: load/store */
	buf[k++] = s->is_write ? 1 : 0;
	buf[k++] = 0x52;                   /* events, 2 bytes */
	put_le(buf + k, ev, 2);
	k += 2;
	buf[k++] = 0x64;                   /* context: CONTEXTIDR_EL1 */
	put_le(buf + k, s->tid, 4);
	k += 4;
	buf[k++] = 0x98 | CTR_TOTAL_LAT;
	put_le(buf + k, s->latency > 0xffff ? 0xffff : s->latency, 2);
	k += 2;
	if (l) {
		buf[k++] = 0x43;               /* data source, 1 byte */
		buf[k++] = source[l];
	}
	buf[k++] = 0xb0 | ADDR_DATA_VA;
	put_le(buf + k, s->addr, 8);
	k += 8;
	buf[k++] = 0x71;                   /* timestamp: ends the record */
	put_le(buf + k, s->time, 8);
	k += 8;
	return k;
}
