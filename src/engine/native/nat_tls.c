/* nat_tls.c — thread-local variables of the native runtime.
 *
 * Notes:
 *  - As in the simulator engine (src/engine/valgrind/dc_globals.c): each
 *    thread-local variable (STT_TLS) of the program and of the libraries
 *    loaded at start is a bucket, named as a global is; each thread's copy
 *    is an object of it (and a block in its statistics), added when the
 *    runtime meets the thread (nat_self) and removed when it exits.
 *  - Those modules' blocks are in the static TLS area, at a fixed offset
 *    from the thread pointer in every thread: the offset is read once, at
 *    start, from the main thread's block (dl_iterate_phdr's
 *    dlpi_tls_data) and its thread pointer, so a new thread's copies are
 *    found without the dynamic linker (whose lock a thread may hold while
 *    it calls malloc, which waits for the runtime's).
 *  - A library loaded later (dlopen) gets a block glibc allocates on first
 *    use, which the runtime does not follow, like the simulator: its
 *    thread-local variables are not objects.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/native/nat.h"

struct tlsvar {
	char *name;
	uint64_t off, size;
	uint32_t bucket;          /* UINT32_MAX until the first copy */
};

struct tlsmod {
	int64_t tpoff;            /* the block's address less the thread pointer */
	uint64_t memsz;
	struct tlsvar *v;
	uint32_t n, cap;
};

static struct tlsmod *mods;
static uint32_t nmods, mods_cap;
static uint32_t nvars;

static void *grow(void *p, uint32_t *cap, size_t size)
{
	uint32_t c = *cap ? 2 * *cap : 8;
	void *q = nat_realloc(p, c * size);

	if (!q)
		abort();
	*cap = c;
	return q;
}

uint64_t nat_tls_tp(void)
{
	return (uint64_t)(uintptr_t)__builtin_thread_pointer();
}

uint32_t nat_tls_module(int64_t tpoff, uint64_t memsz)
{
	if (nmods == mods_cap)
		mods = grow(mods, &mods_cap, sizeof *mods);
	memset(&mods[nmods], 0, sizeof *mods);
	mods[nmods].tpoff = tpoff;
	mods[nmods].memsz = memsz;
	return nmods++;
}

void nat_tls_var(uint32_t mod, const char *name, uint64_t off, uint64_t size)
{
	struct tlsmod *m = &mods[mod];
	size_t len = strlen(name) + 1;

	if (off > m->memsz || size > m->memsz - off || !size)
		return;   /* not inside the block */
	if (m->n == m->cap)
		m->v = grow(m->v, &m->cap, sizeof *m->v);
	m->v[m->n].name = __libc_malloc(len);
	if (!m->v[m->n].name)
		abort();
	memcpy(m->v[m->n].name, name, len);
	m->v[m->n].off = off;
	m->v[m->n].size = size;
	m->v[m->n].bucket = UINT32_MAX;
	m->n++;
	nvars++;
}

void nat_tls_thread_add(struct nat_thread *t)
{
	uint64_t tp = nat_tls_tp();

	if (!nvars || t->tls)
		return;
	t->tls = nat_zalloc(nvars * sizeof *t->tls);
	if (!t->tls)
		return;
	for (uint32_t i = 0; i < nmods; i++) {
		struct tlsmod *m = &mods[i];
		for (uint32_t k = 0; k < m->n; k++) {
			struct tlsvar *v = &m->v[k];
			struct dc_obj *o = dc_objmap_new(&nat.objs);
			if (!o)
				return;
			if (v->bucket == UINT32_MAX)
				v->bucket = nat_bucket_get(v->name, NAT_K_TLS);
			o->lo = tp + (uint64_t)m->tpoff + v->off;
			o->hi = o->lo + v->size;
			o->alloc_size = v->size;
			o->kind = NAT_K_TLS;
			o->bucket = v->bucket;
			if (dc_objmap_insert(&nat.objs, o)) {
				dc_objmap_discard(&nat.objs, o);
				continue;
			}
			nat_bucket_add_block(o->bucket, v->size);
			t->tls[t->ntls].o = o;
			t->tls[t->ntls].gen = o->gen;
			t->ntls++;
		}
	}
}

void nat_tls_thread_drop(struct nat_thread *t)
{
	for (uint32_t i = 0; i < t->ntls; i++) {
		struct dc_obj *o = t->tls[i].o;
		if (!o->live || o->gen != t->tls[i].gen)
			continue;   /* gone with an munmap already */
		nat_bucket_drop_block(o->bucket, o->alloc_size);
		dc_objmap_remove(&nat.objs, o);
	}
	t->ntls = 0;
}
