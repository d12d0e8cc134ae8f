/* srcvars.h — what a program's C sources read and write, line by line
 * (libclang), for dcprof approx (N. Rutar, J. K. Hollingsworth, "Software
 * Analysis Techniques to Approximate Data Centric Direct Measurements",
 * §3.1).
 *
 * The analysis of one program: its variables (globals, locals, parameters,
 * one entry per declaration), and per source line the distinct memory
 * locations accessed there (§3.3.1: "only unique reads are counted"), the
 * loops with their line ranges, the allocations with the variable their
 * result is assigned to, and the lines that hold code.  Everything is in
 * plain arrays the caller reads after sv_prog_finish; only srcvars.c knows
 * libclang.  docs/approx.md states the rules.
 */
#ifndef DC_ANALYSIS_SRCVARS_H
#define DC_ANALYSIS_SRCVARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sv_scope { SV_GLOBAL, SV_LOCAL, SV_PARAM };

/* Access modes, or'ed when one location is read and written on a line. */
enum { SV_READ = 1, SV_WRITE = 2 };

struct sv_var {
	char *name;
	char *func;             /* the function of a local or parameter, "" for a global */
	char *usr;              /* libclang's unified symbol resolution: the identity */
	enum sv_scope scope;
	bool pointer;           /* a pointer or an array: y = x makes an alias */
	bool array;             /* an array: its elements are where it lives */
	int alias;              /* the one variable it points into (y = x), or -1 */
	uint32_t *may;          /* the variables it may point into when more than
				 * one (sv_prog_finish): its accesses split equally */
	size_t nmay;
	int param;              /* a parameter's position in its function, or -1 */
	bool external;          /* a parameter of a function with external linkage */
	bool automatic;         /* a local or parameter of a scalar type (not static,
				 * volatile, an array or a struct) */
	bool addr_taken;        /* &x somewhere */
};

/* One distinct location accessed on a line: x[a], y[b], a, p->next.  The
 * variable is the one the access reaches after aliases (sv_prog_finish). */
struct sv_access {
	uint32_t file, line;
	uint32_t var;
	char *key;              /* the expression as written, tokens joined */
	uint8_t mode;           /* SV_READ | SV_WRITE */
	bool whole;             /* the variable itself (x), not an element or pointee */
	bool reg;               /* whole access of an automatic scalar whose address is
				 * never taken: kept in a register at -O2 (sv_prog_finish) */
};

struct sv_loop {
	uint32_t file, first, last;
};

/* A call of an allocation function whose result is assigned to var;
 * label is the name a naming allocator (dcprof_malloc_named ...) gives the
 * block, NULL for others. */
struct sv_alloc {
	uint32_t file, first, last;
	uint32_t var;
	char *label;
};

/* A pointer flowing from one variable into another: a copy (y = x,
 * y = x + 1, y = x[0]: to y, from x), a pointer argument (to the callee's
 * parameter, from the argument's root variable) or a returned pointer (to
 * the variable assigned the call, from the returned root variable). */
struct sv_bind {
	uint32_t to, from;
};

/* A pointer argument to a function not defined in its file, bound by name
 * to the parameter of the one analysed definition with external linkage
 * (sv_prog_finish). */
struct sv_xbind {
	char *func;
	uint32_t index, from;
};

/* A function and a pointer variable: one it returns (return v, return
 * v + 1, return a[0]), or one assigned its result (v = f(...)). */
struct sv_fnvar {
	char *func;
	uint32_t var;
};

struct sv_file {
	char *path;             /* as resolved by realpath */
	uint32_t nlines;
	uint32_t *code;         /* lines holding a statement or expression, ascending */
	size_t ncode, code_cap;
};

struct sv_prog {
	struct sv_var *vars;
	size_t nvars, vars_cap;
	struct sv_access *acc;
	size_t nacc, acc_cap;
	struct sv_loop *loops;
	size_t nloops, loops_cap;
	struct sv_alloc *allocs;
	size_t nallocs, allocs_cap;
	struct sv_file *files;
	size_t nfiles, files_cap;
	struct sv_bind *binds;
	size_t nbinds, binds_cap;
	struct sv_xbind *xbinds;
	size_t nxbinds, xbinds_cap;
	struct sv_fnvar *rets, *rcalls;
	size_t nrets, rets_cap, nrcalls, rcalls_cap;
	char **alloc_fns;       /* more allocation functions (--alloc-fn names) */
	size_t nalloc_fns;
	uint32_t *usr_hash;     /* open addressing: var index + 1, 0 = empty */
	size_t usr_hash_cap;
	size_t warnings;        /* files skipped or parsed with errors */
	bool finished;
};

void sv_prog_init(struct sv_prog *p);
void sv_prog_release(struct sv_prog *p);
/* Makes name an allocation function for the files parsed after. */
void sv_add_alloc_fn(struct sv_prog *p, const char *name);

/* Parses every C file under dir (recursively) with extra flags cflags
 * (split at blanks; may be NULL) and -I dir.  Files that cannot be parsed
 * are skipped with a warning on stderr; C++ files are skipped with a
 * warning.  Returns the number of files analysed, or -1 with err set when
 * dir cannot be read. */
int sv_add_sources(struct sv_prog *p, const char *dir, const char *cflags,
		   char *err, size_t errlen);
/* The same for the C files of a compilation database (compile_commands.json,
 * as made by bear or CMake): path is the file or its directory. */
int sv_add_compile_commands(struct sv_prog *p, const char *path, const char *cflags,
			    char *err, size_t errlen);
/* Resolves aliases: the variables each pointer may point into, following
 * copies and pointer arguments (alias when one, may when several), marks
 * register accesses, sorts the accesses by file, line and key and merges
 * the repeats of one location on one line; sorts each file's code lines. */
void sv_prog_finish(struct sv_prog *p);

/* The file whose path is path (realpath'ed by the caller), or -1. */
int sv_file_find(const struct sv_prog *p, const char *path);
/* Code lines of file in [first, last]. */
size_t sv_code_lines_in(const struct sv_prog *p, uint32_t file, uint32_t first, uint32_t last);
/* Index of the first access of (file, line) in p->acc and their number. */
size_t sv_line_accesses(const struct sv_prog *p, uint32_t file, uint32_t line, size_t *n);

#endif
