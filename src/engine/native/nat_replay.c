/* nat_replay.c — --replay: a file of recorded samples fed through the
 * decoders and the live attribution path.
 *
 * Notes:
 *  - The file (core/smpfile.h, docs/engine-native.md "Replay") is read
 *    and checked whole at start (dcprof record has checked it already).
 *    The program runs as with any event, so its globals, heap blocks and
 *    stacks are objects; the samples only replace the PMU.
 *  - Each line is made into the record its kind's hardware writes — a
 *    PEBS perf sample, an IBS op raw sample, a run of SPE packets
 *    (nat_pebs.c, nat_ibs.c, nat_spe.c) — and decoded back by the same
 *    decoder live sampling uses, then attributed by nat_sample.  The
 *    record's latency is the serving level's from --latency: the file has
 *    none.
 *  - Time is the allocation clock: a sample with TIME t was taken after
 *    the program's allocation event t (malloc, free, realloc, ...; the
 *    sequence numbers of the block records) and before event t + 1, so it
 *    is replayed just before event t + 1, when the blocks it can hit are
 *    the ones it hit.  Samples after the last event are replayed at exit.
 *    The clock is the same under both engines for a program whose
 *    allocations do not race between threads.
 *  - Addresses relative to objects are resolved against this run's:
 *    heap:SEQ to the block of allocation event SEQ (its address noted
 *    when it is made), global:NAME to the global object named NAME,
 *    stack:+OFF to OFF bytes below the thread's stack top.  A sample
 *    whose object this run does not have (and "-") is replayed at address
 *    0, which is <unknown>, and counted in meta replay_unresolved.  IPs
 *    given as FILE+OFF become OFF plus the load bias of the loaded ELF
 *    object whose base name is FILE (the program's own: /proc/self/exe).
 *  - Threads are numbered as in the file; a file thread this run has no
 *    thread for keeps its number.
 */
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/native/nat.h"

struct line {
	struct dc_smpline l;      /* name and ip_obj point into names */
	uint32_t order;           /* in the file, for a stable sort by time */
	uint32_t global;          /* GLOBAL: index into globals */
	uint32_t ipobj;           /* IP relative to objs[ipobj - 1]; 0: absolute */
};

struct named {
	char *name;
	uint64_t base;            /* resolved address, 0: none */
	bool done;
};

static struct {
	int kind;
	char event[4];            /* meta sample_event */
	struct line *lines;
	uint32_t n, next;
	uint64_t *seqs, *seq_lo;  /* heap blocks the file names, sorted; their address */
	uint32_t nseqs;
	struct named *globals, *objs;
	uint32_t nglobals, nobjs;
	bool resolved;            /* globals and objects looked up */
} rp;

static void *xalloc(size_t n)
{
	void *p = nat_zalloc(n);

	if (!p)
		abort();
	return p;
}

static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 16, n = 0;
	char *buf;
	ssize_t r;

	if (fd < 0)
		return NULL;
	buf = xalloc(cap + 1);
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			char *b = nat_realloc(buf, 2 * cap + 1);
			if (!b)
				abort();
			buf = b;
			cap *= 2;
		}
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* The index + 1 of name (n escaped bytes) in the set, added when new. */
static uint32_t intern(struct named **set, uint32_t *count, const char *s, size_t n)
{
	char *name = xalloc(n + 1);

	if (!dc_smp_unescape(s, n, name, n + 1))
		name[0] = 0;
	for (uint32_t i = 0; i < *count; i++)
		if (!strcmp((*set)[i].name, name)) {
			__libc_free(name);
			return i + 1;
		}
	if (!*count || (*count >= 8 && !(*count & (*count - 1)))) {
		struct named *p = nat_realloc(*set, (*count ? 2 * *count : 8) * sizeof *p);
		if (!p)
			abort();
		*set = p;
	}
	(*set)[*count] = (struct named){ name, 0, false };
	return ++*count;
}

static int by_time(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->l.time != y->l.time)
		return x->l.time < y->l.time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void nat_replay_load(const char *path)
{
	size_t len, i = 0, cap = 0;
	char *text = slurp(path, &len), err[160];
	bool first = true;

	if (!text) {
		fprintf(stderr, "dcprof: cannot read samples '%s'\n", path);
		return;
	}
	rp.kind = -1;
	while (i < len) {
		char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		struct dc_smpline l;
		int rc;

		if (first) {
			rp.kind = dc_smpfile_kind(text + i, e - i, rp.event);
			first = false;
			if (rp.kind < 0)
				break;
			i = e + 1;
			continue;
		}
		rc = dc_smpline_parse(rp.kind, text + i, e - i, &l, err, sizeof err);
		if (rc < 0) {
			fprintf(stderr, "dcprof: samples '%s': %s; the rest is not replayed\n",
				path, err);
			break;
		}
		if (rc > 0) {
			struct line *x;
			if (rp.n == cap) {
				cap = cap ? 2 * cap : 1024;
				rp.lines = nat_realloc(rp.lines, cap * sizeof *rp.lines);
				if (!rp.lines)
					abort();
			}
			x = &rp.lines[rp.n];
			memset(x, 0, sizeof *x);
			x->l = l;
			x->order = rp.n++;
			if (l.where == DC_SMP_GLOBAL)
				x->global = intern(&rp.globals, &rp.nglobals, l.name, l.name_len);
			if (l.ip_obj)
				x->ipobj = intern(&rp.objs, &rp.nobjs, l.ip_obj, l.ip_obj_len);
			x->l.name = x->l.ip_obj = NULL;    /* they pointed into text */
		}
		i = e + 1;
	}
	__libc_free(text);
	qsort(rp.lines, rp.n, sizeof *rp.lines, by_time);
	rp.seqs = xalloc(rp.n * sizeof *rp.seqs);
	for (uint32_t k = 0; k < rp.n; k++)
		if (rp.lines[k].l.where == DC_SMP_HEAP)
			rp.seqs[rp.nseqs++] = rp.lines[k].l.seq;
	qsort(rp.seqs, rp.nseqs, sizeof *rp.seqs, by_u64);
	uint32_t u = 0;
	for (uint32_t k = 0; k < rp.nseqs; k++)
		if (!u || rp.seqs[u - 1] != rp.seqs[k])
			rp.seqs[u++] = rp.seqs[k];
	rp.nseqs = u;
	rp.seq_lo = xalloc(u * sizeof *rp.seq_lo);
	if (rp.kind >= 0) {
		nat.event_name = rp.event;
		nat.replay_kind = dc_smp_kind_name[rp.kind];
	}
}

static int64_t seq_index(uint64_t seq)
{
	uint32_t lo = 0, hi = rp.nseqs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (rp.seqs[mid] < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rp.nseqs && rp.seqs[lo] == seq ? (int64_t)lo : -1;
}

void nat_replay_block(uint64_t seq, uint64_t lo)
{
	int64_t k;

	if (nat.event != NAT_EV_REPLAY || !rp.nseqs)
		return;
	k = seq_index(seq);
	if (k >= 0)
		rp.seq_lo[k] = lo;
}

/* ---- looking up globals and ELF objects, once --------------------------- */

static void global_cb(void *ud, struct dc_obj *o)
{
	const char *name;

	if (o->kind != NAT_K_GLOBAL || o->bucket >= nat.nbuckets)
		return;
	name = nat.buckets[o->bucket].name;
	for (uint32_t i = 0; i < rp.nglobals; i++)
		if (!rp.globals[i].done && !strcmp(rp.globals[i].name, name)) {
			rp.globals[i].base = o->lo;
			rp.globals[i].done = true;
		}
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *exe)
{
	const char *name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : exe;

	for (uint32_t i = 0; i < rp.nobjs; i++)
		if (!rp.objs[i].done && !strcmp(rp.objs[i].name, base_name(name))) {
			rp.objs[i].base = info->dlpi_addr;
			rp.objs[i].done = true;
		}
	return 0;
}

static void resolve_names(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	exe[n > 0 ? n : 0] = 0;
	dc_objmap_each(&nat.objs, global_cb, NULL);
	dl_iterate_phdr(phdr_cb, exe);
	rp.resolved = true;
}

/* ---- replaying ---------------------------------------------------------- */

static const struct nat_thread *thread_numbered(uint32_t num)
{
	for (uint32_t i = 0; i < nat.nthreads; i++)
		if (nat.threads[i]->num == num)
			return nat.threads[i];
	return NULL;
}

/* The line's address in this run; false when its object is not here. */
static bool place(const struct line *x, uint64_t *addr)
{
	const struct dc_smpline *l = &x->l;
	const struct nat_thread *t;
	struct dc_obj *o;
	int64_t k;

	*addr = 0;
	switch (l->where) {
	case DC_SMP_ABS:
		*addr = l->addr;
		return true;
	case DC_SMP_HEAP:
		k = seq_index(l->seq);
		if (k < 0 || !rp.seq_lo[k])
			return false;
		o = dc_objmap_find(&nat.objs, rp.seq_lo[k]);
		if (!o || o->alloc_seq != l->seq)
			return false;
		*addr = o->lo + l->addr;
		return true;
	case DC_SMP_GLOBAL:
		if (!rp.globals[x->global - 1].done)
			return false;
		*addr = rp.globals[x->global - 1].base + l->addr;
		return true;
	case DC_SMP_STACK:
		t = thread_numbered(l->thread);
		if (!t || !t->stack_hi || l->addr > t->stack_hi - t->stack_lo)
			return false;
		*addr = t->stack_hi - l->addr;
		return true;
	default:
		return false;
	}
}

static void replay(const struct line *x)
{
	const struct dc_smpline *l = &x->l;
	const struct nat_thread *t = thread_numbered(l->thread);
	int n = nat.hier.nlevels;
	int served = l->level == DC_SMP_MEM || l->level > n ? n + 1 : l->level;
	unsigned char rec[256];
	struct nat_smp in = { 0 }, s;
	size_t len;
	int rc;

	if (!place(x, &in.addr) && l->where != DC_SMP_NONE)
		nat.replay_unresolved++;
	in.has_addr = true;
	in.ip = l->ip;
	if (x->ipobj)
		in.ip = rp.objs[x->ipobj - 1].done ? rp.objs[x->ipobj - 1].base + l->ip : 0;
	in.tid = t ? (uint32_t)t->tid : l->thread;
	in.is_write = l->is_write;
	in.level = l->level;
	in.latency = nat.lat[served];
	in.weight = l->weight;
	in.time = l->time;
	switch (rp.kind) {
	case DC_SMP_PEBS:
		len = nat_pebs_encode(&in, rec, sizeof rec);
		rc = nat_pebs_decode(rec, len, &s);
		break;
	case DC_SMP_IBS:
		len = nat_ibs_encode(&in, rec, sizeof rec);
		rc = nat_ibs_decode(rec, len, &s);
		break;
	default:
		len = nat_spe_encode(&in, rec, sizeof rec);
		rc = nat_spe_decode(rec, len, l->weight, &s);
		break;
	}
	if (rc) {
		nat.unattributed++;
		return;
	}
	s.thread = nat_thread_num(s.tid);
	if (!s.thread)
		s.thread = l->thread;
	nat_sample(&s);
}

void nat_replay_until(uint64_t seq)
{
	if (nat.event != NAT_EV_REPLAY)
		return;
	if (!rp.resolved && rp.next < rp.n)
		resolve_names();
	while (rp.next < rp.n && rp.lines[rp.next].l.time <= seq)
		replay(&rp.lines[rp.next++]);
}
