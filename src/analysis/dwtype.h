/* dwtype.h — the element type of a data object, from the program's DWARF
 * (elfutils' libdw).
 *
 * Notes:
 *  - A global's type is its variable's (DW_TAG_variable with the symbol's
 *    name or linkage name, a definition); a global array's element type is
 *    its innermost element type.
 *  - A heap bucket's type is the pointee of the pointer variable declared at
 *    the allocation's file and line (`struct node *n = malloc(...)`, the
 *    first frame of the bucket name, `fn (file.c:41) < ...`): a variable or
 *    parameter whose DW_AT_decl_file has that base name and whose
 *    DW_AT_decl_line is that line, preferring one inside a function of the
 *    frame's name.  An allocation assigned to a variable declared
 *    elsewhere (`p = malloc(...)`), to a struct member or a global has no
 *    such declaration: dwtype_heap_lvalue then takes the lvalue the source
 *    line assigns (allocsite.h) and types it from DWARF: its first
 *    identifier is a variable or parameter of the frame's function
 *    declared at or before the line (the closest), else a global, else a
 *    member of the method's `this`; `->m`, `.m` and `[]` steps follow the
 *    declared types; the result must be a pointer, whose pointee is the
 *    element type.  Declared types survive -O2 (variables' location lists
 *    do not always: this does not need them).
 *  - Standard containers: a class of namespace std (its outermost) whose
 *    DWARF name is `vector<...>` or `basic_string<...>` holds its elements
 *    in one block, of the type of its first DW_TAG_template_type_parameter
 *    (`Point`, `char`; the name's text is never parsed).  Such a block is
 *    allocated at a line that declares the container (`std::vector<Point>
 *    pts(n)`, `= {...}`, `(other)`: a variable of the container's type
 *    declared at the line, when no pointer variable is), that calls an
 *    allocating method of it (dwtype_heap_object: the object `pts`,
 *    `cloud.pts`, `c->pts`, `this->pts` or a member `pts` of the method's
 *    `this`, resolved as an lvalue; a pointer to the container stands for
 *    it), or that assigns it (`pts = other`).  A subscript steps into a
 *    vector, basic_string, array or deque (`v[i] = malloc(...)`).  No
 *    type, and a reason, for vector<bool> (bits packed in words) and the
 *    other containers: a deque allocates its
 *    map of chunk pointers and its chunks at the same line; map, set,
 *    list and their multi and unordered kinds allocate nodes (links, then
 *    the element) and bucket arrays, and `m[k]` may insert one.
 *  - A user bucket's type is the name given with DCPROF_NAME_BLOCK_TYPED:
 *    `struct X`, `union X`, `class X`, `enum X`, or a typedef or base type
 *    name, of a complete type (one with a size).
 *  - Typedefs and qualifiers are peeled (dwarf_peel_type).  Fields are the
 *    struct's members, nested structs and unions flattened with dotted
 *    names (`pos.x`), arrays whole (`payload[40]`), anonymous members
 *    inlined, base classes' members in place; a scalar element is one field
 *    named by its type.
 *  - Only the given file is read (the program, or the library a global
 *    comes from); split DWARF and separate debug files are not followed.
 */
#ifndef DC_ANALYSIS_DWTYPE_H
#define DC_ANALYSIS_DWTYPE_H

#include <stddef.h>
#include <stdint.h>

struct dw_field {
	char *name;
	int64_t off, size;
};

struct dw_type {
	char *name;                /* "struct node", "double" */
	int64_t size;              /* the element's size: offsets fold by it */
	struct dw_field *fields;   /* by offset */
	size_t nfields;
};

/* Each returns 1 with *t filled (dw_type_release frees it), 0 when the
 * file has no such type (why says why), or -1 when the file cannot be read
 * as ELF with DWARF (why says why). */
int dwtype_global(const char *elf, const char *symbol, const char *file_base,
		  struct dw_type *t, char *why, size_t whylen);
/* The pointee of the pointer variables declared at file_base:line (in fn,
 * else in any function), else the element type of the containers declared
 * there.  Also 2 (why says so) when they point to different types: a
 * macro declares all its variables at one line, and no answer from that
 * line (nor from its text) can be trusted; or when the container declared
 * there does not hold its elements in one block. */
int dwtype_heap_site(const char *elf, const char *fn, const char *file_base, int64_t line,
		     struct dw_type *t, char *why, size_t whylen);
int dwtype_heap_lvalue(const char *elf, const char *fn, const char *file_base, int64_t line,
		       const char *lvalue, struct dw_type *t, char *why, size_t whylen);
/* The element type of the container `object` (an lvalue, or a pointer to
 * the container) whose method allocates at file_base:line. */
int dwtype_heap_object(const char *elf, const char *fn, const char *file_base, int64_t line,
		       const char *object, struct dw_type *t, char *why, size_t whylen);
/* The type a template type parameter `name` of function fn (its DWARF
 * name, `Allocate<double>`) stands for: a cast to `T *` in a template. */
int dwtype_template_param(const char *elf, const char *fn, const char *name,
			  struct dw_type *t, char *why, size_t whylen);
int dwtype_named(const char *elf, const char *type_name, struct dw_type *t, char *why,
		 size_t whylen);
void dw_type_release(struct dw_type *t);

/* The field holding byte off of the element (off < t->size), or NULL for
 * padding. */
const struct dw_field *dw_type_field_at(const struct dw_type *t, int64_t off);

#endif
