/* blockmap.c — small heap blocks by start address (see blockmap.h Notes). */
#include "core/blockmap.h"
#include "core/util.h"

#define LO_BITS 44
#define LO_MASK ((1ULL << LO_BITS) - 1)
#define BUCKET_BITS 24
#define SEQ_BITS 40
#define INIT_CAP 1024

/* The blocks of one 1 KiB stretch of memory hash to one run of 64 slots,
 * in address order: a program allocates and frees neighbours together
 * (and a containment lookup probes neighbouring starts), so they share
 * the table's cache lines instead of missing once each — a third of the
 * cost of a million small blocks allocated in a row. */
static uint64_t slot_of(const struct dc_blockmap *m, uint64_t key)
{
	return (dc_hash64(key >> 6) << 6 | (key & 63)) & (m->cap - 1);
}

static void unpack(const uint64_t *s, struct dc_blockmap_ent *e)
{
	e->lo = (s[0] & LO_MASK) << 4;
	e->size = s[0] >> LO_BITS;
	e->bucket = (uint32_t)(s[1] & ((1u << BUCKET_BITS) - 1));
	e->seq = s[1] >> BUCKET_BITS;
}

/* The slot holding key (lo / 16), or the empty slot ending its probe
 * sequence. */
static uint64_t *probe(const struct dc_blockmap *m, uint64_t key)
{
	uint64_t i = slot_of(m, key);

	while (m->slots[2 * i] && (m->slots[2 * i] & LO_MASK) != key)
		i = (i + 1) & (m->cap - 1);
	return &m->slots[2 * i];
}

static uint64_t *new_slots(const struct dc_env *env, uint64_t cap)
{
	uint64_t *s = dc_alloc(env, cap * 2 * sizeof *s, "blockmap.slots");

	if (s)
		memset(s, 0, cap * 2 * sizeof *s);
	return s;
}

int dc_blockmap_init(struct dc_blockmap *m, const struct dc_env *env)
{
	memset(m, 0, sizeof *m);
	m->env = env;
	m->cap = INIT_CAP;
	m->slots = new_slots(env, m->cap);
	return m->slots ? DC_OK : DC_ENOMEM;
}

void dc_blockmap_release(struct dc_blockmap *m)
{
	dc_free(m->env, m->slots);
	m->slots = NULL;
	m->n = m->cap = 0;
}

bool dc_blockmap_fits(const struct dc_blockmap_ent *e)
{
	return e->lo && !(e->lo & 15) && (e->lo >> 4) <= LO_MASK && e->size <= DC_BLOCKMAP_MAX &&
	       e->bucket < (1u << BUCKET_BITS) && e->seq < (1ULL << SEQ_BITS);
}

static int grow(struct dc_blockmap *m)
{
	uint64_t *old = m->slots, ocap = m->cap;
	uint64_t *s = new_slots(m->env, 2 * ocap);

	if (!s)
		return DC_ENOMEM;
	m->slots = s;
	m->cap = 2 * ocap;
	for (uint64_t i = 0; i < ocap; i++)
		if (old[2 * i]) {
			uint64_t *d = probe(m, old[2 * i] & LO_MASK);
			d[0] = old[2 * i];
			d[1] = old[2 * i + 1];
		}
	dc_free(m->env, old);
	return DC_OK;
}

int dc_blockmap_put(struct dc_blockmap *m, const struct dc_blockmap_ent *e,
		    struct dc_blockmap_ent *old)
{
	uint64_t key = e->lo >> 4, *s;
	int rc = 0;

	if (4 * (m->n + 1) > 3 * m->cap && grow(m))
		return DC_ENOMEM;
	s = probe(m, key);
	if (s[0]) {
		unpack(s, old);
		rc = 1;
	} else {
		m->n++;
	}
	s[0] = key | e->size << LO_BITS;
	s[1] = e->bucket | e->seq << BUCKET_BITS;
	if ((e->size ? e->size : 1) > m->max_ext)
		m->max_ext = e->size ? e->size : 1;
	return rc;
}

bool dc_blockmap_take(struct dc_blockmap *m, uint64_t lo, struct dc_blockmap_ent *out)
{
	uint64_t mask = m->cap - 1, i, j;
	uint64_t *s;

	if (!m->n || (lo & 15) || (lo >> 4) > LO_MASK)
		return false;
	s = probe(m, lo >> 4);
	if (!s[0])
		return false;
	unpack(s, out);
	m->n--;
	/* Shift the rest of the cluster back over the hole: an entry moves
	 * when its home slot is not cyclically in (hole, its slot]. */
	i = (uint64_t)(s - m->slots) / 2;
	for (j = (i + 1) & mask; m->slots[2 * j]; j = (j + 1) & mask) {
		uint64_t home = slot_of(m, m->slots[2 * j] & LO_MASK);
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->slots[2 * i] = m->slots[2 * j];
			m->slots[2 * i + 1] = m->slots[2 * j + 1];
			i = j;
		}
	}
	m->slots[2 * i] = m->slots[2 * i + 1] = 0;
	return true;
}

bool dc_blockmap_lookup(const struct dc_blockmap *m, uint64_t addr, struct dc_blockmap_ent *out)
{
	uint64_t a = addr & ~15ULL;

	if (!m->n || (addr >> 4) > LO_MASK)
		return false;
	for (uint64_t back = 0; back < m->max_ext && back <= a; back += 16) {
		const uint64_t *s = probe(m, (a - back) >> 4);
		if (s[0]) {
			unpack(s, out);
			return addr < out->lo + (out->size ? out->size : 1);
		}
	}
	return false;
}

void dc_blockmap_each(const struct dc_blockmap *m,
		      void (*fn)(void *ud, const struct dc_blockmap_ent *e), void *ud)
{
	struct dc_blockmap_ent e;

	for (uint64_t i = 0; i < m->cap; i++)
		if (m->slots[2 * i]) {
			unpack(&m->slots[2 * i], &e);
			fn(ud, &e);
		}
}
