/* test_natring.c — the native runtime's ring readers (nat_ring.c) on
 * synthetic buffers: perf's data ring with records that wrap, a record cut
 * by data_head and PERF_RECORD_LOST; the AUX area's SPE records with
 * padding, wraparound, a cut record and a bad byte.  The records are the
 * decoders' own encodings (nat_pebs.c, nat_spe.c), decoded back by the
 * callback, so the bytes are the ones live sampling reads. */
#include <linux/perf_event.h>
#include <string.h>

#include "engine/native/nat.h"
#include "engine/native/nat_ring.h"
#include "unit.h"

struct seen {
	int n;
	uint64_t addr[16];
	size_t len[16];
	int spe;                  /* decode as SPE, else PEBS */
};

static void collect(void *ud, const unsigned char *rec, size_t len)
{
	struct seen *s = ud;
	struct nat_smp smp;
	int rc = s->spe ? nat_spe_decode(rec, len, 4096, &smp) : nat_pebs_decode(rec, len, &smp);

	if (s->n < 16) {
		s->addr[s->n] = rc ? 0 : smp.addr;
		s->len[s->n] = len;
	}
	s->n++;
}

/* Writes n bytes at ring offset pos (modulo size), wrapping. */
static void put(unsigned char *ring, uint64_t size, uint64_t pos, const void *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ring[(pos + i) % size] = ((const unsigned char *)src)[i];
}

static size_t pebs(uint64_t addr, unsigned char *buf)
{
	struct nat_smp s = { .ip = 0x401000, .tid = 7, .has_addr = true, .level = 1,
			     .addr = addr, .weight = 10007, .latency = 5 };

	return nat_pebs_encode(&s, buf, 256);
}

DC_TEST(natring, data_ring_wraps_lost_and_partial)
{
	unsigned char ring[256], rec[256];
	struct nat_ring_stats st = { 0 };
	struct seen s = { 0 };
	uint64_t pos = 1000, tail = 1000, head;   /* 1000 % 256 = 232: the first record wraps */
	size_t n = pebs(0x1000, rec);

	memset(ring, 0xee, sizeof ring);
	CHECK_EQ(n, (size_t)64);                  /* header 8 + 7 fields of 8 bytes */
	put(ring, sizeof ring, pos, rec, n);
	pos += n;
	/* PERF_RECORD_LOST {id, lost}: 24 bytes */
	struct perf_event_header lh = { PERF_RECORD_LOST, 0, 24 };
	uint64_t lost[2] = { 1, 7 };
	put(ring, sizeof ring, pos, &lh, sizeof lh);
	put(ring, sizeof ring, pos + 8, lost, 16);
	pos += 24;
	n = pebs(0x2000, rec);
	put(ring, sizeof ring, pos, rec, n);
	pos += n;
	n = pebs(0x3000, rec);
	put(ring, sizeof ring, pos, rec, n);
	/* head cuts the third sample after 40 of its 64 bytes */
	head = pos + 40;
	tail = nat_ring_read(ring, sizeof ring, tail, head, collect, &s, &st);
	CHECK_EQ(s.n, 2);
	CHECK_EQ(s.addr[0], (uint64_t)0x1000);
	CHECK_EQ(s.addr[1], (uint64_t)0x2000);
	CHECK_EQ(st.lost, (uint64_t)7);
	CHECK_EQ(tail, pos);                      /* stopped before the cut record */
	head = pos + 64;
	tail = nat_ring_read(ring, sizeof ring, tail, head, collect, &s, &st);
	CHECK_EQ(s.n, 3);
	CHECK_EQ(s.addr[2], (uint64_t)0x3000);
	CHECK_EQ(tail, head);
	CHECK_EQ(st.skipped, (uint64_t)0);
}

DC_TEST(natring, data_ring_corrupt_size_drops_the_rest)
{
	unsigned char ring[64] = { 0 };
	struct nat_ring_stats st = { 0 };
	struct seen s = { 0 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, 4 };   /* smaller than a header */

	memcpy(ring, &h, sizeof h);
	CHECK_EQ(nat_ring_read(ring, sizeof ring, 0, 32, collect, &s, &st), (uint64_t)32);
	CHECK_EQ(s.n, 0);
	CHECK_EQ(st.skipped, (uint64_t)1);
}

static size_t spe(uint64_t addr, unsigned char *buf)
{
	struct nat_smp s = { .ip = 0x400800, .tid = 9, .has_addr = true, .level = 2,
			     .addr = addr, .weight = 4096, .latency = 12, .time = 5 };

	return nat_spe_encode(&s, buf, 256);
}

DC_TEST(natring, aux_spe_records_pad_wrap_and_partial)
{
	unsigned char aux[128], rec[256];
	struct nat_ring_stats st = { 0 };
	struct seen s = { .spe = 1 };
	uint64_t pos = 100, tail = 100, head;
	size_t n = spe(0xa000, rec), n1 = n;
	static const unsigned char pad[6] = { 0 };

	/* PC 9, op type 2, events 3, context 5, latency 3, source 2, VA 9,
	 * timestamp 9: 42 bytes */
	CHECK_EQ(n, (size_t)42);
	memset(aux, 0xff, sizeof aux);
	put(aux, sizeof aux, pos, rec, n);        /* 100..141: wraps at 128 */
	pos += n;
	put(aux, sizeof aux, pos, pad, sizeof pad);
	pos += sizeof pad;
	n = spe(0xb000, rec);
	put(aux, sizeof aux, pos, rec, n);
	pos += n;
	head = pos - 10;                          /* the second record cut */
	tail = nat_aux_read(aux, sizeof aux, tail, head, collect, &s, &st);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(s.addr[0], (uint64_t)0xa000);
	CHECK_EQ(s.len[0], n1);
	CHECK_EQ(tail, (uint64_t)100 + n1);       /* the padding waits with its record */
	tail = nat_aux_read(aux, sizeof aux, tail, pos, collect, &s, &st);
	CHECK_EQ(s.n, 2);
	CHECK_EQ(s.addr[1], (uint64_t)0xb000);
	CHECK_EQ(s.len[1], sizeof pad + n);       /* leading padding is the record's */
	CHECK_EQ(tail, pos);
	CHECK_EQ(st.skipped, (uint64_t)0);
	/* padding alone up to head is consumed; a byte that is no packet
	 * header (0x80: none of the patterns) is skipped and counted */
	put(aux, sizeof aux, pos, pad, 4);
	tail = nat_aux_read(aux, sizeof aux, tail, pos + 4, collect, &s, &st);
	CHECK_EQ(tail, pos + 4);
	pos += 4;
	aux[pos % sizeof aux] = 0x80;
	n = spe(0xc000, rec);
	put(aux, sizeof aux, pos + 1, rec, n);
	tail = nat_aux_read(aux, sizeof aux, tail, pos + 1 + n, collect, &s, &st);
	CHECK_EQ(st.skipped, (uint64_t)1);
	CHECK_EQ(s.n, 3);
	CHECK_EQ(s.addr[2], (uint64_t)0xc000);
	CHECK_EQ(tail, pos + 1 + n);
}

DC_TEST(natring, spe_record_len_ends)
{
	unsigned char rec[64];
	int pad;
	size_t n = spe(0xd000, rec);

	CHECK_EQ(nat_spe_record_len(rec, n, &pad), (long)n);     /* ends at the timestamp */
	CHECK_EQ(pad, 0);
	CHECK_EQ(nat_spe_record_len(rec, n - 1, &pad), 0L);      /* timestamp cut */
	rec[0] = 0x01;                                            /* End packet alone */
	CHECK_EQ(nat_spe_record_len(rec, n, &pad), 1L);
}
