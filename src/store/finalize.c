/* finalize.c — turn one raw dump into one profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/fmt.h"
#include "base/outfile.h"
#include "store/finalize.h"

void signal_describe(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "signal %d (SIG%s)", sig, abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
}

static int put(struct profile_writer *w, const char *key, const char *val)
{
	return pw_meta(w, key, strlen(key), val, strlen(val), 1);
}

/* The keys dcprof adds to the engine's (docs/schema.md), then the
 * caller's. */
static int write_meta(struct profile_writer *w, const struct exit_info *ex,
		      const struct raw_summary *s, const char *const *extra)
{
	char reason[128] = "", status[32] = "", num[32];
	int rc;

	if (ex->how == EXIT_SIGNAL) {
		char sig[48];
		signal_describe(ex->value, sig, sizeof sig);
		snprintf(reason, sizeof reason, "killed by %s", sig);
		snprintf(status, sizeof status, "signal %d", ex->value);
	}
	if (s->checkpoint_ms >= 0) {
		size_t n = strlen(reason);
		snprintf(reason + n, sizeof reason - n, "%sprofile of the run up to the checkpoint at %.1f s",
			 n ? "; " : "", (double)s->checkpoint_ms / 1000);
	} else if (ex->how != EXIT_SIGNAL && s->end < 0) {
		snprintf(reason, sizeof reason, "the raw dump was cut short (no end record)");
	} else if (ex->how != EXIT_SIGNAL && s->end == 0) {
		snprintf(reason, sizeof reason, "the raw dump was written at a fatal signal");
	}
	if (ex->how == EXIT_CODE)
		snprintf(status, sizeof status, "exit %d", ex->value);
	else if (ex->how == EXIT_UNKNOWN && s->has_exit_code)
		snprintf(status, sizeof status, "exit %lld", (long long)s->exit_code);

	snprintf(num, sizeof num, "%d", PROFILE_SCHEMA_VERSION);
	rc = put(w, "schema_version", num);
	if (!rc)
		rc = put(w, "dcprof_version", DCPROF_VERSION);
	if (!rc)
		rc = put(w, "complete", reason[0] ? "0" : "1");
	if (!rc && reason[0])
		rc = put(w, "incomplete_reason", reason);
	if (!rc && status[0])
		rc = put(w, "exit_status", status);
	snprintf(num, sizeof num, "%d", s->nlevels);
	if (!rc)
		rc = put(w, "levels", num);
	snprintf(num, sizeof num, "%lld", (long long)s->memory_latency);
	if (!rc)
		rc = put(w, "memory_latency", num);
	for (; !rc && extra && extra[0]; extra += 2)
		rc = put(w, extra[0], extra[1]);
	return rc;
}

int finalize_raw(const char *raw, const char *out, const struct exit_info *ex,
		 const char *const *meta, struct raw_summary *s, char *err, size_t errlen)
{
	struct profile_writer w;
	struct outfile of;
	char why[DC_ERRLEN];
	int rc;

	if (outfile_open(&of, out, raw, false, why, sizeof why)) {
		snprintf(err, errlen, "cannot write profile%s", why + strlen("cannot write"));
		return FINALIZE_EWRITE;
	}
	if (profile_writer_open(&w, outfile_path(&of), why, sizeof why))
		goto write_fail;
	rc = rawread(raw, &w, s, why, sizeof why);
	if (rc == 0 && write_meta(&w, ex, s, meta)) {
		snprintf(why, sizeof why, "%s", profile_writer_errmsg(&w));
		rc = RAWREAD_EWRITE;
	}
	if (rc) {
		profile_writer_abort(&w);
		if (rc == RAWREAD_EWRITE)
			goto write_fail;
		snprintf(err, errlen, "%s", why);
		outfile_abort(&of);
		return FINALIZE_EREAD;
	}
	if (profile_writer_commit(&w, why, sizeof why))
		goto write_fail;
	if (outfile_commit(&of, why, sizeof why)) {
		snprintf(err, errlen, "cannot write profile%s", why + strlen("cannot write"));
		return FINALIZE_EWRITE;
	}
	return 0;
write_fail:
	snprintf(err, errlen, "cannot write profile '%s': %s", out, why);
	outfile_abort(&of);
	return FINALIZE_EWRITE;
}

void finalize_print_summary(const char *out, const struct raw_summary *s)
{
	struct sbuf sb;

	sbuf_init(&sb);
	if (s->native) {
		sbuf_addf(&sb, "(%llu bucket%s, ", (unsigned long long)s->buckets,
			  s->buckets == 1 ? "" : "s");
		/* The native engine counts no accesses: say what it sampled. */
		sbuf_adds(&sb, "native engine, ");
		if (s->pages || !s->ip_events) {
			fmt_thousands(&sb, (int64_t)s->pages);
			sbuf_adds(&sb, " pages first touched");
		}
		if (s->ip_events) {
			sbuf_adds(&sb, s->pages ? ", " : "");
			fmt_thousands(&sb, s->samples >= 0 ? s->samples : (int64_t)s->ip_events);
			sbuf_adds(&sb, s->samples >= 0 ? " IP-only samples" : " events in IP-only samples");
		}
		sbuf_adds(&sb, ")");
		err_note("wrote %s %s", out, sb.buf);
		sbuf_release(&sb);
		return;
	}
	/* the buckets report lists: those accessed (every global of every
	 * library is declared) */
	sbuf_addf(&sb, "(%llu bucket%s accessed, Dr=", (unsigned long long)s->accessed,
		  s->accessed == 1 ? "" : "s");
	fmt_thousands(&sb, (int64_t)s->dr);
	sbuf_adds(&sb, ", Dw=");
	fmt_thousands(&sb, (int64_t)s->dw);
	sbuf_adds(&sb, ", D1 misses=");
	fmt_thousands(&sb, (int64_t)s->d1_misses);
	sbuf_adds(&sb, ", LL misses=");
	fmt_thousands(&sb, (int64_t)s->ll_misses);
	sbuf_adds(&sb, ")");
	err_note("wrote %s %s", out, sb.buf);
	sbuf_release(&sb);
}
