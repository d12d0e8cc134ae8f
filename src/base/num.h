/* num.h — numbers as the user and the files write them.  Every front-end
 * layer parses an option value or a stored number with these, so the
 * rules are one: unsigned decimal digits only (no sign, no spaces, no
 * base prefix), checked against a maximum before they overflow. */
#ifndef DC_BASE_NUM_H
#define DC_BASE_NUM_H

#include <stdint.h>

/* Strict unsigned decimal no greater than max; 0 or -1. */
int num_parse_u64(const char *s, uint64_t max, uint64_t *out);

#endif
