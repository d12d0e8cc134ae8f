/* rawout.c — the raw dump writer.
 *
 * Records (docs/raw-dump.md has the full table):
 *
 *   dcprof-raw VERSION
 *   meta KEY VALUE
 *   level N NAME SIZE ASSOC LINE LATENCY
 *   memory LATENCY
 *   bucket ID KIND NAME
 *   bstat ID BLOCKS MAXLIVE MAXLIVEBYTES TOTALBYTES MINSIZE MAXSIZE
 *   loc ID IP OBJECT FUNCTION FILE LINE INLINED OUTFN OUTFILE OUTLINE
 *                                   (INLINED version 6, OUT* version 10)
 *   cost BUCKET LOC THREAD DR DW M1R M1W ... MNR MNW LAT
 *   block BUCKET ADDR SIZE ALLOC FREE
 *   scost BUCKET LOC THREAD DR DW M1R M1W ... MNR MNW LAT     (version 2)
 *   evict LEVEL EVICTOR VICTIM LOC COUNT                    (version 2)
 *   sevict LEVEL EVICTOR VICTIM LOC COUNT                   (version 2)
 *   fill LEVEL FILLS EMPTY EVICTIONS                        (version 2)
 *   resid BUCKET LEVEL MILLILINES                           (version 2)
 *   rhist KIND BUCKET BIN COUNT SUM                (version 3, SUM version 4)
 *   rfirst BUCKET COUNT                                     (version 3)
 *   rpair USELOC REUSELOC COUNT SUMSTACK SUMTIME            (version 3)
 *   runseen BUCKET COUNT                                    (version 4)
 *   srpair USELOC REUSELOC COUNT SUMTIME                    (version 4)
 *   use LEVEL BUCKET LOC THREAD SPLOSS ACCOST EVICTED (4, EVICTED 5)
 *   call KIND SITE CALLEE THREAD COUNT DR DW M1R ... LAT    (version 4)
 *   calluse KIND SITE CALLEE THREAD LEVEL SPLOSS ACCOST EVICTED
 *                                             (version 4, EVICTED version 5)
 *   twin ID START                                           (version 4)
 *   trec LOC BUCKET ADDR CLASS IMPLIED                      (version 4)
 *   tper ID PERIOD                                          (version 4)
 *   tref WIN F FSTR FIRR                                    (version 4)
 *   tfn FUNCTION A ACONST F FSTR FIRR                       (version 4)
 *   off BUCKET OFFSET SIZE DR DW M1 ... MN LAT              (version 7)
 *   btype BUCKET TYPE                                       (version 7)
 *   map START END OFFSET PATH                               (version 8)
 *   hpath BUCKET IP1 ... IPn                                (version 8)
 *   ftouch BUCKET LOC THREAD PAGES                          (version 8)
 *   ipsamp LOC THREAD COUNT                                 (version 8)
 *   offu BUCKET OFFSET END U1 ... UN                        (version 8)
 *   bfree ADDR FREE                                         (version 9)
 *   end COMPLETE
 *
 * String fields escape bytes <= 0x20, '%' and 0x7f as %XX; the empty
 * string is "%-".
 */
#include "core/rawout.h"
#include "core/util.h"

void dc_rawout_init(struct dc_rawout *o, struct dc_sink sink)
{
	o->sink = sink;
	o->err = 0;
	o->n = 0;
}

static void flush(struct dc_rawout *o)
{
	if (o->n && !o->err)
		o->err = o->sink.write(o->sink.ud, o->buf, o->n);
	o->n = 0;
}

int dc_rawout_finish(struct dc_rawout *o)
{
	flush(o);
	return o->err;
}

static void put(struct dc_rawout *o, char c)
{
	if (o->n == sizeof o->buf)
		flush(o);
	o->buf[o->n++] = c;
}

static void put_str(struct dc_rawout *o, const char *s)
{
	while (*s)
		put(o, *s++);
}

/* Room for n more bytes at the end of the buffer: numbers check once, not
 * per digit (the engine writes a sampled-trace record per recorded load). */
static char *room(struct dc_rawout *o, size_t n)
{
	if (o->n + n > sizeof o->buf)
		flush(o);
	return o->buf + o->n;
}

static void put_u64(struct dc_rawout *o, uint64_t v)
{
	char tmp[24], *p = room(o, 21);
	int n = 0;

	*p++ = ' ';
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	o->n = (size_t)(p - o->buf);
}

static void put_hex(struct dc_rawout *o, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[24], *p = room(o, 19);
	int n = 0;

	*p++ = ' ';
	*p++ = '0';
	*p++ = 'x';
	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	o->n = (size_t)(p - o->buf);
}

static bool needs_escape(unsigned char c)
{
	return c <= 0x20 || c == '%' || c == 0x7f;
}

static void put_field(struct dc_rawout *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	put(o, ' ');
	if (!s || !*s) {
		put_str(o, "%-");
		return;
	}
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (needs_escape(c)) {
			put(o, '%');
			put(o, hex[c >> 4]);
			put(o, hex[c & 15]);
		} else {
			put(o, (char)c);
		}
	}
}

void dc_raw_header(struct dc_rawout *o)
{
	put_str(o, "dcprof-raw");
	put_u64(o, DC_RAW_VERSION);
	put(o, '\n');
}

void dc_raw_meta(struct dc_rawout *o, const char *key, const char *value)
{
	put_str(o, "meta");
	put_field(o, key);
	put_field(o, value);
	put(o, '\n');
}

void dc_raw_meta_u64(struct dc_rawout *o, const char *key, uint64_t value)
{
	put_str(o, "meta");
	put_field(o, key);
	put_u64(o, value);
	put(o, '\n');
}

void dc_raw_hier(struct dc_rawout *o, const struct dc_hier *h)
{
	for (int k = 0; k < h->nlevels; k++) {
		const struct dc_level_cfg *l = &h->lv[k];
		char name[4] = { 'L', (char)('1' + k), 0, 0 };
		put_str(o, "level");
		put_u64(o, (uint64_t)k + 1);
		put_field(o, name);
		put_u64(o, l->size);
		put_u64(o, l->assoc);
		put_u64(o, l->line);
		put_u64(o, l->latency);
		put(o, '\n');
	}
	put_str(o, "memory");
	put_u64(o, h->mem_latency);
	put(o, '\n');
}

void dc_raw_bucket(struct dc_rawout *o, uint32_t id, const char *kind, const char *name)
{
	put_str(o, "bucket");
	put_u64(o, id);
	put_field(o, kind);
	put_field(o, name);
	put(o, '\n');
}

void dc_raw_bstat(struct dc_rawout *o, uint32_t id, uint64_t blocks, uint64_t max_live,
		  uint64_t max_live_bytes, uint64_t total_bytes, uint64_t min_size,
		  uint64_t max_size)
{
	put_str(o, "bstat");
	put_u64(o, id);
	put_u64(o, blocks);
	put_u64(o, max_live);
	put_u64(o, max_live_bytes);
	put_u64(o, total_bytes);
	put_u64(o, min_size);
	put_u64(o, max_size);
	put(o, '\n');
}

void dc_raw_loc(struct dc_rawout *o, uint32_t id, uint64_t ip, const char *object,
		const char *fn, const char *inl, const char *file, uint32_t line,
		const struct dc_raw_outer *outer)
{
	put_str(o, "loc");
	put_u64(o, id);
	put_hex(o, ip);
	put_field(o, object);
	put_field(o, fn);
	put_field(o, file);
	put_u64(o, line);
	put_field(o, inl);
	put_field(o, outer ? outer->fn : NULL);
	put_field(o, outer ? outer->file : NULL);
	put_u64(o, outer ? outer->line : 0);
	put(o, '\n');
}

static void cost_fields(struct dc_rawout *o, const char *type, const struct dc_cost *c,
			int nlevels)
{
	put_str(o, type);
	put_u64(o, c->bucket);
	put_u64(o, c->loc);
	put_u64(o, c->tid);
	put_u64(o, c->acc[0]);
	put_u64(o, c->acc[1]);
	for (int k = 0; k < nlevels; k++) {
		put_u64(o, c->miss[k][0]);
		put_u64(o, c->miss[k][1]);
	}
	put_u64(o, c->lat);
	put(o, '\n');
}

void dc_raw_cost(struct dc_rawout *o, const struct dc_cost *c, int nlevels)
{
	cost_fields(o, "cost", c, nlevels);
}

void dc_raw_scost(struct dc_rawout *o, const struct dc_cost *c, int nlevels)
{
	cost_fields(o, "scost", c, nlevels);
}

static void put_loc_or_none(struct dc_rawout *o, uint32_t loc)
{
	if (loc == DC_CALL_NONE) {
		put(o, ' ');
		put(o, '-');
	} else {
		put_u64(o, loc);
	}
}

/* Evicted, or "-" when it was not counted. */
static void put_evicted(struct dc_rawout *o, uint64_t v, bool counted)
{
	if (counted) {
		put_u64(o, v);
	} else {
		put(o, ' ');
		put(o, '-');
	}
}

void dc_raw_call(struct dc_rawout *o, const struct dc_arc *a, int nlevels, bool evictions)
{
	static const char *const kinds[] = { "call", "thread", "signal" };

	put_str(o, "call ");
	put_str(o, kinds[a->kind]);
	put_loc_or_none(o, a->site);
	put_loc_or_none(o, a->callee);
	put_u64(o, a->tid);
	put_u64(o, a->count);
	put_u64(o, a->incl.acc[0]);
	put_u64(o, a->incl.acc[1]);
	for (int k = 0; k < nlevels; k++) {
		put_u64(o, a->incl.miss[k][0]);
		put_u64(o, a->incl.miss[k][1]);
	}
	put_u64(o, a->incl.lat);
	put(o, '\n');
	for (int k = 0; k < nlevels; k++) {
		if (!a->sploss[k] && !a->accost[k] && !a->evicted[k])
			continue;
		put_str(o, "calluse ");
		put_str(o, kinds[a->kind]);
		put_loc_or_none(o, a->site);
		put_loc_or_none(o, a->callee);
		put_u64(o, a->tid);
		put_u64(o, (uint64_t)k + 1);
		put_u64(o, a->sploss[k]);
		put_u64(o, a->accost[k]);
		put_evicted(o, a->evicted[k], evictions);
		put(o, '\n');
	}
}

void dc_raw_use(struct dc_rawout *o, const struct dc_cost *c, int nlevels, bool evictions)
{
	for (int k = 0; k < nlevels; k++) {
		if (!c->sploss[k] && !c->accost[k] && !c->evicted[k])
			continue;
		put_str(o, "use");
		put_u64(o, (uint64_t)k + 1);
		put_u64(o, c->bucket);
		put_u64(o, c->loc);
		put_u64(o, c->tid);
		put_u64(o, c->sploss[k]);
		put_u64(o, c->accost[k]);
		put_evicted(o, c->evicted[k], evictions);
		put(o, '\n');
	}
}

void dc_raw_evict(struct dc_rawout *o, const struct dc_evict *e, bool sampled)
{
	put_str(o, sampled ? "sevict" : "evict");
	put_u64(o, e->level);
	put_u64(o, e->evictor);
	put_u64(o, e->victim);
	put_u64(o, e->loc);
	put_u64(o, e->count);
	put(o, '\n');
}

void dc_raw_fill(struct dc_rawout *o, uint32_t level, uint64_t fills, uint64_t empty,
		 uint64_t evictions)
{
	put_str(o, "fill");
	put_u64(o, level);
	put_u64(o, fills);
	put_u64(o, empty);
	put_u64(o, evictions);
	put(o, '\n');
}

void dc_raw_off(struct dc_rawout *o, const struct dc_offcell *c, int nlevels)
{
	put_str(o, "off");
	put_u64(o, c->bucket);
	if (c->off == DC_OFF_BEYOND) {
		put(o, ' ');
		put(o, '-');
	} else {
		put_u64(o, c->off);
	}
	put_u64(o, c->size);
	put_u64(o, c->acc[0]);
	put_u64(o, c->acc[1]);
	for (int k = 0; k < nlevels; k++)
		put_u64(o, c->miss[k]);
	put_u64(o, c->lat);
	put(o, '\n');
}

void dc_raw_offu(struct dc_rawout *o, uint32_t bucket, uint64_t off, uint64_t end,
		 const uint64_t *u, int nlevels)
{
	put_str(o, "offu");
	put_u64(o, bucket);
	if (off == DC_OFF_BEYOND) {
		put_str(o, " - -");
	} else {
		put_u64(o, off);
		put_u64(o, end);
	}
	for (int k = 0; k < nlevels; k++)
		put_u64(o, u[k]);
	put(o, '\n');
}

void dc_raw_btype(struct dc_rawout *o, uint32_t bucket, const char *type)
{
	put_str(o, "btype");
	put_u64(o, bucket);
	put_field(o, type);
	put(o, '\n');
}

void dc_raw_ipsamp(struct dc_rawout *o, uint32_t loc, uint32_t thread, uint64_t count)
{
	put_str(o, "ipsamp");
	put_u64(o, loc);
	put_u64(o, thread);
	put_u64(o, count);
	put(o, '\n');
}

void dc_raw_resid(struct dc_rawout *o, uint32_t bucket, uint32_t level, uint64_t millilines)
{
	put_str(o, "resid");
	put_u64(o, bucket);
	put_u64(o, level);
	put_u64(o, millilines);
	put(o, '\n');
}

void dc_raw_block(struct dc_rawout *o, uint32_t bucket, uint64_t addr, uint64_t size,
		  uint64_t alloc_seq, uint64_t free_seq)
{
	put_str(o, "block");
	put_u64(o, bucket);
	put_hex(o, addr);
	put_u64(o, size);
	put_u64(o, alloc_seq);
	put_u64(o, free_seq);
	put(o, '\n');
}

void dc_raw_bfree(struct dc_rawout *o, uint64_t addr, uint64_t free_seq)
{
	put_str(o, "bfree");
	put_hex(o, addr);
	put_u64(o, free_seq);
	put(o, '\n');
}

void dc_raw_rhist(struct dc_rawout *o, const char *kind, uint32_t bucket, uint32_t bin,
		  uint64_t count, uint64_t sum)
{
	put_str(o, "rhist");
	put_field(o, kind);
	put_u64(o, bucket);
	put_u64(o, bin);
	put_u64(o, count);
	put_u64(o, sum);
	put(o, '\n');
}

void dc_raw_rfirst(struct dc_rawout *o, uint32_t bucket, uint64_t count)
{
	put_str(o, "rfirst");
	put_u64(o, bucket);
	put_u64(o, count);
	put(o, '\n');
}

void dc_raw_runseen(struct dc_rawout *o, uint32_t bucket, uint64_t count)
{
	put_str(o, "runseen");
	put_u64(o, bucket);
	put_u64(o, count);
	put(o, '\n');
}

void dc_raw_srpair(struct dc_rawout *o, uint32_t use_loc, uint32_t reuse_loc, uint64_t count,
		   uint64_t sum_time)
{
	put_str(o, "srpair");
	put_u64(o, use_loc);
	put_u64(o, reuse_loc);
	put_u64(o, count);
	put_u64(o, sum_time);
	put(o, '\n');
}

void dc_raw_rpair(struct dc_rawout *o, uint32_t use_loc, uint32_t reuse_loc, uint64_t count,
		  uint64_t sum_stack, uint64_t sum_time)
{
	put_str(o, "rpair");
	put_u64(o, use_loc);
	put_u64(o, reuse_loc);
	put_u64(o, count);
	put_u64(o, sum_stack);
	put_u64(o, sum_time);
	put(o, '\n');
}

static const char tclass_letter[] = { 'c', 's', 'i' };

void dc_raw_twin(struct dc_rawout *o, uint64_t id, uint64_t start)
{
	put_str(o, "twin");
	put_u64(o, id);
	put_u64(o, start);
	put(o, '\n');
}

void dc_raw_tper(struct dc_rawout *o, uint64_t id, uint64_t period)
{
	put_str(o, "tper");
	put_u64(o, id);
	put_u64(o, period);
	put(o, '\n');
}

/* ADDR CLASS IMPLIED, the end of a trace record in both formats. */
static void put_access(struct dc_rawout *o, const struct dc_trace_rec *r)
{
	put_hex(o, r->addr);
	put(o, ' ');
	put(o, tclass_letter[r->cls]);
	put_u64(o, r->implied);
	put(o, '\n');
}

/* The window and time are implicit: the last twin's, counting from START. */
void dc_raw_trec(struct dc_rawout *o, const struct dc_trace_rec *r)
{
	put_str(o, "trec");
	put_u64(o, r->loc);
	put_u64(o, r->bucket);
	put_access(o, r);
}

void dc_raw_tref(struct dc_rawout *o, uint64_t win, uint64_t f, uint64_t fstr, uint64_t firr)
{
	put_str(o, "tref");
	put_u64(o, win);
	put_u64(o, f);
	put_u64(o, fstr);
	put_u64(o, firr);
	put(o, '\n');
}

void dc_raw_tfn(struct dc_rawout *o, const char *fn, uint64_t a, uint64_t aconst, uint64_t f,
		uint64_t fstr, uint64_t firr)
{
	put_str(o, "tfn");
	put_field(o, fn);
	put_u64(o, a);
	put_u64(o, aconst);
	put_u64(o, f);
	put_u64(o, fstr);
	put_u64(o, firr);
	put(o, '\n');
}

void dc_trace_file_header(struct dc_rawout *o, uint64_t w, uint64_t period, uint64_t block)
{
	put_str(o, "dcprof-trace 1\nwindow");
	put_u64(o, w);
	put_str(o, "\nperiod");
	put_u64(o, period);
	put_str(o, "\nblock");
	put_u64(o, block);
	put(o, '\n');
}

void dc_trace_file_rec(struct dc_rawout *o, const struct dc_trace_rec *r)
{
	put(o, 'a');
	put_u64(o, r->win);
	put_u64(o, r->time);
	put_hex(o, r->ip);
	put_access(o, r);
}

void dc_raw_map(struct dc_rawout *o, uint64_t start, uint64_t end, uint64_t offset,
		const char *path)
{
	put_str(o, "map");
	put_hex(o, start);
	put_hex(o, end);
	put_hex(o, offset);
	put_field(o, path);
	put(o, '\n');
}

void dc_raw_hpath(struct dc_rawout *o, uint32_t bucket, const uint64_t *ips, unsigned n)
{
	put_str(o, "hpath");
	put_u64(o, bucket);
	for (unsigned i = 0; i < n; i++)
		put_hex(o, ips[i]);
	put(o, '\n');
}

void dc_raw_ftouch(struct dc_rawout *o, uint32_t bucket, uint32_t loc, uint32_t thread,
		   uint64_t pages)
{
	put_str(o, "ftouch");
	put_u64(o, bucket);
	put_u64(o, loc);
	put_u64(o, thread);
	put_u64(o, pages);
	put(o, '\n');
}

void dc_raw_end(struct dc_rawout *o, bool complete)
{
	put_str(o, "end");
	put_u64(o, complete ? 1 : 0);
	put(o, '\n');
}
