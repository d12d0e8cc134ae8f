/* port_libc.c — the core's environment on a host with libc. */
#include <stdlib.h>

#include "host/port_libc.h"

static void *libc_alloc(void *ud, size_t n, const char *label)
{
	return malloc(n);
}

static void libc_free(void *ud, void *p)
{
	free(p);
}

const struct dc_env *dc_env_libc(void)
{
	static const struct dc_env env = { libc_alloc, libc_free, NULL };
	return &env;
}
