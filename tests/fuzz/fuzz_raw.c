/* fuzz_raw.c — fuzz target: the bytes are a raw dump (docs/raw-dump.md).
 *
 * Runs "dcprof finalize raw -o out.db -q", i.e. the raw-dump reader
 * (src/store/rawread.c) writing a profile through the store.  Built with
 * -DFUZZ_THEN_READ (target rawprof), every profile-reading command then
 * runs on the profile it wrote: mutating the text format reaches odd but
 * well-formed profiles far more often than mutating SQLite's pages does.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { "finalize", "raw", "-o", "out.db", "-q", NULL };
	int rc;

	fuzz_setup();
	fuzz_write("raw", data, size);
	rc = fuzz_dcprof(5, argv);
#ifdef FUZZ_THEN_READ
	if (rc == 0)
		fuzz_read_profile("out.db");
#else
	(void)rc;
#endif
	fuzz_clean(NULL);
	return 0;
}
