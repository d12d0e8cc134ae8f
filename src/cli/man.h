/* man.h — a command's help text as a man page, so `man dcprof-report`
 * says what `dcprof help report` says (make install writes them with the
 * hidden `dcprof help --man [COMMAND]`).
 *
 * Notes: the help text is read as the usage functions print it:
 *  - the first line "usage: SYNOPSIS" and the lines indented to line up
 *    with it are the SYNOPSIS;
 *  - the rest is the DESCRIPTION, in blocks separated by blank lines: a
 *    block whose first line is indented (option lists) is kept as it is
 *    (no filling), any other is a paragraph that man fills;
 *  - roff's special characters are escaped: backslash, a '.' or '\'' that
 *    starts a line, and '-' (as \-, so options copy and paste as typed).
 */
#ifndef DC_CLI_MAN_H
#define DC_CLI_MAN_H

#include <stddef.h>
#include <stdio.h>

/* page: "dcprof" or "dcprof-report"; summary: the NAME line's text;
 * usage prints the help text; see_also: page names for SEE ALSO. */
void man_page(FILE *out, const char *page, const char *summary, void (*usage)(FILE *f),
	      const char *const *see_also, size_t nsee);

#endif
