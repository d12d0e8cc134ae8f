/* header.c — what every command's output says about the profile first. */
#include <string.h>

#include "analysis/spin.h"
#include "base/fmt.h"
#include "report/header.h"

#define NVALUES 14

static void values(struct header *h, struct sbuf *v[NVALUES])
{
	v[0] = &h->program;
	v[1] = &h->command;
	v[2] = &h->complete;
	v[3] = &h->reason;
	v[4] = &h->exit_status;
	v[5] = &h->source;
	v[6] = &h->cache_reason;
	v[7] = &h->omp_policy;
	v[8] = &h->rank;
	v[9] = &h->host;
	v[10] = &h->engine;
	v[11] = &h->event;
	v[12] = &h->period;
	v[13] = &h->pmu;
}

void header_init(struct header *h)
{
	struct sbuf *v[NVALUES];

	memset(h, 0, sizeof *h);
	values(h, v);
	for (int i = 0; i < NVALUES; i++)
		sbuf_init(v[i]);
}

void header_release(struct header *h)
{
	struct sbuf *v[NVALUES];

	values(h, v);
	for (int i = 0; i < NVALUES; i++)
		sbuf_release(v[i]);
}

/* The wait policy matters to a reader only where a runtime that spins
 * ran: 1 if one did, 0 if not, -1 on a read error. */
static int ran_spinning_runtime(struct profile *p)
{
	sqlite3_stmt *st;
	int rc, found = 0;

	if (sqlite3_prepare_v2(p->db, "SELECT DISTINCT object FROM location", -1, &st, NULL))
		return -1;
	while (!found && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *obj = (const char *)sqlite3_column_text(st, 0);
		found = obj && spin_runtime(obj, (size_t)sqlite3_column_bytes(st, 0));
	}
	sqlite3_finalize(st);
	return found ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The processes a merged profile sums (its process table), 0 for a
 * profile of one process, -1 on a read error. */
static long long merged_processes(struct profile *p)
{
	sqlite3_stmt *st;
	long long n = -1;

	if (sqlite3_prepare_v2(p->db, "SELECT 1 FROM sqlite_master WHERE type = 'table'"
			       " AND name = 'process'", -1, &st, NULL))
		return -1;
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW ||
	    sqlite3_prepare_v2(p->db, "SELECT COUNT(*) FROM process", -1, &st, NULL))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int header_read(struct profile *p, struct header *h, char *err, size_t errlen)
{
	static const char *const keys[NVALUES] = {
		"program", "command", "complete", "incomplete_reason", "exit_status",
		"cache_source", "cache_reason", "omp_wait_policy", "rank", "host",
		"engine", "sample_event", "sample_period", "pmu_event",
	};
	bool *present[NVALUES] = { NULL, NULL, NULL, &h->has_reason, &h->has_exit,
				   &h->has_source, &h->has_cache_reason, &h->has_omp_policy,
				   &h->has_rank, &h->has_host, &h->has_engine, &h->has_event,
				   &h->has_period, &h->has_pmu };
	struct sbuf *v[NVALUES];

	values(h, v);
	for (int i = 0; i < NVALUES; i++) {
		int rc = profile_meta(p, keys[i], v[i]);
		if (rc < 0) {
			profile_read_error(p, err, errlen);
			return -1;
		}
		if (present[i])
			*present[i] = rc == 1;
	}
	h->processes = merged_processes(p);
	if (h->processes < 0) {
		profile_read_error(p, err, errlen);
		return -1;
	}
	if (h->has_omp_policy) {
		int rc = ran_spinning_runtime(p);
		if (rc < 0) {
			profile_read_error(p, err, errlen);
			return -1;
		}
		h->has_omp_policy = rc == 1;
	}
	return 0;
}

bool header_complete(const struct header *h)
{
	return h->complete.len == 1 && h->complete.buf[0] == '1';
}

void header_text_line(struct sbuf *out, const char *label, const char *val, size_t len)
{
	sbuf_addf(out, "%-10s", label);
	fmt_text(out, val, len);
	sbuf_addc(out, '\n');
}

static void level_geometry(struct sbuf *out, const struct profile_level *l)
{
	struct dc_level_cfg cfg = { (uint64_t)l->size, (uint32_t)l->assoc,
				    (uint32_t)l->line_size, (uint32_t)l->latency };
	char geo[64];

	dc_level_format(&cfg, geo, sizeof geo);
	sbuf_adds(out, geo);
}

void header_text(struct sbuf *out, const struct profile *p, const struct header *h)
{
	bool complete = header_complete(h);

	header_text_line(out, "program:", h->program.buf, h->program.len);
	header_text_line(out, "command:", h->command.buf, h->command.len);
	if (h->has_rank) {
		sbuf_addf(out, "%-10srank ", "process:");
		fmt_text(out, h->rank.buf, h->rank.len);
		if (h->has_host) {
			sbuf_adds(out, " on ");
			fmt_text(out, h->host.buf, h->host.len);
		}
		sbuf_addc(out, '\n');
	} else if (h->has_host) {
		header_text_line(out, "host:", h->host.buf, h->host.len);
	}
	sbuf_addf(out, "%-10s%s", "status:", complete ? "complete" : "INCOMPLETE");
	if (!complete && h->has_reason) {
		sbuf_adds(out, " (");
		fmt_text(out, h->reason.buf, h->reason.len);
		sbuf_adds(out, ")");
	}
	if (h->has_exit) {
		sbuf_adds(out, ", ");
		fmt_text(out, h->exit_status.buf, h->exit_status.len);
	}
	/* A merged profile's counts are sums: say so before any of them,
	 * or its totals read as one process's (diff against a rank's). */
	if (h->processes > 0)
		sbuf_addf(out, "\n%-10s%lld processes (dcprof merge): counts are their sums;"
			  " report --spread compares them", "merged:", h->processes);
	sbuf_addf(out, "\n%-10s", "caches:");
	for (int k = 0; k < p->nlevels; k++) {
		fmt_text(out, p->lv[k].name, strlen(p->lv[k].name));
		sbuf_addc(out, ' ');
		level_geometry(out, &p->lv[k]);
		sbuf_addf(out, " (%lld cycles), ", (long long)p->lv[k].latency);
	}
	sbuf_addf(out, "memory %lld cycles\n", (long long)p->mem_latency);
	if (h->has_source || h->has_cache_reason) {
		sbuf_addf(out, "%-10s", "");
		fmt_text(out, h->source.buf, h->source.len);
		if (h->has_cache_reason) {
			sbuf_adds(out, ": ");
			fmt_text(out, h->cache_reason.buf, h->cache_reason.len);
		}
		sbuf_addc(out, '\n');
	}
	if (h->has_engine) {
		/* the native engine samples: say which event and period made it */
		sbuf_addf(out, "%-10s", "engine:");
		fmt_text(out, h->engine.buf, h->engine.len);
		if (h->has_pmu) {            /* a live PMU event: its name, what it counts */
			sbuf_adds(out, ", event ");
			fmt_text(out, h->pmu.buf, h->pmu.len);
			sbuf_adds(out, " (");
			fmt_text(out, h->event.buf, h->event.len);
			sbuf_addc(out, ')');
		} else if (h->has_event) {
			sbuf_adds(out, ", event ");
			fmt_text(out, h->event.buf, h->event.len);
		}
		if (h->has_period) {
			sbuf_adds(out, ", period ");
			fmt_text(out, h->period.buf, h->period.len);
		}
		sbuf_addc(out, '\n');
	}
	if (h->has_omp_policy) {
		sbuf_addf(out, "%-10sOMP_WAIT_POLICY=", "runtime:");
		fmt_text(out, h->omp_policy.buf, h->omp_policy.len);
		sbuf_addc(out, '\n');
	}
}

static void json_meta(struct sbuf *out, const char *key, const struct sbuf *val, bool present)
{
	sbuf_addf(out, ",\"%s\":", key);
	if (present)
		fmt_json_str(out, val->buf, val->len);
	else
		sbuf_adds(out, "null");
}

void header_json(struct sbuf *out, const struct profile *p, const struct header *h)
{
	bool complete = header_complete(h);

	sbuf_addf(out, "{\"schema_version\":%d", p->version);
	json_meta(out, "program", &h->program, true);
	json_meta(out, "command", &h->command, true);
	sbuf_addf(out, ",\"complete\":%s", complete ? "true" : "false");
	json_meta(out, "incomplete_reason", &h->reason, !complete && h->has_reason);
	json_meta(out, "exit_status", &h->exit_status, h->has_exit);
	json_meta(out, "cache_source", &h->source, h->has_source);
	json_meta(out, "cache_reason", &h->cache_reason, h->has_cache_reason);
	json_meta(out, "omp_wait_policy", &h->omp_policy, h->has_omp_policy);
	json_meta(out, "rank", &h->rank, h->has_rank);
	json_meta(out, "host", &h->host, h->has_host);
	if (h->processes > 0)
		sbuf_addf(out, ",\"merged_processes\":%lld", h->processes);
	if (h->has_engine)
		json_meta(out, "engine", &h->engine, true);
	if (h->has_pmu)
		json_meta(out, "pmu_event", &h->pmu, true);
}
