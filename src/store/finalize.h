/* finalize.h — turn one raw dump into one profile (dcprof finalize and
 * dcprof record share this). */
#ifndef DC_STORE_FINALIZE_H
#define DC_STORE_FINALIZE_H

#include <stddef.h>

#include "store/rawread.h"

/* How the profiled process ended, when the caller knows. */
struct exit_info {
	enum { EXIT_UNKNOWN, EXIT_CODE, EXIT_SIGNAL } how;
	int value;                /* exit code or signal number */
};

/* Reads raw, writes out (through a temporary file renamed at the end:
 * base/outfile.h) and marks it incomplete when the process was killed or
 * the dump was cut short.  meta (NULL, or key, value, ..., NULL) adds meta
 * keys of the caller's.  On error out is as it was, no temporary file
 * is left, err holds the whole message, and the result says whose fault
 * it was: FINALIZE_EREAD the dump's (it cannot be read), FINALIZE_EWRITE
 * the profile's (a full disk: the dump is worth keeping). */
enum { FINALIZE_EREAD = -1, FINALIZE_EWRITE = -2 };
int finalize_raw(const char *raw, const char *out, const struct exit_info *ex,
		 const char *const *meta, struct raw_summary *s, char *err, size_t errlen);

/* "signal 15 (SIGTERM)" */
void signal_describe(int sig, char *buf, size_t len);

/* "dcprof: wrote OUT (N buckets, Dr=..., Dw=..., D1 misses=..., LL misses=...)" */
void finalize_print_summary(const char *out, const struct raw_summary *s);

#endif
