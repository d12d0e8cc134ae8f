/* reuse_acc.c — dcprof reuse --accuracy (see reuse_acc.h).
 *
 * Notes (docs/cli.md):
 *  - Rows: the sampled time histogram against the exact one (sampling
 *    error alone); the exact time histogram converted to stack distances
 *    against the exact stack histogram (model error alone); the sampled
 *    time histogram converted against the exact stack histogram (both).
 *    Each with S and Ŝ (rmodel.h).
 *  - Sampled with debug-register rules (watching the accessed bytes) against
 *    exact distances of blocks wider than 8 bytes, the two measure
 *    different reuses: the text says so under the verdict (json: "note").
 *  - Verdict, after the decision tree of seeds/003 Fig. 5, on the last row
 *    (or the model row without sampling): S >= 0.9 is accurate; else Ŝ >=
 *    0.9 is an off-by-one bin shift; else a low Ŝ of the sampled time
 *    histogram blames sampling, a low S of the model row the model.
 */
#include <string.h>

#include "analysis/rmodel.h"
#include "base/fmt.h"
#include "report/render.h"
#include "report/reuse_acc.h"
#include "report/reuse_text.h"

#define GOOD 0.9

struct cmp {
	const char *name, *estimate, *truth, *kind;
	enum rsource src;
	double s, s_hat;
};

static int compare(struct profile *p, const struct reuse_info *ri, const char *object,
		   struct cmp *c, char *err, size_t errlen)
{
	struct rhist truth = { 0 }, est = { 0 };
	int rc = rhist_source_read(p, ri, RSRC_EXACT, c->kind, object, &truth, err, errlen);

	if (!rc)
		rc = rhist_source_read(p, ri, c->src, c->kind, object, &est, err, errlen);
	if (!rc) {
		c->s = rhist_similarity(&truth, &est, false);
		c->s_hat = rhist_similarity(&truth, &est, true);
	}
	rhist_release(&truth);
	rhist_release(&est);
	return rc;
}

#define MISMATCH "the watchpoints watched the accessed bytes (--reuse-watch=dr) but exact" \
	" distances are per block of more than 8 bytes: record with --reuse-watch=block" \
	" (or --reuse-block=8) to compare like with like"

static bool mismatch(const struct reuse_info *ri)
{
	return ri->sampled && !strcmp(ri->watch, "dr") && ri->block > 8;
}

static const char *verdict(const struct cmp *c, size_t n)
{
	const struct cmp *last = &c[n - 1], *model = &c[n == 3 ? 1 : 0];

	if (last->s >= GOOD)
		return "accurate (S >= 0.9)";
	if (last->s_hat >= GOOD)
		return "off by one bin (S < 0.9 but S-hat >= 0.9)";
	if (n == 3 && c[0].s_hat < GOOD)
		return "sampling: the sampled time histogram is off (S-hat < 0.9)";
	if (model->s < GOOD)
		return "model: accesses are too dependent for the conversion (S < 0.9 on exact"
		       " time distances)";
	return "sparse samples: sampled and model rows are each fine, together not";
}

int reuse_accuracy(struct profile *p, const struct header *h, const struct reuse_info *ri,
		   const char *object, enum out_format format, char *err, size_t errlen)
{
	struct cmp c[3] = {
		{ "sampled_time", "sampled time", "exact time", "time", RSRC_SAMPLED, 0, 0 },
		{ "converted_exact", "exact time, converted", "exact stack", "stack",
		  RSRC_CONVERTED, 0, 0 },
		{ "converted_sampled", "sampled time, converted", "exact stack", "stack",
		  RSRC_SAMPLED, 0, 0 },
	};
	struct cmp *first = ri->sampled ? c : c + 1;
	size_t n = ri->sampled ? 3 : 1;
	struct table t;
	struct sbuf out;
	int col[5];

	for (size_t i = 0; i < n; i++)
		if (compare(p, ri, object, &first[i], err, errlen))
			return -1;
	table_init(&t);
	col[0] = table_add_col(&t, "comparison", NULL, COL_STR, true);
	col[1] = table_add_col(&t, "estimate", NULL, COL_STR, false);
	col[2] = table_add_col(&t, "truth", NULL, COL_STR, false);
	col[3] = table_add_col(&t, "S", NULL, COL_REAL, false);
	col[4] = table_add_col(&t, "S_hat", "S-hat", COL_REAL, false);
	t.cols[col[0]].show = SHOW_MACHINE;
	for (size_t i = 0; i < n; i++) {
		struct cell *row = table_add_row(&t);
		cell_set_str(&row[col[0]], first[i].name, strlen(first[i].name));
		cell_set_str(&row[col[1]], first[i].estimate, strlen(first[i].estimate));
		cell_set_str(&row[col[2]], first[i].truth, strlen(first[i].truth));
		cell_set_real(&row[col[3]], first[i].s);
		cell_set_real(&row[col[4]], first[i].s_hat);
	}
	sbuf_init(&out);
	switch (format) {
	case FMT_TEXT:
		header_text(&out, p, h);
		reuse_text_intro(&out, ri, ri->sampled ? "exact and sampled" : "exact", object);
		if (ri->sampled)
			reuse_text_sampling(&out, ri);
		sbuf_addc(&out, '\n');
		fwrite(out.buf, 1, out.len, stdout);
		render_table_text(stdout, &t, 0);
		printf("\nverdict:  %s\n", verdict(first, n));
		if (mismatch(ri))
			printf("note:     %s\n", MISMATCH);
		break;
	case FMT_CSV:
		render_table_csv(stdout, &t, 0);
		break;
	case FMT_JSON:
		header_json(&out, p, h);
		reuse_json_intro(&out, ri, ri->sampled ? "exact and sampled" : "exact", object);
		sbuf_adds(&out, ",\"rows\":");
		render_table_json_rows(&out, &t, 0);
		sbuf_adds(&out, ",\"verdict\":");
		fmt_json_str(&out, verdict(first, n), strlen(verdict(first, n)));
		sbuf_adds(&out, ",\"note\":");
		if (mismatch(ri))
			fmt_json_str(&out, MISMATCH, strlen(MISMATCH));
		else
			sbuf_adds(&out, "null");
		sbuf_adds(&out, "}\n");
		fwrite(out.buf, 1, out.len, stdout);
		break;
	}
	sbuf_release(&out);
	table_release(&t);
	return 0;
}
