/* record_pmu.h — the PMU events with data addresses (Intel PEBS load
 * latency and stores, AMD IBS op, Arm SPE) as perf_event_attr, built from
 * the kernel's sysfs description of the PMU (record_pmu.c). */
#ifndef DC_CLI_RECORD_PMU_H
#define DC_CLI_RECORD_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"

#define PMU_MAX_OPEN 2            /* a hybrid Intel CPU: cpu_core and cpu_atom */

/* One event the runtime opens per thread (and record probes). */
struct pmu_event {
	const char *kind;         /* the decoder: pebs, ibs, spe */
	char pmu[64];             /* the PMU's sysfs name: cpu, cpu_core, ibs_op, arm_spe_0 */
	char spec[160];           /* as perf writes it: cpu_core/mem-loads,ldlat=3/ */
	struct perf_event_attr attr;
	bool has_leader;          /* Intel's mem-loads-aux: the group leader mem-loads needs */
	uint64_t leader_config;
};

/* The events for --event=name (NULL: ldlat and period defaults apply) on
 * the PMUs under root (/sys/bus/event_source/devices, or $DCPROF_TEST_SYSFS
 * in tests): fills up to PMU_MAX_OPEN into ev and returns how many (> 0);
 * -1 with the reason in why when this machine has no such PMU or its
 * description is malformed.  ldlat 0 and period 0 take the defaults. */
int pmu_build(const char *root, const char *name, unsigned ldlat, uint64_t period,
	      struct pmu_event *ev, char *why, size_t nwhy);

/* Opens each event on this process (disabled) and closes it: 0 when all
 * open, else errno of the one that did not, in why as "SPEC: strerror".  A PEBS event
 * takes the highest precise_ip that opens (3, then 2, then 1 on EINVAL);
 * ev records it.  With trace, each attempt's attr is printed on stderr. */
int pmu_probe(struct pmu_event *ev, int n, bool trace, char *why, size_t nwhy);

/* The runtime's description of the events (DCPROF_NATIVE_PMU,
 * docs/engine-native.md "Live PMU events"). */
void pmu_env(const struct pmu_event *ev, int n, struct sbuf *out);

/* The default period of a kind, and --ldlat's default. */
uint64_t pmu_default_period(const char *event);
#define PMU_DEFAULT_LDLAT 3

#endif
