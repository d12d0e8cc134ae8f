/* blockset.c — a set of 64-bit keys that empties in constant time (see
 * blockset.h Notes). */
#include "core/blockset.h"
#include "core/util.h"

struct dc_blockset_slot {
	uint64_t key;
	uint32_t gen;             /* 0: never filled */
};

#define INIT_CAP 1024

static struct dc_blockset_slot *new_slots(const struct dc_env *env, uint64_t cap)
{
	struct dc_blockset_slot *s = dc_alloc(env, cap * sizeof *s, "blockset.slots");

	if (s)
		memset(s, 0, cap * sizeof *s);
	return s;
}

int dc_blockset_init(struct dc_blockset *s, const struct dc_env *env)
{
	s->env = env;
	s->cap = INIT_CAP;
	s->n = 0;
	s->gen = 1;
	s->slots = new_slots(env, s->cap);
	return s->slots ? DC_OK : DC_ENOMEM;
}

void dc_blockset_release(struct dc_blockset *s)
{
	dc_free(s->env, s->slots);
	s->slots = NULL;
}

void dc_blockset_clear(struct dc_blockset *s)
{
	s->n = 0;
	if (++s->gen == 0) {
		memset(s->slots, 0, s->cap * sizeof *s->slots);
		s->gen = 1;
	}
}

static void put(struct dc_blockset_slot *slots, uint64_t cap, uint64_t key, uint32_t gen)
{
	uint64_t i = dc_hash64(key) & (cap - 1);

	while (slots[i].gen == gen)
		i = (i + 1) & (cap - 1);
	slots[i].key = key;
	slots[i].gen = gen;
}

static int grow(struct dc_blockset *s)
{
	uint64_t cap = 2 * s->cap;
	struct dc_blockset_slot *n = new_slots(s->env, cap);

	if (!n)
		return DC_ENOMEM;
	for (uint64_t i = 0; i < s->cap; i++)
		if (s->slots[i].gen == s->gen)
			put(n, cap, s->slots[i].key, s->gen);
	dc_free(s->env, s->slots);
	s->slots = n;
	s->cap = cap;
	return DC_OK;
}

int dc_blockset_add(struct dc_blockset *s, uint64_t key)
{
	uint64_t i = dc_hash64(key) & (s->cap - 1);

	while (s->slots[i].gen == s->gen) {
		if (s->slots[i].key == key)
			return 0;
		i = (i + 1) & (s->cap - 1);
	}
	if ((s->n + 1) * 2 > s->cap) {
		if (grow(s))
			return DC_ENOMEM;
		put(s->slots, s->cap, key, s->gen);
	} else {
		s->slots[i].key = key;
		s->slots[i].gen = s->gen;
	}
	s->n++;
	return 1;
}

bool dc_blockset_remove(struct dc_blockset *s, uint64_t key)
{
	uint64_t mask = s->cap - 1, i = dc_hash64(key) & mask, j;

	while (s->slots[i].gen == s->gen && s->slots[i].key != key)
		i = (i + 1) & mask;
	if (s->slots[i].gen != s->gen)
		return false;
	s->n--;
	for (j = (i + 1) & mask; s->slots[j].gen == s->gen; j = (j + 1) & mask) {
		if (dc_probe_may_move(i, j, dc_hash64(s->slots[j].key) & mask, mask)) {
			s->slots[i] = s->slots[j];
			i = j;
		}
	}
	s->slots[i].gen = 0;
	return true;
}
