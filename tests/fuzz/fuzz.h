/* fuzz.h — what the fuzz targets share (docs/fuzzing.md).
 *
 * Every target runs dcprof's commands in-process through the command table
 * of src/cli/dcprof.c, whose main is compiled as dcprof_main for these
 * builds (-Dmain=dcprof_main; see the Makefile).  A command runs with its
 * working directory set to a private scratch directory, so the files an
 * input names are created, read and written there and nowhere else; after
 * each input the directory is emptied again (but for the fixtures the
 * options target keeps in it).
 *
 * The same target sources build two ways: with clang's libFuzzer
 * (make fuzz, build/fuzz/fuzz-<target>) and, with driver.c as main, with
 * gcc and the suite's ASan/UBSan flags (build/fuzz-regress/<target>),
 * which make check runs over tests/fuzz/corpus/<target>/.
 */
#ifndef DC_TESTS_FUZZ_H
#define DC_TESTS_FUZZ_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* The libFuzzer entry point each fuzz_<target>.c defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* src/cli/dcprof.c's main. */
int dcprof_main(int argc, char **argv);

/* Where the harness's own messages go (NULL: stderr); the driver's -q
 * points stderr, which the commands write to, at /dev/null and this at
 * the real one.  Sanitizer reports write to file descriptor 2 directly. */
extern FILE *fuzz_log;

/* Creates the scratch directory (once; $DCPROF_FUZZ_TMP, else /dev/shm,
 * else /tmp), sends stdout to /dev/null and points TMPDIR at the scratch
 * directory.  Exits the process when it cannot. */
void fuzz_setup(void);

/* The scratch directory's absolute path. */
const char *fuzz_dir(void);

/* Writes name (relative to the scratch directory); aborts on error. */
void fuzz_write(const char *name, const void *data, size_t size);

/* Runs "dcprof ARGV..." (argv[0] is the command's name, as after the
 * "dcprof" of a command line) inside the scratch directory; aborts when
 * the exit status is neither 0 nor 2 (DC_EXIT_ERROR), the only statuses a
 * profile-reading command may return. */
int fuzz_dcprof(int argc, char **argv);

/* Empties the scratch directory except for the names in keep
 * (NULL-terminated; NULL keeps nothing). */
void fuzz_clean(const char *const *keep);

/* Runs every profile-reading command, in the variants fuzz_read.c lists,
 * on the profile name in the scratch directory. */
void fuzz_read_profile(const char *name);

/* Removes the scratch directory (the driver calls it at the end). */
void fuzz_teardown(void);

#endif
