/* ctor_alloc.c — a block allocated by a library's constructor, which ld.so
 * runs before main (parts/ctor_alloc_lib.c; tests/e2e/test_engine_names.py).
 *
 * The block's call path is ctor_init < call_init < _dl_init < ld.so's
 * entry code, and there it ends: below the entry point the stack holds
 * argc and argv, which an unwinder that does not stop at the entry reads
 * as return addresses.  So with --heap-names=site (the whole path) the
 * bucket's name begins "ctor_init (ctor_alloc_lib.c:SITE:ctor)", has no
 * frame that is a bare address, and is the same whatever the arguments
 * (argc - 1 and argv's addresses would have been frames of it).
 * One block of 3000 bytes: blocks 1, total_bytes 3000.  main reads its
 * first byte once. */
#include <stdio.h>

extern char *ctor_block;

int main(int argc, char **argv)
{
	(void)argv;
	return ctor_block && ctor_block[0] == 1 ? 0 : argc + 1;
}
