/* elfsym_fixture.c — a static namesake of one in test_elfsym.c, so that the
 * test can check which file each local is attributed to. */
static char dc_test_twin[13];

char *dc_test_twin_fixture(void);

char *dc_test_twin_fixture(void)
{
	return dc_test_twin;
}
