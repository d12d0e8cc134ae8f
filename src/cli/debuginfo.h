/* debuginfo.h — what `dcprof record` checks of the program's debug
 * information before it runs it.
 *
 * Valgrind 3.19 reads DWARF 4 fully but not every form DWARF 5 added:
 * clang 14 (whose default is DWARF 5) writes names and addresses through
 * the string and address offset tables (DW_FORM_strx*, DW_FORM_addrx*),
 * which 3.19 reports as "unhandled dwarf2 abbrev form code 0x25" and then
 * reads only in part: functions, lines and variables may be missing.
 * GCC 12's DWARF 5 does not use those forms by default and reads fine.
 */
#ifndef DC_CLI_DEBUGINFO_H
#define DC_CLI_DEBUGINFO_H

#include <stdbool.h>

/* Whether the ELF file at path has a .debug_abbrev that uses a form
 * Valgrind 3.19 cannot read (strx, strx1..4, addrx, addrx1..4).  A file
 * that cannot be read or parsed, or whose sections are compressed, is
 * reported as fine: the check only adds a hint. */
bool debuginfo_unreadable_forms(const char *path);

#endif
