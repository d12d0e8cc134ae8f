/* attrib.h — samples per source line attributed to the locations the
 * sources access there (dcprof approx): raw assignment, loop compensation
 * and skid negation (N. Rutar, J. K. Hollingsworth, "Software Analysis
 * Techniques to Approximate Data Centric Direct Measurements", §3.3).
 */
#ifndef DC_ANALYSIS_ATTRIB_H
#define DC_ANALYSIS_ATTRIB_H

#include <stdbool.h>

#include "analysis/srcvars.h"

/* The samples (samples × period) of one source line of an analysed file. */
struct at_line {
	uint32_t file, line;
	double count;
};

struct at_opts {
	bool loop;              /* loop compensation on */
	double threshold;       /* its threshold (eq. 3) */
	double skid_mean, skid_sd;  /* in code lines; sd < 0: no skid negation */
	bool writes;            /* count written locations as well as read ones */
	bool registers;         /* count register accesses (sv_access.reg) too */
	bool loop_scalars;      /* count a whole variable read in a loop on a line with
				 * other counted locations too */
	bool per_location;      /* a line's samples split over its locations (the
				 * paper), not over its variables first */
};

/* Skid over instructions (insnskid.h): the sample group `group` (count
 * samples x period, all landed on one instruction) came from an
 * instruction on (file, line) with relative weight p. */
struct at_from {
	uint32_t group, file, line;
	double p;
};

struct at_groups {
	const struct at_from *from;     /* ascending group */
	size_t n;
	const double *count;            /* per group */
	size_t ngroups;
};

enum { AT_RAW, AT_LA, AT_SA, AT_METHODS };

struct at_result {
	double *val[AT_METHODS];        /* per access of the sv_prog (p->acc order) */
	double unplaced[AT_METHODS];    /* samples on lines without a counted location */
};

/* Attributes the n lines' samples; r is the caller's, released with
 * at_result_release.  With g (not NULL), SA comes from its groups instead
 * of the skid over source lines of o. */
void attrib_run(const struct sv_prog *p, const struct at_line *lines, size_t n,
		const struct at_opts *o, const struct at_groups *g, struct at_result *r);
void at_result_release(struct at_result *r);

#endif
