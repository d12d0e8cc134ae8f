/* html.c — the HTML report's page: the summary as HTML, the embedded style
 * sheet, data and script (see html.h for the rules). */
#include <string.h>

#include "base/fmt.h"
#include "core/hier.h"
#include "report/header.h"
#include "report/html_int.h"

void html_text(struct sbuf *out, const char *s, size_t len)
{
	struct sbuf t;

	sbuf_init(&t);
	fmt_text(&t, s, len);
	for (size_t i = 0; i < t.len; i++) {
		switch (t.buf[i]) {
		case '&': sbuf_adds(out, "&amp;"); break;
		case '<': sbuf_adds(out, "&lt;"); break;
		case '>': sbuf_adds(out, "&gt;"); break;
		case '"': sbuf_adds(out, "&quot;"); break;
		case '\'': sbuf_adds(out, "&#39;"); break;
		default: sbuf_addc(out, t.buf[i]);
		}
	}
	sbuf_release(&t);
}

void html_script_json(struct sbuf *out, const char *json, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)json[i];

		if (c == '<')
			sbuf_adds(out, "\\u003c");
		else if (c == '>')
			sbuf_adds(out, "\\u003e");
		else if (c == '&')
			sbuf_adds(out, "\\u0026");
		else if (c == 0xe2 && i + 2 < len && (unsigned char)json[i + 1] == 0x80 &&
			 ((unsigned char)json[i + 2] == 0xa8 || (unsigned char)json[i + 2] == 0xa9)) {
			sbuf_adds(out, (unsigned char)json[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
			i += 2;
		} else {
			sbuf_addc(out, (char)c);
		}
	}
}

static void dt(struct sbuf *out, const char *term)
{
	sbuf_addf(out, "<dt>%s</dt><dd>", term);
}

static void thousands(struct sbuf *out, int64_t v)
{
	fmt_thousands(out, v);
}

static double pct(int64_t part, int64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The summary: what header_text says, as a definition list, and the
 * level table of dcprof report. */
static void summary(struct sbuf *out, struct profile *p, const struct header *h,
		    const struct level_totals *lt)
{
	bool complete = header_complete(h);

	sbuf_adds(out, "<section id=\"summary\" class=\"card\">\n<h2>Summary</h2>\n"
		  "<div class=\"summary-grid\">\n<dl class=\"meta\">\n");
	dt(out, "program");
	html_text(out, h->program.buf, h->program.len);
	sbuf_adds(out, "</dd>\n");
	dt(out, "command");
	sbuf_adds(out, "<code>");
	html_text(out, h->command.buf, h->command.len);
	sbuf_adds(out, "</code></dd>\n");
	dt(out, "status");
	sbuf_addf(out, "<span class=\"%s\">%s</span>", complete ? "ok" : "bad",
		  complete ? "complete" : "INCOMPLETE");
	if (!complete && h->has_reason) {
		sbuf_adds(out, " (");
		html_text(out, h->reason.buf, h->reason.len);
		sbuf_adds(out, ")");
	}
	if (h->has_exit) {
		sbuf_adds(out, ", ");
		html_text(out, h->exit_status.buf, h->exit_status.len);
	}
	sbuf_adds(out, "</dd>\n");
	if (h->processes > 0) {
		dt(out, "merged");
		sbuf_addf(out, "%lld processes (dcprof merge): counts are their sums;"
			  " report --spread compares them</dd>\n", h->processes);
	}
	dt(out, "caches");
	for (int k = 0; k < p->nlevels; k++) {
		const struct profile_level *l = &p->lv[k];
		struct dc_level_cfg cfg = { (uint64_t)l->size, (uint32_t)l->assoc,
					    (uint32_t)l->line_size, (uint32_t)l->latency };
		char geo[64];

		dc_level_format(&cfg, geo, sizeof geo);
		html_text(out, l->name, strlen(l->name));
		sbuf_adds(out, " ");
		html_text(out, geo, strlen(geo));
		sbuf_addf(out, " (%lld cycles), ", (long long)l->latency);
	}
	sbuf_addf(out, "memory %lld cycles", (long long)p->mem_latency);
	if (h->has_source || h->has_cache_reason) {
		sbuf_adds(out, "<br><span class=\"note\">");
		html_text(out, h->source.buf, h->source.len);
		if (h->has_cache_reason) {
			sbuf_adds(out, ": ");
			html_text(out, h->cache_reason.buf, h->cache_reason.len);
		}
		sbuf_adds(out, "</span>");
	}
	sbuf_adds(out, "</dd>\n");
	if (h->has_omp_policy) {
		dt(out, "runtime");
		sbuf_adds(out, "OMP_WAIT_POLICY=");
		html_text(out, h->omp_policy.buf, h->omp_policy.len);
		sbuf_adds(out, "</dd>\n");
	}
	dt(out, "latency");
	thousands(out, lt->lat);
	sbuf_adds(out, " cycles, ");
	thousands(out, lt->misslat);
	sbuf_addf(out, " (%.1f %%) in L1 misses", pct(lt->misslat, lt->lat));
	if (lt->misses[0])
		sbuf_addf(out, ", %.2f per L1 miss", (double)lt->misslat / (double)lt->misses[0]);
	sbuf_adds(out, "</dd>\n");
	dt(out, "profile");
	sbuf_adds(out, "<code>");
	html_text(out, p->path, strlen(p->path));
	sbuf_adds(out, "</code></dd>\n</dl>\n");

	sbuf_adds(out, "<table class=\"levels\" id=\"level-table\">\n<thead><tr><th>level</th>"
		  "<th class=\"num\">accesses</th><th class=\"num\">misses</th>"
		  "<th class=\"num\">hit %</th></tr></thead>\n<tbody>\n");
	for (int k = 0; k <= p->nlevels; k++) {
		const char *name = k < p->nlevels ? p->lv[k].name : "memory";

		sbuf_adds(out, "<tr><td>");
		html_text(out, name, strlen(name));
		sbuf_adds(out, "</td><td class=\"num\">");
		thousands(out, lt->accesses[k]);
		sbuf_adds(out, "</td><td class=\"num\">");
		if (k < p->nlevels) {
			thousands(out, lt->misses[k]);
			sbuf_addf(out, "</td><td class=\"num\">%.2f</td></tr>\n",
				  100.0 - pct(lt->misses[k], lt->accesses[k]));
		} else {
			sbuf_adds(out, "-</td><td class=\"num\">-</td></tr>\n");
		}
	}
	sbuf_adds(out, "</tbody>\n</table>\n</div>\n</section>\n");
}

int html_write_page(struct profile *p, const struct html_opts *o, struct sbuf *out,
		    char *err, size_t errlen)
{
	struct level_totals lt;
	struct header h;
	struct sbuf data;
	int rc = -1;

	header_init(&h);
	sbuf_init(&data);
	if (header_read(p, &h, err, errlen) || view_level_totals(p, false, &lt, err, errlen) ||
	    html_data(p, o, &lt, &data, err, errlen))
		goto out;

	/* The page loads nothing: default-src 'none' lets the browser
	 * enforce it; only the inline style and script run. */
	sbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
		  " script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
		  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
	sbuf_addf(out, "<meta name=\"generator\" content=\"dcprof %s\">\n<title>dcprof: ",
		  DCPROF_VERSION);
	html_text(out, h.program.buf, h.program.len);
	sbuf_adds(out, "</title>\n<style>\n");
	sbuf_adds(out, html_page_css);
	sbuf_adds(out, "</style>\n</head>\n<body>\n<header class=\"top\">\n"
		  "<h1><span class=\"brand\">dcprof</span> <span class=\"prog\">");
	html_text(out, h.program.buf, h.program.len);
	sbuf_adds(out, "</span></h1>\n<nav id=\"nav\"></nav>\n</header>\n<main>\n");
	summary(out, p, &h, &lt);
	sbuf_adds(out, "<noscript><p class=\"card\">The bucket table, the details and the plots"
		  " are drawn by the page's script: allow JavaScript for this file.</p></noscript>\n"
		  "<div id=\"app\"></div>\n</main>\n"
		  "<script type=\"application/json\" id=\"dcprof-data\">");
	html_script_json(out, data.buf, data.len);
	sbuf_adds(out, "</script>\n<script>\n");
	sbuf_adds(out, html_page_js);
	sbuf_adds(out, "</script>\n</body>\n</html>\n");
	rc = 0;
out:
	sbuf_release(&data);
	header_release(&h);
	return rc;
}
