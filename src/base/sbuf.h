/* sbuf.h — a growable byte string (after git's strbuf).
 *
 * init sets up caller-owned storage, release frees what it owns.  buf is
 * always NUL-terminated; len does not count the NUL.  Bytes may include NUL.
 */
#ifndef DC_BASE_SBUF_H
#define DC_BASE_SBUF_H

#include <stddef.h>

struct sbuf {
	char *buf;
	size_t len;
	size_t cap;
};

void sbuf_init(struct sbuf *sb);
void sbuf_release(struct sbuf *sb);
void sbuf_reset(struct sbuf *sb);        /* empty it, keep the storage */
void sbuf_add(struct sbuf *sb, const void *p, size_t n);
void sbuf_addc(struct sbuf *sb, char c);
void sbuf_adds(struct sbuf *sb, const char *s);
void sbuf_addf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
