# dcprof — build, test, demo.
#
#   make            build build/bin/dcprof and the Valgrind tool in build/lib/dcprof
#   make check      unit tests (ASan/UBSan), core symbol check, end-to-end tests
#   make demo       install missing Debian packages, build, profile examples/demo.c
#   make bench      compare dcprof record with Cachegrind (see bench/README.md)
#   make install    install under PREFIX (default /usr/local; DESTDIR for staging):
#                   bin/dcprof, lib/dcprof/ (the engine, found as
#                   BINDIR/../lib/dcprof), include/dcprof.h,
#                   share/man/man1/dcprof*.1 (from the help texts), share/doc/dcprof
#   make uninstall  remove what make install installed
#   make fuzz       libFuzzer targets in build/fuzz/ (clang; docs/fuzzing.md)
#   make fuzz-check run the fuzz corpora under ASan/UBSan (part of make check)

VERSION   := 0.1.0
B         := build
CC        ?= gcc
PYTHON    ?= python3
VGINC     := /usr/include/valgrind
VGLIBDIR  := /usr/lib/x86_64-linux-gnu/valgrind
VGLIBEXEC := /usr/libexec/valgrind

WARN      := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
CFLAGS    ?= -O2 -g
HOSTFLAGS := -std=c11 $(WARN) -D_GNU_SOURCE -DDCPROF_VERSION='"$(VERSION)"' -Isrc -Iinclude
SANFLAGS  := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

CORE_SRC  := $(wildcard src/core/*.c)
# The front end's stages, bottom up (src/README.md): includes point down.
FRONT_DIRS := base dwarf store analysis report cli
CLI_SRC   := $(foreach d,$(FRONT_DIRS),$(wildcard src/$(d)/*.c)) src/host/port_libc.c
TOOL_SRC  := $(wildcard src/engine/valgrind/*.c)
HEADERS   := $(wildcard src/*/*.h src/engine/*/*.h)

# ---- the Valgrind tool ---------------------------------------------------
# -falign-loops=32, with the per-access helpers on 64-byte boundaries
# (DC_HOT in src/engine/valgrind/dc_instrument.c), keeps the hot code's placement from
# following the size of unrelated code: unaligned, a change elsewhere cost
# bench_transpose 16 % (docs/performance.md, "Code placement").
TOOLFLAGS := -std=gnu11 -O2 -g -falign-loops=32 $(WARN) -Wno-shadow -Wno-strict-prototypes -Isrc -Iinclude -I$(VGINC) \
	-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
	-DDC_TOOL_BUILD=1 -DDCPROF_VERSION='"$(VERSION)"' -fno-strict-aliasing -fno-builtin -fno-stack-protector \
	-fno-pic -fno-pie -m64
TOOLDIR   := $(B)/lib/dcprof
TOOL      := $(TOOLDIR)/dcprof-amd64-linux
TOOL_OBJ  := $(patsubst src/%.c,$(B)/tool/%.o,$(CORE_SRC) $(TOOL_SRC))
# The engine observes the program's allocator: it has no preload object,
# so the program runs exactly as under Cachegrind (src/engine/valgrind/dc_heap.c).
# A preload left by an older build would be loaded into every program.
STALE_PRELOAD := $(TOOLDIR)/vgpreload_dcprof-amd64-linux.so

.DEFAULT_GOAL := all

# ---- the native engine's runtime (src/engine/native) --------------------------
# A shared object dcprof record --engine=native preloads into the program:
# the core and the runtime compiled position-independent, with libunwind
# (Debian's static archive is not position-independent) for call paths.
NATIVE_SRC := $(wildcard src/engine/native/*.c)
NATIVE     := $(TOOLDIR)/dcprof-native.so
NATIVE_OBJ := $(patsubst src/%.c,$(B)/native/%.o,$(CORE_SRC) $(NATIVE_SRC))
NATIVEFLAGS := -std=gnu11 -O2 -g -fPIC -fvisibility=default $(WARN) -D_GNU_SOURCE -Isrc -Iinclude

$(B)/native/core/%.o: NATIVEFLAGS += -ffreestanding
$(B)/native/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(NATIVEFLAGS) -c $< -o $@

$(NATIVE): $(NATIVE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(NATIVE_OBJ) -lunwind -ldl -lpthread

# ---- host objects (dcprof front end) ---------------------------------------
HOST_CORE_OBJ := $(patsubst src/%.c,$(B)/host/%.o,$(CORE_SRC))
CLI_OBJ       := $(patsubst src/%.c,$(B)/host/%.o,$(CLI_SRC))
DCPROF        := $(B)/bin/dcprof

# dcprof itself with ASan/UBSan, for the robustness tests: a crafted
# profile or dump must give a one-line error, never a sanitizer report
# (tests/e2e/test_robustness.py, docs/robustness.md).
SAN_DCPROF    := $(B)/san-bin/dcprof

# dcprof approx's source analysis (src/analysis/srcvars.c, alone in
# including clang-c) uses Debian's libclang (libclang-14-dev).
LLVM_INC  := /usr/lib/llvm-14/include
CLANG_LIB := -lclang-14
$(B)/host/analysis/srcvars.o $(B)/san/analysis/srcvars.o: HOSTFLAGS += -I$(LLVM_INC)

# ---- unit tests (core with ASan/UBSan) -------------------------------------
# The core, approx's arithmetic (src/analysis/approx.c, pure) and its walk
# over instructions (src/analysis/insnskid.c, with base/ for allocation),
# the allocation statement parser (src/analysis/allocsite.c, pure);
# the native runtime's ring readers, the PEBS, IBS and SPE decoders they
# feed and the RDX use points taken from them (no state of the runtime:
# tests/unit/test_natring.c, test_natrdx.c).
UNIT_SRC  := $(wildcard tests/unit/*.c)
UNIT_OBJ  := $(patsubst %.c,$(B)/san/%.o,$(UNIT_SRC)) \
	$(patsubst src/%.c,$(B)/san/%.o,$(CORE_SRC) src/host/port_libc.c src/analysis/approx.c \
	src/analysis/insnskid.c src/analysis/allocsite.c src/base/err.c src/base/fmt.c src/base/sbuf.c \
	src/engine/native/nat_ring.c src/engine/native/nat_spe.c src/engine/native/nat_pebs.c \
	src/engine/native/nat_ibs.c src/engine/native/nat_rdx_use.c)
UNIT_BIN  := $(B)/unit-tests

# Second files of multi-file workloads live in tests/workloads/parts/, out of
# the wildcard; their workload has an explicit rule below.
WORKLOAD_SRC := $(wildcard tests/workloads/*.c) $(wildcard tests/workloads/*.cc) \
	$(wildcard bench/workloads/*.c) examples/demo.c
WORKLOADS    := $(addprefix $(B)/w/,$(basename $(notdir $(WORKLOAD_SRC)))) \
	$(B)/w/exec_work_static $(B)/w/globals_aligned_nopie \
	$(B)/w/heap_names_nopie $(B)/w/inl_alloc_nopie $(B)/w/cxx_new_nopie \
	$(B)/w/omp_outlined_nopie $(B)/w/inl_outer_nopie

# An MPI workload, where Open MPI's compiler wrapper is installed
# (scripts/install-deps.sh); its tests skip without it.
MPICC := $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
WORKLOADS += $(B)/w/mpi_stencil
endif

.PHONY: no-stale-preload all check unit e2e demo bench clean deps tool install uninstall fuzz fuzz-check
all: $(DCPROF) $(SAN_DCPROF) $(TOOL) $(NATIVE) $(TOOLDIR)/.links no-stale-preload $(WORKLOADS)

$(B)/tool/%.o: src/%.c $(HEADERS) include/dcprof.h
	@mkdir -p $(dir $@)
	$(CC) $(TOOLFLAGS) -c $< -o $@

$(TOOL): $(TOOL_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -m64 -static -nodefaultlibs -nostartfiles -u _start -Wl,--build-id=none \
		-Wl,-Ttext-segment=0x58000000 -o $@ $(TOOL_OBJ) \
		$(VGLIBDIR)/libcoregrind-amd64-linux.a $(VGLIBDIR)/libvex-amd64-linux.a \
		$(VGLIBDIR)/libgcc-sup-amd64-linux.a -lgcc

no-stale-preload:
	@rm -f $(STALE_PRELOAD)
	@rm -rf $(B)/lib/dcprof-compat

# Valgrind looks for its own helpers (vgpreload_core, the default
# suppressions, ...) in the same directory as the tool.
$(TOOLDIR)/.links:
	@mkdir -p $(TOOLDIR)
	for f in $(VGLIBEXEC)/*; do ln -sf $$f $(TOOLDIR)/; done
	@touch $@

# The core stays freestanding on the host too, so the symbol check sees what
# the tool links: no loop may be turned into a libc call.
$(B)/host/core/%.o: HOSTFLAGS += -ffreestanding

$(B)/host/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(CFLAGS) -c $< -o $@

# The HTML report's style sheet and script, made into C strings
# (src/report/html_int.h).
HTML_ASSETS := src/report/html_page.css src/report/html_page.js
$(B)/gen/html_assets.c: $(HTML_ASSETS) scripts/embed.awk
	@mkdir -p $(dir $@)
	awk -f scripts/embed.awk $(HTML_ASSETS) > $@.tmp && mv $@.tmp $@
$(B)/host/gen/html_assets.o: $(B)/gen/html_assets.c
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(CFLAGS) -c $< -o $@

$(DCPROF): $(CLI_OBJ) $(HOST_CORE_OBJ) $(B)/host/gen/html_assets.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lsqlite3 -ldw -lelf -lstdc++ -lm $(CLANG_LIB)

# The page's strings are data: the plain object serves both builds.
$(SAN_DCPROF): $(patsubst src/%.c,$(B)/san/%.o,$(CLI_SRC) $(CORE_SRC)) $(B)/host/gen/html_assets.o
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -o $@ $^ -lsqlite3 -ldw -lelf -lstdc++ -lm $(CLANG_LIB)

$(B)/san/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(SANFLAGS) -c $< -o $@

$(B)/san/tests/unit/%.o: tests/unit/%.c $(HEADERS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(SANFLAGS) -Itests/unit -c $< -o $@

$(UNIT_BIN): $(UNIT_OBJ)
	$(CC) $(SANFLAGS) -o $@ $^ -lm

# Workloads are built without optimisation surprises: -O1 keeps loops as
# written but removes pointless stack traffic, -g gives file:line.
$(B)/w/%: tests/workloads/%.c include/dcprof.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -Iinclude -o $@ $< -lpthread
# Workloads written since STYLE rule 12 are built as users build theirs.
O2_WORKLOADS := $(addprefix $(B)/w/,fd_close exec_work exec_fail exec_list fields_array \
	fields_global fields_grain fields_heaptypes approx_arrays approx_fig2 rdx_reuse block_order \
	runtime_tables evict_freed evict_small self_inline)
$(O2_WORKLOADS): $(B)/w/%: tests/workloads/%.c include/dcprof.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -Iinclude -o $@ $< -lpthread
# Statically linked: its malloc is the program's own code.
$(B)/w/exec_work_static: tests/workloads/exec_work.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -static -o $@ $<
$(B)/w/%: bench/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<
$(B)/w/demo: examples/demo.c include/dcprof.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Iinclude -o $@ $<
$(B)/w/globals: tests/workloads/globals.c tests/workloads/parts/globals_b.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -o $@ $^
# annot_hot (dcprof annotate's tests) is built as users build, from two files.
$(B)/w/annot_hot: tests/workloads/annot_hot.c tests/workloads/parts/annot_fill.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $^
# calls_plt calls into a shared library of its own (through the PLT) and libm.
$(B)/w/calls_plt: tests/workloads/calls_plt.c $(B)/w/libcalls_plt.so
	$(CC) -O1 -g -fno-inline -o $@ $< -L$(B)/w -lcalls_plt -Wl,-rpath,'$$ORIGIN' -lm
$(B)/w/libcalls_plt.so: tests/workloads/parts/calls_plt_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -shared -fPIC -o $@ $<
# nosym calls a library whose loop is a static function; its tests strip a
# copy of the library (code without symbols).
$(B)/w/nosym: tests/workloads/nosym.c $(B)/w/libnosym.so
	$(CC) -O2 -g -o $@ $< -L$(B)/w -lnosym -Wl,-rpath,'$$ORIGIN'
$(B)/w/libnosym.so: tests/workloads/parts/nosym_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -shared -fPIC -o $@ $<
# ctor_alloc's library allocates in its constructor, which ld.so runs.
$(B)/w/ctor_alloc: tests/workloads/ctor_alloc.c $(B)/w/libctor_alloc.so
	$(CC) -O2 -g -o $@ $< -L$(B)/w -lctor_alloc -Wl,-rpath,'$$ORIGIN'
$(B)/w/libctor_alloc.so: tests/workloads/parts/ctor_alloc_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -shared -fPIC -o $@ $<
# unwind_self links libunwind itself (the native runtime's dependency).
$(B)/w/unwind_self: tests/workloads/unwind_self.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $< -lunwind
# omp_spin runs two OpenMP threads (libgomp), built as users build.
$(B)/w/omp_spin: tests/workloads/omp_spin.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fopenmp -o $@ $<
# omp_outlined: OpenMP loops GCC outlines (their DWARF nested in their
# parent function's), built as users build, and without PIE for the
# native records tests/e2e/test_natsym.py writes at fixed addresses.
$(B)/w/omp_outlined: tests/workloads/omp_outlined.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -fopenmp -o $@ $<
$(B)/w/omp_outlined_nopie: tests/workloads/omp_outlined.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -fopenmp -fno-pie -no-pie -o $@ $<
# Globals where the linker puts them (a .bss alone in a segment, .rodata,
# .data.rel.ro, a library's .bss) and thread-local variables, built -O2 -g
# as users build (STYLE rule 12); globals_aligned also without PIE.
$(B)/w/globals_aligned: tests/workloads/globals_aligned.c $(B)/w/libglobals_aligned.so
	$(CC) -O2 -g -o $@ $< -L$(B)/w -lglobals_aligned -Wl,-rpath,'$$ORIGIN'
$(B)/w/globals_aligned_nopie: tests/workloads/globals_aligned.c $(B)/w/libglobals_aligned.so
	$(CC) -O2 -g -fno-pie -no-pie -o $@ $< -L$(B)/w -lglobals_aligned -Wl,-rpath,'$$ORIGIN'
$(B)/w/libglobals_aligned.so: tests/workloads/parts/globals_aligned_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -shared -fPIC -o $@ $<
$(B)/w/tls_threads: tests/workloads/tls_threads.c $(B)/w/libtls_threads.so
	$(CC) -O2 -g -o $@ $< -L$(B)/w -ltls_threads -Wl,-rpath,'$$ORIGIN' -lpthread
$(B)/w/libtls_threads.so: tests/workloads/parts/tls_threads_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -shared -fPIC -o $@ $<
$(B)/w/tls_cxx: tests/workloads/tls_cxx.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -std=c++20 -o $@ $< -lpthread
# Inlining workloads are built as users build: -O2 -g, nothing turned off.
$(B)/w/inl_alloc: tests/workloads/inl_alloc.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<
$(B)/w/inl_domain: tests/workloads/inl_domain.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<
$(B)/w/tmpl_alloc: tests/workloads/tmpl_alloc.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<
$(B)/w/inl_outer: tests/workloads/inl_outer.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<
# Two util.c in different folders.
$(B)/w/two_utils: tests/workloads/two_utils.c tests/workloads/parts/a/util.c \
		tests/workloads/parts/b/util.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $^
$(B)/w/mpi_stencil: tests/workloads/mpi/mpi_stencil.c include/dcprof.h
	@mkdir -p $(dir $@)
	$(MPICC) -O2 -g -Iinclude -o $@ $<
$(B)/w/cxx_long_names: tests/workloads/cxx_long_names.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<
$(B)/w/fields_list: tests/workloads/fields_list.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<
$(B)/w/fields_heaptypes_cxx: tests/workloads/fields_heaptypes_cxx.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<
$(B)/w/fields_vector: tests/workloads/fields_vector.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<
# Agreement workloads written as users build (STYLE rule 12).
$(B)/w/cg_malloc: tests/workloads/cg_malloc.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<
$(B)/w/cg_cxx: tests/workloads/cg_cxx.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<
$(B)/w/cxx_new: tests/workloads/cxx_new.cc
	@mkdir -p $(dir $@)
	$(CXX) -O1 -g -fno-inline -o $@ $<
# The heap-naming workloads as users build them, at fixed addresses: the
# native engine's records written by hand in tests/e2e/test_natsym.py
# name their real call sites (the simulator runs them at the same ones).
$(B)/w/heap_names_nopie: tests/workloads/heap_names.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fno-pie -no-pie -o $@ $<
$(B)/w/inl_alloc_nopie: tests/workloads/inl_alloc.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fno-pie -no-pie -o $@ $<
$(B)/w/cxx_new_nopie: tests/workloads/cxx_new.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -fno-pie -no-pie -o $@ $<
$(B)/w/inl_outer_nopie: tests/workloads/inl_outer.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -fno-pie -no-pie -o $@ $<

unit: $(UNIT_BIN) $(HOST_CORE_OBJ)
	./$(UNIT_BIN)
	sh tests/check-core-symbols.sh $(HOST_CORE_OBJ)
	sh tests/check-layers.sh src

e2e: all
	$(PYTHON) tests/e2e/run.py

check: all
	$(PYTHON) tests/run.py

demo: deps all
	$(DCPROF) record -o $(B)/demo.db -- $(B)/w/demo
	$(DCPROF) report $(B)/demo.db --top 10

deps:
	sh scripts/install-deps.sh

bench: all
	sh bench/run.sh

# The cache model alone on address streams shaped like the bench workloads
# (bench/README.md); not part of `all`.
$(B)/bench/cacheuse-replay: bench/cacheuse_replay.c $(HOST_CORE_OBJ) $(B)/host/host/port_libc.o
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(CFLAGS) -o $@ $^

# The compact block map alone on bench_chase's pattern (bench/README.md).
$(B)/bench/blockmap-replay: bench/blockmap_replay.c $(HOST_CORE_OBJ) $(B)/host/host/port_libc.o
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(CFLAGS) -o $@ $^

# ---- install ---------------------------------------------------------------
PREFIX     ?= /usr/local
BINDIR     := $(PREFIX)/bin
LIBDIR     := $(PREFIX)/lib
INCLUDEDIR := $(PREFIX)/include
MANDIR     := $(PREFIX)/share/man
DOCDIR     := $(PREFIX)/share/doc/dcprof
DEST        = $(DESTDIR)

# The engine keeps its layout: lib/dcprof holds the tool and links to
# Valgrind's own helpers (cmd_record.c find_tooldir), no Valgrind preload
# object, and the native engine's runtime (record_native.c native_find).
# Man pages are the help texts (dcprof help --man).
install: all
	install -d $(DEST)$(BINDIR) $(DEST)$(LIBDIR)/dcprof \
		$(DEST)$(INCLUDEDIR) $(DEST)$(MANDIR)/man1 $(DEST)$(DOCDIR)
	install -m 755 $(DCPROF) $(DEST)$(BINDIR)/dcprof
	install -m 755 $(TOOL) $(NATIVE) $(DEST)$(LIBDIR)/dcprof/
	for f in $(VGLIBEXEC)/*; do ln -sf $$f $(DEST)$(LIBDIR)/dcprof/; done
	install -m 644 include/dcprof.h $(DEST)$(INCLUDEDIR)/dcprof.h
	$(DCPROF) help --man > $(DEST)$(MANDIR)/man1/dcprof.1
	for c in $$($(DCPROF) help --commands); do \
		$(DCPROF) help --man $$c > $(DEST)$(MANDIR)/man1/dcprof-$$c.1 || exit 1; done
	install -m 644 README.md docs/*.md $(DEST)$(DOCDIR)/

uninstall:
	for c in $$($(DCPROF) help --commands); do rm -f $(DEST)$(MANDIR)/man1/dcprof-$$c.1; done
	rm -f $(DEST)$(BINDIR)/dcprof $(DEST)$(INCLUDEDIR)/dcprof.h $(DEST)$(MANDIR)/man1/dcprof.1
	rm -rf $(DEST)$(LIBDIR)/dcprof $(DEST)$(LIBDIR)/dcprof-compat $(DEST)$(DOCDIR)

# ---- fuzzing (docs/fuzzing.md) ----------------------------------------------
# The targets in tests/fuzz/ run the commands in-process through the command
# table: src/cli/dcprof.c is compiled once more with its main renamed, and
# every binary wraps spawn_wait so dcprof record never starts a program.
# make fuzz builds them with clang's libFuzzer; make fuzz-check builds the
# same sources with gcc, the suite's SANFLAGS and tests/fuzz/driver.c as
# main, and runs them over the corpora (make check does this).
FUZZ_TARGETS  := raw rawprof profile opts
FUZZ_CC       ?= clang
FUZZ_CORPUS   := tests/fuzz/corpus
FUZZ_DEFS     := -DFUZZ_CORPUS='"$(abspath $(FUZZ_CORPUS))"'
FUZZ_LIBS     := $(B)/host/gen/html_assets.o -lsqlite3 -ldw -lelf -lstdc++ -lm $(CLANG_LIB) -Wl,--wrap=spawn_wait
FUZZ_HDR      := tests/fuzz/fuzz.h
FUZZ_SRC_OBJ  := $(filter-out cli/dcprof.o,$(patsubst src/%.c,%.o,$(CLI_SRC))) cli/dcprof_main.o
# The core goes in as an archive, so only what the front end uses is linked:
# clang cannot build core/cache.c (gcc's __builtin_shuffle), which the
# front end does not need.
FUZZ_CORE_OBJ := $(filter-out core/cache.o,$(patsubst src/%.c,%.o,$(CORE_SRC)))
# Per target: its own source, plus what it shares.
fuzz_objs = $(addprefix $(1)/,fuzz_common.o $(2) $(if $(filter rawprof profile,$(3)),fuzz_read.o))
FUZZ_MAIN_raw     := fuzz_raw.o
FUZZ_MAIN_rawprof := fuzz_rawprof.o
FUZZ_MAIN_profile := fuzz_profile.o
FUZZ_MAIN_opts    := fuzz_opts.o

# libFuzzer build: the sources with coverage instrumentation, the harness
# with libFuzzer's main (FUZZ_LIBFUZZER: the profile target's own mutator).
FZ := $(B)/fuzz
FUZZ_CLANG := $(FUZZ_CC) -std=c11 $(WARN) -D_GNU_SOURCE -DDCPROF_VERSION='"$(VERSION)"' -Isrc -Iinclude \
	-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
fuzz: $(addprefix $(FZ)/fuzz-,$(FUZZ_TARGETS))

$(FZ)/obj/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(FUZZ_CLANG) -fsanitize=fuzzer-no-link -c $< -o $@
$(FZ)/obj/analysis/srcvars.o: FUZZ_CLANG += -I$(LLVM_INC)
$(FZ)/obj/cli/dcprof_main.o: src/cli/dcprof.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(FUZZ_CLANG) -fsanitize=fuzzer-no-link -Dmain=dcprof_main -c $< -o $@
$(FZ)/h/fuzz_rawprof.o: tests/fuzz/fuzz_raw.c $(FUZZ_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CLANG) -fsanitize=fuzzer-no-link $(FUZZ_DEFS) -DFUZZ_THEN_READ -c $< -o $@
$(FZ)/h/%.o: tests/fuzz/%.c $(FUZZ_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CLANG) -fsanitize=fuzzer-no-link $(FUZZ_DEFS) -DFUZZ_LIBFUZZER -c $< -o $@
$(FZ)/libcore.a: $(addprefix $(FZ)/obj/,$(FUZZ_CORE_OBJ))
	rm -f $@
	ar rcs $@ $^
$(addprefix $(FZ)/fuzz-,$(FUZZ_TARGETS)): $(FZ)/fuzz-%: $(addprefix $(FZ)/obj/,$(FUZZ_SRC_OBJ)) $(FZ)/libcore.a $(FZ)/h/fuzz_common.o $(B)/host/gen/html_assets.o \
		$(FZ)/h/fuzz_read.o $(FZ)/h/fuzz_raw.o $(FZ)/h/fuzz_rawprof.o $(FZ)/h/fuzz_profile.o \
		$(FZ)/h/fuzz_opts.o
	$(FUZZ_CLANG) -fsanitize=fuzzer -o $@ $(call fuzz_objs,$(FZ)/h,$(FUZZ_MAIN_$*),$*) \
		$(addprefix $(FZ)/obj/,$(FUZZ_SRC_OBJ)) $(FZ)/libcore.a $(FUZZ_LIBS)

# Regression build: gcc, SANFLAGS, driver.c as main; the sources' objects
# are the unit tests' ($(B)/san).
FR := $(B)/fuzz-regress
$(B)/san/cli/dcprof_main.o: src/cli/dcprof.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(SANFLAGS) -Dmain=dcprof_main -c $< -o $@
$(FR)/h/fuzz_rawprof.o: tests/fuzz/fuzz_raw.c $(FUZZ_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(SANFLAGS) $(FUZZ_DEFS) -DFUZZ_THEN_READ -c $< -o $@
$(FR)/h/%.o: tests/fuzz/%.c $(FUZZ_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(SANFLAGS) $(FUZZ_DEFS) -c $< -o $@
$(addprefix $(FR)/,$(FUZZ_TARGETS)): $(FR)/%: $(addprefix $(B)/san/,$(FUZZ_SRC_OBJ) $(FUZZ_CORE_OBJ)) $(FR)/h/driver.o $(B)/host/gen/html_assets.o \
		$(FR)/h/fuzz_common.o $(FR)/h/fuzz_read.o $(FR)/h/fuzz_raw.o $(FR)/h/fuzz_rawprof.o \
		$(FR)/h/fuzz_profile.o $(FR)/h/fuzz_opts.o
	$(CC) $(SANFLAGS) -o $@ $(FR)/h/driver.o $(call fuzz_objs,$(FR)/h,$(FUZZ_MAIN_$*),$*) \
		$(addprefix $(B)/san/,$(FUZZ_SRC_OBJ) $(FUZZ_CORE_OBJ)) $(FUZZ_LIBS)

# Each corpus through its targets: raw dumps through raw and rawprof.
fuzz-check: $(addprefix $(FR)/,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
		case $$t in raw|rawprof) c=raw ;; *) c=$$t ;; esac; \
		n=$$(ls $(FUZZ_CORPUS)/$$c | wc -l); \
		UBSAN_OPTIONS=print_stacktrace=1 $(FR)/$$t -q $(FUZZ_CORPUS)/$$c 2>$(FR)/$$t.log || \
			{ tail -n 40 $(FR)/$$t.log; echo "FAIL: fuzz regression $$t (log: $(FR)/$$t.log)"; exit 1; }; \
		echo "fuzz regression $$t: $$n inputs of $(FUZZ_CORPUS)/$$c, no crash"; \
	done

clean:
	rm -rf $(B)
