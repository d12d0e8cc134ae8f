/* record_native.h — dcprof record --engine=native (record_native.c). */
#ifndef DC_CLI_RECORD_NATIVE_H
#define DC_CLI_RECORD_NATIVE_H

#include <stdbool.h>

#include "base/sbuf.h"

#define NATIVE_SO "dcprof-native.so"      /* the runtime, next to the Valgrind tool */

struct native_opts {
	const char *so;        /* the runtime's path (NATIVE_SO in the engine directory) */
	const char *event;     /* --event, NULL: the best data-address event */
	const char *period;    /* --period, NULL: the event's default */
	const char *replay;    /* --replay file, or NULL */
	unsigned ldlat;        /* --ldlat, 0: the default */
	/* set by native_check_event for a PMU event: the runtime's
	 * DCPROF_NATIVE_PMU (record_pmu.h), and the period it was opened with */
	struct sbuf pmu;
	char period_buf[24];
};

/* 0 when the event can be recorded here; else says why on stderr (the
 * "no PMU" line when no data-address event is available) and returns -1.
 * A PMU event (--event=mem-loads, ..., or none: the first of mem-loads,
 * ibs-op, spe that opens) is built from sysfs ($DCPROF_TEST_SYSFS, for
 * tests, replaces /sys/bus/event_source/devices and prints each attr
 * tried) and probed; o->event, o->period and o->pmu then describe it.
 * o->pmu must be initialised. */
int native_check_event(struct native_opts *o);

/* --reuse-sample with the native engine, before the event is probed: -1
 * with a message when its use points have no data address (cpu-clock,
 * --replay); 0 else (pagefault or a PMU event, named or the default). */
int native_check_reuse_event(const struct native_opts *o, const char *reuse_sample);

/* --reuse-sample with the native engine: 0 when it can run (N is 0, or a
 * probe watchpoint counts what it should); else the reason on stderr (the
 * "watchpoints unavailable" line) and -1.  force_fail: the hidden
 * --test-no-watchpoints, for tests. */
int native_check_reuse(const char *reuse_sample, bool force_fail);

/* Sets LD_PRELOAD and the runtime's DCPROF_NATIVE_* variables in this
 * process's environment (the program inherits them), from o and the
 * engine options record queued ("--name=value"); -1 with a message for an
 * option the native engine does not take. */
int native_setup(const struct native_opts *o, char *const *args, int nargs);

#endif
