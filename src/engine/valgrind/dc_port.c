/* dc_port.c — the core's environment inside Valgrind: VG_(malloc) and
 * VG_(write).  VG_(malloc) aborts the run rather than return NULL, so the
 * core's out-of-memory paths are exercised by the host unit tests instead. */
#include "pub_tool_basics.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_mallocfree.h"

#include "engine/valgrind/dc_tool.h"

static void *vg_alloc(void *ud, size_t n, const char *label)
{
	return VG_(malloc)(label, n ? n : 1);
}

static void vg_free(void *ud, void *p)
{
	VG_(free)(p);
}

void dc_port_init(struct dc_env *env)
{
	env->alloc = vg_alloc;
	env->free = vg_free;
	env->ud = NULL;
}

static int fd_write(void *ud, const void *buf, size_t n)
{
	Int fd = *(Int *)ud;
	const char *p = buf;

	while (n) {
		Int w = VG_(write)(fd, p, n);
		if (w <= 0)
			return DC_EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

struct dc_sink dc_fd_sink(Int *fd)
{
	struct dc_sink s = { fd_write, fd };
	return s;
}
