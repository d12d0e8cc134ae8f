/* sample.c — the sampled event of a profile. */
#include <stdio.h>
#include <string.h>

#include "base/fmt.h"
#include "base/num.h"
#include "store/sample.h"

int sample_event_level(const char *event, int nlevels)
{
	if (!strcmp(event, "Dr") || !strcmp(event, "Dw") || !strcmp(event, "Da"))
		return 0;
	if (!strcmp(event, "DLm"))
		return nlevels;
	if (event[0] == 'D' && event[1] >= '1' && event[1] <= '0' + DC_MAX_LEVELS &&
	    !strcmp(event + 2, "m"))
		return event[1] - '0';
	return -1;
}

static int read_number(struct profile *p, const char *key, struct sbuf *v, int64_t *out,
		       char *err, size_t errlen)
{
	uint64_t n;
	int rc = profile_meta(p, key, v);

	if (rc < 0) {
		profile_read_error(p, err, errlen);
		return -1;
	}
	if (rc == 0 || num_parse_u64(v->buf, INT64_MAX, &n)) {
		snprintf(err, errlen, "cannot read profile '%s': meta %s is %s", p->path, key,
			 rc ? "not a number" : "missing");
		return -1;
	}
	*out = (int64_t)n;
	return 0;
}

static int read_info(struct profile *p, struct sample_info *si, char *err, size_t errlen)
{
	struct sbuf v;
	int rc = 0;

	memset(si, 0, sizeof *si);
	sbuf_init(&v);
	if (p->version >= 2)
		rc = profile_meta(p, "sample_event", &v);
	if (rc < 0) {
		profile_read_error(p, err, errlen);
		goto fail;
	}
	if (rc == 0) {
		snprintf(err, errlen, "profile '%s' has no samples; record with --sample=EVENT:N",
			 p->path);
		goto fail;
	}
	/* the native engine's cpu-clock samples are IP-only, their period in
	 * nanoseconds of CPU time: no level */
	si->level = !strcmp(v.buf, "cpu-clock") ? 0 : sample_event_level(v.buf, p->nlevels);
	if (si->level < 0 || si->level > p->nlevels) {
		snprintf(err, errlen, "cannot read profile '%s': unknown sample_event '%s'",
			 p->path, v.buf);
		goto fail;
	}
	snprintf(si->event, sizeof si->event, "%s", v.buf);
	if (read_number(p, "sample_period", &v, &si->period, err, errlen) ||
	    read_number(p, "sample_seed", &v, &si->seed, err, errlen) ||
	    read_number(p, "samples", &v, &si->samples, err, errlen))
		goto fail;
	rc = profile_meta(p, "sample_ip_only", &v);
	if (rc < 0) {
		profile_read_error(p, err, errlen);
		goto fail;
	}
	si->ip_only = rc && !strcmp(v.buf, "1");
	if (!si->ip_only && !strcmp(si->event, "cpu-clock")) {
		snprintf(err, errlen, "cannot read profile '%s': sample_event 'cpu-clock' without"
			 " sample_ip_only", p->path);
		goto fail;
	}
	if (si->ip_only) {
		rc = profile_meta(p, "sample_skid", &v);
		if (rc < 0) {
			profile_read_error(p, err, errlen);
			goto fail;
		}
		snprintf(si->skid, sizeof si->skid, "%s", rc ? v.buf : "");
		rc = profile_meta(p, "sample_skid_lost", &v);
		if (rc < 0) {
			profile_read_error(p, err, errlen);
			goto fail;
		}
		if (rc && read_number(p, "sample_skid_lost", &v, &si->skid_lost, err, errlen))
			goto fail;
	}
	sbuf_release(&v);
	return 0;
fail:
	sbuf_release(&v);
	return -1;
}

int sample_info_read(struct profile *p, struct sample_info *si, char *err, size_t errlen)
{
	if (read_info(p, si, err, errlen))
		return -1;
	if (si->ip_only) {
		snprintf(err, errlen, "profile '%s' has IP-only samples (recorded with"
			 " --sample-ip-only), no sampled estimates; see report --ip-samples",
			 p->path);
		return -1;
	}
	return 0;
}

int sample_info_read_ip(struct profile *p, struct sample_info *si, char *err, size_t errlen)
{
	if (read_info(p, si, err, errlen)) {
		if (si->event[0] == '\0' && !strncmp(err, "profile '", 9))
			snprintf(err, errlen, "profile '%s' has no IP-only samples; record with"
				 " --sample=EVENT:N --sample-ip-only", p->path);
		return -1;
	}
	if (!si->ip_only) {
		snprintf(err, errlen, "profile '%s' has no IP-only samples; record with"
			 " --sample=EVENT:N --sample-ip-only", p->path);
		return -1;
	}
	return 0;
}

void sample_event_sql(struct sbuf *out, const struct sample_info *si)
{
	if (si->level)
		sbuf_addf(out, "c.D%dmr + c.D%dmw", si->level, si->level);
	else if (!strcmp(si->event, "Da"))
		sbuf_adds(out, "c.Dr + c.Dw");
	else if (!strcmp(si->event, "cpu-clock"))
		sbuf_adds(out, "0");            /* CPU time: no exact count of it */
	else
		sbuf_addf(out, "c.%s", si->event);
}

void sample_describe(struct sbuf *out, const struct sample_info *si)
{
	fmt_thousands(out, si->samples);
	sbuf_addf(out, " sample%s of %s, period ", si->samples == 1 ? "" : "s", si->event);
	fmt_thousands(out, si->period);
	sbuf_adds(out, ", seed ");
	fmt_thousands(out, si->seed);
}

void sample_describe_ip(struct sbuf *out, const struct sample_info *si)
{
	fmt_thousands(out, si->samples);
	sbuf_addf(out, " IP-only sample%s of %s, period ", si->samples == 1 ? "" : "s",
		  si->event);
	fmt_thousands(out, si->period);
	if (!strcmp(si->event, "cpu-clock"))
		sbuf_adds(out, " ns");
	if (!strcmp(si->skid, "hardware")) {
		/* a machine's samples: no seed to repeat them by */
		sbuf_adds(out, ", skid of the hardware");
	} else {
		sbuf_adds(out, ", seed ");
		fmt_thousands(out, si->seed);
	}
	if (si->skid[0] && strcmp(si->skid, "hardware")) {
		sbuf_adds(out, ", skid ");
		fmt_text(out, si->skid, strlen(si->skid));
		sbuf_adds(out, " instructions (mean:sd)");
	}
	if (si->skid_lost) {
		sbuf_adds(out, ", ");
		fmt_thousands(out, si->skid_lost);
		sbuf_adds(out, " lost (skid pending at exit)");
	}
}

void sample_json(struct sbuf *out, const struct sample_info *si)
{
	sbuf_addf(out, "{\"event\":\"%s\",\"period\":%lld,\"seed\":%lld,\"samples\":%lld",
		  si->event, (long long)si->period, (long long)si->seed, (long long)si->samples);
	if (si->ip_only) {
		sbuf_adds(out, ",\"skid\":");
		fmt_json_str(out, si->skid, strlen(si->skid));
		sbuf_addf(out, ",\"lost\":%lld", (long long)si->skid_lost);
	}
	sbuf_adds(out, "}");
}
