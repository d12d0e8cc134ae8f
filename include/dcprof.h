/* dcprof.h — name data and bound the measured region from your program.
 *
 * Header only: include it, link nothing.  The macros are Valgrind client
 * requests; outside dcprof (natively or under another Valgrind tool) they do
 * nothing and cost a few instructions.  Usable from C and C++.
 *
 *   DCPROF_NAME_BLOCK(ptr, size, "name")
 *       Put the block at ptr into the user bucket "name".  If ptr is the start
 *       of a live heap block, that block moves to the bucket (size is then
 *       ignored); otherwise [ptr, ptr+size) becomes a user object, provided it
 *       overlaps no other object.
 *
 *   DCPROF_NAME_BLOCK_TYPED(ptr, size, "name", "struct node")
 *       DCPROF_NAME_BLOCK, and the type of the block's elements, as the
 *       program's debug information names it ("struct node", "double", a
 *       typedef name): `dcprof report --by field` then folds the block's
 *       offsets by that type's size and names its fields.
 *
 *   dcprof_malloc_named(size, "name"), dcprof_calloc_named(n, size, "name")
 *       malloc/calloc whose block goes straight into the user bucket "name",
 *       like Cache Scope's dctl_mallocn.  Free it with free().
 *
 *   dcprof_malloc_named_typed(size, "name", "type")
 *       The same with the elements' type, as DCPROF_NAME_BLOCK_TYPED.
 *
 *   DCPROF_START() / DCPROF_STOP()
 *       Start and stop collecting costs.  Run with --collect-atstart=no to
 *       measure only between them.  The cache is simulated all the time, so
 *       the measured region starts with the cache contents the program left.
 *
 * Names are copied; the string need not outlive the call.
 */
#ifndef DCPROF_H
#define DCPROF_H

#ifndef DCPROF_REQUESTS_ONLY   /* the engine itself needs only the codes */
#include <stdlib.h>
#endif
#include <valgrind/valgrind.h>

#define DCPROF__REQ(n) (VG_USERREQ_TOOL_BASE('D', 'C') + (n))
enum {
	DCPROF_REQ_NAME_BLOCK = DCPROF__REQ(0),
	DCPROF_REQ_NAME_NEXT_ALLOC = DCPROF__REQ(1),
	DCPROF_REQ_START = DCPROF__REQ(2),
	DCPROF_REQ_STOP = DCPROF__REQ(3),
	DCPROF_REQ_NAME_BLOCK_TYPED = DCPROF__REQ(4)
};

#define DCPROF_NAME_BLOCK(ptr, size, name)                                      \
	VALGRIND_DO_CLIENT_REQUEST_STMT(DCPROF_REQ_NAME_BLOCK, (ptr), (size),   \
					(name), 0, 0)

#define DCPROF_NAME_BLOCK_TYPED(ptr, size, name, type)                          \
	VALGRIND_DO_CLIENT_REQUEST_STMT(DCPROF_REQ_NAME_BLOCK_TYPED, (ptr),     \
					(size), (name), (type), 0)

#define DCPROF_NAME_NEXT_ALLOC(name)                                            \
	VALGRIND_DO_CLIENT_REQUEST_STMT(DCPROF_REQ_NAME_NEXT_ALLOC, (name), 0,  \
					0, 0, 0)

#define DCPROF_START() VALGRIND_DO_CLIENT_REQUEST_STMT(DCPROF_REQ_START, 0, 0, 0, 0, 0)
#define DCPROF_STOP()  VALGRIND_DO_CLIENT_REQUEST_STMT(DCPROF_REQ_STOP, 0, 0, 0, 0, 0)

#ifndef DCPROF_REQUESTS_ONLY
static inline void *dcprof_malloc_named(size_t size, const char *name)
{
	DCPROF_NAME_NEXT_ALLOC(name);
	return malloc(size);
}

static inline void *dcprof_malloc_named_typed(size_t size, const char *name,
						const char *type)
{
	void *p = malloc(size);

	if (p)
		DCPROF_NAME_BLOCK_TYPED(p, size, name, type);
	return p;
}

static inline void *dcprof_calloc_named(size_t n, size_t size, const char *name)
{
	DCPROF_NAME_NEXT_ALLOC(name);
	return calloc(n, size);
}
#endif

#endif
