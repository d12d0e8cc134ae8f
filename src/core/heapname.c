/* heapname.c — heap bucket names from allocation call paths (see
 * heapname.h for the rule). */
#include "core/heapname.h"
#include "core/util.h"

static bool has_prefix(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return false;
	return true;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const char *dc_path_base(const char *path)
{
	const char *b = path;

	for (const char *p = path; *p; p++)
		if (*p == '/')
			b = p + 1;
	return b;
}

/* The functions whose calls make or free blocks, by name (after a symbol
 * version and glibc's "__libc_" are taken off).  C++'s operators come
 * demangled or mangled: every operator new takes the size first, every
 * operator delete the pointer. */
static const struct {
	const char *name;
	int kind;
} alloc_kinds[] = {
	{ "malloc", DC_AF_MALLOC }, { "valloc", DC_AF_MALLOC }, { "pvalloc", DC_AF_MALLOC },
	{ "calloc", DC_AF_CALLOC }, { "realloc", DC_AF_REALLOC },
	{ "reallocarray", DC_AF_REALLOCARRAY }, { "memalign", DC_AF_MEMALIGN },
	{ "aligned_alloc", DC_AF_MEMALIGN }, { "posix_memalign", DC_AF_POSIX_MEMALIGN },
	{ "free", DC_AF_FREE }, { "cfree", DC_AF_FREE },
};

int dc_alloc_fn_kind(const char *fn)
{
	char name[64];
	size_t n = 0;

	if (has_prefix(fn, "operator new") || has_prefix(fn, "_Znwm") || has_prefix(fn, "_Znam"))
		return DC_AF_MALLOC;
	if (has_prefix(fn, "operator delete") || has_prefix(fn, "_ZdlPv") ||
	    has_prefix(fn, "_ZdaPv"))
		return DC_AF_FREE;
	if (has_prefix(fn, "__libc_"))
		fn += 7;
	while (fn[n] && fn[n] != '@' && n + 1 < sizeof name) {
		name[n] = fn[n];
		n++;
	}
	name[n] = 0;
	for (size_t i = 0; i < sizeof alloc_kinds / sizeof *alloc_kinds; i++)
		if (str_eq(name, alloc_kinds[i].name))
			return alloc_kinds[i].kind;
	return -1;
}

/* Allocators a call path can pass through besides those: the aligned and
 * nothrow operators by their mangled names, dcprof's naming allocators
 * (include/dcprof.h) and Valgrind's replacements (_vgr...). */
static const char *const allocators[] = {
	"dcprof_malloc_named", "dcprof_calloc_named", "__builtin_new", "__builtin_vec_new",
	"_ZnwmSt11align_val_t", "_ZnamSt11align_val_t", "_ZnwmRKSt9nothrow_t",
	"_ZnamRKSt9nothrow_t",
};

const char *dc_bare_fn_name(const char *fn, char *buf, size_t len)
{
	size_t n = 0;

	if (!len)
		return "";
	while (fn[n] && n + 1 < len && !(fn[n] == '@' && fn[n + 1] == '@')) {
		buf[n] = fn[n];
		n++;
	}
	buf[n] = 0;
	/* Member-function qualifiers after the parameter list. */
	for (;;) {
		if (n >= 6 && str_eq(buf + n - 6, " const"))
			n -= 6;
		else if (n >= 9 && str_eq(buf + n - 9, " volatile"))
			n -= 9;
		else if (n >= 2 && str_eq(buf + n - 2, " &"))
			n -= 2;
		else if (n >= 3 && str_eq(buf + n - 3, " &&"))
			n -= 3;
		else
			break;
		buf[n] = 0;
	}
	if (n && buf[n - 1] == ')') {
		int depth = 0;
		for (size_t i = n; i-- > 0;) {
			if (buf[i] == ')')
				depth++;
			else if (buf[i] == '(' && --depth == 0) {
				if (i > 0)
					buf[i] = 0;
				break;
			}
		}
	}
	return buf;
}

/* The bare name bare (dc_bare_fn_name) without the return type a
 * demangled function template carries ("double* Allocate<double>"), in
 * place, and into plain without its template arguments ("Allocate"):
 * LULESH's Allocate<T>, a wrapper every Real_t and Index_t array goes
 * through, is Allocate<double> where inlined and "double*
 * Allocate<double>(unsigned long)" out of line; --alloc-fn=Allocate means
 * all of them. */
static const char *template_base(char *bare, char *plain, size_t len)
{
	const char *name = bare;
	size_t n = 0;
	int depth = 0;

	for (const char *p = bare; *p; p++) {
		if (*p == '<' || *p == '(')
			depth++;
		else if ((*p == '>' || *p == ')') && depth > 0)
			depth--;
		else if (*p == ' ' && depth == 0)
			name = p + 1;
	}
	while (name[n] && name[n] != '<' && n + 1 < len) {
		plain[n] = name[n];
		n++;
	}
	plain[n] = 0;
	return name;
}

static bool is_allocator(const char *fn, const struct dc_heapname_opts *o)
{
	char bare[DC_FN_NAME_MAX], plain[DC_FN_NAME_MAX];
	const char *named;

	if (!fn[0])
		return false;
	if (has_prefix(fn, "_vgr") || has_prefix(fn, "__libc_") || dc_alloc_fn_kind(fn) >= 0)
		return true;
	for (size_t i = 0; i < sizeof allocators / sizeof *allocators; i++)
		if (str_eq(fn, allocators[i]))
			return true;
	/* --alloc-fn names may leave out a C++ parameter list: "Pool::get"
	 * matches "Pool::get(int)"; and a template's return type and
	 * arguments: "Allocate<double>" and "Allocate" match "double*
	 * Allocate<double>(unsigned long)". */
	if (!o->n_alloc_fns)
		return false;
	dc_bare_fn_name(fn, bare, sizeof bare);
	named = template_base(bare, plain, sizeof plain);
	for (size_t i = 0; i < o->n_alloc_fns; i++)
		if (str_eq(fn, o->alloc_fns[i]) || str_eq(bare, o->alloc_fns[i]) ||
		    str_eq(named, o->alloc_fns[i]) || str_eq(plain, o->alloc_fns[i]))
			return true;
	return false;
}

/* Library code between the allocator and the program: the system's
 * headers (C++ containers inlined into the program) and the system's
 * libraries (libstdc++'s string code, strdup, stdio's buffers). */
static bool is_sys_frame(const struct dc_hframe *f)
{
	if (f->line && f->file[0] &&
	    (has_prefix(f->file, "/usr/include/") || has_prefix(f->file, "/usr/lib/") ||
	     has_prefix(f->file, "/usr/local/include/")))
		return true;
	return has_prefix(f->obj, "/lib/") || has_prefix(f->obj, "/lib64/") ||
	       has_prefix(f->obj, "/usr/lib/") || has_prefix(f->obj, "/usr/lib64/") ||
	       has_prefix(f->obj, "/usr/libexec/valgrind/");
}

static void append(char *buf, size_t len, size_t *pos, const char *s)
{
	while (*s && *pos + 1 < len)
		buf[(*pos)++] = *s++;
	if (len)
		buf[*pos < len ? *pos : len - 1] = 0;
}

void dc_hframe_fn(const struct dc_hframe *f, char *buf, size_t len, size_t *pos)
{
	char tmp[DC_FN_NAME_MAX];

	if (f->fn[0]) {
		append(buf, len, pos, dc_bare_fn_name(f->fn, tmp, sizeof tmp));
		return;
	}
	if (f->obj[0])
		dc_fmt(tmp, sizeof tmp, "?(%s)", dc_path_base(f->obj));
	else
		dc_fmt(tmp, sizeof tmp, "0x%X", f->ip);
	append(buf, len, pos, tmp);
}

/* " (file.c:41)", or " (object)" without line information. */
static void frame_src(const struct dc_hframe *f, char *buf, size_t len, size_t *pos)
{
	char tmp[300];

	if (f->line && f->file[0])
		dc_fmt(tmp, sizeof tmp, " (%s:%u)", dc_path_base(f->file), (unsigned)f->line);
	else if (f->fn[0] && f->obj[0])
		dc_fmt(tmp, sizeof tmp, " (%s)", dc_path_base(f->obj));
	else
		return;
	append(buf, len, pos, tmp);
}

size_t dc_heap_name(const struct dc_hframe *f, size_t n, const struct dc_heapname_opts *o,
		    char *buf, size_t len)
{
	size_t i = 0, j, pos = 0;
	int k = 0;

	if (len)
		buf[0] = 0;
	while (i < n && is_allocator(f[i].fn, o))
		i++;
	for (j = i; j < n && is_sys_frame(&f[j]); j++)
		;
	if (j < n)
		i = j;
	for (; i < n && k < o->depth; i++, k++) {
		if (k)
			append(buf, len, &pos, " < ");
		dc_hframe_fn(&f[i], buf, len, &pos);
		if (o->site || k == 0)
			frame_src(&f[i], buf, len, &pos);
		if (str_eq(f[i].fn, "main"))
			break;
	}
	if (!pos)
		append(buf, len, &pos, "<heap>");
	return pos;
}

bool dc_is_mmap_fn(const char *fn)
{
	return str_eq(fn, "mmap") || str_eq(fn, "mmap64") || str_eq(fn, "__mmap") ||
	       str_eq(fn, "__mmap64") || has_prefix(fn, "_vgr");
}

size_t dc_chain_name(const struct dc_hframe *f, size_t n, int depth, bool site,
		     bool (*skip)(const char *fn), char *buf, size_t len)
{
	size_t i = 0, pos = 0;
	char tmp[32];

	if (!len)
		return 0;
	buf[0] = 0;
	while (i < n && skip(f[i].fn))
		i++;
	for (int k = 0; i < n && k < depth; i++, k++) {
		if (k)
			append(buf, len, &pos, "-");
		dc_hframe_fn(&f[i], buf, len, &pos);
		if (site && f[i].line) {
			dc_fmt(tmp, sizeof tmp, "(%u)", (unsigned)f[i].line);
			append(buf, len, &pos, tmp);
		}
		if (str_eq(f[i].fn, "main"))
			break;
	}
	if (!pos)
		append(buf, len, &pos, "<heap>");
	return pos;
}
