/* man.c — a command's help text as a man page (see man.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cli/man.h"

/* Text for roff, without the line end. */
static void roff_text(FILE *out, const char *s, size_t len)
{
	if (len && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", out);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\')
			fputs("\\e", out);
		else if (s[i] == '-')
			fputs("\\-", out);
		else
			fputc(s[i], out);
	}
}

static void roff_line(FILE *out, const char *s, size_t len)
{
	roff_text(out, s, len);
	fputc('\n', out);
}

static void upper(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(toupper((unsigned char)*s), out);
}

void man_page(FILE *out, const char *page, const char *summary, void (*usage)(FILE *f),
	      const char *const *see_also, size_t nsee)
{
	char *text = NULL, *p, *end;
	size_t size = 0, indent = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f) {
		err_msg("out of memory");
		exit(DC_EXIT_ERROR);
	}
	usage(f);
	fclose(f);

	fputs(".TH ", out);
	upper(out, page);
	fprintf(out, " 1 \"\" \"dcprof %s\" \"dcprof manual\"\n.SH NAME\n", DCPROF_VERSION);
	roff_text(out, page, strlen(page));
	fputs(" \\- ", out);
	roff_line(out, summary, strlen(summary));
	fputs(".SH SYNOPSIS\n.nf\n", out);

	p = text;
	end = text + size;
	/* The synopsis: "usage: " and the lines lined up under what follows it. */
	if (!strncmp(p, "usage: ", 7)) {
		p += 7;
		indent = 7;
	}
	for (bool first = true; p < end; first = false) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t sp = strspn(p, " ");

		if (!first && (len == 0 || sp != indent))
			break;
		roff_line(out, p + (first ? 0 : indent), len - (first ? 0 : indent));
		p += len + (nl != NULL);
	}
	fputs(".fi\n.SH DESCRIPTION\n", out);
	while (p < end) {
		char *q = p;
		bool keep = false;

		/* A block runs to the next blank line; any indented line in it
		 * (an option list, a table) keeps it as it is. */
		while (q < end && *q != '\n') {
			char *nl = memchr(q, '\n', (size_t)(end - q));

			keep |= *q == ' ';
			q = nl ? nl + 1 : end;
		}
		if (q > p) {
			fputs(keep ? ".PP\n.nf\n" : ".PP\n", out);
			while (p < q) {
				char *nl = memchr(p, '\n', (size_t)(q - p));
				size_t len = nl ? (size_t)(nl - p) : (size_t)(q - p);

				roff_line(out, p, len);
				p += len + (nl != NULL);
			}
			if (keep)
				fputs(".fi\n", out);
		}
		while (p < end && *p == '\n')
			p++;
	}
	if (nsee) {
		fputs(".SH SEE ALSO\n", out);
		for (size_t i = 0; i < nsee; i++) {
			fputs(".BR ", out);
			roff_text(out, see_also[i], strlen(see_also[i]));
			fprintf(out, " (1)%s\n", i + 1 < nsee ? "," : "");
		}
	}
	free(text);
}
