/* dwscope.c — a compilation unit's scopes indexed by address (see
 * dwscope.h). */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "dwarf/dwscope.h"

/* Nodes are numbered from 1 in DIE order (node 0 is the unit); a span is
 * one address range of a node, filed under the node it is searched from. */
struct node {
	Dwarf_Die die;
	uint32_t outer;         /* the nearest inlined subroutine among its DIE parents */
	bool inlined;
};

struct span {
	uint64_t lo, hi;
	uint32_t parent, node;
};

struct dwscope {
	struct node *nodes;
	size_t nnodes, node_cap;
	struct span *spans;     /* by parent, then address, then DIE order */
	size_t nspans, span_cap;
	uint64_t *reach;        /* the highest end of a parent's spans up to each */
	uint32_t *kids;         /* a node's spans: spans[kids[n] .. kids[n + 1]) */
};

/* The DIE chain of the imported units being walked, against cycles. */
struct imports {
	const void *addr;
	const struct imports *up;
};

/* The tags libdw's scope walk descends into (libdw_visit_scopes.c). */
static bool may_have_scopes(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit: case DW_TAG_module: case DW_TAG_lexical_block:
	case DW_TAG_with_stmt: case DW_TAG_catch_block: case DW_TAG_try_block:
	case DW_TAG_entry_point: case DW_TAG_inlined_subroutine: case DW_TAG_subprogram:
	case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type:
		return true;
	default:
		return false;
	}
}

static void add_span(struct dwscope *s, uint64_t lo, uint64_t hi, uint32_t parent,
		     uint32_t node)
{
	if (s->nspans == s->span_cap) {
		s->span_cap = s->span_cap ? 2 * s->span_cap : 256;
		s->spans = xrealloc(s->spans, s->span_cap * sizeof *s->spans);
	}
	s->spans[s->nspans++] = (struct span){ lo, hi, parent, node };
}

/* A scope for die, searched from parent, when die has address ranges;
 * returns its number or 0. */
static uint32_t add_node(struct dwscope *s, Dwarf_Die *die, uint32_t parent, uint32_t outer)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t first = s->nspans;
	uint32_t id = (uint32_t)s->nnodes + 1;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (lo < hi)
			add_span(s, lo, hi, parent, id);
	if (s->nspans == first)
		return 0;
	if (s->nnodes == s->node_cap) {
		s->node_cap = s->node_cap ? 2 * s->node_cap : 256;
		s->nodes = xrealloc(s->nodes, s->node_cap * sizeof *s->nodes);
	}
	s->nodes[s->nnodes++] = (struct node){ *die, outer,
					       dwarf_tag(die) == DW_TAG_inlined_subroutine };
	return id;
}

/* The siblings from die on, searched from parent, inside the inlined
 * subroutine outer (0: none). */
static void walk(struct dwscope *s, Dwarf_Die *die, uint32_t parent, uint32_t outer,
		 const struct imports *im)
{
	Dwarf_Die d = *die, kid;

	do {
		int tag = dwarf_tag(&d);
		uint32_t id;

		if (tag == DW_TAG_imported_unit) {
			Dwarf_Attribute a;
			Dwarf_Die unit;
			bool cycle = false;

			for (const struct imports *p = im; p; p = p->up)
				cycle |= p->addr == d.addr;
			/* a partial unit's DIEs have their own parents (gcc
			 * -flto imports whole compile units: not walked) */
			if (!cycle && dwarf_formref_die(dwarf_attr(&d, DW_AT_import, &a), &unit) &&
			    dwarf_tag(&unit) != DW_TAG_compile_unit && dwarf_child(&unit, &kid) == 0) {
				struct imports here = { d.addr, im };
				walk(s, &kid, parent, 0, &here);
			}
			continue;
		}
		/* a function's code is never inside its DIE parents' (a
		 * nested function, an OpenMP region outlined from a function
		 * inlined everywhere): searched from the unit */
		if (tag == DW_TAG_subprogram)
			id = add_node(s, &d, 0, 0);
		else
			id = add_node(s, &d, parent, outer);
		if (!may_have_scopes(tag) || dwarf_haschildren(&d) <= 0 ||
		    dwarf_child(&d, &kid) != 0)
			continue;
		/* a DIE without ranges (an abstract instance, a namespace)
		 * holds no code: its children are searched in its place */
		if (!id)
			walk(s, &kid, parent, outer, im);
		else
			walk(s, &kid, id, tag == DW_TAG_inlined_subroutine ? id :
					 tag == DW_TAG_subprogram ? 0 : outer, im);
	} while (dwarf_siblingof(&d, &d) == 0);
}

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

struct dwscope *dwscope_build(Dwarf_Die *cu)
{
	struct dwscope *s = xcalloc(1, sizeof *s);
	Dwarf_Die kid;

	if (dwarf_child(cu, &kid) == 0)
		walk(s, &kid, 0, 0, NULL);
	if (s->nspans)
		qsort(s->spans, s->nspans, sizeof *s->spans, span_cmp);
	s->kids = xcalloc(s->nnodes + 2, sizeof *s->kids);
	s->reach = xmalloc((s->nspans ? s->nspans : 1) * sizeof *s->reach);
	for (size_t i = 0; i < s->nspans; i++) {
		const struct span *p = &s->spans[i];
		s->kids[p->parent + 1] = (uint32_t)i + 1;
		s->reach[i] = i && p[-1].parent == p->parent && s->reach[i - 1] > p->hi ?
			s->reach[i - 1] : p->hi;
	}
	/* a node without spans starts where the previous one ends */
	for (size_t n = 1; n < s->nnodes + 2; n++)
		if (s->kids[n] < s->kids[n - 1])
			s->kids[n] = s->kids[n - 1];
	return s;
}

void dwscope_free(struct dwscope *s)
{
	if (!s)
		return;
	free(s->nodes);
	free(s->spans);
	free(s->reach);
	free(s->kids);
	free(s);
}

/* The first node in DIE order among parent's children whose range holds
 * pc, or 0. */
static uint32_t child_at(const struct dwscope *s, uint32_t parent, uint64_t pc)
{
	size_t first = s->kids[parent], lo = first, hi = s->kids[parent + 1];
	uint32_t best = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->spans[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the spans before it that reach past pc (siblings seldom overlap) */
	for (size_t k = lo; k-- > first && s->reach[k] > pc;)
		if (s->spans[k].hi > pc && (!best || s->spans[k].node < best))
			best = s->spans[k].node;
	return best;
}

bool dwscope_find(const struct dwscope *s, uint64_t pc, uint32_t *inl)
{
	uint32_t n = 0, k;

	*inl = 0;
	while ((k = child_at(s, n, pc))) {
		n = k;
		if (s->nodes[n - 1].inlined)
			*inl = n;
	}
	return n != 0;
}

uint32_t dwscope_outer(const struct dwscope *s, uint32_t inl)
{
	return s->nodes[inl - 1].outer;
}

Dwarf_Die *dwscope_die(struct dwscope *s, uint32_t inl)
{
	return &s->nodes[inl - 1].die;
}
