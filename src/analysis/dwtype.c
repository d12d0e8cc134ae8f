/* dwtype.c — the element type of a data object, from DWARF (see dwtype.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/dwtype.h"
#include "base/err.h"
#include "base/sbuf.h"

/* Nested structs deeper than this are shown whole. */
#define MAX_DEPTH 8

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	       tag == DW_TAG_union_type;
}

static int64_t size_of(Dwarf_Die *type)
{
	Dwarf_Word w;

	return dwarf_aggregate_size(type, &w) == 0 ? (int64_t)w : -1;
}

/* "struct node", "union u", "class C", "enum e", a typedef's or base
 * type's name, "T *" for pointers. */
static void name_type(struct sbuf *sb, Dwarf_Die *type)
{
	const char *n = dwarf_diename(type);
	Dwarf_Die inner;

	switch (dwarf_tag(type)) {
	case DW_TAG_structure_type:
		sbuf_addf(sb, "struct %s", n ? n : "<anonymous>");
		break;
	case DW_TAG_class_type:
		sbuf_addf(sb, "class %s", n ? n : "<anonymous>");
		break;
	case DW_TAG_union_type:
		sbuf_addf(sb, "union %s", n ? n : "<anonymous>");
		break;
	case DW_TAG_enumeration_type:
		sbuf_addf(sb, "enum %s", n ? n : "<anonymous>");
		break;
	case DW_TAG_pointer_type:
		if (type_of(type, &inner))
			name_type(sb, &inner);
		else
			sbuf_adds(sb, "void");
		sbuf_adds(sb, " *");
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
		if (type_of(type, &inner))
			name_type(sb, &inner);
		else
			sbuf_adds(sb, "void");
		break;
	default:
		sbuf_adds(sb, n ? n : "?");
		break;
	}
}

static void add_field(struct dw_type *t, const char *name, int64_t off, int64_t size)
{
	t->fields = xrealloc(t->fields, (t->nfields + 1) * sizeof *t->fields);
	t->fields[t->nfields].name = xmemdup(name, strlen(name));
	t->fields[t->nfields].off = off;
	t->fields[t->nfields].size = size;
	t->nfields++;
}

/* A member's offset: DW_AT_data_member_location as a constant (a location
 * expression, DWARF 2 style, is not read), DW_AT_data_bit_offset, or 0 in a
 * union.  -1 when unknown. */
static int64_t member_offset(Dwarf_Die *m, bool in_union, int64_t *bit_off)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	*bit_off = -1;
	if (dwarf_attr(m, DW_AT_data_member_location, &a))
		return dwarf_formudata(&a, &w) == 0 ? (int64_t)w : -1;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &a) && dwarf_formudata(&a, &w) == 0) {
		*bit_off = (int64_t)w;
		return (int64_t)(w / 8);
	}
	return in_union ? 0 : -1;
}

static void add_fields(struct dw_type *t, Dwarf_Die *agg, int64_t base, const char *prefix,
		       int depth)
{
	bool in_union = dwarf_tag(agg) == DW_TAG_union_type;
	Dwarf_Die m;

	if (dwarf_child(agg, &m) != 0)
		return;
	do {
		int tag = dwarf_tag(&m);
		Dwarf_Die mt, pt;
		Dwarf_Attribute a;
		Dwarf_Word bits;
		const char *n;
		int64_t off, bit_off, size;
		struct sbuf label;

		if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) ||
		    dwarf_hasattr(&m, DW_AT_declaration) || !type_of(&m, &mt))
			continue;
		off = member_offset(&m, in_union, &bit_off);
		if (off < 0)
			continue;
		size = size_of(&mt);
		if (dwarf_attr(&m, DW_AT_bit_size, &a) && dwarf_formudata(&a, &bits) == 0)
			size = ((bit_off >= 0 ? bit_off % 8 : 0) + (int64_t)bits + 7) / 8;
		if (size <= 0)
			continue;
		if (dwarf_peel_type(&mt, &pt) != 0)
			pt = mt;
		n = tag == DW_TAG_inheritance ? NULL : dwarf_diename(&m);
		sbuf_init(&label);
		if (is_aggregate(dwarf_tag(&pt)) && depth < MAX_DEPTH) {
			/* nested, anonymous or a base class: its members in place */
			if (n)
				sbuf_addf(&label, "%s%s.", prefix, n);
			else
				sbuf_adds(&label, prefix);
			add_fields(t, &pt, base + off, label.buf, depth + 1);
		} else if (dwarf_tag(&pt) == DW_TAG_array_type) {
			Dwarf_Die et = pt, ep;
			int64_t esize = -1;

			/* the innermost element: a 2-D member shows its whole count */
			while (type_of(&et, &et)) {
				if (dwarf_peel_type(&et, &ep) != 0)
					ep = et;
				if (dwarf_tag(&ep) != DW_TAG_array_type) {
					esize = size_of(&et);
					break;
				}
				et = ep;
			}
			sbuf_addf(&label, "%s%s", prefix, n ? n : "?");
			if (esize > 0)
				sbuf_addf(&label, "[%lld]", (long long)(size / esize));
			add_field(t, label.buf, base + off, size);
		} else {
			sbuf_addf(&label, "%s%s", prefix, n ? n : "?");
			add_field(t, label.buf, base + off, size);
		}
		sbuf_release(&label);
	} while (dwarf_siblingof(&m, &m) == 0);
}

static int cmp_field(const void *a, const void *b)
{
	const struct dw_field *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off ? 1 : 0;
}

/* Fills t from an element type (display the name of `named`, the type as
 * written, typedefs included).  0, or -1 when it has no size. */
static int fill(struct dw_type *t, Dwarf_Die *named, char *why, size_t whylen)
{
	Dwarf_Die pt;
	struct sbuf sb;

	memset(t, 0, sizeof *t);
	t->size = size_of(named);
	if (t->size <= 0) {
		snprintf(why, whylen, "the type has no size");
		return -1;
	}
	if (dwarf_peel_type(named, &pt) != 0)
		pt = *named;
	sbuf_init(&sb);
	name_type(&sb, named);
	t->name = xmemdup(sb.buf, sb.len);
	if (is_aggregate(dwarf_tag(&pt)))
		add_fields(t, &pt, 0, "", 0);
	if (!t->nfields)
		add_field(t, sb.buf, 0, t->size);
	sbuf_release(&sb);
	qsort(t->fields, t->nfields, sizeof *t->fields, cmp_field);
	return 0;
}

/* The element type of a variable's type: arrays give their innermost
 * element. */
static void element_of(Dwarf_Die *type, Dwarf_Die *out)
{
	Dwarf_Die pt, et;

	*out = *type;
	while (dwarf_peel_type(out, &pt) == 0 && dwarf_tag(&pt) == DW_TAG_array_type &&
	       type_of(&pt, &et))
		*out = et;
}

/* ---- the standard containers -------------------------------------------
 *
 * Known by the class's DWARF name and its outermost namespace, std; the
 * element type is the class's first template type parameter, never parsed
 * from the name. */

enum cont {
	CONT_NONE,
	CONT_ARRAY,    /* one array of elements: vector, basic_string */
	CONT_FIXED,    /* array: subscripts step into it, it is not on the heap */
	CONT_DEQUE,
	CONT_NODES,    /* map, set, list ...: a node per element */
	CONT_HASH,     /* unordered_*: nodes and a bucket array */
	CONT_BITS,     /* vector<bool>: bits packed in words */
};

static const struct {
	const char *name;
	enum cont kind;
} std_conts[] = {
	{ "vector", CONT_ARRAY }, { "basic_string", CONT_ARRAY }, { "array", CONT_FIXED },
	{ "deque", CONT_DEQUE }, { "map", CONT_NODES }, { "multimap", CONT_NODES },
	{ "set", CONT_NODES }, { "multiset", CONT_NODES }, { "list", CONT_NODES },
	{ "forward_list", CONT_NODES }, { "unordered_map", CONT_HASH },
	{ "unordered_multimap", CONT_HASH }, { "unordered_set", CONT_HASH },
	{ "unordered_multiset", CONT_HASH },
};

/* Is die inside namespace std (its outermost namespace: std::__cxx11
 * holds basic_string)? */
static bool in_std(Dwarf_Die *die)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(die, &scopes);
	bool yes = false;

	for (int i = n - 1; i > 0; i--)
		if (dwarf_tag(&scopes[i]) == DW_TAG_namespace) {
			const char *ns = dwarf_diename(&scopes[i]);
			yes = ns && !strcmp(ns, "std");
			break;
		}
	free(scopes);
	return yes;
}

/* The kind of standard container type is (typedefs peeled), its name in
 * *name (static) and, for those holding elements, the element type in
 * *elem (*has_elem false when DWARF does not give it). */
static enum cont std_container(Dwarf_Die *type, const char **name, Dwarf_Die *elem,
			       bool *has_elem)
{
	Dwarf_Die pt, c;
	const char *n;

	*has_elem = false;
	if (dwarf_peel_type(type, &pt) != 0 || !is_aggregate(dwarf_tag(&pt)))
		return CONT_NONE;
	n = dwarf_diename(&pt);
	for (size_t i = 0; n && i < sizeof std_conts / sizeof *std_conts; i++) {
		size_t k = strlen(std_conts[i].name);
		if (strncmp(n, std_conts[i].name, k) || n[k] != '<' || !in_std(&pt))
			continue;
		*name = std_conts[i].name;
		if (dwarf_child(&pt, &c) == 0)
			do {
				if (dwarf_tag(&c) == DW_TAG_template_type_parameter &&
				    type_of(&c, elem)) {
					*has_elem = true;
					break;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		if (*has_elem && !strcmp(*name, "vector") && dwarf_peel_type(elem, &c) == 0 &&
		    dwarf_tag(&c) == DW_TAG_base_type && dwarf_diename(&c) &&
		    !strcmp(dwarf_diename(&c), "bool"))
			return CONT_BITS;
		return std_conts[i].kind;
	}
	return CONT_NONE;
}

/* Why the blocks allocated for a container of kind k named what (an
 * object of the source, or a variable) have no one element type. */
static void container_why(char *why, size_t len, const char *what, const char *name,
			  enum cont k)
{
	switch (k) {
	case CONT_DEQUE:
		snprintf(why, len, "'%s' is a std::deque, which allocates its map of chunk"
			 " pointers and its chunks of elements at the same line: its blocks are"
			 " not of one type", what);
		break;
	case CONT_NODES:
		snprintf(why, len, "'%s' is a std::%s, whose blocks are its nodes (links, then"
			 " the element), not arrays of its elements", what, name);
		break;
	case CONT_BITS:
		snprintf(why, len, "'%s' is a std::vector<bool>, which packs its elements as bits"
			 " of unsigned long words", what);
		break;
	case CONT_HASH:
		snprintf(why, len, "'%s' is a std::%s, whose blocks are its nodes (a link, then"
			 " the element) and its bucket array, not arrays of its elements", what,
			 name);
		break;
	default:
		snprintf(why, len, "the debug information of '%s', a std::%s, gives no element"
			 " type", what, name);
		break;
	}
}

/* ---- walking every DIE ------------------------------------------------ */

struct walk {
	int (*visit)(struct walk *w, Dwarf_Die *die, const char *fn);
	void *ud;
	/* optional: after a walk visit never stopped, while the file is open */
	int (*done)(struct walk *w);
};

/* Depth first; fn is the innermost function's name around die.  Stops when
 * visit returns non-zero (returned). */
static int walk_die(struct walk *w, Dwarf_Die *die, const char *fn, int depth)
{
	Dwarf_Die c;
	int rc, tag = dwarf_tag(die);

	if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
		const char *n = dwarf_diename(die);
		if (n)
			fn = n;
	}
	rc = w->visit(w, die, fn);
	if (rc || depth > 64 || dwarf_child(die, &c) != 0)
		return rc;
	do {
		rc = walk_die(w, &c, fn, depth + 1);
		if (rc)
			return rc;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

/* Opens elf and walks every unit: visit's result, 0 when it never stopped,
 * or -1 (why) when the file cannot be read. */
static int walk_file(const char *elf, struct walk *w, char *why, size_t whylen)
{
	int fd = open(elf, O_RDONLY | O_CLOEXEC);
	Dwarf *dbg;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	int rc = 0;

	if (fd < 0) {
		snprintf(why, whylen, "cannot open '%s': %s", elf, strerror(errno));
		return -1;
	}
	dbg = dwarf_begin(fd, DWARF_C_READ);
	if (!dbg) {
		snprintf(why, whylen, "'%s' has no DWARF debug information (%s)", elf,
			 dwarf_errmsg(-1));
		close(fd);
		return -1;
	}
	while (!rc && dwarf_get_units(dbg, cu, &cu, NULL, NULL, &cudie, NULL) == 0)
		rc = walk_die(w, &cudie, NULL, 0);
	if (!rc && w->done)
		rc = w->done(w);
	dwarf_end(dbg);
	close(fd);
	return rc;
}

/* ---- the three queries -------------------------------------------------
 *
 * Each visit fills the type while the file's Dwarf is still open (a DIE
 * points into it) and stops the walk: 1 found, 2 found but unusable
 * (q->why set). */

struct query {
	const char *symbol, *file_base, *fn, *tag_name;
	int64_t line;
	int tag;                 /* dwtype_named: the tag wanted, 0 for any name */
	struct dw_type *t;
	char why[256];
	/* dwtype_heap_site: the pointee types of the pointer variables
	 * declared at the site, in fn (site) and elsewhere (away, used when fn
	 * has none), and whether they disagree (a macro declares all its
	 * variables at the line of its use) */
	Dwarf_Die site, away;
	int nsite, naway;
	bool site_mixed, away_mixed;
	/* ... and, when there are none, the standard containers declared
	 * there (`std::vector<Point> pts(n)`), their types and a name */
	Dwarf_Die csite, caway;
	const char *csite_name, *caway_name;
	int ncsite, ncaway;
	bool csite_mixed, caway_mixed;
	bool stop;               /* why says why no type, and no other rule applies */
	/* dwtype_heap_lvalue: the lvalue, and the best variable named by its
	 * first identifier so far (in fn: declared closest before the line;
	 * else a global), and fn's `this` */
	const char *lvalue;
	bool object;             /* the object of a container's method, not an lvalue */
	char first[128];
	Dwarf_Die var, global, self;
	int var_line;
	bool have_var, have_global, have_self;
};

/* Fills q->t from an element type: 1, or 2 with q->why. */
static int found(struct query *q, Dwarf_Die *type)
{
	Dwarf_Die el;

	element_of(type, &el);
	return fill(q->t, &el, q->why, sizeof q->why) ? 2 : 1;
}

static int visit_global(struct walk *w, Dwarf_Die *die, const char *fn)
{
	struct query *q = w->ud;
	Dwarf_Attribute a;
	Dwarf_Die type;
	const char *n, *ln = NULL;

	(void)fn;
	if (dwarf_tag(die) != DW_TAG_variable || dwarf_hasattr(die, DW_AT_declaration) ||
	    !dwarf_hasattr(die, DW_AT_location))
		return 0;
	n = dwarf_diename(die);
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a))
		ln = dwarf_formstring(&a);
	if (!((n && !strcmp(n, q->symbol)) || (ln && !strcmp(ln, q->symbol))))
		return 0;
	if (q->file_base && strcmp(base_name(dwarf_decl_file(die)), q->file_base))
		return 0;
	return type_of(die, &type) ? found(q, &type) : 0;
}

/* Adds pointee to the types seen (*n of them so far, the first in *seen);
 * *mixed when two differ once typedefs and qualifiers are peeled. */
static void note_pointee(Dwarf_Die *pointee, Dwarf_Die *seen, int *n, bool *mixed)
{
	Dwarf_Die a, b;

	if (!(*n)++) {
		*seen = *pointee;
		return;
	}
	if (dwarf_peel_type(pointee, &a) != 0 || dwarf_peel_type(seen, &b) != 0 ||
	    dwarf_dieoffset(&a) != dwarf_dieoffset(&b) || a.cu != b.cu)
		*mixed = true;
}

/* The pointee of a pointer-typed variable declared at the site, or the
 * type of a standard container declared there. */
static int visit_heap(struct walk *w, Dwarf_Die *die, const char *fn)
{
	struct query *q = w->ud;
	Dwarf_Die type, pt, pointee, elem;
	const char *want = q->fn, *colon, *cname;
	int tag = dwarf_tag(die), line;
	bool here, has_elem;
	enum cont k;

	if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) ||
	    dwarf_decl_line(die, &line) != 0 || line != q->line ||
	    strcmp(base_name(dwarf_decl_file(die)), q->file_base) || !type_of(die, &type) ||
	    dwarf_peel_type(&type, &pt) != 0)
		return 0;
	/* C++ frames name methods Class::method; DWARF names them method */
	colon = want ? strrchr(want, ':') : NULL;
	if (colon)
		want = colon + 1;
	here = want && fn && !strcmp(fn, want);
	if (dwarf_tag(&pt) == DW_TAG_pointer_type) {
		if (!type_of(&pt, &pointee) || size_of(&pointee) <= 0)
			return 0;
		if (here)
			note_pointee(&pointee, &q->site, &q->nsite, &q->site_mixed);
		else
			note_pointee(&pointee, &q->away, &q->naway, &q->away_mixed);
		return 0;
	}
	k = std_container(&type, &cname, &elem, &has_elem);
	if (k == CONT_NONE || k == CONT_FIXED)
		return 0;
	if (here) {
		q->csite_name = dwarf_diename(die);
		note_pointee(&type, &q->csite, &q->ncsite, &q->csite_mixed);
	} else {
		q->caway_name = dwarf_diename(die);
		note_pointee(&type, &q->caway, &q->ncaway, &q->caway_mixed);
	}
	return 0;
}

/* The element type of container type (a variable or object named what):
 * 1, or 2 with q->why (and q->stop) when its blocks are not its elements. */
static int found_in(struct query *q, Dwarf_Die *type, const char *what)
{
	Dwarf_Die elem;
	const char *cname = "?";
	bool has_elem;
	enum cont k = std_container(type, &cname, &elem, &has_elem);

	if (k == CONT_ARRAY && has_elem)
		return found(q, &elem);
	container_why(q->why, sizeof q->why, what ? what : "?", cname, k);
	q->stop = true;
	return 2;
}

/* After the walk: the one pointee type declared at the site in fn, else
 * the one declared there elsewhere; types that disagree answer nothing. */
static int heap_done(struct walk *w)
{
	struct query *q = w->ud;
	bool in_fn = q->nsite > 0;

	if (in_fn ? q->site_mixed : q->away_mixed) {
		snprintf(q->why, sizeof q->why, "pointer variables of different types are declared"
			 " at %s:%lld%s%s (a macro?): name the blocks' type with"
			 " DCPROF_NAME_BLOCK_TYPED", q->file_base, (long long)q->line,
			 in_fn ? " in " : "", in_fn ? q->fn : "");
		return 2;
	}
	if (in_fn)
		return found(q, &q->site);
	if (q->naway)
		return found(q, &q->away);
	/* no pointer: a container declared there holds the blocks */
	in_fn = q->ncsite > 0;
	if (!in_fn && !q->ncaway)
		return 0;
	if (in_fn ? q->csite_mixed : q->caway_mixed) {
		snprintf(q->why, sizeof q->why, "containers of different types are declared at"
			 " %s:%lld%s%s: name the blocks' type with DCPROF_NAME_BLOCK_TYPED",
			 q->file_base, (long long)q->line, in_fn ? " in " : "", in_fn ? q->fn : "");
		q->stop = true;
		return 2;
	}
	return in_fn ? found_in(q, &q->csite, q->csite_name) : found_in(q, &q->caway, q->caway_name);
}

static int visit_named(struct walk *w, Dwarf_Die *die, const char *fn)
{
	struct query *q = w->ud;
	int tag = dwarf_tag(die);
	const char *n;

	(void)fn;
	if (q->tag ? tag != q->tag
		   : (tag != DW_TAG_typedef && tag != DW_TAG_base_type &&
		      !is_aggregate(tag) && tag != DW_TAG_enumeration_type))
		return 0;
	n = dwarf_diename(die);
	if (!n || strcmp(n, q->tag_name) || dwarf_hasattr(die, DW_AT_declaration) ||
	    size_of(die) <= 0)
		return 0;
	return found(q, die);
}

/* The name wanted for fn: C++ frames name methods Class::method, DWARF
 * names them method. */
static const char *fn_want(const char *fn)
{
	const char *colon = fn ? strrchr(fn, ':') : NULL;

	return colon ? colon + 1 : fn;
}

static int visit_lvalue(struct walk *w, Dwarf_Die *die, const char *fn)
{
	struct query *q = w->ud;
	int tag = dwarf_tag(die), line = 0;
	const char *n, *want = fn_want(q->fn);
	bool in_fn = want && fn && !strcmp(fn, want);

	if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter)
		return 0;
	n = dwarf_diename(die);
	if (!n)
		return 0;
	if (in_fn && !strcmp(n, "this")) {
		q->self = *die;
		q->have_self = true;
	}
	if (strcmp(n, q->first))
		return 0;
	if (!fn) {
		if (!q->have_global || !dwarf_hasattr(die, DW_AT_declaration)) {
			q->global = *die;
			q->have_global = true;
		}
		return 0;
	}
	if (!in_fn)
		return 0;
	/* in fn's file: declared at or before the line, the closest wins */
	if (dwarf_decl_line(die, &line) == 0 &&
	    (line > q->line || strcmp(base_name(dwarf_decl_file(die)), q->file_base)))
		return 0;
	if (!q->have_var || line >= q->var_line) {
		q->var = *die;
		q->var_line = line;
		q->have_var = true;
	}
	return 0;
}

/* The member `name` of aggregate agg (peeled), base classes and anonymous
 * members searched too. */
static bool member_named(Dwarf_Die *agg, const char *name, size_t len, Dwarf_Die *out)
{
	Dwarf_Die m;

	if (dwarf_child(agg, &m) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&m);
		Dwarf_Die mt, pt;
		int tag = dwarf_tag(&m);

		if (tag != DW_TAG_member && tag != DW_TAG_inheritance && tag != DW_TAG_variable)
			continue;
		if (n && tag != DW_TAG_inheritance && strlen(n) == len && !strncmp(n, name, len) &&
		    type_of(&m, out))
			return true;
		if ((!n || tag == DW_TAG_inheritance) && type_of(&m, &mt) &&
		    dwarf_peel_type(&mt, &pt) == 0 && is_aggregate(dwarf_tag(&pt)) &&
		    member_named(&pt, name, len, out))
			return true;
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* Follows the steps of the lvalue after its first identifier (`->m`,
 * `.m`, `[]`) from type *t: false with q->why when one does not apply. */
static bool follow(struct query *q, const char *p, Dwarf_Die *t)
{
	Dwarf_Die pt, inner;

	while (*p) {
		bool arrow = p[0] == '-' && p[1] == '>';
		if (dwarf_peel_type(t, &pt) != 0)
			pt = *t;
		if (*p == '[') {
			const char *cname = "?";
			bool has_elem;
			enum cont k;

			if ((dwarf_tag(&pt) == DW_TAG_array_type ||
			     dwarf_tag(&pt) == DW_TAG_pointer_type) && type_of(&pt, &inner)) {
				*t = inner;
				p += 2;
				continue;
			}
			/* a vector's element; a map's `m[k]` may insert a node */
			k = std_container(&pt, &cname, &inner, &has_elem);
			if ((k == CONT_ARRAY || k == CONT_FIXED || k == CONT_DEQUE) && has_elem) {
				*t = inner;
				p += 2;
				continue;
			}
			if (k == CONT_NODES || k == CONT_HASH) {
				char what[200];
				snprintf(what, sizeof what, "%.*s",
					 (int)(strlen(q->lvalue) - strlen(p)), q->lvalue);
				container_why(q->why, sizeof q->why, what, cname, k);
				return false;
			}
			goto bad;
		}
		if (arrow || *p == '.') {
			const char *m = p + (arrow ? 2 : 1), *e = m;
			if (arrow) {
				if (dwarf_tag(&pt) != DW_TAG_pointer_type || !type_of(&pt, &inner) ||
				    dwarf_peel_type(&inner, &pt) != 0)
					goto bad;
			}
			while (*e && *e != '-' && *e != '.' && *e != '[')
				e++;
			if (!is_aggregate(dwarf_tag(&pt)) || !member_named(&pt, m, (size_t)(e - m), t))
				goto bad;
			p = e;
			continue;
		}
		goto bad;
	}
	return true;
bad:
	snprintf(q->why, sizeof q->why, "cannot follow '%.100s' in the type of '%.100s'", p, q->first);
	return false;
}

static int lvalue_done(struct walk *w)
{
	struct query *q = w->ud;
	const char *rest = q->lvalue + strlen(q->first);
	char steps[300];
	Dwarf_Die type, pt, pointee;

	if (q->have_var || q->have_global) {
		if (!type_of(q->have_var ? &q->var : &q->global, &type))
			return 0;
	} else if (q->have_self && type_of(&q->self, &type)) {
		/* a member of the method's object: this->lvalue */
		snprintf(steps, sizeof steps, "->%.200s", q->lvalue);
		rest = steps;
	} else {
		snprintf(q->why, sizeof q->why, "the allocation is %s '%s', which names no"
			 " variable of %s", q->object ? "made for" : "assigned to", q->lvalue,
			 q->fn);
		return 2;
	}
	if (!follow(q, rest, &type))
		return 2;
	if (dwarf_peel_type(&type, &pt) != 0)
		pt = type;
	/* X->push_back(...): X points to the container */
	if (q->object && dwarf_tag(&pt) == DW_TAG_pointer_type && type_of(&pt, &pointee))
		type = pointee;
	else if (dwarf_tag(&pt) == DW_TAG_pointer_type) {
		if (!type_of(&pt, &pointee) || size_of(&pointee) <= 0) {
			snprintf(q->why, sizeof q->why, "the allocation is assigned to '%s', which"
				 " is not a pointer to a type with a size", q->lvalue);
			return 2;
		}
		return found(q, &pointee);
	}
	/* a container: its methods, or `v = other`, allocate its array */
	{
		Dwarf_Die elem;
		const char *cname;
		bool has_elem;
		enum cont k = std_container(&type, &cname, &elem, &has_elem);

		if (k != CONT_NONE && k != CONT_FIXED)
			return found_in(q, &type, q->lvalue);
	}
	if (q->object) {
		struct sbuf sb;
		sbuf_init(&sb);
		name_type(&sb, &type);
		snprintf(q->why, sizeof q->why, "the allocation is made for '%s', a %s, which is"
			 " not a std::vector or std::basic_string", q->lvalue, sb.buf);
		sbuf_release(&sb);
	} else {
		snprintf(q->why, sizeof q->why, "the allocation is assigned to '%s', which is not"
			 " a pointer to a type with a size", q->lvalue);
	}
	return 2;
}

/* A template type parameter of function fn (`T` of `Allocate<double>`). */
static int visit_tparam(struct walk *w, Dwarf_Die *die, const char *fn)
{
	struct query *q = w->ud;
	const char *n;
	Dwarf_Die type;

	if (dwarf_tag(die) != DW_TAG_template_type_parameter || !fn || strcmp(fn, fn_want(q->fn)))
		return 0;
	n = dwarf_diename(die);
	if (!n || strcmp(n, q->tag_name) || !type_of(die, &type) || size_of(&type) <= 0)
		return 0;
	return found(q, &type);
}

/* Walks elf with visit (and done, may be NULL) for q: 1 found, 0 not
 * (why set when found unusable), -1 the file cannot be read. */
static int run_done(const char *elf, struct query *q,
		    int (*visit)(struct walk *, Dwarf_Die *, const char *),
		    int (*done)(struct walk *), char *why, size_t whylen)
{
	struct walk w = { visit, q, done };
	int rc = walk_file(elf, &w, why, whylen);

	if (rc < 0)
		return -1;
	if (rc == 2) {
		snprintf(why, whylen, "%s", q->why);
		return 0;
	}
	return rc;
}

static int run(const char *elf, struct query *q,
	       int (*visit)(struct walk *, Dwarf_Die *, const char *), char *why, size_t whylen)
{
	return run_done(elf, q, visit, NULL, why, whylen);
}

int dwtype_global(const char *elf, const char *symbol, const char *file_base,
		  struct dw_type *t, char *why, size_t whylen)
{
	struct query q = { .symbol = symbol, .file_base = file_base, .t = t };
	int rc = run(elf, &q, visit_global, why, whylen);

	if (rc == 0 && !q.why[0])
		snprintf(why, whylen, "no variable '%s' in the debug information of '%s'", symbol,
			 elf);
	return rc;
}

int dwtype_heap_site(const char *elf, const char *fn, const char *file_base, int64_t line,
		     struct dw_type *t, char *why, size_t whylen)
{
	struct query q = { .fn = fn, .file_base = file_base, .line = line, .t = t };
	int rc = run_done(elf, &q, visit_heap, heap_done, why, whylen);

	if (rc == 0 && (q.site_mixed || q.away_mixed || q.stop))
		return 2;
	if (rc == 0 && !q.why[0])
		snprintf(why, whylen, "no pointer variable is declared at %s:%lld, where the"
			 " blocks are allocated", file_base, (long long)line);
	return rc;
}

static int heap_lvalue(const char *elf, const char *fn, const char *file_base, int64_t line,
		       const char *lvalue, bool object, struct dw_type *t, char *why,
		       size_t whylen)
{
	struct query q = { .fn = fn, .file_base = file_base, .line = line, .t = t,
			   .lvalue = lvalue, .object = object };
	size_t n = 0;

	while (lvalue[n] && (isalnum((unsigned char)lvalue[n]) || lvalue[n] == '_') &&
	       n + 1 < sizeof q.first)
		n++;
	memcpy(q.first, lvalue, n);
	q.first[n] = '\0';
	return run_done(elf, &q, visit_lvalue, lvalue_done, why, whylen);
}

int dwtype_heap_lvalue(const char *elf, const char *fn, const char *file_base, int64_t line,
		       const char *lvalue, struct dw_type *t, char *why, size_t whylen)
{
	return heap_lvalue(elf, fn, file_base, line, lvalue, false, t, why, whylen);
}

int dwtype_heap_object(const char *elf, const char *fn, const char *file_base, int64_t line,
		       const char *object, struct dw_type *t, char *why, size_t whylen)
{
	return heap_lvalue(elf, fn, file_base, line, object, true, t, why, whylen);
}

int dwtype_template_param(const char *elf, const char *fn, const char *name,
			  struct dw_type *t, char *why, size_t whylen)
{
	struct query q = { .fn = fn, .tag_name = name, .t = t };
	int rc = run(elf, &q, visit_tparam, why, whylen);

	if (rc == 0 && !q.why[0])
		snprintf(why, whylen, "no type '%s', nor a template parameter '%s' of %s, in the"
			 " debug information of '%s'", name, name, fn, elf);
	return rc;
}

int dwtype_named(const char *elf, const char *type_name, struct dw_type *t, char *why,
		 size_t whylen)
{
	static const struct {
		const char *prefix;
		int tag;
	} kw[] = {
		{ "struct ", DW_TAG_structure_type }, { "union ", DW_TAG_union_type },
		{ "class ", DW_TAG_class_type }, { "enum ", DW_TAG_enumeration_type },
	};
	struct query q = { .tag_name = type_name, .t = t };
	int rc;

	for (size_t i = 0; i < sizeof kw / sizeof *kw; i++) {
		size_t n = strlen(kw[i].prefix);
		if (!strncmp(type_name, kw[i].prefix, n)) {
			q.tag = kw[i].tag;
			q.tag_name = type_name + n;
			while (*q.tag_name == ' ')
				q.tag_name++;
		}
	}
	rc = run(elf, &q, visit_named, why, whylen);
	/* C++ names a struct by its name alone, C by struct NAME */
	if (rc == 0 && q.tag == DW_TAG_structure_type) {
		q.tag = DW_TAG_class_type;
		rc = run(elf, &q, visit_named, why, whylen);
	}
	if (rc == 0 && !q.why[0])
		snprintf(why, whylen, "no complete type '%s' in the debug information of '%s'",
			 type_name, elf);
	return rc;
}

void dw_type_release(struct dw_type *t)
{
	for (size_t i = 0; i < t->nfields; i++)
		free(t->fields[i].name);
	free(t->fields);
	free(t->name);
	memset(t, 0, sizeof *t);
}

const struct dw_field *dw_type_field_at(const struct dw_type *t, int64_t off)
{
	for (size_t i = 0; i < t->nfields; i++)
		if (off >= t->fields[i].off && off < t->fields[i].off + t->fields[i].size)
			return &t->fields[i];
	return NULL;
}
