/* test_insnskid.c — skid negation over instructions
 * (src/analysis/insnskid.c): objdump text parsed, the load bias found, and
 * samples walked back along predecessors, on a hand-written disassembly
 * whose expected weights are derived in the comments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/insnskid.h"
#include "unit.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-12)

/* f: a load before the loop (0xffc, depth 0), the loop 0x1000..0x1009
 * (its load, an add, a compare and the backward branch, depth 1), and a
 * return.  Objdump's layout (-d -l --no-show-raw-insn -w). */
static const char text[] =
	"\n"
	"/tmp/t:     file format elf64-x86-64\n"
	"\n"
	"Disassembly of section .text:\n"
	"\n"
	"0000000000000ffc <f>:\n"
	"f():\n"
	"/src/t.c:3\n"
	"     ffc:\tmov    0x10(%rdx),%ecx\n"
	"/src/t.c:5 (discriminator 1)\n"
	"    1000:\tmovsd  (%rdi,%rax,8),%xmm0\n"
	"/src/t.c:4\n"
	"    1005:\tadd    $0x1,%rax\n"
	"    1009:\tcmp    %rsi,%rax\n"
	"    100c:\tjne    1000 <f+0x4>\n"
	"    100e:\tlea    0x8(%rsp),%rax\n"
	"/src/t.c:6\n"
	"    1013:\tret\n";

static void parse(struct is_obj *o)
{
	is_obj_init(o);
	is_parse(o, text, sizeof text - 1);
}

DC_TEST(insnskid, parse)
{
	struct is_obj o;

	parse(&o);
	CHECK(o.n == 7 && o.nfn == 1 && o.nfiles == 1);
	CHECK(!strcmp(o.files[0], "/src/t.c"));
	CHECK(o.insn[0].mem && o.insn[0].line == 3);
	CHECK(o.insn[1].mem && o.insn[1].line == 5);     /* discriminator dropped */
	CHECK(!o.insn[2].mem && o.insn[2].line == 4);
	CHECK(o.insn[4].kind == IS_COND && o.insn[4].target == 0x1000);
	CHECK(!o.insn[5].mem);                           /* lea: no access */
	CHECK(o.insn[6].kind == IS_STOP);
	CHECK(is_find(&o, 0x1009) == 3 && is_find(&o, 0x1008) == -1);
	is_obj_release(&o);
}

/* Run-time addresses 0x555555554000 above objdump's (a PIE): samples on
 * lines 5 and 4 at 0x555555555000 and 0x555555555005 agree on that bias
 * only. */
DC_TEST(insnskid, bias)
{
	struct is_obj o;
	const uint64_t ip[2] = { 0x555555555000, 0x555555555005 };
	const uint32_t line[2] = { 5, 4 };
	const char *const base[2] = { "t.c", "t.c" };

	parse(&o);
	CHECK(is_bias(&o, ip, line, base, 2) == 0x555555554000);
	is_obj_release(&o);
}

/* Predecessors of the loop's top 0x1000: the load before the loop falls
 * through (depth 0: freq 1, p 1: weight 1) and the backward jne is taken
 * (depth 1: freq 10, p 0.9: weight 9), so 1/10 and 9/10.  From the add at
 * 0x1005: k = 1 is the loop's load (p 1); k = 2 is the load before the
 * loop (1/10) or the jne (9/10, no access); k = 5 goes round the loop
 * (jne, cmp, add, load): the loop's load with 9/10. */
DC_TEST(insnskid, walk_back_over_the_back_edge)
{
	struct is_obj o;
	struct is_from *f = NULL;
	size_t n = 0, cap = 0;
	double w[6];

	parse(&o);
	memset(w, 0, sizeof w);
	w[1] = 1;
	CHECK(is_skid_back(&o, 2, w, 2, &f, &n, &cap) == 1);
	CHECK(f[0].insn == 1 && NEAR(f[0].p, 1.0));
	w[1] = 0;
	w[2] = 1;
	CHECK(is_skid_back(&o, 2, w, 3, &f, &n, &cap) == 1);
	CHECK(f[0].insn == 0 && NEAR(f[0].p, 0.1));
	w[2] = 0;
	w[5] = 1;
	CHECK(is_skid_back(&o, 2, w, 6, &f, &n, &cap) == 1);
	CHECK(f[0].insn == 1 && NEAR(f[0].p, 0.9));
	/* A mix: w[1] = w[2] = 1/2 gives the loop's load 1/2, the other 1/20. */
	w[5] = 0;
	w[1] = w[2] = 0.5;
	CHECK(is_skid_back(&o, 2, w, 3, &f, &n, &cap) == 2);
	CHECK(f[0].insn == 0 && NEAR(f[0].p, 0.05));
	CHECK(f[1].insn == 1 && NEAR(f[1].p, 0.5));
	free(f);
	is_obj_release(&o);
}
