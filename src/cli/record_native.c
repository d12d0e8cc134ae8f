/* record_native.c — dcprof record --engine=native: the event, the
 * environment of the preloaded runtime (src/engine/native/), the run.
 *
 * The runtime reads its configuration from the environment, which the
 * program's children and exec'd images inherit with LD_PRELOAD, so every
 * process of the tree writes its own dump (docs/engine-native.md).
 */
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/err.h"
#include "base/num.h"
#include "cli/record_native.h"

/* Events that carry a data address from a PMU, with the sysfs device each
 * needs: Intel PEBS (cpu), AMD IBS (ibs_op), Arm SPE (arm_spe_0). */
static const struct {
	const char *name, *device;
} hw_events[] = {
	{ "mem-loads", "cpu" },
	{ "mem-stores", "cpu" },
	{ "ibs-op", "ibs_op" },
	{ "spe", "arm_spe_0" },
};

/* perf_event_open's answer for a precise load-latency event on this
 * machine: 0 when it opens, else errno. */
static int probe_pebs(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_RAW;
	a.config = 0x1cd;        /* MEM_TRANS_RETIRED.LOAD_LATENCY */
	a.config1 = 30;          /* ldlat */
	a.precise_ip = 2;
	a.sample_period = 10007;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT |
			PERF_SAMPLE_DATA_SRC;
	a.exclude_kernel = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static bool has_device(const char *dev)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof path, "/sys/bus/event_source/devices/%s", dev);
	return stat(path, &st) == 0;
}

int native_check_event(const char *event, const char *replay)
{
	int e;

	if (replay) {
		if (event) {
			err_msg("--event and --replay exclude each other (a replay's samples"
				" come from its file)");
			return -1;
		}
		if (access(replay, R_OK) < 0) {
			err_msg("cannot read samples '%s': %s", replay, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (event && (!strcmp(event, "pagefault") || !strcmp(event, "cpu-clock")))
		return 0;
	if (event) {
		size_t i;
		for (i = 0; i < sizeof hw_events / sizeof hw_events[0]; i++)
			if (!strcmp(event, hw_events[i].name))
				break;
		if (i == sizeof hw_events / sizeof hw_events[0]) {
			err_msg("unknown --event '%s' (pagefault, cpu-clock, mem-loads, mem-stores,"
				" ibs-op or spe)", event);
			return -1;
		}
		if (has_device(hw_events[i].device) && !probe_pebs()) {
			err_msg("--event=%s: live sampling of this PMU is not implemented yet;"
				" record its samples with perf and --replay them, or use"
				" --event=pagefault", event);
			return -1;
		}
	}
	e = probe_pebs();
	if (!e && (has_device("ibs_op") || has_device("arm_spe_0") || has_device("cpu"))) {
		err_msg("live sampling of this machine's PMU is not implemented yet; use"
			" --event=pagefault, --event=cpu-clock or --replay");
		return -1;
	}
	err_msg("no PMU with data-address sampling on this machine (perf_event_open: %s);"
		" try --event=pagefault or the simulator engine", strerror(e ? e : ENOENT));
	return -1;
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
	if (!rc && o->period)
		rc = set("DCPROF_NATIVE_PERIOD", o->period);
	if (!rc && o->replay) {
		char path[PATH_MAX];
		rc = set("DCPROF_NATIVE_REPLAY", realpath(o->replay, path) ? path : o->replay);
	}
	return rc;
}
