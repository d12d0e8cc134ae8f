/* record_native.c — dcprof record --engine=native: the event, the
 * environment of the preloaded runtime (src/engine/native/), the run.
 *
 * The runtime reads its configuration from the environment, which the
 * program's children and exec'd images inherit with LD_PRELOAD, so every
 * process of the tree writes its own dump (docs/engine-native.md).  A PMU
 * event (PEBS, IBS, SPE) is built from sysfs and probed here
 * (record_pmu.c); the runtime opens what the probe opened
 * (DCPROF_NATIVE_PMU).
 */
#include <errno.h>
#include <limits.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/err.h"
#include "core/smpfile.h"
#include "base/num.h"
#include "cli/record_native.h"
#include "cli/record_pmu.h"

#define NATIVE_MAX_WATCHPOINTS 4   /* x86's debug registers (nat.h NAT_RDX_MAX_WP) */

/* The whole sample file, checked before the program runs: its first
 * malformed line is the one error line (the runtime reads it again). */
static int check_samples(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, err[160];
	size_t cap = 0;
	ssize_t n;
	long no = 0;
	int kind = -1, rc = 0;
	char event[4];

	if (!f) {
		err_msg("cannot read samples '%s': %s", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		struct dc_smpline l;
		no++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = 0;
		if (no == 1) {
			kind = dc_smpfile_kind(line, (size_t)n, event);
			if (kind < 0) {
				err_msg("invalid samples '%s': the first line is not 'dcprof-samples"
					" KIND [EVENT]' (KIND pebs, ibs or spe; EVENT D1m..D4m, DLm,"
					" Dr, Dw or Da)", path);
				rc = -1;
				break;
			}
			continue;
		}
		if (memchr(line, 0, (size_t)n) ||
		    dc_smpline_parse(kind, line, (size_t)n, &l, err, sizeof err) < 0) {
			if (memchr(line, 0, (size_t)n))
				snprintf(err, sizeof err, "a NUL byte");
			err_msg("invalid samples '%s' line %ld: %s", path, no, err);
			rc = -1;
			break;
		}
	}
	if (!rc && no == 0) {
		err_msg("invalid samples '%s': empty file", path);
		rc = -1;
	}
	if (!rc && ferror(f)) {
		err_msg("cannot read samples '%s': %s", path, strerror(errno));
		rc = -1;
	}
	free(line);
	fclose(f);
	return rc;
}

/* The PMU events, in the order the default tries them. */
static const char *const hw_events[] = { "mem-loads", "ibs-op", "spe", "mem-stores" };
#define NDEFAULT 3                 /* mem-stores is no default: it has no latency */

static bool is_hw_event(const char *event)
{
	for (size_t i = 0; i < sizeof hw_events / sizeof hw_events[0]; i++)
		if (!strcmp(event, hw_events[i]))
			return true;
	return false;
}

/* The events of name built and opened: 0; 1 when this machine has not
 * the PMU, -1 when it does not open; why says why. */
static int try_event(struct native_opts *o, const char *name, char *why, size_t nwhy)
{
	const char *test = getenv("DCPROF_TEST_SYSFS");
	const char *root = test && *test ? test : "/sys/bus/event_source/devices";
	struct pmu_event ev[PMU_MAX_OPEN];
	uint64_t period = 0;
	int n;

	if (o->period)
		num_parse_u64(o->period, UINT64_MAX, &period);
	n = pmu_build(root, name, o->ldlat, period, ev, why, nwhy);
	if (n < 0)
		return 1;
	if (pmu_probe(ev, n, test && *test, why, nwhy))
		return -1;
	pmu_env(ev, n, &o->pmu);
	o->event = name;
	/* the period the events were opened with (IBS rounds it to 16 ops) */
	snprintf(o->period_buf, sizeof o->period_buf, "%llu",
		 (unsigned long long)ev[0].attr.sample_period);
	o->period = o->period_buf;
	return 0;
}

int native_check_event(struct native_opts *o)
{
	char why[512], first[512] = "";

	if (o->replay) {
		if (o->event) {
			err_msg("--event and --replay exclude each other (a replay's samples"
				" come from its file)");
			return -1;
		}
		return check_samples(o->replay);
	}
	if (o->ldlat && o->event && strcmp(o->event, "mem-loads")) {
		err_msg("--ldlat is for --event=mem-loads (Intel PEBS load latency)");
		return -1;
	}
	if (o->event && (!strcmp(o->event, "pagefault") || !strcmp(o->event, "cpu-clock")))
		return 0;
	if (o->event) {
		if (!is_hw_event(o->event)) {
			err_msg("unknown --event '%s' (pagefault, cpu-clock, mem-loads, mem-stores,"
				" ibs-op or spe)", o->event);
			return -1;
		}
		if (try_event(o, o->event, why, sizeof why)) {
			err_msg("cannot sample --event=%s on this machine (%s); try --event=pagefault"
				" or the simulator engine", o->event, why);
			return -1;
		}
		return 0;
	}
	for (int i = 0; i < NDEFAULT; i++) {
		int rc = try_event(o, hw_events[i], why, sizeof why);
		if (!rc)
			return 0;
		/* the first PMU this machine has is the one to name */
		if (rc < 0 && !first[0])
			snprintf(first, sizeof first, "%s", why);
	}
	err_msg("no PMU with data-address sampling on this machine (perf_event_open: %s);"
		" try --event=pagefault or the simulator engine",
		first[0] ? first : strerror(ENOENT));
	return -1;
}

/* A counting watchpoint on a variable of this process: 0 when it counts
 * every one of 10 reads and 10 writes, else why not in why. */
static int probe_watchpoints(char *why, size_t n)
{
	static volatile uint64_t var;
	struct perf_event_attr a;
	uint64_t count = 0;
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_BREAKPOINT;
	a.bp_type = HW_BREAKPOINT_RW;
	a.bp_addr = (uint64_t)(uintptr_t)&var;
	a.bp_len = HW_BREAKPOINT_LEN_8;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "perf_event_open of a breakpoint: %s", strerror(errno));
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < 10; i++)
		var = var + 1;           /* a read and a write each */
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof count) != (ssize_t)sizeof count)
		count = 0;
	close(fd);
	if (count != 20) {
		snprintf(why, n, "a watchpoint on 10 reads and 10 writes counted %llu",
			 (unsigned long long)count);
		return -1;
	}
	return 0;
}

static bool reuse_on(const char *reuse_sample)
{
	return reuse_sample && strcmp(reuse_sample, "0");
}

int native_check_reuse_event(const struct native_opts *o, const char *reuse_sample)
{
	if (reuse_on(reuse_sample) && (o->replay || (o->event && !strcmp(o->event, "cpu-clock")))) {
		err_msg("--reuse-sample with --engine=native needs use points with a data"
			" address: --event=pagefault, mem-loads, mem-stores, ibs-op or spe");
		return -1;
	}
	return 0;
}

int native_check_reuse(const char *reuse_sample, bool force_fail)
{
	char why[160];

	if (!reuse_on(reuse_sample))
		return 0;
	if (force_fail)
		snprintf(why, sizeof why, "--test-no-watchpoints");
	if (force_fail || probe_watchpoints(why, sizeof why)) {
		err_msg("hardware watchpoints are unavailable on this machine (%s); the simulator"
			" engine's --reuse-sample emulates them", why);
		return -1;
	}
	return 0;
}

static int set(const char *name, const char *value)
{
	if (setenv(name, value, 1)) {
		err_msg("cannot set %s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

/* The engine options the runtime takes, from record's "--name=value"
 * list; the simulator's others are refused by name. */
static int engine_env(char *const *args, int n)
{
	struct sbuf fns;
	int rc = 0;

	sbuf_init(&fns);
	for (int i = 0; i < n && !rc; i++) {
		const char *a = args[i] + 2, *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		const char *v = eq ? eq + 1 : "";

		if (len == 5 && !strncmp(a, "cache", len)) {
			rc = set("DCPROF_NATIVE_CACHE", v);
		} else if (len == 7 && !strncmp(a, "latency", len)) {
			rc = set("DCPROF_NATIVE_LATENCY", v);
		} else if (len == 10 && !strncmp(a, "heap-names", len)) {
			if (strncmp(v, "fn:", 3)) {
				err_msg("--heap-names=%s is not supported by the native engine"
					" (fn:N is)", v);
				rc = -1;
			} else {
				rc = set("DCPROF_NATIVE_DEPTH", v + 3);
			}
		} else if (len == 8 && !strncmp(a, "alloc-fn", len)) {
			if (fns.len)
				sbuf_addc(&fns, ',');
			sbuf_adds(&fns, v);
		} else if (len == 13 && !strncmp(a, "checkpoint-ms", len)) {
			rc = set("DCPROF_NATIVE_CHECKPOINT_MS", v);
		} else if (len == 17 && !strncmp(a, "max-block-records", len)) {
			rc = set("DCPROF_NATIVE_MAX_BLOCK_RECORDS", v);
		} else if (len == 12 && !strncmp(a, "reuse-sample", len)) {
			rc = set("DCPROF_NATIVE_REUSE_SAMPLE", v);
		} else if (len == 17 && !strncmp(a, "reuse-watchpoints", len)) {
			if (atoi(v) > NATIVE_MAX_WATCHPOINTS) {
				err_msg("invalid --reuse-watchpoints value '%s' with --engine=native"
					" (1 to %d: the debug registers of a thread)", v,
					NATIVE_MAX_WATCHPOINTS);
				rc = -1;
			} else {
				rc = set("DCPROF_NATIVE_REUSE_WATCHPOINTS", v);
			}
		} else if (len == 11 && !strncmp(a, "reuse-watch", len)) {
			if (strcmp(v, "dr")) {
				err_msg("--reuse-watch=%s is the simulator engine's; hardware watchpoints"
					" watch the aligned 8 bytes (dr)", v);
				rc = -1;
			}
		} else if (len == 13 && !strncmp(a, "reuse-replace", len)) {
			rc = set("DCPROF_NATIVE_REUSE_OLDEST", strcmp(v, "oldest") ? "0" : "1");
		} else if (len == 12 && !strncmp(a, "reuse-attrib", len)) {
			rc = set("DCPROF_NATIVE_REUSE_NOATTRIB", strcmp(v, "none") ? "0" : "1");
		} else if (len == 10 && !strncmp(a, "reuse-bins", len)) {
			const char *colon = strchr(v, ':');
			char first[24];
			size_t k = colon ? (size_t)(colon - v) : 0;
			snprintf(first, sizeof first, "%.*s", (int)k, v);
			rc = set("DCPROF_NATIVE_REUSE_FIRST", first);
			if (!rc)
				rc = set("DCPROF_NATIVE_REUSE_GROWTH", colon ? colon + 1 : "2");
		} else if (len == 11 && !strncmp(a, "sample-seed", len)) {
			rc = set("DCPROF_NATIVE_REUSE_SEED", v);
		} else if (len == 17 && !strncmp(a, "checkpoint-budget", len)) {
			/* checkpoints copy the dump so far: cheap, no budget needed */
		} else {
			err_msg("--%.*s is an option of the simulator engine, not of"
				" --engine=native", (int)len, a);
			rc = -1;
		}
	}
	if (!rc && fns.len)
		rc = set("DCPROF_NATIVE_ALLOC_FN", fns.buf);
	sbuf_release(&fns);
	return rc;
}

int native_setup(const struct native_opts *o, char *const *args, int nargs)
{
	const char *old = getenv("LD_PRELOAD");
	struct sbuf pre;
	int rc;

	if (engine_env(args, nargs))
		return -1;
	sbuf_init(&pre);
	sbuf_adds(&pre, o->so);
	if (old && *old)
		sbuf_addf(&pre, ":%s", old);
	rc = set("LD_PRELOAD", pre.buf);
	sbuf_release(&pre);
	if (!rc && o->event)
		rc = set("DCPROF_NATIVE_EVENT", o->event);
	if (!rc && o->pmu.len)
		rc = set("DCPROF_NATIVE_PMU", o->pmu.buf);
	if (!rc && o->period)
		rc = set("DCPROF_NATIVE_PERIOD", o->period);
	if (!rc && o->replay) {
		char path[PATH_MAX];
		rc = set("DCPROF_NATIVE_REPLAY", realpath(o->replay, path) ? path : o->replay);
	}
	return rc;
}
