/* reuse_text.h — the lines that introduce a reuse report (dcprof reuse,
 * mrc and reuse --accuracy): what was recorded and for which object, in
 * text or as JSON members. */
#ifndef DC_REPORT_REUSE_TEXT_H
#define DC_REPORT_REUSE_TEXT_H

#include <stdint.h>

#include "base/sbuf.h"
#include "store/rhist.h"

/* "128 B", "4 KiB": the size of v blocks of block bytes, in the largest
 * binary unit (B, KiB, ... EiB) that divides it. */
void reuse_fmt_bytes(struct sbuf *out, int64_t v, int64_t block);
/* Text: "reuse:    SOURCE, blocks of 64 B, bins 1:2" and "object:   whole
 * program" (or "bucket 'NAME'") lines. */
void reuse_text_intro(struct sbuf *out, const struct reuse_info *ri, const char *source,
		      const char *object);
/* Text: the sampling configuration and counts of a --reuse-sample run. */
void reuse_text_sampling(struct sbuf *out, const struct reuse_info *ri);
/* JSON members: ,"source":SOURCE,"block":64,"bin_first":1,"bin_growth":2,"object":null */
void reuse_json_intro(struct sbuf *out, const struct reuse_info *ri, const char *source,
		      const char *object);
#endif
