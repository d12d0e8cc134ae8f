/* reuse_text.c — the lines that introduce a reuse report (see reuse_text.h). */
#include <string.h>

#include "base/fmt.h"
#include "report/reuse_text.h"

void reuse_fmt_bytes(struct sbuf *out, int64_t v, int64_t block)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned __int128 x = (unsigned __int128)v * (unsigned __int128)block;
	int u = 0;

	while (u < 6 && x >= 1024 && x % 1024 == 0) {
		x /= 1024;
		u++;
	}
	/* Only a bound beyond 2^64 EiB is left above 64 bits. */
	if (x >> 64)
		sbuf_addf(out, "%.4g %s", (double)x, units[u]);
	else
		sbuf_addf(out, "%llu %s", (unsigned long long)x, units[u]);
}

void reuse_text_intro(struct sbuf *out, const struct reuse_info *ri, const char *source,
		      const char *object)
{
	sbuf_addf(out, "%-10s%s, blocks of ", "reuse:", source);
	reuse_fmt_bytes(out, 1, ri->block);
	sbuf_addf(out, ", bins %lld:%lld\n%-10s", (long long)ri->first, (long long)ri->growth,
		  "object:");
	if (object) {
		sbuf_adds(out, "bucket '");
		fmt_text(out, object, strlen(object));
		sbuf_adds(out, "'\n");
	} else {
		sbuf_adds(out, "whole program\n");
	}
}

void reuse_json_intro(struct sbuf *out, const struct reuse_info *ri, const char *source,
		      const char *object)
{
	sbuf_addf(out, ",\"source\":\"%s\",", source);
	sbuf_addf(out, "\"block\":%lld,\"bin_first\":%lld,\"bin_growth\":%lld,",
		  (long long)ri->block, (long long)ri->first, (long long)ri->growth);
	if (!reuse_unit_accesses(ri))
		sbuf_addf(out, "\"distance_unit\":\"%s\",", ri->unit);
	sbuf_adds(out, "\"object\":");
	if (object)
		fmt_json_str(out, object, strlen(object));
	else
		sbuf_adds(out, "null");
}

void reuse_text_sampling(struct sbuf *out, const struct reuse_info *ri)
{
	const char *per = !strcmp(ri->use_event, "pagefault") ? "page faults" : "accesses";

	sbuf_addf(out, "%-10sa use every %lld %s, %lld watchpoint%s (%s), %s, %s"
		  " attribution\n%-10s", "sampling:", (long long)ri->period, per,
		  (long long)ri->watchpoints, ri->watchpoints == 1 ? "" : "s", ri->watch,
		  ri->replace, ri->attrib, "");
	if (!reuse_unit_accesses(ri) && !strcmp(ri->unit, "ns"))
		sbuf_addf(out, "time distances in %s (the thread's task-clock between use"
			  " and reuse; no access counter)\n%-10s", reuse_unit_text(ri), "");
	else if (!reuse_unit_accesses(ri))
		sbuf_addf(out, "time distances in %s (the thread's PMU counter between use"
			  " and reuse)\n%-10s", reuse_unit_text(ri), "");
	sbuf_adds(out, "uses sampled ");
	fmt_thousands(out, ri->samples);
	sbuf_adds(out, ", reuses caught ");
	fmt_thousands(out, ri->traps);
	sbuf_adds(out, ", uses not watched ");
	fmt_thousands(out, ri->dropped);
	sbuf_addc(out, '\n');
}
