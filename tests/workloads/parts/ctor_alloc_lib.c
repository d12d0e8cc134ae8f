/* ctor_alloc_lib.c — the shared library of ctor_alloc: its constructor,
 * run by ld.so before main, allocates one block (SITE:ctor). */
#include <stdlib.h>
#include <string.h>

char *ctor_block;

__attribute__((constructor, noinline)) void ctor_init(void)
{
	ctor_block = malloc(3000); /* SITE:ctor */
	if (ctor_block)
		memset(ctor_block, 1, 3000);
}
