/* blockpair.c — blocks recorded live, by address (see blockpair.h Notes). */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "core/util.h"
#include "store/blockpair.h"

void blockpair_init(struct blockpair *p)
{
	memset(p, 0, sizeof *p);
}

void blockpair_release(struct blockpair *p)
{
	free(p->addr);
	free(p->row);
	blockpair_init(p);
}

static uint64_t slot_of(const struct blockpair *p, uint64_t addr)
{
	uint64_t i = dc_hash64(addr) & (p->cap - 1);

	while (p->addr[i] && p->addr[i] != addr)
		i = (i + 1) & (p->cap - 1);
	return i;
}

static void grow(struct blockpair *p)
{
	struct blockpair old = *p;

	p->cap = old.cap ? 2 * old.cap : 1024;
	p->addr = xcalloc(p->cap, sizeof *p->addr);
	p->row = xcalloc(p->cap, sizeof *p->row);
	for (uint64_t i = 0; i < old.cap; i++)
		if (old.addr[i]) {
			uint64_t j = slot_of(p, old.addr[i]);
			p->addr[j] = old.addr[i];
			p->row[j] = old.row[i];
		}
	free(old.addr);
	free(old.row);
}

void blockpair_put(struct blockpair *p, uint64_t addr, int64_t row)
{
	uint64_t i;

	if (!addr) {
		p->has_zero = true;
		p->zero_row = row;
		return;
	}
	if (2 * (p->n + 1) > p->cap)
		grow(p);
	i = slot_of(p, addr);
	if (!p->addr[i])
		p->n++;
	p->addr[i] = addr;
	p->row[i] = row;
}

bool blockpair_take(struct blockpair *p, uint64_t addr, int64_t *row)
{
	uint64_t i, j, mask = p->cap - 1;

	if (!addr) {
		*row = p->zero_row;
		return p->has_zero ? (p->has_zero = false, true) : false;
	}
	if (!p->n)
		return false;
	i = slot_of(p, addr);
	if (!p->addr[i])
		return false;
	*row = p->row[i];
	p->n--;
	for (j = (i + 1) & mask; p->addr[j]; j = (j + 1) & mask) {
		if (dc_probe_may_move(i, j, dc_hash64(p->addr[j]) & mask, mask)) {
			p->addr[i] = p->addr[j];
			p->row[i] = p->row[j];
			i = j;
		}
	}
	p->addr[i] = 0;
	return true;
}
