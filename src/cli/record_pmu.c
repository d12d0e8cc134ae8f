/* record_pmu.c — the PMU events with data addresses as perf_event_attr,
 * from the kernel's sysfs description of each PMU.
 *
 * Notes:
 *  - A PMU is a directory of /sys/bus/event_source/devices
 *    (Documentation/ABI/testing/sysfs-bus-event_source-devices-format and
 *    -events): `type` is its perf_event_attr.type; `events/NAME` an event
 *    as terms, `event=0xcd,umask=0x1,ldlat=3`; `format/TERM` where a term's
 *    value goes, `config:0-7`, `config1:0-15`, `config:0-7,32-35` (the
 *    value's bits fill the listed bits from the lowest up, as perf's
 *    util/pmu.c places them).  A term without `=` is 1; `config`,
 *    `config1`, `config2` name the words themselves.
 *  - mem-loads, mem-stores (Intel PEBS): the PMU `cpu`, or on a hybrid CPU
 *    `cpu_core` and `cpu_atom` (each with its own events: one event per
 *    PMU, each thread opens both; a thread samples on the kind of core it
 *    runs on).  `--ldlat=N` replaces the event's ldlat term (the load
 *    latency threshold in cycles; default 3, below an L1 hit, so every
 *    load can be sampled; perf mem's default is 30, which samples only
 *    misses).  precise_ip is the highest of 3, 2, 1 that opens (EINVAL
 *    below).  Where the PMU lists `mem-loads-aux` (Sapphire Rapids and
 *    later P-cores), the kernel refuses mem-loads outside a group led by
 *    it (ENODATA; arch/x86/events/intel/core.c, as perf mem's
 *    `{cpu/mem-loads-aux/,cpu/mem-loads/}` group): it is opened first, as a
 *    counting event.
 *  - ibs-op (AMD): the PMU `ibs_op`; `cnt_ctl` (where its format has it) 1:
 *    the period counts dispatched ops, not cycles.  IBS periods are
 *    multiples of 16 (the hardware's MaxCnt counts 16 ops): rounded down.
 *    Older kernels refuse exclude_kernel on IBS (EINVAL): then it is opened
 *    without, and the runtime drops samples with a kernel IP.
 *  - spe (Arm): the first PMU named `arm_spe_*`; ts_enable, load_filter,
 *    store_filter and jitter 1 where its format lists them: timestamps,
 *    only loads and stores recorded, a randomised interval.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/record_pmu.h"
#include "core/smpfile.h"

#define PEBS_PERIOD 10007ULL      /* loads at or above ldlat; prime, so no loop aliases it */
#define IBS_PERIOD 65536ULL       /* ops */
#define SPE_PERIOD 4096ULL        /* ops: at or above every SPE's minimum interval */

uint64_t pmu_default_period(const char *event)
{
	if (!strcmp(event, "ibs-op"))
		return IBS_PERIOD;
	if (!strcmp(event, "spe"))
		return SPE_PERIOD;
	return PEBS_PERIOD;
}

/* root/pmu/rel into buf, the trailing newline dropped; -1 when absent. */
static int read_text(const char *root, const char *pmu, const char *rel, char *buf, size_t n)
{
	char path[4096];
	ssize_t len;
	int fd;

	snprintf(path, sizeof path, "%s/%s/%s", root, pmu, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, n - 1);
	close(fd);
	if (len < 0)
		return -1;
	while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = 0;
	return 0;
}

static bool has_file(const char *root, const char *pmu, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s/%s", root, pmu, rel);
	return access(path, F_OK) == 0;
}

static __u64 *word(struct perf_event_attr *a, unsigned w)
{
	return w == 0 ? &a->config : w == 1 ? &a->config1 : &a->config2;
}

/* "configN:LO-HI,..." into the word and its mask; -1 when malformed. */
static int parse_format(const char *s, unsigned *w, uint64_t *mask)
{
	char *end;

	if (strncmp(s, "config", 6))
		return -1;
	s += 6;
	*w = 0;
	if (*s >= '1' && *s <= '2')
		*w = (unsigned)(*s++ - '0');
	if (*s++ != ':')
		return -1;
	*mask = 0;
	for (;;) {
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (end == s || lo > 63)
			return -1;
		s = end;
		if (*s == '-') {
			s++;
			hi = strtoul(s, &end, 10);
			if (end == s || hi > 63 || hi < lo)
				return -1;
			s = end;
		}
		for (unsigned long b = lo; b <= hi; b++)
			*mask |= 1ULL << b;
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

/* Places term=value into the attr per the PMU's format/TERM. */
static int set_term(const char *root, const char *pmu, struct perf_event_attr *a,
		    const char *term, uint64_t value, char *why, size_t nwhy)
{
	char fmt[256], rel[128];
	unsigned w;
	uint64_t mask;

	if (!strcmp(term, "config") || !strcmp(term, "config1") || !strcmp(term, "config2")) {
		*word(a, term[6] ? (unsigned)(term[6] - '0') : 0) = value;
		return 0;
	}
	snprintf(rel, sizeof rel, "format/%s", term);
	if (read_text(root, pmu, rel, fmt, sizeof fmt)) {
		snprintf(why, nwhy, "PMU %s has no format/%s", pmu, term);
		return -1;
	}
	if (parse_format(fmt, &w, &mask)) {
		snprintf(why, nwhy, "PMU %s: malformed format/%s '%s'", pmu, term, fmt);
		return -1;
	}
	__u64 *dst = word(a, w);
	uint64_t v = value;
	for (unsigned b = 0; b < 64; b++)
		if (mask >> b & 1) {
			*dst = (*dst & ~(1ULL << b)) | (v & 1) << b;
			v >>= 1;
		}
	if (v) {
		snprintf(why, nwhy, "PMU %s: %s=%llu does not fit format/%s '%s'", pmu, term,
			 (unsigned long long)value, term, fmt);
		return -1;
	}
	return 0;
}

/* The terms of events/NAME into the attr; a term named in skip is left out
 * (the caller sets it). */
static int set_event(const char *root, const char *pmu, const char *name, const char *skip,
		     struct perf_event_attr *a, char *why, size_t nwhy)
{
	char text[512], rel[128];
	char *save = NULL, *t;

	snprintf(rel, sizeof rel, "events/%s", name);
	if (read_text(root, pmu, rel, text, sizeof text)) {
		snprintf(why, nwhy, "PMU %s has no event %s", pmu, name);
		return -1;
	}
	for (t = strtok_r(text, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), *end;
		uint64_t v = 1;
		if (eq) {
			*eq = 0;
			errno = 0;
			v = strtoull(eq + 1, &end, 0);
			if (end == eq + 1 || *end || errno) {
				snprintf(why, nwhy, "PMU %s: malformed events/%s term '%s=%s'",
					 pmu, name, t, eq + 1);
				return -1;
			}
		}
		if (skip && !strcmp(t, skip))
			continue;
		if (set_term(root, pmu, a, t, v, why, nwhy))
			return -1;
	}
	return 0;
}

static int pmu_type(const char *root, const char *pmu, uint32_t *type, char *why, size_t nwhy)
{
	char text[32], *end;
	unsigned long v;

	if (read_text(root, pmu, "type", text, sizeof text)) {
		snprintf(why, nwhy, "no PMU %s in %s", pmu, root);
		return -1;
	}
	v = strtoul(text, &end, 10);
	if (end == text || *end || v > UINT32_MAX) {
		snprintf(why, nwhy, "PMU %s: malformed type '%s'", pmu, text);
		return -1;
	}
	*type = (uint32_t)v;
	return 0;
}

static void base_attr(struct pmu_event *e, uint64_t period, uint64_t sample_type)
{
	memset(&e->attr, 0, sizeof e->attr);
	e->attr.size = sizeof e->attr;
	e->attr.sample_period = period;
	e->attr.sample_type = sample_type;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	e->attr.disabled = 1;
}

static int build_pebs(const char *root, const char *pmu, const char *name, unsigned ldlat,
		      uint64_t period, struct pmu_event *e, char *why, size_t nwhy)
{
	bool loads = !strcmp(name, "mem-loads");

	memset(e, 0, sizeof *e);
	e->kind = "pebs";
	snprintf(e->pmu, sizeof e->pmu, "%s", pmu);
	base_attr(e, period, DC_PEBS_SAMPLE_TYPE);
	e->attr.precise_ip = 3;
	if (pmu_type(root, pmu, &e->attr.type, why, nwhy) ||
	    set_event(root, pmu, name, loads ? "ldlat" : NULL, &e->attr, why, nwhy))
		return -1;
	if (loads && set_term(root, pmu, &e->attr, "ldlat", ldlat, why, nwhy))
		return -1;
	if (loads)
		snprintf(e->spec, sizeof e->spec, "%s/%s,ldlat=%u/", pmu, name, ldlat);
	else
		snprintf(e->spec, sizeof e->spec, "%s/%s/", pmu, name);
	if (loads && has_file(root, pmu, "events/mem-loads-aux")) {
		struct perf_event_attr l;
		memset(&l, 0, sizeof l);
		if (set_event(root, pmu, "mem-loads-aux", NULL, &l, why, nwhy))
			return -1;
		e->has_leader = true;
		e->leader_config = l.config;
	}
	return 0;
}

static int set_if_listed(const char *root, const char *pmu, struct perf_event_attr *a,
			 const char *term, char *why, size_t nwhy)
{
	char rel[128];

	snprintf(rel, sizeof rel, "format/%s", term);
	return has_file(root, pmu, rel) ? set_term(root, pmu, a, term, 1, why, nwhy) : 0;
}

/* The first arm_spe_* PMU, "" when none. */
static void spe_name(const char *root, char *pmu, size_t n)
{
	DIR *d = opendir(root);
	struct dirent *de;

	pmu[0] = 0;
	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "arm_spe_", 8) && strlen(de->d_name) < n &&
		    (!pmu[0] || strcmp(de->d_name, pmu) < 0))
			memcpy(pmu, de->d_name, strlen(de->d_name) + 1);
	closedir(d);
}

int pmu_build(const char *root, const char *name, unsigned ldlat, uint64_t period,
	      struct pmu_event *ev, char *why, size_t nwhy)
{
	struct pmu_event *e = ev;

	if (!period)
		period = pmu_default_period(name);
	if (!ldlat)
		ldlat = PMU_DEFAULT_LDLAT;
	if (!strcmp(name, "mem-loads") || !strcmp(name, "mem-stores")) {
		char rel[64];
		int n = 0;
		snprintf(rel, sizeof rel, "events/%s", name);
		if (!has_file(root, "cpu_core", "type"))
			return build_pebs(root, "cpu", name, ldlat, period, ev, why, nwhy) ? -1 : 1;
		/* hybrid: each kind of core that has the event */
		static const char *const hybrid[] = { "cpu_core", "cpu_atom" };
		for (int i = 0; i < 2; i++)
			if (has_file(root, hybrid[i], rel)) {
				if (build_pebs(root, hybrid[i], name, ldlat, period, &ev[n], why, nwhy))
					return -1;
				n++;
			}
		if (!n)
			snprintf(why, nwhy, "PMUs cpu_core and cpu_atom have no event %s", name);
		return n ? n : -1;
	}
	memset(e, 0, sizeof *e);
	if (!strcmp(name, "ibs-op")) {
		e->kind = "ibs";
		snprintf(e->pmu, sizeof e->pmu, "ibs_op");
		period &= ~15ULL;
		base_attr(e, period ? period : 16, DC_IBS_SAMPLE_TYPE);
		if (pmu_type(root, e->pmu, &e->attr.type, why, nwhy) ||
		    set_if_listed(root, e->pmu, &e->attr, "cnt_ctl", why, nwhy))
			return -1;
		snprintf(e->spec, sizeof e->spec, "ibs_op/cnt_ctl=1/");
		return 1;
	}
	if (!strcmp(name, "spe")) {
		static const char *const terms[] = { "ts_enable", "load_filter", "store_filter",
						     "jitter" };
		e->kind = "spe";
		spe_name(root, e->pmu, sizeof e->pmu);
		if (!e->pmu[0]) {
			snprintf(why, nwhy, "no PMU arm_spe_* in %s", root);
			return -1;
		}
		base_attr(e, period, DC_SPE_SAMPLE_TYPE);
		if (pmu_type(root, e->pmu, &e->attr.type, why, nwhy))
			return -1;
		for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
			if (set_if_listed(root, e->pmu, &e->attr, terms[i], why, nwhy))
				return -1;
		snprintf(e->spec, sizeof e->spec, "%s/ts_enable=1,load_filter=1,store_filter=1,"
			 "jitter=1/", e->pmu);
		return 1;
	}
	snprintf(why, nwhy, "unknown PMU event %s", name);
	return -1;
}

static void trace_attr(const char *what, const struct perf_event_attr *a)
{
	fprintf(stderr, "dcprof record: pmu %s type=%u config=0x%llx config1=0x%llx"
		" config2=0x%llx precise_ip=%u sample_type=0x%llx sample_period=%llu"
		" exclude_kernel=%u\n", what, a->type, (unsigned long long)a->config,
		(unsigned long long)a->config1, (unsigned long long)a->config2,
		(unsigned)a->precise_ip, (unsigned long long)a->sample_type,
		(unsigned long long)a->sample_period, (unsigned)a->exclude_kernel);
}

static int sys_open(struct perf_event_attr *a, int group, bool trace, const char *what)
{
	int fd;

	if (trace)
		trace_attr(what, a);
	fd = (int)syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* One event (and its leader): 0 or errno, said in why. */
static int probe_one(struct pmu_event *e, bool trace, char *why, size_t nwhy)
{
	int leader = -1, fd, err = 0;
	char what[200];

	if (e->has_leader) {
		struct perf_event_attr l;
		memset(&l, 0, sizeof l);
		l.size = sizeof l;
		l.type = e->attr.type;
		l.config = e->leader_config;
		l.exclude_kernel = 1;
		l.exclude_hv = 1;
		l.disabled = 1;
		snprintf(what, sizeof what, "%s/mem-loads-aux/", e->pmu);
		leader = sys_open(&l, -1, trace, what);
		if (leader < 0) {
			snprintf(why, nwhy, "%s: %s", what, strerror(-leader));
			return -leader;
		}
	}
	for (;;) {
		fd = sys_open(&e->attr, leader, trace, e->spec);
		if (fd >= 0)
			break;
		err = -fd;
		if (err != EINVAL)
			break;
		if (e->attr.precise_ip > 1) {
			e->attr.precise_ip--;
		} else if (!strcmp(e->kind, "ibs") && e->attr.exclude_kernel) {
			e->attr.exclude_kernel = 0;
			e->attr.exclude_hv = 0;
		} else {
			break;
		}
	}
	if (fd >= 0) {
		close(fd);
		err = 0;
	} else {
		snprintf(why, nwhy, "%s: %s", e->spec, strerror(err));
	}
	if (leader >= 0)
		close(leader);
	return err;
}

int pmu_probe(struct pmu_event *ev, int n, bool trace, char *why, size_t nwhy)
{
	for (int i = 0; i < n; i++) {
		int err = probe_one(&ev[i], trace, why, nwhy);
		if (err)
			return err;
	}
	return 0;
}

void pmu_env(const struct pmu_event *ev, int n, struct sbuf *out)
{
	sbuf_reset(out);
	for (int i = 0; i < n; i++) {
		const struct perf_event_attr *a = &ev[i].attr;
		sbuf_addf(out, "%s%s:%u:%llx:%llx:%llx:%u:%u:", i ? ";" : "", ev[i].kind, a->type,
			  (unsigned long long)a->config, (unsigned long long)a->config1,
			  (unsigned long long)a->config2, (unsigned)a->precise_ip,
			  (unsigned)a->exclude_kernel);
		if (ev[i].has_leader)
			sbuf_addf(out, "%llx", (unsigned long long)ev[i].leader_config);
		else
			sbuf_adds(out, "-");
	}
}
