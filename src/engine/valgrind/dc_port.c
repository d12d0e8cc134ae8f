/* dc_port.c — the core's environment inside Valgrind: VG_(malloc) and
 * VG_(write), and the files the engine writes.  VG_(malloc) aborts the run
 * rather than return NULL, so the core's out-of-memory paths are exercised
 * by the host unit tests instead. */
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

Int dc_port_create(const HChar *path, Int mode)
{
	SysRes sr = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, mode);

	if (sr_isError(sr))
		return -1;
	/* VG_(open) returns the lowest free descriptor, one of the client's: a
	 * program that closes the descriptors it inherited and opens a log
	 * file would get the dump's descriptor and write into it, or close it
	 * and lose the dump. */
	return VG_(safe_fd)((Int)sr_Res(sr));
}
