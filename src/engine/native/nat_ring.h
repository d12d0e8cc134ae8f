/* nat_ring.h — reading perf's ring buffers (nat_ring.c): the data ring's
 * records and the AUX area's SPE records, from plain memory, so that the
 * live path and the unit tests run the same code on the same bytes. */
#ifndef DC_NAT_RING_H
#define DC_NAT_RING_H

#include <stddef.h>
#include <stdint.h>

/* One whole record, contiguous (copied out when it wraps). */
typedef void (*nat_rec_fn)(void *ud, const unsigned char *rec, size_t len);

struct nat_ring_stats {
	uint64_t lost;            /* PERF_RECORD_LOST: records the kernel dropped */
	uint64_t skipped;         /* records too big to copy out, malformed bytes */
};

#define NAT_RING_MAX_RECORD 1024  /* a record that wraps is copied out up to this */

/* Passes every record in data[tail, head) (offsets modulo size, a power
 * of two) but PERF_RECORD_LOST, which it counts, to fn; stops before a
 * record that is not wholly below head.  Returns the new tail. */
uint64_t nat_ring_read(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
		       nat_rec_fn fn, void *ud, struct nat_ring_stats *st);

/* The same for the SPE records of an AUX area: a record is a run of
 * packets (nat_spe_record_len); padding is skipped; a record cut by head
 * waits for the next read.  Returns the new tail. */
uint64_t nat_aux_read(const unsigned char *aux, uint64_t size, uint64_t tail, uint64_t head,
		      nat_rec_fn fn, void *ud, struct nat_ring_stats *st);

/* nat_spe.c: the length of the SPE record at p (n bytes available): > 0
 * its bytes up to and including its End or Timestamp packet, leading
 * padding included; 0 when it is cut short; with *pad set, the n bytes
 * are padding only; -1 for a byte that starts no packet. */
long nat_spe_record_len(const unsigned char *p, size_t n, int *pad);

#endif
