/* test_fphist.c — footprint histograms over power-of-2 tile sizes
 * (fphist.h Notes): sizes 2 .. w, tiles from the stream's first record,
 * a block's class is its first access's in the tile, Constant records only
 * take time, incomplete tiles are dropped at a restart, bins add up across
 * streams, clear forgets them. */
#include "core/fphist.h"
#include "core/trace.h"
#include "unit.h"

static struct dc_failenv fe;

static const struct dc_env *env(void)
{
	dc_failenv_init(&fe, 0);
	return &fe.env;
}

DC_TEST(fphist, sizes_up_to_w)
{
	struct dc_fphist h;

	CHECK_EQ(dc_fphist_init(&h, env(), 1), 0);
	CHECK_EQ(h.nbins, 0);
	dc_fphist_release(&h);
	CHECK_EQ(dc_fphist_init(&h, env(), 500), 0);
	CHECK_EQ(h.nbins, 8);                 /* 2 .. 256 */
	dc_fphist_release(&h);
}

/* Stream 1, w = 4: blocks 7s 7i 9i c | 5s (cut): size 2 tiles {7} (F 1,
 * Strided: the first access's class) and {9} (F 1, Irregular; the Constant
 * record only fills the tile); size 4: {7, 9} (1 Strided, 1 Irregular); 5
 * is in an incomplete tile of both, dropped.  Stream 2: 5i 5s: size 2 one
 * tile F 1 Irregular; size 4 none. */
DC_TEST(fphist, tiles_classes_and_streams)
{
	struct dc_fphist h;

	CHECK_EQ(dc_fphist_init(&h, env(), 4), 0);
	CHECK_EQ(h.nbins, 2);
	CHECK_EQ(dc_fphist_add(&h, 7, DC_TC_STRIDED), 0);
	CHECK_EQ(dc_fphist_add(&h, 7, DC_TC_IRREG), 0);
	CHECK_EQ(dc_fphist_add(&h, 9, DC_TC_IRREG), 0);
	CHECK_EQ(dc_fphist_add(&h, 0, DC_TC_CONST), 0);
	CHECK_EQ(dc_fphist_add(&h, 5, DC_TC_STRIDED), 0);
	dc_fphist_restart(&h);
	CHECK_EQ(dc_fphist_add(&h, 5, DC_TC_IRREG), 0);
	CHECK_EQ(dc_fphist_add(&h, 5, DC_TC_STRIDED), 0);
	CHECK_EQ(h.bin[0].tiles, 3);
	CHECK_EQ(h.bin[0].f, 3);
	CHECK_EQ(h.bin[0].fstr, 1);
	CHECK_EQ(h.bin[0].firr, 2);
	CHECK_EQ(h.bin[1].tiles, 1);
	CHECK_EQ(h.bin[1].f, 2);
	CHECK_EQ(h.bin[1].fstr, 1);
	CHECK_EQ(h.bin[1].firr, 1);
	dc_fphist_clear(&h);
	CHECK_EQ(h.bin[0].tiles, 0);
	CHECK_EQ(dc_fphist_add(&h, 1, DC_TC_IRREG), 0);
	CHECK_EQ(dc_fphist_add(&h, 2, DC_TC_IRREG), 0);
	CHECK_EQ(h.bin[0].tiles, 1);
	CHECK_EQ(h.bin[0].f, 2);
	dc_fphist_release(&h);
}
