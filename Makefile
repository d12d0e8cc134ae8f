# dcprof — build, test, demo.
#
#   make            build build/bin/dcprof and the Valgrind tool in build/lib/dcprof
#   make check      unit tests (ASan/UBSan), core symbol check, end-to-end tests
#   make demo       install missing Debian packages, build, profile examples/demo.c
#   make bench      compare dcprof record with Cachegrind (see bench/README.md)
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
FRONT_DIRS := base store analysis report cli
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
PRELOAD   := $(TOOLDIR)/vgpreload_dcprof-amd64-linux.so
TOOL_OBJ  := $(patsubst src/%.c,$(B)/tool/%.o,$(CORE_SRC) $(TOOL_SRC))
# --cachegrind-compat runs from a directory without the malloc-replacement
# preload, so the program's own malloc runs exactly as under Cachegrind.
COMPATDIR := $(B)/lib/dcprof-compat

# ---- host objects (dcprof front end) ---------------------------------------
HOST_CORE_OBJ := $(patsubst src/%.c,$(B)/host/%.o,$(CORE_SRC))
CLI_OBJ       := $(patsubst src/%.c,$(B)/host/%.o,$(CLI_SRC))
DCPROF        := $(B)/bin/dcprof

# ---- unit tests (core with ASan/UBSan) -------------------------------------
UNIT_SRC  := $(wildcard tests/unit/*.c)
UNIT_OBJ  := $(patsubst %.c,$(B)/san/%.o,$(UNIT_SRC)) \
	$(patsubst src/%.c,$(B)/san/%.o,$(CORE_SRC) src/host/port_libc.c)
UNIT_BIN  := $(B)/unit-tests

# Second files of multi-file workloads live in tests/workloads/parts/, out of
# the wildcard; their workload has an explicit rule below.
WORKLOAD_SRC := $(wildcard tests/workloads/*.c) $(wildcard tests/workloads/*.cc) \
	$(wildcard bench/workloads/*.c) examples/demo.c
WORKLOADS    := $(addprefix $(B)/w/,$(basename $(notdir $(WORKLOAD_SRC))))

.PHONY: all check unit e2e demo bench clean deps tool fuzz fuzz-check
all: $(DCPROF) $(TOOL) $(PRELOAD) $(TOOLDIR)/.links $(COMPATDIR)/.links $(WORKLOADS)

$(B)/tool/%.o: src/%.c $(HEADERS) include/dcprof.h
	@mkdir -p $(dir $@)
	$(CC) $(TOOLFLAGS) -c $< -o $@

$(TOOL): $(TOOL_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -m64 -static -nodefaultlibs -nostartfiles -u _start -Wl,--build-id=none \
		-Wl,-Ttext-segment=0x58000000 -o $@ $(TOOL_OBJ) \
		$(VGLIBDIR)/libcoregrind-amd64-linux.a $(VGLIBDIR)/libvex-amd64-linux.a \
		$(VGLIBDIR)/libgcc-sup-amd64-linux.a -lgcc

$(PRELOAD):
	@mkdir -p $(dir $@)
	$(CC) -m64 -shared -fPIC -nodefaultlibs -Wl,--whole-archive \
		$(VGLIBDIR)/libreplacemalloc_toolpreload-amd64-linux.a \
		-Wl,--no-whole-archive -o $@

# Valgrind looks for its own helpers (vgpreload_core, the default
# suppressions, ...) in the same directory as the tool.
$(TOOLDIR)/.links:
	@mkdir -p $(TOOLDIR)
	for f in $(VGLIBEXEC)/*; do ln -sf $$f $(TOOLDIR)/; done
	@touch $@

# The core stays freestanding on the host too, so the symbol check sees what
# the tool links: no loop may be turned into a libc call.
$(B)/host/core/%.o: HOSTFLAGS += -ffreestanding

$(COMPATDIR)/.links: $(TOOLDIR)/.links
	@mkdir -p $(COMPATDIR)
	for f in $(VGLIBEXEC)/*; do ln -sf $$f $(COMPATDIR)/; done
	ln -sf ../dcprof/dcprof-amd64-linux $(COMPATDIR)/dcprof-amd64-linux
	@touch $@

$(B)/host/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(CFLAGS) -c $< -o $@

$(DCPROF): $(CLI_OBJ) $(HOST_CORE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ -lsqlite3 -lm

$(B)/san/%.o: src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(SANFLAGS) -c $< -o $@

$(B)/san/tests/unit/%.o: tests/unit/%.c $(HEADERS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(HOSTFLAGS) $(SANFLAGS) -Itests/unit -c $< -o $@

$(UNIT_BIN): $(UNIT_OBJ)
	$(CC) $(SANFLAGS) -o $@ $^

# Workloads are built without optimisation surprises: -O1 keeps loops as
# written but removes pointless stack traffic, -g gives file:line.
$(B)/w/%: tests/workloads/%.c include/dcprof.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -Iinclude -o $@ $< -lpthread
$(B)/w/%: bench/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $<
$(B)/w/demo: examples/demo.c include/dcprof.h
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -Iinclude -o $@ $<
$(B)/w/globals: tests/workloads/globals.c tests/workloads/parts/globals_b.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -o $@ $^
# calls_plt calls into a shared library of its own (through the PLT) and libm.
$(B)/w/calls_plt: tests/workloads/calls_plt.c $(B)/w/libcalls_plt.so
	$(CC) -O1 -g -fno-inline -o $@ $< -L$(B)/w -lcalls_plt -Wl,-rpath,'$$ORIGIN' -lm
$(B)/w/libcalls_plt.so: tests/workloads/parts/calls_plt_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O1 -g -fno-inline -shared -fPIC -o $@ $<
$(B)/w/cxx_new: tests/workloads/cxx_new.cc
	@mkdir -p $(dir $@)
	$(CXX) -O1 -g -fno-inline -o $@ $<

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
FUZZ_LIBS     := -lsqlite3 -lm -Wl,--wrap=spawn_wait
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
$(addprefix $(FZ)/fuzz-,$(FUZZ_TARGETS)): $(FZ)/fuzz-%: $(addprefix $(FZ)/obj/,$(FUZZ_SRC_OBJ)) $(FZ)/libcore.a $(FZ)/h/fuzz_common.o \
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
$(addprefix $(FR)/,$(FUZZ_TARGETS)): $(FR)/%: $(addprefix $(B)/san/,$(FUZZ_SRC_OBJ) $(FUZZ_CORE_OBJ)) $(FR)/h/driver.o \
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
