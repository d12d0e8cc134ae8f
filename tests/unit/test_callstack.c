/* test_callstack.c — shadow call stacks and inclusive costs (callstack.h
 * Notes), traced by hand: `now` is the thread's counter, raised by hand
 * between events; stack pointers go down as calls nest. */
#include <string.h>

#include "core/callstack.h"
#include "host/port_libc.h"
#include "unit.h"

struct find {
	uint32_t site, callee, kind;
	const struct dc_arc *found;
};

static int find_cb(void *ud, const struct dc_arc *a)
{
	struct find *f = ud;
	if (a->site == f->site && a->callee == f->callee && a->kind == f->kind)
		f->found = a;
	return 0;
}

static const struct dc_arc *arc(const struct dc_calls *c, uint32_t site, uint32_t callee,
				uint32_t kind)
{
	struct find f = { site, callee, kind, NULL };
	dc_calls_each(c, find_cb, &f);
	CHECK(f.found);
	return f.found;
}

#define N DC_CALL_NONE

/* root -> A (site 1) -> B (site 2) -> C (site 3), reads between:
 *   2 in root, 10 in A, 5 in B, 7 in C, 1 more in B, 3 more in A.
 * Inclusive: C 7, B 5 + 7 + 1 = 13, A 10 + 13 + 3 = 26, root 28 = all. */
DC_TEST(callstack, three_levels)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };

	CHECK_EQ(dc_calls_init(&c, dc_env_libc(), false), 0);
	CHECK_EQ(dc_callstack_init(&s, &c, 1, &now), 0);
	now.acc[0] += 2;
	CHECK_EQ(dc_callstack_call(&c, &s, 1, 100, 1000, &now), 0);
	now.acc[0] += 10;
	dc_callstack_call(&c, &s, 2, 200, 900, &now);
	now.acc[0] += 5;
	now.miss[0][0] += 2;
	dc_callstack_call(&c, &s, 3, 300, 800, &now);
	now.acc[0] += 7;
	now.lat += 70;
	CHECK_EQ(dc_callstack_ret(&c, &s, 808, &now), 0);
	now.acc[0] += 1;
	dc_callstack_ret(&c, &s, 908, &now);
	now.acc[0] += 3;
	dc_callstack_ret(&c, &s, 1008, &now);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(dc_callstack_finish(&c, &s, &now), 0);
	CHECK_EQ(arc(&c, 3, 300, DC_ARC_CALL)->incl.acc[0], 7);
	CHECK_EQ(arc(&c, 3, 300, DC_ARC_CALL)->incl.lat, 70);
	CHECK_EQ(arc(&c, 2, 200, DC_ARC_CALL)->incl.acc[0], 13);
	CHECK_EQ(arc(&c, 2, 200, DC_ARC_CALL)->incl.miss[0][0], 2);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->incl.acc[0], 26);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->count, 1);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->incl.acc[0], 28);
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
}

/* A calls itself twice (sites 5 and 6) with 4 reads per activation: three
 * calls of A, but only the outermost adds: 12, not 12 + 8 + 4. */
DC_TEST(callstack, recursion_counts_outermost_only)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };

	dc_calls_init(&c, dc_env_libc(), false);
	dc_callstack_init(&s, &c, 1, &now);
	dc_callstack_call(&c, &s, 5, 100, 1000, &now);
	now.acc[0] += 4;
	dc_callstack_call(&c, &s, 6, 100, 900, &now);
	now.acc[0] += 4;
	dc_callstack_call(&c, &s, 6, 100, 800, &now);
	now.acc[0] += 4;
	dc_callstack_ret(&c, &s, 808, &now);
	dc_callstack_ret(&c, &s, 908, &now);
	dc_callstack_ret(&c, &s, 1008, &now);
	dc_callstack_finish(&c, &s, &now);
	CHECK_EQ(arc(&c, 5, 100, DC_ARC_CALL)->incl.acc[0], 12);
	CHECK_EQ(arc(&c, 6, 100, DC_ARC_CALL)->incl.acc[0], 0);
	CHECK_EQ(arc(&c, 6, 100, DC_ARC_CALL)->count, 2);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->incl.acc[0], 12);
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
}

/* longjmp: A (sp 1000) calls B (900), B calls C (800), C jumps back into A
 * without returning; A then calls D from the same stack pointer B had.
 * The call pops C and B (sp <= 900) with what they had: C 3, B 2 + 3. */
DC_TEST(callstack, longjmp_popped_at_next_call)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };

	dc_calls_init(&c, dc_env_libc(), false);
	dc_callstack_init(&s, &c, 1, &now);
	dc_callstack_call(&c, &s, 1, 100, 1000, &now);
	dc_callstack_call(&c, &s, 2, 200, 900, &now);
	now.acc[1] += 2;
	dc_callstack_call(&c, &s, 3, 300, 800, &now);
	now.acc[1] += 3;
	dc_callstack_call(&c, &s, 4, 400, 900, &now);
	CHECK_EQ(s.n, 3);
	now.acc[1] += 1;
	dc_callstack_ret(&c, &s, 908, &now);
	dc_callstack_ret(&c, &s, 1008, &now);
	dc_callstack_finish(&c, &s, &now);
	CHECK_EQ(arc(&c, 3, 300, DC_ARC_CALL)->incl.acc[1], 3);
	CHECK_EQ(arc(&c, 2, 200, DC_ARC_CALL)->incl.acc[1], 5);
	CHECK_EQ(arc(&c, 4, 400, DC_ARC_CALL)->incl.acc[1], 1);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->incl.acc[1], 6);
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
}

/* A signal arrives inside A (1 read before, 1 after); the handler H reads
 * 10, 4 of them in a call it makes.  The signal root gets 10, A gets 2,
 * the thread root 2; roots add up to the 12 reads.  A return inside the
 * handler at a higher stack pointer (an alternate stack) pops nothing
 * below the signal root. */
DC_TEST(callstack, signal_handler_is_a_new_root)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };

	dc_calls_init(&c, dc_env_libc(), false);
	dc_callstack_init(&s, &c, 1, &now);
	dc_callstack_call(&c, &s, 1, 100, 1000, &now);
	now.acc[0] += 1;
	CHECK_EQ(dc_callstack_signal(&c, &s, &now), 0);
	now.acc[0] += 6;
	dc_callstack_call(&c, &s, 7, 700, 5000, &now);
	now.acc[0] += 4;
	dc_callstack_ret(&c, &s, 5008, &now);
	CHECK_EQ(s.n, 3);
	CHECK_EQ(dc_callstack_signal_end(&c, &s, &now), 0);
	CHECK_EQ(s.n, 2);
	now.acc[0] += 1;
	dc_callstack_ret(&c, &s, 1008, &now);
	dc_callstack_finish(&c, &s, &now);
	CHECK_EQ(arc(&c, N, N, DC_ARC_SIGNAL)->incl.acc[0], 10);
	CHECK_EQ(arc(&c, 7, 700, DC_ARC_CALL)->incl.acc[0], 4);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->incl.acc[0], 2);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->incl.acc[0], 2);
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
}

/* Frames still active at exit (exit() called deep down, a handler that
 * never returned) are popped by finish, and the roots still add up. */
DC_TEST(callstack, finish_pops_everything)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };

	dc_calls_init(&c, dc_env_libc(), false);
	dc_callstack_init(&s, &c, 2, &now);
	dc_callstack_call(&c, &s, 1, 100, 1000, &now);
	now.acc[0] += 3;
	dc_callstack_signal(&c, &s, &now);
	dc_callstack_call(&c, &s, 7, 700, 500, &now);
	now.acc[0] += 5;
	dc_callstack_finish(&c, &s, &now);
	CHECK_EQ(s.n, 0);
	CHECK_EQ(arc(&c, N, N, DC_ARC_SIGNAL)->incl.acc[0], 5);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->incl.acc[0], 3);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->incl.acc[0], 3);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->tid, 2);
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
}

static int calls_scenario(const struct dc_env *env, void *ud)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };
	int rc = dc_calls_init(&c, env, true);

	if (rc)
		return rc;
	rc = dc_callstack_init(&s, &c, 1, &now);
	for (uint32_t i = 0; !rc && i < 100; i++)   /* deeper than one frame array */
		rc = dc_callstack_call(&c, &s, i, 100 + i, 10000 - 16 * i, &now);
	/* With the tree, finishing cannot fail and frees the nodes. */
	if (s.f) {
		int rc2 = dc_callstack_finish(&c, &s, &now);
		rc = rc ? rc : rc2;
	}
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
	return rc;
}

DC_TEST(callstack, alloc_walk)
{
	DC_ALLOC_WALK(calls_scenario, NULL);
}

/* ---- the back-dating tree (seeds/001 §3) ----------------------------------- */

/* root -> A (site 1) -> B (site 2).  A line loaded in B is charged (SpLoss
 * 48, AcCost 500, Evicted 1 at level 1) only after B and A returned: B's
 * node lives on while the line references it, then the charge prunes B
 * (its arc gets 48/500/1), then A (an inactive leaf now: its arc gets them
 * too, with A's own line's 8/1000/0, not evicted), and the
 * root keeps them until the end, when the thread arc gets them.  A line
 * loaded in A and charged while A is active stays in A's node until A
 * returns. */
DC_TEST(callstack, backdating_tree_prunes_lazily)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };
	struct dc_bdnode *a, *b;

	dc_calls_init(&c, dc_env_libc(), true);
	dc_callstack_init(&s, &c, 1, &now);
	dc_callstack_call(&c, &s, 1, 100, 1000, &now);
	a = dc_callstack_node(&s);
	dc_bdtree_ref(a);
	dc_bdtree_charge(&c, a, 0, 8, 1000, 0);          /* charged while A is on top */
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->sploss[0], 0);
	dc_callstack_call(&c, &s, 2, 200, 900, &now);
	b = dc_callstack_node(&s);
	dc_bdtree_ref(b);
	CHECK_EQ(c.nodes, 3);
	dc_callstack_ret(&c, &s, 908, &now);
	dc_callstack_ret(&c, &s, 1008, &now);
	/* A was pruned? no: B, its child, is still referenced */
	CHECK_EQ(c.nodes, 3);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->sploss[0], 0);
	dc_bdtree_charge(&c, b, 0, 48, 500, 1);
	CHECK_EQ(c.nodes, 1);
	CHECK_EQ(arc(&c, 2, 200, DC_ARC_CALL)->sploss[0], 48);
	CHECK_EQ(arc(&c, 2, 200, DC_ARC_CALL)->accost[0], 500);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->sploss[0], 56);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->accost[0], 1500);
	CHECK_EQ(arc(&c, 2, 200, DC_ARC_CALL)->evicted[0], 1);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->evicted[0], 1);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->sploss[0], 0);
	dc_callstack_finish(&c, &s, &now);
	CHECK_EQ(c.nodes, 0);
	CHECK_EQ(c.max_nodes, 3);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->sploss[0], 56);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->accost[0], 1500);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->evicted[0], 1);
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
}

/* Calling B twice from A uses one node (the tree is per call arc, not per
 * call); a recursive A -> A node passes its costs to the outer A but not
 * to the A -> A arc (the outermost activation counts, as for immediate
 * costs); a signal handler's lines go to its own root. */
DC_TEST(callstack, backdating_tree_reuse_recursion_signal)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };
	struct dc_bdnode *n;

	dc_calls_init(&c, dc_env_libc(), true);
	dc_callstack_init(&s, &c, 1, &now);
	dc_callstack_call(&c, &s, 1, 100, 1000, &now);
	dc_callstack_call(&c, &s, 2, 200, 900, &now);
	n = dc_callstack_node(&s);
	dc_bdtree_ref(n);
	dc_callstack_ret(&c, &s, 908, &now);
	dc_callstack_call(&c, &s, 2, 200, 900, &now);
	CHECK(dc_callstack_node(&s) == n);
	dc_callstack_ret(&c, &s, 908, &now);
	dc_bdtree_charge(&c, n, 1, 10, 20, 0);
	dc_callstack_call(&c, &s, 3, 100, 800, &now);          /* A -> A */
	n = dc_callstack_node(&s);
	dc_bdtree_ref(n);
	dc_callstack_ret(&c, &s, 808, &now);
	dc_bdtree_charge(&c, n, 1, 5, 7, 0);
	dc_callstack_signal(&c, &s, &now);
	n = dc_callstack_node(&s);
	dc_bdtree_ref(n);
	dc_callstack_signal_end(&c, &s, &now);
	dc_bdtree_charge(&c, n, 0, 3, 4, 0);
	dc_callstack_ret(&c, &s, 1008, &now);
	dc_callstack_finish(&c, &s, &now);
	CHECK_EQ(arc(&c, 2, 200, DC_ARC_CALL)->sploss[1], 10);
	CHECK_EQ(arc(&c, 3, 100, DC_ARC_CALL)->sploss[1], 0);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->sploss[1], 15);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->accost[1], 27);
	CHECK_EQ(arc(&c, N, N, DC_ARC_SIGNAL)->sploss[0], 3);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->sploss[1], 15);
	CHECK_EQ(arc(&c, N, N, DC_ARC_THREAD)->sploss[0], 0);
	CHECK_EQ(c.nodes, 0);
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
}

/* A (sp 1000) reads 1, tail-calls T (a jump: T's frame has A's stack
 * pointer), T reads 4 and returns to A's caller: the return pops T and A.
 * A's inclusive includes T's; a later call from the root at the same stack
 * pointer is not confused with them. */
DC_TEST(callstack, tail_call_returns_with_its_caller)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };

	dc_calls_init(&c, dc_env_libc(), false);
	dc_callstack_init(&s, &c, 1, &now);
	dc_callstack_call(&c, &s, 1, 100, 1000, &now);
	now.acc[0] += 1;
	CHECK_EQ(dc_callstack_tailcall(&c, &s, 2, 200, 1000, &now), 0);
	CHECK_EQ(s.n, 3);
	now.acc[0] += 4;
	dc_callstack_ret(&c, &s, 1008, &now);
	CHECK_EQ(s.n, 1);
	dc_callstack_call(&c, &s, 3, 300, 1000, &now);
	now.acc[0] += 2;
	dc_callstack_ret(&c, &s, 1008, &now);
	dc_callstack_finish(&c, &s, &now);
	CHECK_EQ(arc(&c, 2, 200, DC_ARC_CALL)->incl.acc[0], 4);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->incl.acc[0], 5);
	CHECK_EQ(arc(&c, 3, 300, DC_ARC_CALL)->incl.acc[0], 2);
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
}

/* Site 1 calls the resolver R (sp 1000), which reads 3 and jumps to F, the
 * function it bound: F takes R's place (site 1, sp 1000), reads 5 and
 * returns.  Arcs: 1 -> R once with 3, 1 -> F once with 5; under A
 * (reached by a tail call, sharing its stack pointer) the jump replaces
 * only R, so A's inclusive keeps both. */
DC_TEST(callstack, jump_replaces_the_top_frame)
{
	struct dc_calls c;
	struct dc_callstack s;
	struct dc_cost now = { 0 };

	dc_calls_init(&c, dc_env_libc(), false);
	dc_callstack_init(&s, &c, 1, &now);
	dc_callstack_call(&c, &s, 1, 100, 1000, &now);
	now.acc[0] += 3;
	CHECK_EQ(dc_callstack_jump(&c, &s, 200, &now), 0);
	CHECK_EQ(s.n, 2);
	now.acc[0] += 5;
	dc_callstack_ret(&c, &s, 1008, &now);
	CHECK_EQ(s.n, 1);
	dc_callstack_call(&c, &s, 2, 300, 1000, &now);
	dc_callstack_tailcall(&c, &s, 3, 100, 1000, &now);
	now.acc[0] += 2;
	dc_callstack_jump(&c, &s, 200, &now);
	now.acc[0] += 4;
	dc_callstack_ret(&c, &s, 1008, &now);
	CHECK_EQ(s.n, 1);
	/* the root frame is no call: nothing to replace */
	CHECK_EQ(dc_callstack_jump(&c, &s, 200, &now), 0);
	CHECK_EQ(s.n, 1);
	dc_callstack_finish(&c, &s, &now);
	CHECK_EQ(arc(&c, 1, 100, DC_ARC_CALL)->incl.acc[0], 3);
	CHECK_EQ(arc(&c, 1, 200, DC_ARC_CALL)->incl.acc[0], 5);
	CHECK_EQ(arc(&c, 1, 200, DC_ARC_CALL)->count, 1);
	CHECK_EQ(arc(&c, 3, 100, DC_ARC_CALL)->incl.acc[0], 2);
	CHECK_EQ(arc(&c, 3, 200, DC_ARC_CALL)->incl.acc[0], 4);
	CHECK_EQ(arc(&c, 2, 300, DC_ARC_CALL)->incl.acc[0], 6);
	dc_callstack_release(&s, &c);
	dc_calls_release(&c);
}
