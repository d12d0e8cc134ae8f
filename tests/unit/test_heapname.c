/* test_heapname.c — the heap bucket naming rule (core/heapname.h) on
 * hand-built call paths.  Each expected name is the rule of docs/engine.md,
 * "Heap bucket names", applied by hand: (1) allocator and --alloc-fn
 * frames skipped, (2) then library frames (system headers' code, system
 * libraries' objects) unless nothing else is left, (3) N frames joined by
 * " < ", never past main, the first with " (file:line)" (" (object)"
 * without a line), every one with --heap-names=site; functions bare, an
 * unknown one ?(object) or its address, no frame "<heap>". */
#include <string.h>

#include "core/heapname.h"
#include "unit.h"

#define PROG "/home/u/app/equake"
#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"
#define LIBSTDCXX "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"

/* A frame of the program. */
#define P(fn, file, line) { fn, file, line, PROG, 0x401000 }
/* A frame of the C library (no source installed). */
#define C(fn) { fn, "", 0, LIBC, 0x7f0000001000 }

static const char *name(const struct dc_hframe *f, size_t n, int depth, bool site,
			const char *const *fns, size_t nfns)
{
	static char buf[512];
	struct dc_heapname_opts o = { depth, site, fns, nfns };
	size_t len = dc_heap_name(f, n, &o, buf, sizeof buf);

	CHECK_EQ(len, strlen(buf));
	return buf;
}

DC_TEST(heapname, allocator_skipped_first_frame_has_its_line)
{
	/* malloc < mem_init (equake.c:41) < main: the example of engine.md */
	const struct dc_hframe f[] = { C("malloc"), P("mem_init", "/home/u/app/equake.c", 41),
				       P("main", "/home/u/app/equake.c", 276) };

	CHECK_STREQ(name(f, 3, 3, false, NULL, 0), "mem_init (equake.c:41) < main");
}

DC_TEST(heapname, depth_frames_then_stop_at_main)
{
	const struct dc_hframe f[] = { C("calloc"), P("a", "x.c", 1), P("b", "x.c", 2),
				       P("c", "x.c", 3), P("d", "x.c", 4), P("main", "x.c", 5),
				       P("__libc_start_call_main", "", 0) };

	/* three frames from a: d and main are cut */
	CHECK_STREQ(name(f, 7, 3, false, NULL, 0), "a (x.c:1) < b < c");
	CHECK_STREQ(name(f, 7, 1, false, NULL, 0), "a (x.c:1)");
	/* sixteen: main ends the name, what called main never shows */
	CHECK_STREQ(name(f, 7, 16, false, NULL, 0), "a (x.c:1) < b < c < d < main");
}

DC_TEST(heapname, site_gives_every_frame_its_line)
{
	/* engine.md: spec_init (spec.c:88) < main (spec.c:276) */
	const struct dc_hframe f[] = { C("malloc"), P("spec_init", "/src/spec.c", 88),
				       P("main", "/src/spec.c", 276) };

	CHECK_STREQ(name(f, 3, 1 << 30, true, NULL, 0), "spec_init (spec.c:88) < main (spec.c:276)");
}

DC_TEST(heapname, alloc_fn_wrapper_skipped)
{
	/* --alloc-fn=safe_malloc: the name starts at the wrapper's caller,
	 * also where the wrapper was inlined (an inlined frame of its own) */
	const struct dc_hframe f[] = { C("malloc"), P("safe_malloc", "util.c", 12),
				       P("build", "x.c", 5), P("main", "x.c", 9) };
	const char *const fns[] = { "safe_malloc" };

	CHECK_STREQ(name(f, 4, 3, false, NULL, 0), "safe_malloc (util.c:12) < build < main");
	CHECK_STREQ(name(f, 4, 3, false, fns, 1), "build (x.c:5) < main");
}

DC_TEST(heapname, alloc_fn_without_parameter_list)
{
	/* a C++ --alloc-fn name may leave out its parameter list */
	const struct dc_hframe f[] = { C("operator new(unsigned long)"),
				       P("Pool::get(int)", "pool.cc", 20),
				       P("make_nodes(int)", "m.cc", 7), P("main", "m.cc", 30) };
	const char *const bare[] = { "Pool::get" }, *const full[] = { "Pool::get(int)" },
			  *const other[] = { "Pool::put" };

	CHECK_STREQ(name(f, 4, 3, false, bare, 1), "make_nodes (m.cc:7) < main");
	CHECK_STREQ(name(f, 4, 3, false, full, 1), "make_nodes (m.cc:7) < main");
	CHECK_STREQ(name(f, 4, 3, false, other, 1), "Pool::get (pool.cc:20) < make_nodes < main");
}

DC_TEST(heapname, alloc_fn_template)
{
	/* LULESH's template <typename T> T *Allocate(size_t): inlined it is a
	 * frame named by DWARF "Allocate<double>", out of line the demangled
	 * symbol with its return type, "double* Allocate<double>(unsigned
	 * long)".  --alloc-fn=Allocate names every instance, and
	 * --alloc-fn=Allocate<double> that instance, so the name starts at the
	 * caller with the line of each array (the rule's step 1). */
	const struct dc_hframe in[] = { C("malloc"), P("Allocate<double>", "lulesh.h", 113),
					P("CalcHourglassControlForElems", "lulesh.cc", 1004),
					P("main", "lulesh.cc", 2700) };
	const struct dc_hframe out[] = { C("malloc"),
					 P("double* Allocate<double>(unsigned long)", "lulesh.h",
					   113),
					 P("CalcHourglassControlForElems(Domain&)", "lulesh.cc",
					   1005),
					 P("main", "lulesh.cc", 2700) };
	const struct dc_hframe other[] = { C("malloc"),
					   P("int* Allocate<int>(unsigned long)", "lulesh.h", 113),
					   P("f", "lulesh.cc", 9) };
	const char *const base[] = { "Allocate" }, *const dbl[] = { "Allocate<double>" },
			  *const near[] = { "Alloc" };

	CHECK_STREQ(name(in, 4, 3, false, base, 1),
		    "CalcHourglassControlForElems (lulesh.cc:1004) < main");
	CHECK_STREQ(name(out, 4, 3, false, base, 1),
		    "CalcHourglassControlForElems (lulesh.cc:1005) < main");
	CHECK_STREQ(name(in, 4, 3, false, dbl, 1),
		    "CalcHourglassControlForElems (lulesh.cc:1004) < main");
	CHECK_STREQ(name(out, 4, 3, false, dbl, 1),
		    "CalcHourglassControlForElems (lulesh.cc:1005) < main");
	CHECK_STREQ(name(other, 3, 3, false, base, 1), "f (lulesh.cc:9)");
	/* one instance does not name another (shown as demangled, with its
	 * return type); a prefix is not the name */
	CHECK_STREQ(name(other, 3, 3, false, dbl, 1), "int* Allocate<int> (lulesh.h:113) < f");
	CHECK_STREQ(name(in, 4, 3, false, near, 1),
		    "Allocate<double> (lulesh.h:113) < CalcHourglassControlForElems < main");
}

DC_TEST(heapname, library_frames_skipped)
{
	/* LULESH's resize: libstdc++'s operator new, then vector code from
	 * the system's headers inlined into the program, then the program */
	const struct dc_hframe f[] = {
		{ "operator new(unsigned long)", "", 0, LIBSTDCXX, 0x7f0000002000 },
		P("std::vector<double, std::allocator<double> >::_M_default_append(unsigned long)",
		  "/usr/include/c++/12/bits/vector.tcc", 650),
		P("std::vector<double, std::allocator<double> >::resize(unsigned long)",
		  "/usr/include/c++/12/bits/stl_vector.h", 1011),
		P("Domain::Domain(int)", "/home/u/lulesh/lulesh.h", 113),
		P("main", "/home/u/lulesh/lulesh.cc", 2700),
	};

	CHECK_STREQ(name(f, 5, 3, false, NULL, 0), "Domain::Domain (lulesh.h:113) < main");
}

DC_TEST(heapname, only_library_frames_left)
{
	/* strdup's block allocated from libc's own start-up: nothing but
	 * library frames, so they are the name */
	const struct dc_hframe f[] = { C("malloc"), C("strdup"), C("setlocale") };

	CHECK_STREQ(name(f, 3, 3, false, NULL, 0), "strdup (libc.so.6) < setlocale");
}

DC_TEST(heapname, unknown_functions_and_lines)
{
	/* no line: " (object)"; no symbol: ?(object), or the address
	 * without an object (its source not shown then), in dc_fmt's %X:
	 * lower-case digits (test_util.c, fmt_hex) */
	const struct dc_hframe f[] = {
		{ "work", "", 0, "/opt/app/prog", 0x401000 },
		{ "", "", 0, "/opt/app/libx.so", 0x7f0000003000 },
		{ "", "", 0, "", 0x4011AB },
	};

	CHECK_STREQ(name(f, 3, 3, false, NULL, 0), "work (prog) < ?(libx.so) < 0x4011ab");
	CHECK_STREQ(name(f + 1, 2, 3, true, NULL, 0), "?(libx.so) < 0x4011ab");
}

DC_TEST(heapname, no_frame_is_heap)
{
	const struct dc_hframe f[] = { C("malloc"), C("__libc_calloc") };

	CHECK_STREQ(name(f, 0, 3, false, NULL, 0), "<heap>");
	/* every frame an allocator */
	CHECK_STREQ(name(f, 2, 3, false, NULL, 0), "<heap>");
}

DC_TEST(heapname, every_allocator_form_skipped)
{
	/* glibc's aliases and versions, the mangled and aligned operators,
	 * dcprof's naming allocators, Valgrind's replacements */
	static const char *const allocs[] = {
		"__libc_malloc", "malloc@@GLIBC_2.2.5", "_Znwm", "_Znam", "_ZnwmSt11align_val_t",
		"_ZnamRKSt9nothrow_t", "operator new[](unsigned long)", "dcprof_malloc_named",
		"_vgr10010ZU_libcZdsoZa_malloc", "posix_memalign", "aligned_alloc", "realloc",
	};

	for (size_t i = 0; i < sizeof allocs / sizeof *allocs; i++) {
		const struct dc_hframe f[] = { C(allocs[i]), P("fill", "f.c", 3) };
		CHECK_STREQ(name(f, 2, 3, false, NULL, 0), "fill (f.c:3)");
	}
}

DC_TEST(heapname, functions_shown_bare)
{
	/* no parameter list, qualifiers or default symbol version */
	const struct dc_hframe f[] = { P("Maker::make() const", "mk.cc", 4),
				       P("Grid::fill(std::vector<int, std::allocator<int> > const&) &",
					 "g.cc", 8),
				       P("helper@@V1", "h.c", 2) };

	CHECK_STREQ(name(f, 3, 3, false, NULL, 0), "Maker::make (mk.cc:4) < Grid::fill < helper");
}

DC_TEST(heapname, cut_to_the_buffer)
{
	const struct dc_hframe f[] = { P("mem_init", "equake.c", 41), P("main", "equake.c", 9) };
	struct dc_heapname_opts o = { 3, false, NULL, 0 };
	char buf[9];

	/* "mem_init (equake.c:41) < main" cut to 8 characters and a NUL */
	CHECK_EQ(dc_heap_name(f, 2, &o, buf, sizeof buf), 8);
	CHECK_STREQ(buf, "mem_init");
}

DC_TEST(heapname, alloc_fn_kinds)
{
	CHECK_EQ(dc_alloc_fn_kind("malloc"), DC_AF_MALLOC);
	CHECK_EQ(dc_alloc_fn_kind("malloc@GLIBC_2.2.5"), DC_AF_MALLOC);
	CHECK_EQ(dc_alloc_fn_kind("__libc_free"), DC_AF_FREE);
	CHECK_EQ(dc_alloc_fn_kind("_Znam"), DC_AF_MALLOC);
	CHECK_EQ(dc_alloc_fn_kind("operator new(unsigned long, std::nothrow_t const&)"),
		 DC_AF_MALLOC);
	CHECK_EQ(dc_alloc_fn_kind("operator delete(void*, unsigned long)"), DC_AF_FREE);
	CHECK_EQ(dc_alloc_fn_kind("_ZdlPvm"), DC_AF_FREE);
	CHECK_EQ(dc_alloc_fn_kind("calloc"), DC_AF_CALLOC);
	CHECK_EQ(dc_alloc_fn_kind("reallocarray"), DC_AF_REALLOCARRAY);
	CHECK_EQ(dc_alloc_fn_kind("aligned_alloc"), DC_AF_MEMALIGN);
	CHECK_EQ(dc_alloc_fn_kind("posix_memalign"), DC_AF_POSIX_MEMALIGN);
	CHECK_EQ(dc_alloc_fn_kind("mallocx"), -1);
	CHECK_EQ(dc_alloc_fn_kind("my_malloc"), -1);
}

/* A region's chain (dc_chain_name, "<mmap:f-g-h>"): mmap's frames
 * skipped, three functions joined by "-", never past main, lines with
 * site; nothing left: "<heap>". */
DC_TEST(heapname, region_chain)
{
	const struct dc_hframe f[] = { C("mmap64"), P("map_region", "/home/u/app/r.c", 12),
				       P("setup", "/home/u/app/r.c", 30),
				       P("main", "/home/u/app/r.c", 41), C("__libc_start_call_main") };
	const struct dc_hframe only[] = { C("mmap") };
	char buf[64];

	CHECK_EQ(dc_chain_name(f, 5, 3, false, dc_is_mmap_fn, buf, sizeof buf),
		 strlen("map_region-setup-main"));
	CHECK_STREQ(buf, "map_region-setup-main");
	dc_chain_name(f, 5, 2, true, dc_is_mmap_fn, buf, sizeof buf);
	CHECK_STREQ(buf, "map_region(12)-setup(30)");
	dc_chain_name(f + 2, 3, 3, false, dc_is_mmap_fn, buf, sizeof buf);
	CHECK_STREQ(buf, "setup-main");
	dc_chain_name(only, 1, 3, false, dc_is_mmap_fn, buf, sizeof buf);
	CHECK_STREQ(buf, "<heap>");
	dc_chain_name(f, 5, 3, false, dc_is_mmap_fn, buf, 8);   /* cut, terminated */
	CHECK_STREQ(buf, "map_reg");
}
