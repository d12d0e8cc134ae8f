/* finalize.c — turn one raw dump into one profile. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "store/finalize.h"
#include "base/fmt.h"

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

/* The keys dcprof adds to the engine's (docs/schema.md). */
static int write_meta(struct profile_writer *w, const struct exit_info *ex,
		      const struct raw_summary *s)
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
	return rc;
}

/* Flushes the file so the rename cannot expose a profile whose data is
 * still only in the page cache. */
static int sync_file(const char *path)
{
	int fd = open(path, O_RDONLY), rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

int finalize_raw(const char *raw, const char *out, const struct exit_info *ex,
		 struct raw_summary *s, char *err, size_t errlen)
{
	struct profile_writer w;
	char why[DC_ERRLEN];
	char *tmp = xmalloc(strlen(out) + 5);
	int rc;

	sprintf(tmp, "%s.tmp", out);
	if (unlink(tmp) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "cannot write profile '%s': %s: %s", out, tmp,
			 strerror(errno));
		free(tmp);
		return -1;
	}
	if (profile_writer_open(&w, tmp, why, sizeof why)) {
		snprintf(err, errlen, "cannot write profile '%s': %s", out, why);
		goto fail;
	}
	if (rawread(raw, &w, s, err, errlen)) {
		profile_writer_abort(&w);
		goto fail;
	}
	rc = write_meta(&w, ex, s);
	if (rc) {
		snprintf(err, errlen, "cannot write profile '%s': %s", out,
			 profile_writer_errmsg(&w));
		profile_writer_abort(&w);
		goto fail;
	}
	if (profile_writer_commit(&w, why, sizeof why)) {
		snprintf(err, errlen, "cannot write profile '%s': %s", out, why);
		goto fail;
	}
	if (sync_file(tmp) || rename(tmp, out)) {
		snprintf(err, errlen, "cannot write profile '%s': %s", out, strerror(errno));
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	return -1;
}

void finalize_print_summary(const char *out, const struct raw_summary *s)
{
	struct sbuf sb;

	sbuf_init(&sb);
	sbuf_addf(&sb, "(%llu bucket%s, Dr=", (unsigned long long)s->buckets,
		  s->buckets == 1 ? "" : "s");
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
