/* demangle.c — C++ symbol names as people read them (see demangle.h). */
#include <stdlib.h>
#include <string.h>

#include "dwarf/demangle.h"

/* The C++ ABI's demangler (libstdc++). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *dc_demangle(const char *name)
{
	int status;
	char *dm;

	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	dm = __cxa_demangle(name, NULL, NULL, &status);
	if (dm && status == 0)
		return dm;
	free(dm);
	return NULL;
}

char *dc_demangle_global(const char *name, size_t len)
{
	/* A mangled name has neither spaces nor '@': the symbol ends at the
	 * " (file.c)" or "@soname" the engine appended. */
	size_t n = 0, dlen;
	char *sym, *dm, *out;

	if (len < 2 || name[0] != '_' || name[1] != 'Z')
		return NULL;
	while (n < len && name[n] != ' ' && name[n] != '@')
		n++;
	sym = malloc(n + 1);
	if (!sym)
		return NULL;
	memcpy(sym, name, n);
	sym[n] = '\0';
	dm = dc_demangle(sym);
	free(sym);
	if (!dm)
		return NULL;
	dlen = strlen(dm);
	out = realloc(dm, dlen + (len - n) + 1);
	if (!out) {
		free(dm);
		return NULL;
	}
	memcpy(out + dlen, name + n, len - n);
	out[dlen + len - n] = '\0';
	return out;
}
