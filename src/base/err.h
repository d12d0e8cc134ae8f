/* err.h — one-line error messages and allocation that cannot fail.
 *
 * Every error dcprof prints is one line on stderr: "<prefix>: <message>",
 * where the prefix is "dcprof" or "dcprof <command>".  The message is
 * escaped (control characters and invalid UTF-8 become \xNN) so names taken
 * from the program or the command line cannot break the line or drive the
 * terminal.
 *
 * Every front-end layer (store, analysis, report, cli) uses it.
 *
 * Host-side allocation failure is fatal, as with git's xmalloc: dcprof
 * prints "out of memory" and exits 2.  Recoverable errors are values.
 */
#ifndef DC_BASE_ERR_H
#define DC_BASE_ERR_H

#include <stddef.h>

/* Exit status of every dcprof error. */
#define DC_EXIT_ERROR 2

/* Size of the message buffers passed down to helpers that report why they
 * failed; longer messages are cut. */
#define DC_ERRLEN 512

/* Sets the prefix of later messages; s must outlive them. */
void err_set_prefix(const char *s);

void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An informational line, always prefixed "dcprof". */
void err_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Flushes stdout at the end of a command that printed a report: 0, or
 * DC_EXIT_ERROR after saying why the output could not be written. */
int err_flush_output(void);

void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
void *xcalloc(size_t n, size_t size);
char *xmemdup(const void *p, size_t n);   /* NUL-terminated copy */

#endif
