/* callstack.h — shadow call stacks and inclusive costs of call arcs
 * (seeds/001 §2, method 3: differences of a global counter).
 *
 * Notes:
 *  - One stack per thread.  Its bottom frame is the thread's root; a
 *    signal delivery pushes a signal root, popped when the handler
 *    returns (dc_callstack_signal_end).  Roots are barriers: unwinding
 *    never pops them.
 *  - A frame remembers the stack pointer at the callee's entry (after the
 *    return address was pushed) and a snapshot of the thread's counters.
 *    A call first pops the frames whose stack pointer is at or below the
 *    new frame's (frames left by longjmp or unwinding: a live caller's is
 *    above); a return pops the frames below the stack pointer after it.
 *    So longjmp, exceptions and frames left without a return are popped at
 *    the next call or return above them, as Callgrind does by comparing
 *    stack pointers.
 *  - Popping a frame counts one call of its arc (call site, callee) and
 *    adds the counters' growth since the push to the arc's inclusive
 *    costs, unless the callee is active below it on the same tree
 *    (recursion): then only the outermost activation adds, so no cost is
 *    counted twice.
 *  - Signal handlers are new roots: their costs go to the signal root's
 *    arc, and the frames below it get their snapshots raised by the same
 *    amount, so the interrupted calls' inclusive costs exclude the handler.
 *    The thread root plus its signal roots add up to the thread's costs.
 *  - Tail calls (a jump to another function's entry, seen by the engine)
 *    push a frame like a call but without popping the jumping function's,
 *    whose stack pointer it shares (its frame is gone): the return pops
 *    both, so the tail-calling function's inclusive costs include the
 *    callee's, as Callgrind counts them.
 *  - A jump that stands for the top frame's call (the dynamic linker's
 *    resolver jumping to the function it bound) replaces that frame: the
 *    frame is popped, counted as a call of its arc, and one for the jump's
 *    target pushed with the same call site and stack pointer.
 *  - Back-dating tree (seeds/001 §3; with dc_calls.tree): metrics charged
 *    later than the access they belong to (SpLoss, AcCost and Evicted at
 *    eviction) get
 *    inclusive costs through a reference-counted partial call tree.  Each
 *    frame has a node (a child of its caller's node per call arc, reused
 *    when it exists; roots start new trees).  A line loaded while a node
 *    is on top references it (dc_bdtree_ref); its charge at eviction goes
 *    to the node (dc_bdtree_charge).  A node that is not on the stack, has
 *    no references and no children is pruned: its costs go to its parent
 *    and to its arc's back-dated inclusive costs (unless it is a recursive
 *    activation, as above), and the parent is tried in turn.  At exit,
 *    after every line was charged, popping all frames prunes every tree.
 */
#ifndef DC_CALLSTACK_H
#define DC_CALLSTACK_H

#include "core/costtab.h"
#include "core/rectab.h"

#define DC_CALL_NONE 0xffffffffu   /* site or callee of a root */

enum { DC_ARC_CALL, DC_ARC_THREAD, DC_ARC_SIGNAL };

/* A call arc; the key is the first four words. */
struct dc_arc {
	uint32_t site, callee, tid, kind;
	uint64_t count;
	struct dc_cost incl;      /* only the counters: acc, miss, lat */
	/* back-dated inclusive costs, from the tree */
	uint64_t sploss[DC_MAX_LEVELS], accost[DC_MAX_LEVELS], evicted[DC_MAX_LEVELS];
};

struct dc_bdnode {
	struct dc_bdnode *parent, *child, *prev, *next;   /* children: a list */
	struct dc_arc *arc;
	uint64_t refs;            /* lines (per level) loaded while on top */
	bool active, nested;
	uint64_t sploss[DC_MAX_LEVELS], accost[DC_MAX_LEVELS], evicted[DC_MAX_LEVELS];
};

struct dc_frame {
	uint32_t site, callee, kind;
	bool nested;              /* callee active below, on the same tree */
	uint64_t sp;
	struct dc_cost snap;
	struct dc_bdnode *node;   /* with the tree */
};

struct dc_callstack {
	struct dc_frame *f;
	uint32_t n, cap, tid;
};

struct dc_calls {
	struct dc_rectab arcs;
	const struct dc_env *env;
	bool tree;                /* keep the back-dating tree */
	uint64_t nodes, max_nodes;          /* live tree nodes, most at once */
	uint64_t node_sum, node_samples;    /* live nodes summed at each call */
};

/* tree: also keep the back-dating tree. */
int dc_calls_init(struct dc_calls *c, const struct dc_env *env, bool tree);
void dc_calls_release(struct dc_calls *c);

/* A thread's stack with its root frame, snapshot `now`. */
int dc_callstack_init(struct dc_callstack *s, struct dc_calls *c, uint32_t tid,
		      const struct dc_cost *now);
/* With the tree: after dc_callstack_finish, once no line references a
 * node (else the nodes are not freed). */
void dc_callstack_release(struct dc_callstack *s, const struct dc_calls *c);

/* A call from `site` to `callee`, sp = the stack pointer at its entry. */
int dc_callstack_call(struct dc_calls *c, struct dc_callstack *s, uint32_t site,
		      uint32_t callee, uint64_t sp, const struct dc_cost *now);
/* A jump from `site` to the entry of another function `callee`. */
int dc_callstack_tailcall(struct dc_calls *c, struct dc_callstack *s, uint32_t site,
			  uint32_t callee, uint64_t sp, const struct dc_cost *now);
/* The function on top leaves by a jump to the entry of `callee` that
 * stands for its own call (the dynamic linker's resolver jumping to the
 * function it bound): its frame is popped and one for callee pushed with
 * the same call site and stack pointer. */
int dc_callstack_jump(struct dc_calls *c, struct dc_callstack *s, uint32_t callee,
		      const struct dc_cost *now);
/* A return; sp = the stack pointer after it. */
int dc_callstack_ret(struct dc_calls *c, struct dc_callstack *s, uint64_t sp,
		     const struct dc_cost *now);
/* A signal handler starts / returns. */
int dc_callstack_signal(struct dc_calls *c, struct dc_callstack *s, const struct dc_cost *now);
int dc_callstack_signal_end(struct dc_calls *c, struct dc_callstack *s,
			    const struct dc_cost *now);
/* Pops every frame, roots included (at exit). */
int dc_callstack_finish(struct dc_calls *c, struct dc_callstack *s, const struct dc_cost *now);
/* A forked child counts from zero: every snapshot, and the costs of the
 * trees of s's roots, become zero. */
void dc_callstack_zero(struct dc_callstack *s);

/* The node on top of s (NULL without the tree). */
static inline struct dc_bdnode *dc_callstack_node(const struct dc_callstack *s)
{
	return s->n ? s->f[s->n - 1].node : NULL;
}

/* A line was loaded while `node` was on top. */
static inline void dc_bdtree_ref(struct dc_bdnode *node)
{
	node->refs++;
}

/* The residency of a line that referenced node ended, charged `sploss`,
 * `accost` and `evicted` (1 when it ended by eviction and evictions are
 * counted, else 0) at level k; may prune the node. */
void dc_bdtree_charge(struct dc_calls *c, struct dc_bdnode *node, int k, uint64_t sploss,
		      uint64_t accost, uint64_t evicted);

/* Calls fn on every arc; stops at non-zero. */
int dc_calls_each(const struct dc_calls *c, int (*fn)(void *ud, const struct dc_arc *a),
		  void *ud);
/* Zeroes counts and costs, keeping the arcs. */
void dc_calls_zero(struct dc_calls *c);

#endif
