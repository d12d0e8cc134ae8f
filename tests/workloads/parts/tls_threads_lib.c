/* tls_threads_lib.c — the shared library of tls_threads: a thread-local
 * array of the library (its own PT_TLS block, placed by glibc after the
 * program's).  lib_touch stores its 64 longs, then loads them, through a
 * volatile pointer: per call Dw = 64, Dr = 64. */
__thread long lib_tls[64];

long lib_touch(void)
{
	volatile long *p = lib_tls;
	long s = 0;

	for (int i = 0; i < 64; i++)
		p[i] = i;
	for (int i = 0; i < 64; i++)
		s += p[i];
	return s;
}
