/* approx_insn.h — dcprof approx's skid over instructions: the profile's
 * sampled instructions walked back through objdump's disassembly of their
 * objects (analysis/insnskid.h) into at_groups for attrib_run.
 */
#ifndef DC_CLI_APPROX_INSN_H
#define DC_CLI_APPROX_INSN_H

#include "analysis/attrib.h"
#include "analysis/srcvars.h"
#include "store/profile.h"

struct approx_insn {
	struct at_from *from;
	size_t n, cap;
	double *count;
	size_t ngroups;
	double grouped;         /* samples in groups (the rest is not placed by SA) */
	size_t objects;         /* objects disassembled */
};

/* The analysed file a profile's file name is: the same path, or else the
 * only analysed file of that name (sources checked out elsewhere); -1. */
int approx_find_file(const struct sv_prog *pg, const char *file);

/* Groups every sample at an instruction of an object that holds analysed
 * code, with the skid distribution w over nw instructions.  Returns 0, or
 * -1 with err set when the profile cannot be read; an object objdump
 * cannot disassemble is a warning and its samples stay out of the groups. */
int approx_insn_groups(struct profile *p, const struct sv_prog *pg, const double *w, size_t nw,
		       struct approx_insn *g, char *err, size_t errlen);
void approx_insn_release(struct approx_insn *g);

#endif
