/* test_natrdx.c — RDX use points from IBS and SPE buffers (nat_rdx_use.c)
 * on synthetic bytes.  The records are built here from the documented
 * layouts, not with the runtime's encoders:
 *  - IBS: a PERF_RECORD_SAMPLE of sample_type IP | TID | TIME | PERIOD |
 *    RAW (linux/perf_event.h, the order of the bits), RAW holding a u32 of
 *    capabilities and IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2,
 *    IbsOpData3, IbsDcLinAd, IbsDcPhysAd (arch/x86/events/amd/ibs.c); bits
 *    from AMD's Processor Programming Reference: IbsOpData bit 38
 *    IbsRipInvalid, IbsOpData3 bit 0 IbsLdOp, 1 IbsStOp, 17
 *    IbsDcLinAddrValid.
 *  - SPE: packets of the Arm ARM, chapter D10: Address 0b10110iii with 8
 *    payload bytes (index 0 the PC, 2 the data virtual address), Operation
 *    type 0b01ss10cc (class cc 01 load/store, 00 other, 10 branch), End
 *    0x01, padding 0x00.
 * The expected uses are the addresses and IPs put in: every `every`-th of
 * the records with a data address. */
#include <linux/perf_event.h>
#include <string.h>

#include "engine/native/nat.h"
#include "unit.h"

#define IBS_REC 104              /* header 8, IP/TID/TIME/PERIOD 32, size 4, raw 60 */

struct uses {
	int n;
	uint64_t addr[16], ip[16];
};

static void collect(void *ud, uint64_t addr, uint64_t ip)
{
	struct uses *u = ud;

	if (u->n < 16) {
		u->addr[u->n] = addr;
		u->ip[u->n] = ip;
	}
	u->n++;
}

static void le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* An IBS op sample: perf's IP pip, IbsOpRip rip, IbsOpData data,
 * IbsOpData3 d3, IbsDcLinAd lin. */
static void ibs(unsigned char *r, uint64_t pip, uint64_t rip, uint64_t data, uint64_t d3,
		uint64_t lin)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, IBS_REC };
	uint32_t raw_size = 60, caps = 0x5d;

	memset(r, 0, IBS_REC);
	memcpy(r, &h, sizeof h);
	le64(r + 8, pip);
	le64(r + 16, 7ULL << 32 | 7);      /* pid, tid */
	le64(r + 24, 1000);                /* time */
	le64(r + 32, 65536);               /* period */
	memcpy(r + 40, &raw_size, 4);
	memcpy(r + 44, &caps, 4);
	le64(r + 48 + 8, rip);             /* IbsOpRip (after IbsOpCtl) */
	le64(r + 48 + 16, data);           /* IbsOpData */
	le64(r + 48 + 32, d3);             /* IbsOpData3 */
	le64(r + 48 + 40, lin);            /* IbsDcLinAd */
}

#define LD (1ULL << 0)
#define ST (1ULL << 1)
#define LINV (1ULL << 17)
#define RIP_INVALID (1ULL << 38)

static void put(unsigned char *buf, uint64_t size, uint64_t pos, const unsigned char *src,
		size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[(pos + i) % size] = src[i];
}

DC_TEST(natrdx, ibs_every_nth_with_an_address)
{
	unsigned char ring[1024], r[IBS_REC];
	struct nat_rdx_pick p = { NAT_PMU_IBS, 2, 0, 65536 };
	struct uses u = { 0 };
	uint64_t pos = 0;
	/* 7 records; those with an address: 1 (load), 4 (store, RipInvalid:
	 * perf's IP), 5, 6 (load); every 2nd of them: 4 and 6 */
	static const struct { uint64_t pip, rip, data, d3, lin; } rec[7] = {
		{ 0x401000, 0x401001, 0, LD | LINV, 0x10000 },
		{ 0x401010, 0x401011, 0, 0, 0 },                     /* no load or store */
		{ 0x401020, 0x401021, 0, LD, 0x20000 },              /* address not valid */
		{ 0xffffffff81000000ULL, 0xffffffff81000000ULL, 0, LD | LINV,
		  0xffff888000000000ULL },                           /* kernel: no use */
		{ 0x401040, 0x401041, RIP_INVALID, ST | LINV, 0x40000 },
		{ 0x401050, 0x401051, 0, LD | LINV, 0x50000 },
		{ 0x401060, 0x401061, 0, LD | ST | LINV, 0x60000 },
	};

	for (int i = 0; i < 7; i++) {
		ibs(r, rec[i].pip, rec[i].rip, rec[i].data, rec[i].d3, rec[i].lin);
		put(ring, sizeof ring, pos, r, IBS_REC);
		pos += IBS_REC;
	}
	CHECK_EQ(nat_rdx_uses(&p, ring, sizeof ring, 0, pos, collect, &u), pos);
	CHECK_EQ(p.seen, 4u);
	CHECK_EQ(u.n, 2);
	CHECK_EQ(u.addr[0], 0x40000u);
	CHECK_EQ(u.ip[0], 0x401040u);      /* IbsRipInvalid: perf's IP */
	CHECK_EQ(u.addr[1], 0x60000u);
	CHECK_EQ(u.ip[1], 0x401061u);      /* IbsOpRip */
}

DC_TEST(natrdx, ibs_record_split_at_the_wrap_and_by_head)
{
	unsigned char ring[256], r[IBS_REC];
	struct nat_rdx_pick p = { NAT_PMU_IBS, 1, 0, 65536 };
	struct uses u = { 0 };
	uint64_t from = 200, pos = 200, got;   /* the first record: 56 bytes, then 48 */

	memset(ring, 0xee, sizeof ring);
	ibs(r, 0x401000, 0x402000, 0, LD | LINV, 0x7f0000001000ULL);
	put(ring, sizeof ring, pos, r, IBS_REC);
	pos += IBS_REC;
	ibs(r, 0x401000, 0x402008, 0, ST | LINV, 0x7f0000002000ULL);
	put(ring, sizeof ring, pos, r, IBS_REC);
	/* head inside the second record: only the first is read */
	got = nat_rdx_uses(&p, ring, sizeof ring, from, pos + 50, collect, &u);
	CHECK_EQ(got, pos);
	CHECK_EQ(u.n, 1);
	CHECK_EQ(u.addr[0], 0x7f0000001000ULL);
	CHECK_EQ(u.ip[0], 0x402000u);
	/* the rest written: the next read goes on from there */
	got = nat_rdx_uses(&p, ring, sizeof ring, got, pos + IBS_REC, collect, &u);
	CHECK_EQ(got, pos + IBS_REC);
	CHECK_EQ(u.n, 2);
	CHECK_EQ(u.addr[1], 0x7f0000002000ULL);
	CHECK_EQ(u.ip[1], 0x402008u);
}

/* An SPE record: PC, operation type of class cls (store st), the data
 * address when va is not 0, End; returns its bytes. */
static size_t spe(unsigned char *r, uint64_t pc, unsigned cls, int st, uint64_t va)
{
	size_t k = 0;

	r[k++] = 0xb0;                      /* Address, index 0: the PC */
	le64(r + k, pc | 1ULL << 63);       /* bit 63: non-secure */
	k += 8;
	r[k++] = (unsigned char)(0x48 | cls);
	r[k++] = (unsigned char)st;
	if (va) {
		r[k++] = 0xb2;              /* Address, index 2: data virtual address */
		le64(r + k, va);
		k += 8;
	}
	r[k++] = 0x01;                      /* End */
	return k;
}

DC_TEST(natrdx, spe_every_nth_load_store_with_an_address)
{
	unsigned char aux[512], r[32];
	struct nat_rdx_pick p = { NAT_PMU_SPE, 3, 0, 4096 };
	struct uses u = { 0 };
	uint64_t pos = 0;
	size_t n;
	/* load/store records with an address: 0, 2, 3, 5, 6, 7; the 3rd and
	 * 6th of them: records 3 and 7 */
	static const struct { uint64_t pc; unsigned cls; int st; uint64_t va; } rec[8] = {
		{ 0x400100, 1, 0, 0x1000 },
		{ 0x400104, 1, 0, 0 },            /* no data address */
		{ 0x400108, 1, 1, 0x2000 },
		{ 0x40010c, 1, 0, 0x3000 },
		{ 0x400110, 0, 0, 0x4000 },       /* class other */
		{ 0x400114, 1, 1, 0x5000 },
		{ 0x400118, 1, 0, 0x6000 },
		{ 0x40011c, 1, 1, 0x7000 },
	};

	memset(aux, 0, sizeof aux);             /* padding between records */
	for (int i = 0; i < 8; i++) {
		n = spe(r, rec[i].pc, rec[i].cls, rec[i].st, rec[i].va);
		put(aux, sizeof aux, pos, r, n);
		pos += n + (i == 4 ? 5 : 0);    /* 5 bytes of padding after the 5th */
	}
	CHECK_EQ(nat_rdx_uses(&p, aux, sizeof aux, 0, pos, collect, &u), pos);
	CHECK_EQ(p.seen, 6u);
	CHECK_EQ(u.n, 2);
	CHECK_EQ(u.addr[0], 0x3000u);
	CHECK_EQ(u.ip[0], 0x40010cu);       /* bits 55:0 of the PC packet */
	CHECK_EQ(u.addr[1], 0x7000u);
	CHECK_EQ(u.ip[1], 0x40011cu);
}

DC_TEST(natrdx, spe_record_split_at_the_wrap_and_by_head)
{
	unsigned char aux[64], r[32];
	struct nat_rdx_pick p = { NAT_PMU_SPE, 1, 0, 4096 };
	struct uses u = { 0 };
	uint64_t from = 40, got;
	size_t n = spe(r, 0x400200, 1, 0, 0x7f0000003000ULL);   /* 1 + 8 + 2 + 1 + 8 + 1 */

	CHECK_EQ(n, (size_t)21);
	memset(aux, 0xee, sizeof aux);
	put(aux, sizeof aux, from, r, n);       /* 40..60 */
	n = spe(r, 0x400204, 1, 1, 0x7f0000004000ULL);
	put(aux, sizeof aux, from + 21, r, n);  /* 61..81: wraps after 3 bytes */
	/* head cuts the second record: the first only */
	got = nat_rdx_uses(&p, aux, sizeof aux, from, from + 30, collect, &u);
	CHECK_EQ(got, from + 21);
	CHECK_EQ(u.n, 1);
	CHECK_EQ(u.addr[0], 0x7f0000003000ULL);
	got = nat_rdx_uses(&p, aux, sizeof aux, got, from + 42, collect, &u);
	CHECK_EQ(got, from + 42);
	CHECK_EQ(u.n, 2);
	CHECK_EQ(u.addr[1], 0x7f0000004000ULL);
	CHECK_EQ(u.ip[1], 0x400204u);
}
