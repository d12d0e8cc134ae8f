/* port.h — the environment the freestanding core runs in.
 *
 * The core (src/core/) is linked into the Valgrind tool, which has no libc,
 * and into the host programs (dcprof, unit tests), which do.  Everything the
 * core needs from its surroundings — memory and output — comes through a
 * struct dc_env the caller passes in, so ownership is visible and tests can
 * make the Nth allocation fail.
 *
 * Only <stddef.h>, <stdint.h>, <stdbool.h>, <stdarg.h> (all provided by the
 * compiler, not libc) and the core's own headers may be included by core files.  memcpy/memmove/memset are the only external
 * symbols the core may reference (compilers emit them for struct copies
 * anyway); the test suite checks this with nm.
 */
#ifndef DC_PORT_H
#define DC_PORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Error codes: 0 is success, errors are negative. */
enum {
	DC_OK = 0,
	DC_ENOMEM = -1,   /* an allocation failed */
	DC_EINVAL = -2,   /* malformed input (spec string, ELF image, ...) */
	DC_EIO = -3,      /* the sink refused bytes */
	DC_ERANGE = -4,   /* a value is outside what the model supports */
};

const char *dc_strerror(int err);

struct dc_env {
	/* Returns NULL on failure.  label names the call site, for accounting
	 * and for fault-injection tests. */
	void *(*alloc)(void *ud, size_t n, const char *label);
	void (*free)(void *ud, void *p);
	void *ud;
};

static inline void *dc_alloc(const struct dc_env *env, size_t n, const char *label)
{
	return env->alloc(env->ud, n, label);
}

static inline void dc_free(const struct dc_env *env, void *p)
{
	if (p)
		env->free(env->ud, p);
}

/* Where serialized output goes.  write returns 0 or a negative error. */
struct dc_sink {
	int (*write)(void *ud, const void *buf, size_t n);
	void *ud;
};

/* The compiler lowers these to calls; they are the only libc symbols the
 * core may reference. */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

#endif
