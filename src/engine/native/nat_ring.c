/* nat_ring.c — perf's data ring and AUX area read as memory.
 *
 * Notes:
 *  - The data ring (linux/perf_event.h, struct perf_event_mmap_page): the
 *    kernel writes records at data_head, the reader consumes from
 *    data_tail; offsets grow without bound and wrap modulo the data size
 *    (a power of two of pages).  A record starts with its
 *    perf_event_header, whose size is the whole record's; a record may
 *    wrap past the end of the data area: it is copied out whole.  The
 *    caller loads data_head with acquire order and stores the returned
 *    tail with release order.
 *  - PERF_RECORD_LOST {id, lost}: the kernel dropped `lost` records when
 *    the ring was full; counted here, never passed on.
 *  - The AUX area (aux_head, aux_tail) holds what an AUX PMU writes, for
 *    Arm SPE a stream of records of packets (nat_spe.c); the data ring
 *    then carries PERF_RECORD_AUX {aux_offset, aux_size, flags}, whose
 *    TRUNCATED flag says the area filled and data was lost (counted by
 *    the caller, nat_pmu.c).  SPE pads to its
 *    alignment with 0x00 bytes.  A record cut by aux_head is left for the
 *    next read; a byte that starts no packet is skipped and counted.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "engine/native/nat_ring.h"

/* n bytes at offset off of a ring of size bytes, into buf. */
static void copy_out(const unsigned char *data, uint64_t size, uint64_t off, unsigned char *buf,
		     size_t n)
{
	size_t first = (size_t)(size - off) < n ? (size_t)(size - off) : n;

	memcpy(buf, data + off, first);
	memcpy(buf + first, data, n - first);
}

uint64_t nat_ring_read(const unsigned char *data, uint64_t size, uint64_t tail, uint64_t head,
		       nat_rec_fn fn, void *ud, struct nat_ring_stats *st)
{
	unsigned char buf[NAT_RING_MAX_RECORD];

	while (head - tail >= sizeof(struct perf_event_header)) {
		uint64_t off = tail & (size - 1);
		struct perf_event_header h;
		const unsigned char *rec;

		copy_out(data, size, off, (unsigned char *)&h, sizeof h);
		if (h.size < sizeof h) {          /* corrupt: drop the rest */
			st->skipped++;
			return head;
		}
		if (h.size > head - tail)
			break;                        /* not wholly written yet */
		if (h.size > sizeof buf) {
			st->skipped++;
		} else {
			if (off + h.size <= size) {
				rec = data + off;
			} else {
				copy_out(data, size, off, buf, h.size);
				rec = buf;
			}
			if (h.type == PERF_RECORD_LOST) {
				uint64_t lost = 0;
				if (h.size >= sizeof h + 16)
					memcpy(&lost, rec + sizeof h + 8, 8);
				st->lost += lost;
			} else {
				fn(ud, rec, h.size);
			}
		}
		tail += h.size;
	}
	return tail;
}

uint64_t nat_aux_read(const unsigned char *aux, uint64_t size, uint64_t tail, uint64_t head,
		      nat_rec_fn fn, void *ud, struct nat_ring_stats *st)
{
	unsigned char buf[NAT_RING_MAX_RECORD];

	while (tail < head) {
		uint64_t off = tail & (size - 1);
		size_t avail = head - tail < sizeof buf ? (size_t)(head - tail) : sizeof buf;
		const unsigned char *p;
		long len;
		int pad = 0;

		if (off + avail <= size) {
			p = aux + off;
		} else {
			copy_out(aux, size, off, buf, avail);
			p = buf;
		}
		len = nat_spe_record_len(p, avail, &pad);
		if (pad) {                       /* padding up to head */
			tail += avail;
			continue;
		}
		if (len < 0) {
			st->skipped++;
			tail++;
			continue;
		}
		if (len == 0) {
			if (avail < sizeof buf)
				break;               /* the rest is not written yet */
			st->skipped++;               /* no end within a record's room */
			tail += avail;
			continue;
		}
		fn(ud, p, (size_t)len);
		tail += (uint64_t)len;
	}
	return tail;
}
