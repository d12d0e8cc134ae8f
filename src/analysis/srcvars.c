/* srcvars.c — per-line variable accesses, loops, aliases and allocations of
 * C sources, with libclang (the only file that includes clang-c).
 *
 * Notes (docs/approx.md, "Static analysis"; N. Rutar, J. K. Hollingsworth,
 * "Software Analysis Techniques to Approximate Data Centric Direct
 * Measurements", §3.1 and §3.3.1):
 *  - An access is a memory location named by an expression: a scalar
 *    variable (x), an array element (x[a], x[0], m[i][j]), a member (s.f,
 *    p->f) or a dereference (*p).  Its variable is the expression's root
 *    variable: x, m, s, p.  The index variables of a subscript are accesses
 *    of their own (a in x[a]).  Accessing p[i] or p->f is one access of p,
 *    not two: the pointer's own load goes with the data it reaches.
 *  - Unique locations: two accesses on one line with the same expression
 *    text are one location (x[b] + x[b]); different index expressions are
 *    different locations (y[a], y[b]), as the paper assumes unless the
 *    indices are constants, which the text tells apart (x[0], x[1]).
 *  - Reads and writes: the left side of = is written; of +=, ++ and -- read
 *    and written; everything else that is evaluated is read.  sizeof and
 *    the operand of & are not evaluated (the index inside &x[i] is).  An
 *    array variable used without subscript is its address, not a read.
 *    The address computation inside a[i][j] (a 2-D array) or s.a[i] is no
 *    access; a[i][j] over a pointer to pointers loads a[i], which is.
 *  - Aliases (§3.1): a pointer variable initialised or assigned from
 *    another pointer or array variable (y = x, y = x + i, y = &x[i], and
 *    y = x[i] or y = x->f: the variable x stands for its blocks and the
 *    blocks assigned to its elements and members), a pointer parameter
 *    given a pointer argument (its root variable), and a pointer assigned
 *    the result of an analysed function (y = f(), the root variables of
 *    f's return statements, by name), points into what that variable
 *    points into: a flow-insensitive, context-insensitive
 *    points-to over variables (Andersen's inclusion rules).  A variable is
 *    a target of its own when it is assigned an allocation or nothing flows
 *    into it.  One target: the alias, its accesses count for it; several
 *    (a pointer swapped with another, a parameter given different
 *    variables at different calls): may, its accesses split equally over
 *    them, unknown targets (a pointer parameter or local that owns no
 *    block and nothing flows into: one of a function no analysed code
 *    calls) left out when there are known ones; the
 *    paper's call paths (§3.1, interprocedural analysis after the run)
 *    not being in IP-only samples.  Arguments to a function defined in
 *    another analysed file bind by name when one definition with external
 *    linkage has it.
 *  - Allocations: a call of malloc, calloc, realloc, reallocarray,
 *    aligned_alloc, memalign, valloc, pvalloc, strdup or strndup whose
 *    result (through casts) is assigned or initialises a variable, or
 *    posix_memalign(&p, ...): the call's line range and the root variable
 *    of the target (p, or s for s->f = malloc(...)).
 *  - Loops are for, while and do statements with the lines of their whole
 *    statement; code lines are the lines where a statement or expression
 *    starts.
 *  - Only what is in the parsed (main) file is recorded: code in headers is
 *    not; a macro's expansion counts where the file uses it (its line, the
 *    use's tokens as the key: G(i)).  C++ files are skipped: their operators, references and members
 *    are not modelled.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clang-c/CXCompilationDatabase.h>
#include <clang-c/Index.h>

#include "analysis/srcvars.h"
#include "base/err.h"
#include "base/sbuf.h"

enum { M_READ = SV_READ, M_WRITE = SV_WRITE, M_RW = SV_READ | SV_WRITE, M_ADDR = 8 };

/* One translation unit being walked. */
struct tu {
	struct sv_prog *p;
	CXTranslationUnit tu;
	uint32_t file;
	const char *func;
};

#define GROW(arr, n, cap) do { \
	if ((n) == (cap)) { \
		(cap) = (cap) ? 2 * (cap) : 64; \
		(arr) = xrealloc((arr), (cap) * sizeof *(arr)); \
	} \
} while (0)

void sv_prog_init(struct sv_prog *p)
{
	memset(p, 0, sizeof *p);
}

static void fnvars_free(struct sv_fnvar *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].func);
	free(v);
}

void sv_prog_release(struct sv_prog *p)
{
	for (size_t i = 0; i < p->nvars; i++) {
		free(p->vars[i].name);
		free(p->vars[i].func);
		free(p->vars[i].usr);
		free(p->vars[i].may);
	}
	for (size_t i = 0; i < p->nacc; i++)
		free(p->acc[i].key);
	for (size_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].path);
		free(p->files[i].code);
	}
	free(p->vars);
	free(p->acc);
	free(p->loops);
	for (size_t i = 0; i < p->nallocs; i++)
		free(p->allocs[i].label);
	for (size_t i = 0; i < p->nalloc_fns; i++)
		free(p->alloc_fns[i]);
	free(p->allocs);
	free(p->alloc_fns);
	free(p->binds);
	for (size_t i = 0; i < p->nxbinds; i++)
		free(p->xbinds[i].func);
	free(p->xbinds);
	fnvars_free(p->rets, p->nrets);
	fnvars_free(p->rcalls, p->nrcalls);
	free(p->files);
	free(p->usr_hash);
	memset(p, 0, sizeof *p);
}

void sv_add_alloc_fn(struct sv_prog *p, const char *name)
{
	p->alloc_fns = xrealloc(p->alloc_fns, (p->nalloc_fns + 1) * sizeof *p->alloc_fns);
	p->alloc_fns[p->nalloc_fns++] = xmemdup(name, strlen(name));
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static void usr_rehash(struct sv_prog *p)
{
	size_t cap = p->usr_hash_cap ? 2 * p->usr_hash_cap : 256;
	uint32_t *h = xcalloc(cap, sizeof *h);

	for (size_t i = 0; i < p->nvars; i++) {
		size_t j = str_hash(p->vars[i].usr) & (cap - 1);

		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = (uint32_t)i + 1;
	}
	free(p->usr_hash);
	p->usr_hash = h;
	p->usr_hash_cap = cap;
}

static const char *cx_str(CXString s, struct sbuf *out)
{
	const char *c = clang_getCString(s);

	sbuf_reset(out);
	sbuf_adds(out, c ? c : "");
	clang_disposeString(s);
	return out->buf;
}

static bool is_array_type(CXType t)
{
	t = clang_getCanonicalType(t);
	return t.kind == CXType_ConstantArray || t.kind == CXType_IncompleteArray ||
	       t.kind == CXType_VariableArray || t.kind == CXType_DependentSizedArray;
}

static bool is_pointer_type(CXType t)
{
	return clang_getCanonicalType(t).kind == CXType_Pointer;
}

/* A local or parameter of a scalar type (integer, floating, pointer, enum)
 * that is not static or volatile: one the compiler may keep in a register. */
static bool is_automatic(CXCursor d, enum sv_scope scope)
{
	CXType t = clang_getCanonicalType(clang_getCursorType(d));

	if (scope == SV_GLOBAL || clang_Cursor_hasVarDeclGlobalStorage(d) == 1 ||
	    clang_isVolatileQualifiedType(t))
		return false;
	return (t.kind >= CXType_Bool && t.kind <= CXType_LongDouble) ||
	       t.kind == CXType_Pointer || t.kind == CXType_Enum;
}

/* The variable a declaration cursor (VarDecl, ParmDecl) is; -1 for others. */
static int var_of_decl(struct tu *t, CXCursor d)
{
	struct sv_prog *p = t->p;
	enum CXCursorKind k = clang_getCursorKind(d);
	struct sbuf usr, s;
	struct sv_var *v;
	size_t j;

	if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
		return -1;
	sbuf_init(&usr);
	sbuf_init(&s);
	cx_str(clang_getCursorUSR(d), &usr);
	if (!usr.len) {
		sbuf_release(&usr);
		sbuf_release(&s);
		return -1;
	}
	if (p->usr_hash_cap) {
		for (j = str_hash(usr.buf) & (p->usr_hash_cap - 1); p->usr_hash[j];
		     j = (j + 1) & (p->usr_hash_cap - 1)) {
			if (!strcmp(p->vars[p->usr_hash[j] - 1].usr, usr.buf)) {
				sbuf_release(&usr);
				sbuf_release(&s);
				return (int)p->usr_hash[j] - 1;
			}
		}
	}
	GROW(p->vars, p->nvars, p->vars_cap);
	v = &p->vars[p->nvars];
	v->usr = xmemdup(usr.buf, usr.len);
	cx_str(clang_getCursorSpelling(d), &s);
	v->name = xmemdup(s.buf, s.len);
	v->alias = -1;
	v->may = NULL;
	v->nmay = 0;
	v->param = -1;
	v->external = false;
	v->array = is_array_type(clang_getCursorType(d));
	v->pointer = v->array || is_pointer_type(clang_getCursorType(d));
	if (k == CXCursor_ParmDecl)
		v->scope = SV_PARAM;
	else if (clang_Cursor_hasVarDeclGlobalStorage(d) == 1 &&
		 clang_getCursorKind(clang_getCursorSemanticParent(d)) == CXCursor_TranslationUnit)
		v->scope = SV_GLOBAL;
	else
		v->scope = SV_LOCAL;
	v->automatic = is_automatic(d, v->scope);
	v->addr_taken = false;
	if (v->scope == SV_GLOBAL)
		v->func = xmemdup("", 0);
	else {
		cx_str(clang_getCursorSpelling(clang_getCursorSemanticParent(d)), &s);
		v->func = xmemdup(s.buf, s.len);
	}
	p->nvars++;
	sbuf_release(&usr);
	sbuf_release(&s);
	if (2 * p->nvars > p->usr_hash_cap)
		usr_rehash(p);
	else {
		j = str_hash(v->usr) & (p->usr_hash_cap - 1);
		while (p->usr_hash[j])
			j = (j + 1) & (p->usr_hash_cap - 1);
		p->usr_hash[j] = (uint32_t)p->nvars;
	}
	return (int)p->nvars - 1;
}

/* ---- cursors ------------------------------------------------------------ */

struct kids {
	CXCursor *c;
	unsigned n, cap;
};

static enum CXChildVisitResult kids_add(CXCursor c, CXCursor parent, CXClientData d)
{
	struct kids *k = d;

	GROW(k->c, k->n, k->cap);
	k->c[k->n++] = c;
	return CXChildVisit_Continue;
}

static void kids_of(CXCursor c, struct kids *k)
{
	k->n = 0;
	clang_visitChildren(c, kids_add, k);
}

/* c without the parentheses and casts around it. */
static CXCursor strip(CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = clang_getCursorKind(c);
		struct kids ks = { 0 };

		if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr &&
		    k != CXCursor_CStyleCastExpr)
			return c;
		kids_of(c, &ks);
		if (!ks.n) {
			free(ks.c);
			return c;
		}
		/* A cast's first child may be the type it names. */
		c = ks.c[ks.n - 1];
		free(ks.c);
	}
}

static unsigned offset_of(CXSourceLocation l)
{
	unsigned off;

	clang_getExpansionLocation(l, NULL, NULL, NULL, &off);
	return off;
}

static uint32_t line_of(CXCursor c)
{
	unsigned line;

	clang_getExpansionLocation(clang_getCursorLocation(c), NULL, &line, NULL, NULL);
	return line;
}

/* The tokens of range r joined without blanks, appended to out. */
static void text_of_range(struct tu *t, CXSourceRange r, struct sbuf *out)
{
	CXToken *tok;
	unsigned n;

	clang_tokenize(t->tu, r, &tok, &n);
	for (unsigned i = 0; i < n; i++) {
		CXString s = clang_getTokenSpelling(t->tu, tok[i]);

		sbuf_adds(out, clang_getCString(s));
		clang_disposeString(s);
	}
	clang_disposeTokens(t->tu, tok, n);
}

/* The location of l in its file, where a macro is expanded: clang_tokenize
 * over a range that starts in a macro expansion reads from the macro's
 * definition on. */
static CXSourceLocation file_loc(struct tu *t, CXSourceLocation l)
{
	CXFile f;
	unsigned line, col;

	clang_getFileLocation(l, &f, &line, &col, NULL);
	return f ? clang_getLocation(t->tu, f, line, col) : l;
}

/* Whether c is in the parsed file, where its macro is expanded: a global
 * accessed through a macro (#define A(i) a[i]) counts on the line that
 * uses the macro; libclang's test on a macro location is false. */
static bool in_main(struct tu *t, CXCursor c)
{
	return clang_Location_isFromMainFile(file_loc(t, clang_getCursorLocation(c))) != 0;
}

/* The tokens of c's extent joined without blanks (the location's key):
 * from a macro, the macro's use (G(i)). */
static void text_of(struct tu *t, CXCursor c, struct sbuf *out)
{
	CXSourceRange r = clang_getCursorExtent(c);

	sbuf_reset(out);
	text_of_range(t, clang_getRange(file_loc(t, clang_getRangeStart(r)),
					file_loc(t, clang_getRangeEnd(r))), out);
}

/* The spelling of the first token of c's extent at or after offset from
 * (from_end: the last token before offset) — an operator, "" when none. */
static void token_at(struct tu *t, CXCursor c, unsigned from, bool before, struct sbuf *out)
{
	CXToken *tok;
	unsigned n;
	int pick = -1;

	sbuf_reset(out);
	clang_tokenize(t->tu, clang_getCursorExtent(c), &tok, &n);
	for (unsigned i = 0; i < n; i++) {
		unsigned off = offset_of(clang_getTokenLocation(t->tu, tok[i]));

		if (!before && off >= from && pick < 0)
			pick = (int)i;
		if (before && off < from)
			pick = (int)i;
	}
	if (pick >= 0) {
		CXString s = clang_getTokenSpelling(t->tu, tok[pick]);

		sbuf_adds(out, clang_getCString(s));
		clang_disposeString(s);
	}
	clang_disposeTokens(t->tu, tok, n);
}

/* The operator of a binary operator with left operand lhs. */
static void binary_op(struct tu *t, CXCursor c, CXCursor lhs, struct sbuf *op)
{
	token_at(t, c, offset_of(clang_getRangeEnd(clang_getCursorExtent(lhs))), false, op);
}

/* The operator of a unary operator with operand x: prefix or postfix. */
static void unary_op(struct tu *t, CXCursor c, CXCursor x, struct sbuf *op)
{
	unsigned start = offset_of(clang_getRangeStart(clang_getCursorExtent(c)));
	unsigned xstart = offset_of(clang_getRangeStart(clang_getCursorExtent(x)));

	if (xstart > start)
		token_at(t, c, xstart, true, op);
	else
		token_at(t, c, offset_of(clang_getRangeEnd(clang_getCursorExtent(x))), false, op);
}

/* The variable an expression's location belongs to: x for x, x[i],
 * x[i].f, *x, x->f, x + 1; -1 when none. */
static int root_var(struct tu *t, CXCursor c)
{
	struct kids ks = { 0 };
	int v = -1;

	c = strip(c);
	switch (clang_getCursorKind(c)) {
	case CXCursor_DeclRefExpr:
		v = var_of_decl(t, clang_getCursorReferenced(c));
		break;
	case CXCursor_ArraySubscriptExpr:
	case CXCursor_MemberRefExpr:
	case CXCursor_UnaryOperator:
		kids_of(c, &ks);
		if (ks.n)
			v = root_var(t, ks.c[0]);
		break;
	case CXCursor_BinaryOperator:
		/* Pointer arithmetic: the operand that is a pointer. */
		kids_of(c, &ks);
		for (unsigned i = 0; i < ks.n && v < 0; i++)
			if (is_pointer_type(clang_getCursorType(ks.c[i])) ||
			    is_array_type(clang_getCursorType(ks.c[i])))
				v = root_var(t, ks.c[i]);
		break;
	default:
		break;
	}
	free(ks.c);
	return v;
}

static void add_access(struct tu *t, CXCursor c, int var, int mode)
{
	struct sv_prog *p = t->p;
	struct sv_access *a;
	struct sbuf key;

	if (var < 0 || !(mode & M_RW) || !in_main(t, c))
		return;
	sbuf_init(&key);
	text_of(t, c, &key);
	if (!key.len)
		sbuf_adds(&key, p->vars[var].name);
	GROW(p->acc, p->nacc, p->acc_cap);
	a = &p->acc[p->nacc++];
	a->file = t->file;
	a->line = line_of(c);
	a->var = (uint32_t)var;
	a->key = xmemdup(key.buf, key.len);
	a->mode = (uint8_t)(mode & M_RW);
	a->whole = clang_getCursorKind(c) == CXCursor_DeclRefExpr;
	a->reg = false;
	sbuf_release(&key);
}

static void mark_code(struct tu *t, CXCursor c)
{
	struct sv_file *f = &t->p->files[t->file];
	uint32_t line;

	if (!in_main(t, c))
		return;
	line = line_of(c);
	if (f->ncode && f->code[f->ncode - 1] == line)
		return;
	GROW(f->code, f->ncode, f->code_cap);
	f->code[f->ncode++] = line;
}

static void expr(struct tu *t, CXCursor c, int mode);

/* The base of a subscript, member or dereference: its address is computed,
 * or loaded when it is itself a pointer read from memory (a[i] of a
 * pointer to pointers, p->next). */
static void base_walk(struct tu *t, CXCursor b)
{
	struct kids ks = { 0 };
	enum CXCursorKind k;

	b = strip(b);
	k = clang_getCursorKind(b);
	mark_code(t, b);
	if (k == CXCursor_DeclRefExpr)
		return;
	if ((k == CXCursor_ArraySubscriptExpr || k == CXCursor_MemberRefExpr) &&
	    is_pointer_type(clang_getCursorType(b))) {
		expr(t, b, M_READ);
		return;
	}
	kids_of(b, &ks);
	if (k == CXCursor_ArraySubscriptExpr && ks.n == 2) {
		base_walk(t, ks.c[0]);
		expr(t, ks.c[1], M_READ);
	} else if (k == CXCursor_MemberRefExpr && ks.n) {
		base_walk(t, ks.c[0]);
	} else {
		expr(t, b, M_READ);
	}
	free(ks.c);
}

/* Whether name allocates; *label is the argument that names the block for
 * the naming allocators of dcprof.h (-1 for others). */
static bool is_alloc_fn(const struct sv_prog *p, const char *name, int *label)
{
	static const char *const fns[] = {
		"malloc", "calloc", "realloc", "reallocarray", "aligned_alloc", "memalign",
		"valloc", "pvalloc", "strdup", "strndup",
	};
	static const struct { const char *name; int label; } named[] = {
		{ "dcprof_malloc_named", 1 }, { "dcprof_malloc_named_typed", 1 },
		{ "dcprof_calloc_named", 2 },
	};

	*label = -1;
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (!strcmp(name, named[i].name)) {
			*label = named[i].label;
			return true;
		}
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
		if (!strcmp(name, fns[i]))
			return true;
	for (size_t i = 0; i < p->nalloc_fns; i++)
		if (!strcmp(name, p->alloc_fns[i]))
			return true;
	return false;
}

/* The text of a string literal argument, without its quotes; NULL when the
 * argument is not one (escapes are kept as written). */
static char *literal_arg(struct tu *t, CXCursor call, int i)
{
	CXCursor a;
	struct sbuf s;
	char *out = NULL;

	if (i < 0 || i >= clang_Cursor_getNumArguments(call))
		return NULL;
	a = strip(clang_Cursor_getArgument(call, (unsigned)i));
	if (clang_getCursorKind(a) != CXCursor_StringLiteral)
		return NULL;
	sbuf_init(&s);
	text_of(t, a, &s);
	if (s.len >= 2 && s.buf[0] == '"' && s.buf[s.len - 1] == '"')
		out = xmemdup(s.buf + 1, s.len - 2);
	sbuf_release(&s);
	return out;
}

/* The callee's name of a call, "" when it is not a named function. */
static void callee_name(CXCursor call, struct sbuf *out)
{
	CXCursor f = clang_getCursorReferenced(call);

	sbuf_reset(out);
	if (clang_getCursorKind(f) == CXCursor_FunctionDecl)
		cx_str(clang_getCursorSpelling(f), out);
}

static void add_alloc(struct tu *t, CXCursor call, int var, char *label)
{
	struct sv_prog *p = t->p;
	unsigned first, last;

	if (var < 0 || !in_main(t, call)) {
		free(label);
		return;
	}
	clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(call)), NULL, &first,
				   NULL, NULL);
	clang_getExpansionLocation(clang_getRangeEnd(clang_getCursorExtent(call)), NULL, &last,
				   NULL, NULL);
	GROW(p->allocs, p->nallocs, p->allocs_cap);
	p->allocs[p->nallocs++] = (struct sv_alloc){ t->file, first, last < first ? first : last,
						     (uint32_t)var, label };
}

static void add_flow(struct sv_prog *p, int to, int from)
{
	GROW(p->binds, p->nbinds, p->binds_cap);
	p->binds[p->nbinds++] = (struct sv_bind){ (uint32_t)to, (uint32_t)from };
}

/* target = value: an allocation's result (target the root variable of the
 * left side: p, p[0], s->f), or a copy of a pointer (alias) when the left
 * side is the variable itself (whole): p[j] = t stores a pointer into p's
 * block, it does not make p point elsewhere. */
static void assigned(struct tu *t, int target, bool whole, CXCursor value)
{
	struct sv_prog *p = t->p;
	struct sbuf name;
	CXCursor v = strip(value);

	if (target < 0)
		return;
	sbuf_init(&name);
	if (clang_getCursorKind(v) == CXCursor_CallExpr) {
		int label;

		callee_name(v, &name);
		if (is_alloc_fn(p, name.buf, &label)) {
			add_alloc(t, v, target, literal_arg(t, v, label));
			p->vars[target].alias = -2;     /* owns a block: never an alias */
		} else if (whole && p->vars[target].pointer && name.len) {
			GROW(p->rcalls, p->nrcalls, p->rcalls_cap);
			p->rcalls[p->nrcalls++] = (struct sv_fnvar){ xmemdup(name.buf, name.len),
								     (uint32_t)target };
		}
	} else if (whole && p->vars[target].pointer &&
		   is_pointer_type(clang_getCursorType(v))) {
		int src = root_var(t, v);

		if (src >= 0 && src != target && p->vars[src].pointer)
			add_flow(p, target, src);
	}
	sbuf_release(&name);
}

/* Interprocedural aliasing: each pointer argument of a call binds the
 * callee's parameter to the argument's root variable; for a function
 * defined in another file, by name when the files are all parsed. */
static void bind_args(struct tu *t, CXCursor call)
{
	struct sv_prog *p = t->p;
	CXCursor fn = clang_getCursorReferenced(call);
	CXCursor def = clang_getCursorDefinition(fn);
	bool here = !clang_Cursor_isNull(def) && clang_getCursorKind(def) == CXCursor_FunctionDecl;
	int n = clang_Cursor_getNumArguments(call);
	struct sbuf name;

	if (clang_getCursorKind(fn) != CXCursor_FunctionDecl || !in_main(t, call))
		return;
	sbuf_init(&name);
	cx_str(clang_getCursorSpelling(fn), &name);
	for (int i = 0; i < n && (!here || i < clang_Cursor_getNumArguments(def)); i++) {
		CXCursor arg = clang_Cursor_getArgument(call, (unsigned)i);
		int param, v;

		if (!is_pointer_type(clang_getCursorType(arg)))
			continue;
		v = root_var(t, arg);
		if (v < 0 || !p->vars[v].pointer)
			continue;
		if (!here) {
			GROW(p->xbinds, p->nxbinds, p->xbinds_cap);
			p->xbinds[p->nxbinds++] = (struct sv_xbind){ xmemdup(name.buf, name.len),
								     (uint32_t)i, (uint32_t)v };
			continue;
		}
		param = var_of_decl(t, clang_Cursor_getArgument(def, (unsigned)i));
		if (param >= 0 && v != param && p->vars[param].pointer)
			add_flow(p, param, v);
	}
	sbuf_release(&name);
}

static void expr_kids(struct tu *t, CXCursor c, int mode)
{
	struct kids ks = { 0 };

	kids_of(c, &ks);
	for (unsigned i = 0; i < ks.n; i++)
		expr(t, ks.c[i], mode);
	free(ks.c);
}

static void expr(struct tu *t, CXCursor c, int mode)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	struct kids ks = { 0 };
	struct sbuf op;
	int v;

	if (!clang_isExpression(k)) {
		expr_kids(t, c, M_READ);
		return;
	}
	mark_code(t, c);
	sbuf_init(&op);
	switch (k) {
	case CXCursor_DeclRefExpr:
		v = var_of_decl(t, clang_getCursorReferenced(c));
		if (v >= 0 && (mode & M_ADDR))
			t->p->vars[v].addr_taken = true;
		/* An array named alone is its address. */
		if (v >= 0 && !(mode & M_ADDR) &&
		    !(mode == M_READ && is_array_type(clang_getCursorType(c))))
			add_access(t, c, v, mode);
		break;
	case CXCursor_ArraySubscriptExpr:
	case CXCursor_MemberRefExpr:
		kids_of(c, &ks);
		if (!ks.n)
			break;
		if (!(mode & M_ADDR) && !is_array_type(clang_getCursorType(c)))
			add_access(t, c, root_var(t, ks.c[0]), mode);
		base_walk(t, ks.c[0]);
		for (unsigned i = 1; i < ks.n; i++)
			expr(t, ks.c[i], M_READ);
		break;
	case CXCursor_UnaryOperator:
		kids_of(c, &ks);
		if (!ks.n)
			break;
		unary_op(t, c, ks.c[0], &op);
		if (!strcmp(op.buf, "*")) {
			if (!(mode & M_ADDR))
				add_access(t, c, root_var(t, ks.c[0]), mode);
			base_walk(t, ks.c[0]);
		} else if (!strcmp(op.buf, "&")) {
			expr(t, ks.c[0], M_ADDR);
		} else if (!strcmp(op.buf, "++") || !strcmp(op.buf, "--")) {
			expr(t, ks.c[0], M_RW);
		} else {
			expr(t, ks.c[0], M_READ);
		}
		break;
	case CXCursor_UnaryExpr:
		/* sizeof, alignof: the operand is not evaluated. */
		break;
	case CXCursor_BinaryOperator:
		kids_of(c, &ks);
		if (ks.n != 2) {
			expr_kids(t, c, M_READ);
			break;
		}
		binary_op(t, c, ks.c[0], &op);
		if (!strcmp(op.buf, "=")) {
			expr(t, ks.c[0], M_WRITE);
			expr(t, ks.c[1], M_READ);
			assigned(t, root_var(t, ks.c[0]),
				 clang_getCursorKind(strip(ks.c[0])) == CXCursor_DeclRefExpr, ks.c[1]);
		} else {
			expr(t, ks.c[0], mode & M_ADDR ? M_READ : M_READ);
			expr(t, ks.c[1], M_READ);
		}
		break;
	case CXCursor_CompoundAssignOperator:
		kids_of(c, &ks);
		if (ks.n == 2) {
			expr(t, ks.c[0], M_RW);
			expr(t, ks.c[1], M_READ);
		}
		break;
	case CXCursor_CallExpr:
		callee_name(c, &op);
		kids_of(c, &ks);
		if (!strcmp(op.buf, "posix_memalign") && ks.n >= 2) {
			CXCursor a = strip(ks.c[1]);
			struct kids ak = { 0 };

			kids_of(a, &ak);
			if (clang_getCursorKind(a) == CXCursor_UnaryOperator && ak.n)
				add_alloc(t, c, root_var(t, ak.c[0]), NULL);
			free(ak.c);
		}
		bind_args(t, c);
		for (unsigned i = 0; i < ks.n; i++)
			expr(t, ks.c[i], M_READ);
		break;
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr:
		expr_kids(t, c, mode);
		break;
	default:
		expr_kids(t, c, M_READ);
		break;
	}
	free(ks.c);
	sbuf_release(&op);
}

static void stmt(struct tu *t, CXCursor c);

static enum CXChildVisitResult stmt_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	stmt(d, c);
	return CXChildVisit_Continue;
}

static void var_decl(struct tu *t, CXCursor d)
{
	struct kids ks = { 0 };
	int v = var_of_decl(t, d);

	kids_of(d, &ks);
	/* The initialiser is the last child that is an expression. */
	if (ks.n && clang_isExpression(clang_getCursorKind(ks.c[ks.n - 1]))) {
		CXCursor init = ks.c[ks.n - 1];

		mark_code(t, d);
		if (v >= 0 && in_main(t, d)) {
			struct sv_prog *p = t->p;
			struct sbuf name;

			sbuf_init(&name);
			cx_str(clang_getCursorSpelling(d), &name);
			GROW(p->acc, p->nacc, p->acc_cap);
			p->acc[p->nacc++] = (struct sv_access){ t->file, line_of(d), (uint32_t)v,
								xmemdup(name.buf, name.len), SV_WRITE,
								true, false };
			sbuf_release(&name);
		}
		expr(t, init, M_READ);
		assigned(t, v, true, init);
	}
	free(ks.c);
}

static void stmt(struct tu *t, CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);

	if (clang_isExpression(k)) {
		expr(t, c, M_READ);
		return;
	}
	if (k == CXCursor_VarDecl) {
		var_decl(t, c);
		return;
	}
	if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt) {
		struct sv_prog *p = t->p;
		unsigned first, last;

		if (in_main(t, c)) {
			CXSourceRange r = clang_getCursorExtent(c);

			clang_getExpansionLocation(clang_getRangeStart(r), NULL, &first, NULL, NULL);
			clang_getExpansionLocation(clang_getRangeEnd(r), NULL, &last, NULL, NULL);
			GROW(p->loops, p->nloops, p->loops_cap);
			p->loops[p->nloops++] = (struct sv_loop){ t->file, first, last };
		}
	}
	if (k == CXCursor_ReturnStmt && t->func && in_main(t, c)) {
		struct kids ks = { 0 };
		int v;

		kids_of(c, &ks);
		v = ks.n && is_pointer_type(clang_getCursorType(ks.c[0])) ? root_var(t, ks.c[0]) : -1;
		if (v >= 0 && t->p->vars[v].pointer) {
			GROW(t->p->rets, t->p->nrets, t->p->rets_cap);
			t->p->rets[t->p->nrets++] = (struct sv_fnvar){ xmemdup(t->func, strlen(t->func)),
								       (uint32_t)v };
		}
		free(ks.c);
	}
	if (clang_isStatement(k) && k != CXCursor_CompoundStmt && k != CXCursor_DeclStmt)
		mark_code(t, c);
	clang_visitChildren(c, stmt_visit, t);
}

static enum CXChildVisitResult top_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	struct tu *t = d;
	struct sbuf name;

	if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !clang_isCursorDefinition(c) ||
	    !in_main(t, c))
		return CXChildVisit_Continue;
	sbuf_init(&name);
	t->func = cx_str(clang_getCursorSpelling(c), &name);
	for (int i = 0; i < clang_Cursor_getNumArguments(c); i++) {
		int v = var_of_decl(t, clang_Cursor_getArgument(c, (unsigned)i));

		if (v >= 0) {
			t->p->vars[v].param = i;
			t->p->vars[v].external = clang_getCursorLinkage(c) == CXLinkage_External;
		}
	}
	clang_visitChildren(c, stmt_visit, t);
	t->func = NULL;
	sbuf_release(&name);
	return CXChildVisit_Continue;
}

/* ---- files ---------------------------------------------------------------- */

static uint32_t count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	uint32_t n = 0;
	int c, last = '\n';

	if (!f)
		return 0;
	while ((c = getc(f)) != EOF) {
		n += c == '\n';
		last = c;
	}
	fclose(f);
	return n + (last != '\n');
}

static bool is_cxx_name(const char *path)
{
	const char *dot = strrchr(path, '.');
	static const char *const ext[] = { ".cc", ".cpp", ".cxx", ".c++", ".C", ".CC", ".cp" };

	for (size_t i = 0; dot && i < sizeof ext / sizeof ext[0]; i++)
		if (!strcmp(dot, ext[i]))
			return true;
	return false;
}

static void warn(struct sv_prog *p, const char *fmt, const char *a, const char *b)
{
	char msg[DC_ERRLEN];

	snprintf(msg, sizeof msg, fmt, a, b);
	err_note("warning: %s", msg);
	p->warnings++;
}

/* Parses one file with args (not naming it); skipped with a warning when
 * it cannot be parsed.  0 when analysed, 1 when skipped. */
static int parse_file(struct sv_prog *p, CXIndex idx, const char *path,
		      const char *const *args, int nargs)
{
	char real[PATH_MAX];
	struct sv_file *f;
	struct tu t = { p, NULL, 0, NULL };
	enum CXErrorCode ec;
	unsigned ndiag, errors = 0;
	struct sbuf first;

	if (!realpath(path, real)) {
		warn(p, "cannot analyse '%s': %s", path, strerror(errno));
		return 1;
	}
	if (sv_file_find(p, real) >= 0)
		return 1;
	ec = clang_parseTranslationUnit2(idx, real, args, nargs, NULL, 0,
					 CXTranslationUnit_KeepGoing, &t.tu);
	if (ec != CXError_Success || !t.tu) {
		warn(p, "cannot analyse '%s': libclang could not parse it%s", path, "");
		return 1;
	}
	sbuf_init(&first);
	ndiag = clang_getNumDiagnostics(t.tu);
	for (unsigned i = 0; i < ndiag; i++) {
		CXDiagnostic d = clang_getDiagnostic(t.tu, i);

		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error && !errors++)
			cx_str(clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation), &first);
		clang_disposeDiagnostic(d);
	}
	if (errors)
		warn(p, "'%s' has compile errors; its analysis may be incomplete: %s", path, first.buf);
	sbuf_release(&first);
	GROW(p->files, p->nfiles, p->files_cap);
	f = &p->files[p->nfiles];
	memset(f, 0, sizeof *f);
	f->path = xmemdup(real, strlen(real));
	f->nlines = count_lines(real);
	t.file = (uint32_t)p->nfiles++;
	clang_visitChildren(clang_getTranslationUnitCursor(t.tu), top_visit, &t);
	clang_disposeTranslationUnit(t.tu);
	return 0;
}

/* Splits cflags at blanks into args (appended after n existing ones). */
static int split_flags(const char *cflags, char ***args, int n, char **store)
{
	char *s, *tok, *save;

	*store = NULL;
	if (!cflags)
		return n;
	*store = s = xmemdup(cflags, strlen(cflags));
	for (tok = strtok_r(s, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		*args = xrealloc(*args, (size_t)(n + 1) * sizeof **args);
		(*args)[n++] = tok;
	}
	return n;
}

struct walk {
	struct sv_prog *p;
	CXIndex idx;
	const char *const *args;
	int nargs;
	int parsed;
};

static void walk_dir(struct walk *w, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct sbuf path;

	if (!d || depth > 32) {
		if (d)
			closedir(d);
		return;
	}
	sbuf_init(&path);
	while ((e = readdir(d))) {
		struct stat st;
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		sbuf_reset(&path);
		sbuf_addf(&path, "%s/%s", dir, e->d_name);
		if (lstat(path.buf, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk_dir(w, path.buf, depth + 1);
		} else if (S_ISREG(st.st_mode) && is_cxx_name(e->d_name)) {
			warn(w->p, "skipping '%s': C++ is not analysed (only C)%s", path.buf, "");
		} else if (S_ISREG(st.st_mode) && len > 2 && !strcmp(e->d_name + len - 2, ".c")) {
			w->parsed += !parse_file(w->p, w->idx, path.buf, w->args, w->nargs);
		}
	}
	closedir(d);
	sbuf_release(&path);
}

int sv_add_sources(struct sv_prog *p, const char *dir, const char *cflags,
		   char *err, size_t errlen)
{
	struct stat st;
	struct walk w = { p, NULL, NULL, 0, 0 };
	char **args = NULL, *store, *inc;
	int n;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot read sources '%s': %s", dir,
			 errno && !S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory");
		return -1;
	}
	inc = xmalloc(strlen(dir) + 3);
	sprintf(inc, "-I%s", dir);
	args = xmalloc(sizeof *args);
	args[0] = inc;
	n = split_flags(cflags, &args, 1, &store);
	w.idx = clang_createIndex(0, 0);
	w.args = (const char *const *)args;
	w.nargs = n;
	walk_dir(&w, dir, 0);
	clang_disposeIndex(w.idx);
	free(args);
	free(store);
	free(inc);
	return w.parsed;
}

/* The arguments of a compile command that matter to parsing: not the
 * compiler, the source file, -c or -o FILE. */
static int command_args(CXCompileCommand cmd, const char *file, char ***args, int n,
			struct sbuf *keep)
{
	unsigned na = clang_CompileCommand_getNumArgs(cmd);
	size_t *offs = xcalloc(na + 1, sizeof *offs);
	int first = n;

	sbuf_reset(keep);
	for (unsigned i = 1; i < na; i++) {
		CXString s = clang_CompileCommand_getArg(cmd, i);
		const char *a;

		a = clang_getCString(s);
		if (!strcmp(a, "-c") || !strcmp(a, file)) {
			clang_disposeString(s);
			continue;
		}
		if (!strcmp(a, "-o")) {
			clang_disposeString(s);
			i++;
			continue;
		}
		offs[n - first] = keep->len;
		sbuf_add(keep, a, strlen(a) + 1);
		n++;
		clang_disposeString(s);
	}
	*args = xrealloc(*args, (size_t)(n + 1) * sizeof **args);
	for (int i = first; i < n; i++)
		(*args)[i] = keep->buf + offs[i - first];
	free(offs);
	return n;
}

int sv_add_compile_commands(struct sv_prog *p, const char *path, const char *cflags,
			    char *err, size_t errlen)
{
	struct stat st;
	char *dir;
	const char *base;
	CXCompilationDatabase_Error dberr;
	CXCompilationDatabase db;
	CXCompileCommands cmds;
	CXIndex idx;
	unsigned ncmd;
	int parsed = 0, cwd;
	struct sbuf keep, file;

	if (stat(path, &st)) {
		snprintf(err, errlen, "cannot read compile commands '%s': %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		dir = xmemdup(path, strlen(path));
	} else {
		base = strrchr(path, '/');
		if (strcmp(base ? base + 1 : path, "compile_commands.json")) {
			snprintf(err, errlen, "cannot read compile commands '%s': the file must be"
				 " named compile_commands.json", path);
			return -1;
		}
		dir = base ? xmemdup(path, (size_t)(base - path) + (base == path)) : xmemdup(".", 1);
	}
	db = clang_CompilationDatabase_fromDirectory(dir, &dberr);
	free(dir);
	if (dberr != CXCompilationDatabase_NoError || !db) {
		snprintf(err, errlen, "cannot read compile commands '%s': not a compilation database",
			 path);
		return -1;
	}
	cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0) {
		snprintf(err, errlen, "cannot read compile commands '%s': %s", path, strerror(errno));
		clang_CompilationDatabase_dispose(db);
		return -1;
	}
	cmds = clang_CompilationDatabase_getAllCompileCommands(db);
	ncmd = cmds ? clang_CompileCommands_getSize(cmds) : 0;
	idx = clang_createIndex(0, 0);
	sbuf_init(&keep);
	sbuf_init(&file);
	for (unsigned i = 0; i < ncmd; i++) {
		CXCompileCommand cmd = clang_CompileCommands_getCommand(cmds, i);
		char **args = NULL, *store;
		int n;

		cx_str(clang_CompileCommand_getFilename(cmd), &file);
		if (is_cxx_name(file.buf)) {
			warn(p, "skipping '%s': C++ is not analysed (only C)%s", file.buf, "");
			continue;
		}
		n = command_args(cmd, file.buf, &args, 0, &keep);
		n = split_flags(cflags, &args, n, &store);
		{
			struct sbuf d;

			sbuf_init(&d);
			cx_str(clang_CompileCommand_getDirectory(cmd), &d);
			if (chdir(d.buf))
				warn(p, "cannot enter '%s', the directory of a compile command: %s",
				     d.buf, strerror(errno));
			else
				parsed += !parse_file(p, idx, file.buf, (const char *const *)args, n);
			sbuf_release(&d);
		}
		if (fchdir(cwd))
			err_note("warning: cannot return to the working directory: %s", strerror(errno));
		free(args);
		free(store);
	}
	close(cwd);
	sbuf_release(&keep);
	sbuf_release(&file);
	clang_disposeIndex(idx);
	if (cmds)
		clang_CompileCommands_dispose(cmds);
	clang_CompilationDatabase_dispose(db);
	return parsed;
}

/* ---- after parsing ------------------------------------------------------- */

static int cmp_acc(const void *pa, const void *pb)
{
	const struct sv_access *a = pa, *b = pb;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return strcmp(a->key, b->key);
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return (a > b) - (a < b);
}

/* The arguments to functions of other files: a flow into the parameter of
 * the one definition with external linkage of that name. */
static void bind_by_name(struct sv_prog *p)
{
	for (size_t i = 0; i < p->nxbinds; i++) {
		const struct sv_xbind *x = &p->xbinds[i];
		int param = -1, n = 0;

		for (size_t v = 0; v < p->nvars; v++) {
			const struct sv_var *pv = &p->vars[v];

			if (pv->scope == SV_PARAM && pv->external && pv->param == (int)x->index &&
			    !strcmp(pv->func, x->func)) {
				param = (int)v;
				n++;
			}
		}
		if (n == 1 && p->vars[param].pointer && param != (int)x->from)
			add_flow(p, param, (int)x->from);
	}
	/* y = f(): what f returns, in any analysed file. */
	for (size_t i = 0; i < p->nrcalls; i++)
		for (size_t j = 0; j < p->nrets; j++)
			if (!strcmp(p->rcalls[i].func, p->rets[j].func) &&
			    p->rcalls[i].var != p->rets[j].var)
				add_flow(p, (int)p->rcalls[i].var, (int)p->rets[j].var);
}

static bool set_add(uint32_t **set, size_t *n, uint32_t v)
{
	for (size_t i = 0; i < *n; i++)
		if ((*set)[i] == v)
			return false;
	*set = xrealloc(*set, (*n + 1) * sizeof **set);
	(*set)[(*n)++] = v;
	return true;
}

static bool unknown_target(const struct sv_prog *p, const bool *owns, uint32_t v)
{
	const struct sv_var *pv = &p->vars[v];

	return pv->pointer && !pv->array && !owns[v] && pv->scope != SV_GLOBAL;
}

/* Points-to over variables (Notes): pts(v) holds v when v owns a block or
 * nothing flows into it, and pts(x) for every flow v = x; iterated to the
 * fixed point. */
static void points_to(struct sv_prog *p)
{
	uint32_t **pts = xcalloc(p->nvars + 1, sizeof *pts);
	size_t *n = xcalloc(p->nvars + 1, sizeof *n);
	bool *in = xcalloc(p->nvars + 1, sizeof *in), changed = true;
	bool *owns = xcalloc(p->nvars + 1, sizeof *owns);

	for (size_t i = 0; i < p->nbinds; i++)
		in[p->binds[i].to] = true;
	for (size_t v = 0; v < p->nvars; v++) {
		owns[v] = p->vars[v].alias == -2;
		if (!in[v] || owns[v])
			set_add(&pts[v], &n[v], (uint32_t)v);
	}
	while (changed) {
		changed = false;
		for (size_t i = 0; i < p->nbinds; i++) {
			uint32_t to = p->binds[i].to, from = p->binds[i].from;

			for (size_t k = 0; k < n[from]; k++)
				changed |= set_add(&pts[to], &n[to], pts[from][k]);
		}
	}
	for (size_t v = 0; v < p->nvars; v++) {
		struct sv_var *pv = &p->vars[v];
		size_t known = 0;

		/* Unknown targets (a local pointer or parameter nothing flows into
		 * and that owns no block: a parameter of a function no analysed
		 * code calls) give way to known ones. */
		for (size_t k = 0; k < n[v]; k++)
			known += !unknown_target(p, owns, pts[v][k]);
		for (size_t k = 0, out = 0; known && known < n[v] && k < n[v]; k++)
			if (!unknown_target(p, owns, pts[v][k]))
				pts[v][out++] = pts[v][k];
		if (known && known < n[v])
			n[v] = known;
		pv->alias = -1;
		if (n[v] == 1 && pts[v][0] != v) {
			pv->alias = (int)pts[v][0];
		} else if (n[v] > 1) {
			qsort(pts[v], n[v], sizeof *pts[v], cmp_u32);
			pv->may = pts[v];
			pv->nmay = n[v];
			pts[v] = NULL;
		}
		free(pts[v]);
	}
	free(pts);
	free(n);
	free(in);
	free(owns);
}

void sv_prog_finish(struct sv_prog *p)
{
	size_t out = 0;

	bind_by_name(p);
	points_to(p);
	for (size_t i = 0; i < p->nacc; i++) {
		const struct sv_var *v = &p->vars[p->acc[i].var];

		p->acc[i].reg = p->acc[i].whole && v->automatic && !v->addr_taken;
	}
	for (size_t i = 0; i < p->nacc; i++)
		if (p->vars[p->acc[i].var].alias >= 0)
			p->acc[i].var = (uint32_t)p->vars[p->acc[i].var].alias;
	for (size_t i = 0; i < p->nallocs; i++)
		if (p->vars[p->allocs[i].var].alias >= 0)
			p->allocs[i].var = (uint32_t)p->vars[p->allocs[i].var].alias;
	if (p->nacc)
		qsort(p->acc, p->nacc, sizeof *p->acc, cmp_acc);
	for (size_t i = 0; i < p->nacc; i++) {
		if (out && !cmp_acc(&p->acc[out - 1], &p->acc[i])) {
			p->acc[out - 1].mode |= p->acc[i].mode;
			free(p->acc[i].key);
			continue;
		}
		p->acc[out++] = p->acc[i];
	}
	p->nacc = out;
	for (size_t i = 0; i < p->nfiles; i++) {
		struct sv_file *f = &p->files[i];
		size_t n = 0;

		if (f->ncode)
			qsort(f->code, f->ncode, sizeof *f->code, cmp_u32);
		for (size_t j = 0; j < f->ncode; j++)
			if (!n || f->code[n - 1] != f->code[j])
				f->code[n++] = f->code[j];
		f->ncode = n;
	}
	p->finished = true;
}

int sv_file_find(const struct sv_prog *p, const char *path)
{
	for (size_t i = 0; i < p->nfiles; i++)
		if (!strcmp(p->files[i].path, path))
			return (int)i;
	return -1;
}

/* First index in the sorted array a[0..n) not below v. */
static size_t lower_u32(const uint32_t *a, size_t n, uint32_t v)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t sv_code_lines_in(const struct sv_prog *p, uint32_t file, uint32_t first, uint32_t last)
{
	const struct sv_file *f = &p->files[file];

	if (last < first)
		return 0;
	return lower_u32(f->code, f->ncode, last + 1) - lower_u32(f->code, f->ncode, first);
}

size_t sv_line_accesses(const struct sv_prog *p, uint32_t file, uint32_t line, size_t *n)
{
	size_t lo = 0, hi = p->nacc, start;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct sv_access *a = &p->acc[mid];

		if (a->file < file || (a->file == file && a->line < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	start = lo;
	while (lo < p->nacc && p->acc[lo].file == file && p->acc[lo].line == line)
		lo++;
	*n = lo - start;
	return start;
}
