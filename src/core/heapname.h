/* heapname.h — heap bucket names from allocation call paths, for every
 * engine.
 *
 * The simulator engine gets the frames from Valgrind's unwinder and debug
 * information (engine/valgrind/dc_heap.c); the native engine's call paths
 * are named by `dcprof finalize` from libdw (store/natsym.c).  Both call
 * dc_heap_name, so one program gets the same bucket names under either.
 *
 * Notes:
 *  - Frames come innermost first, inlined functions as frames of their
 *    own (the inlined function before the one it was inlined into), each
 *    with the source file and line of its code at that point (for an
 *    outer frame, the line of its call), its object and its address.
 *  - The name starts at the first frame of the program above the
 *    allocator: leading frames of allocation functions (malloc and its
 *    family, glibc's __libc_ aliases, every operator new, Valgrind's
 *    replacements, --alloc-fn names, a C++ name also without its
 *    parameter list, a template also without its return type and
 *    template arguments) are skipped, then library frames (system headers'
 *    code, system libraries) when a frame of the program follows them.
 *  - Then `depth` frames joined by " < " ("called from"), never past main;
 *    the first carries " (file:line)" (or " (object)" without line
 *    information), with `site` every frame does.  A function is shown
 *    bare (no parameter list, qualifiers or symbol version); an unknown
 *    one as ?(object) or its address.  No frame at all: "<heap>".
 *    (docs/engine.md, "Heap bucket names"; Cache Scope's rule, seeds/002
 *    §4.3.1.)
 */
#ifndef DC_HEAPNAME_H
#define DC_HEAPNAME_H

#include "core/port.h"

/* The longest function name a frame keeps whole: demangled C++ names of
 * template code reach a kilobyte and more (a member of a class template
 * instantiated with other templates), and a name cut in its template
 * arguments reads as a different function. */
#define DC_FN_NAME_MAX 4096
/* The longest heap bucket name, room for several such frames. */
#define DC_HEAP_NAME_MAX 16384

/* What an allocation function does with its arguments. */
enum { DC_AF_MALLOC, DC_AF_CALLOC, DC_AF_REALLOC, DC_AF_REALLOCARRAY, DC_AF_MEMALIGN,
       DC_AF_POSIX_MEMALIGN, DC_AF_FREE };

/* The kind (DC_AF_*) of the allocation function called fn (a symbol name,
 * demangled or not, with or without a symbol version or "__libc_"), or
 * -1 when fn is none. */
int dc_alloc_fn_kind(const char *fn);

/* One frame of a call path.  Strings are never NULL; "" is unknown. */
struct dc_hframe {
	const char *fn;       /* function (demangled, as the symbol table or DWARF names it) */
	const char *file;     /* source file with its directory */
	uint32_t line;        /* 0: unknown */
	const char *obj;      /* path of the object the code is in */
	uint64_t ip;          /* the code address the frame is at */
};

struct dc_heapname_opts {
	int depth;                      /* frames in the name (--heap-names=fn:N) */
	bool site;                      /* every frame with its file and line */
	const char *const *alloc_fns;   /* --alloc-fn names */
	size_t n_alloc_fns;
};

/* The bucket name of the call path f[0..n) into buf (NUL-terminated, cut
 * to len bytes); returns the length written. */
size_t dc_heap_name(const struct dc_hframe *f, size_t n, const struct dc_heapname_opts *o,
		    char *buf, size_t len);

/* Appends frame f's function as names show it (bare, or ?(object), or its
 * address) to buf[*pos..len). */
void dc_hframe_fn(const struct dc_hframe *f, char *buf, size_t len, size_t *pos);

/* fn without a C++ parameter list and qualifiers or a symbol version,
 * into buf (cut to len): "make_nodes(int)" -> "make_nodes",
 * "Grid::fill() const" -> "Grid::fill", "f@@GLIBC_2.34" -> "f". */
const char *dc_bare_fn_name(const char *fn, char *buf, size_t len);

/* A region's chain name, "f-g-h" in "<mmap:f-g-h>": up to depth
 * functions of f[0..n) joined by "-" (with site, each followed by
 * "(line)"), leading frames for which skip(fn) holds left out, never past
 * main; "<heap>" without any frame.  Returns the length written. */
size_t dc_chain_name(const struct dc_hframe *f, size_t n, int depth, bool site,
		     bool (*skip)(const char *fn), char *buf, size_t len);

/* Is fn a mapping function (mmap and its aliases, Valgrind's
 * replacements), whose frames a region's chain leaves out? */
bool dc_is_mmap_fn(const char *fn);

/* The last component of a path. */
const char *dc_path_base(const char *path);

#endif
