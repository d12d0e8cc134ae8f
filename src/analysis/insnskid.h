/* insnskid.h — skid negation over instructions (dcprof approx): where a
 * skidded IP-only sample came from, walking back through the object's
 * disassembly (N. Rutar, J. K. Hollingsworth, "Software Analysis
 * Techniques to Approximate Data Centric Direct Measurements", §3.3.3, the
 * second mapping: "look at the exact instruction given by the event and
 * all of the instructions within the range of the Gaussian distribution").
 *
 * Input is the text of `objdump -d -l --no-show-raw-insn -w OBJECT` (GNU
 * binutils): per function its instructions in address order with their
 * source file and line.  docs/approx.md states the model.
 */
#ifndef DC_ANALYSIS_INSNSKID_H
#define DC_ANALYSIS_INSNSKID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct is_insn {
	uint64_t addr;
	uint64_t target;        /* a direct branch's target, 0 for none */
	uint32_t fn;            /* index of its function (is_obj.fn_first) */
	int32_t file;           /* index into is_obj.files, -1 when unknown */
	uint32_t line;          /* 0 when unknown */
	uint8_t kind;           /* IS_* below */
	bool mem;               /* an explicit memory operand: may miss */
};

enum { IS_PLAIN, IS_JUMP, IS_COND, IS_STOP, IS_CALL };

/* A predecessor of an instruction and its weight (insnskid.c, Notes). */
struct is_pred {
	size_t from;
	double w;
};

struct is_obj {
	struct is_insn *insn;   /* ascending addresses */
	size_t n, cap;
	size_t *fn_first;       /* first instruction of each function */
	size_t nfn, fn_cap;
	char **files;
	size_t nfiles, files_cap;
	size_t *pred_first;     /* n + 1: the predecessors of insn i are */
	struct is_pred *preds;  /* preds[pred_first[i] .. pred_first[i + 1]) */
};

/* One place a sample may have come from, with its probability. */
struct is_from {
	size_t insn;
	double p;
};

void is_obj_init(struct is_obj *o);
void is_obj_release(struct is_obj *o);
/* Reads objdump's text; lines it does not know are skipped. */
void is_parse(struct is_obj *o, const char *text, size_t len);
/* The instruction at addr, or -1. */
long is_find(const struct is_obj *o, uint64_t addr);
/* The load bias of the object in a profile: of the page-aligned offsets
 * that put samples[i] (runtime address, source line and file name, n of
 * them) on an instruction of that line, the one most samples agree with;
 * 0 when none does. */
uint64_t is_bias(const struct is_obj *o, const uint64_t *ip, const uint32_t *line,
		 const char *const *base, size_t n);
/* The memory instructions a sample at instruction at came from: w[k] the
 * skid distribution over k executed instructions back (k = 0: at itself;
 * approx_skid_offsets), walked back along the function's control flow
 * (predecessors weighted by a static estimate of how often each is the
 * one taken; docs/approx.md).  Replaces *out's contents (n; cap and *out
 * are the caller's, free it) with one entry per instruction, relative
 * weights p (the caller normalises over those it can place); returns n. */
size_t is_skid_back(const struct is_obj *o, size_t at, const double *w, size_t nw,
		    struct is_from **out, size_t *n, size_t *cap);

#endif
