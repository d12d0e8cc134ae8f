/* record_native.h — dcprof record --engine=native (record_native.c). */
#ifndef DC_CLI_RECORD_NATIVE_H
#define DC_CLI_RECORD_NATIVE_H

#include "base/sbuf.h"

#define NATIVE_SO "dcprof-native.so"      /* the runtime, next to the Valgrind tool */

struct native_opts {
	const char *so;        /* the runtime's path (NATIVE_SO in the engine directory) */
	const char *event;     /* --event, NULL: the best data-address event */
	const char *period;    /* --period, NULL: the event's default */
	const char *replay;    /* --replay file, or NULL */
};

/* 0 when the event can be recorded here; else says why on stderr (the
 * "no PMU" line when no data-address event is available) and returns -1. */
int native_check_event(const char *event, const char *replay);

/* Sets LD_PRELOAD and the runtime's DCPROF_NATIVE_* variables in this
 * process's environment (the program inherits them), from o and the
 * engine options record queued ("--name=value"); -1 with a message for an
 * option the native engine does not take. */
int native_setup(const struct native_opts *o, char *const *args, int nargs);

#endif
