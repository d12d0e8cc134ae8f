/* skid.h — emulated skid of IP-only samples, in executed instructions.
 *
 * Notes (Rutar and Hollingsworth, "Software Analysis Techniques to
 * Approximate Data Centric Direct Measurements", §3.3.3):
 *  - A counter without skid-negating hardware delivers, for a sampled
 *    event, only the instruction pointer of an instruction executed some k
 *    instructions after the one that caused it.  The paper models k as a
 *    Gaussian with a mean and a variance in instructions; so does this:
 *    k = round(MEAN + SD * z), z standard normal, truncated at 0 (k = 0 is
 *    the sampling instruction itself; SD 0 gives k = round(MEAN) always).
 *  - z comes from Marsaglia's polar method over splitmix64 uniforms (53-bit
 *    doubles in (-1, 1)), with the logarithm and square root computed here
 *    (the core has no libm); the same seed gives the same k sequence.
 *  - The instructions are counted by the engine in one sequence per thread
 *    (the executed-instruction counter Ir).  A sample whose instruction is
 *    number i of that sequence is pending until the engine reaches
 *    instruction i + k, which is where it lands.  Pending samples of a
 *    thread that is not running are parked as "instructions still to go"
 *    and resumed when it runs again, so a skid never lands in another
 *    thread's code.
 *  - At most `cap` samples are pending at once; a sample that finds the
 *    queue full is dropped and counted (dc_skid.dropped).
 *  - MEAN and SD are given in thousandths of an instruction (the option
 *    MEAN:SD takes up to three decimals), each at most DC_SKID_MAX
 *    instructions.
 */
#ifndef DC_SKID_H
#define DC_SKID_H

#include "core/port.h"

#define DC_SKID_MAX 1000000   /* instructions, for MEAN and for SD */

struct dc_skid_pending {
	uint64_t at;            /* instruction number it lands on, or, parked,
				 * the instructions still to go */
	uint32_t tid;
	bool parked;
};

struct dc_skid {
	const struct dc_env *env;
	uint32_t mean_milli, sd_milli;
	uint64_t rng;
	struct dc_skid_pending *q;
	uint32_t n, cap;
	uint32_t tid;           /* the running thread */
	uint64_t next;          /* the smallest `at` of the running thread's
				 * pending samples, UINT64_MAX when none */
	uint64_t dropped;       /* samples that found the queue full */
};

/* Parses MEAN:SD (decimals with up to three places, 0 to DC_SKID_MAX
 * each) into thousandths; DC_EINVAL when malformed or out of range. */
int dc_skid_parse(const char *spec, uint32_t *mean_milli, uint32_t *sd_milli);
/* Formats thousandths as the shortest decimal ("2", "2.5", "0.125"). */
void dc_skid_fmt_milli(char *buf, size_t len, uint32_t milli);

int dc_skid_init(struct dc_skid *s, const struct dc_env *env, uint32_t mean_milli,
		 uint32_t sd_milli, uint64_t seed, uint32_t cap);
void dc_skid_release(struct dc_skid *s);

/* The next skid k, in instructions. */
uint64_t dc_skid_draw(struct dc_skid *s);
/* A standard normal variate (the z of dc_skid_draw). */
double dc_skid_normal(uint64_t *rng);
/* Natural logarithm and square root of x > 0 (x >= 0 for the root). */
double dc_skid_ln(double x);
double dc_skid_sqrt(double x);

/* A sample of the running thread lands on instruction number `at`;
 * false when the queue is full (then counted in dropped). */
bool dc_skid_push(struct dc_skid *s, uint64_t at);
/* The running thread executed instructions [start, end): calls
 * land(ud, at - start) for each of its samples with at < end, in queue
 * order, and forgets them.  Call it when next < end. */
void dc_skid_due(struct dc_skid *s, uint64_t start, uint64_t end,
		 void (*land)(void *ud, uint64_t index, uint32_t tid), void *ud);
/* Thread tid runs from instruction number now on. */
void dc_skid_switch(struct dc_skid *s, uint32_t tid, uint64_t now);
/* Forgets every pending sample and the dropped count. */
void dc_skid_clear(struct dc_skid *s);

#endif
