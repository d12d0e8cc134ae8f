/* test_elfsym.c — the ELF symbol reader on a hand-built image (every rule in
 * elfsym.h's Notes, every truncation, corrupted bytes) and on this test
 * binary's own symbol table, as GCC and ld wrote it.
 *
 * The builder uses <elf.h>'s structs while the reader uses hand-written
 * offsets, so the two check each other. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/elfsym.h"
#include "unit.h"

/* ---- a hand-built image ------------------------------------------------- */

struct tsym {
	const char *name;
	unsigned char type, bind;
	uint16_t shndx;
	uint64_t value, size;
};

/* Locals first, as in every linked file.  The comment says why a symbol is
 * not reported. */
static const struct tsym tsyms[] = {
	{ "", STT_NOTYPE, STB_LOCAL, SHN_UNDEF, 0, 0 },
	{ "a.c", STT_FILE, STB_LOCAL, SHN_ABS, 0, 0 },
	{ "a_local", STT_OBJECT, STB_LOCAL, 5, 0x1000, 4 },
	{ "a_func", STT_FUNC, STB_LOCAL, 4, 0x2000, 16 },       /* not data */
	{ "a_empty", STT_OBJECT, STB_LOCAL, 5, 0x1010, 0 },     /* size 0 */
	{ "", STT_FILE, STB_LOCAL, SHN_ABS, 0, 0 },
	{ "ld_local", STT_OBJECT, STB_LOCAL, 5, 0x1020, 8 },
	{ "b.c", STT_FILE, STB_LOCAL, SHN_ABS, 0, 0 },
	{ "b_tls", STT_TLS, STB_LOCAL, 6, 0x10, 8 },
#define FIRST_GLOBAL 9
	{ "g_undef", STT_OBJECT, STB_GLOBAL, SHN_UNDEF, 0, 8 }, /* undefined */
	{ "g_abs", STT_OBJECT, STB_GLOBAL, SHN_ABS, 0x5000, 8 },
	{ "g_common", STT_OBJECT, STB_GLOBAL, SHN_COMMON, 8, 8 },
	{ "", STT_OBJECT, STB_GLOBAL, 5, 0x1030, 8 },           /* no name */
	{ "g_weak", STT_OBJECT, STB_WEAK, 5, 0x1040, 24 },
	{ "g_obj", STT_OBJECT, STB_GLOBAL, 5, 0x1060, 0x100 },
};
#define NTSYM (sizeof tsyms / sizeof tsyms[0])

static const struct dc_elfsym want[] = {
	{ "a_local", 7, "a.c", 0x1000, 4, false, false },
	{ "ld_local", 8, NULL, 0x1020, 8, false, false },
	{ "b_tls", 5, "b.c", 0x10, 8, false, true },
	{ "g_weak", 6, NULL, 0x1040, 24, true, false },
	{ "g_obj", 5, NULL, 0x1060, 0x100, true, false },
};
#define NWANT (int)(sizeof want / sizeof want[0])

/* ELF header, string table, symbol table, then the section headers
 * [0] null, [1] .dynsym (the globals), [2] .strtab, [3] .symtab.  The
 * headers come last, as ld puts them, so every truncation cuts one. */
struct image {
	uint8_t b[2048];
	size_t len, stroff, strsz, symoff, shoff;
};

static void build(struct image *im, uint32_t symtab_type, uint32_t dynsym_type)
{
	Elf64_Sym syms[NTSYM];
	Elf64_Shdr sh[4];
	size_t off = sizeof(Elf64_Ehdr);

	memset(im, 0, sizeof *im);
	memset(syms, 0, sizeof syms);
	memset(sh, 0, sizeof sh);
	im->stroff = off;
	im->b[off++] = 0;
	for (size_t i = 0; i < NTSYM; i++) {
		size_t n = strlen(tsyms[i].name);
		if (n) {
			syms[i].st_name = (uint32_t)(off - im->stroff);
			memcpy(im->b + off, tsyms[i].name, n + 1);
			off += n + 1;
		}
		syms[i].st_info = ELF64_ST_INFO(tsyms[i].bind, tsyms[i].type);
		syms[i].st_shndx = tsyms[i].shndx;
		syms[i].st_value = tsyms[i].value;
		syms[i].st_size = tsyms[i].size;
	}
	im->strsz = off - im->stroff;
	im->symoff = off = (off + 7) & ~(size_t)7;
	memcpy(im->b + off, syms, sizeof syms);
	im->shoff = off += sizeof syms;
	sh[1] = (Elf64_Shdr){ .sh_type = dynsym_type, .sh_link = 2, .sh_entsize = sizeof(Elf64_Sym),
		.sh_offset = im->symoff + FIRST_GLOBAL * sizeof(Elf64_Sym),
		.sh_size = (NTSYM - FIRST_GLOBAL) * sizeof(Elf64_Sym) };
	sh[2] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = im->stroff, .sh_size = im->strsz };
	sh[3] = (Elf64_Shdr){ .sh_type = symtab_type, .sh_link = 2, .sh_entsize = sizeof(Elf64_Sym),
		.sh_offset = im->symoff, .sh_size = sizeof syms };
	memcpy(im->b + off, sh, sizeof sh);
	im->len = off + sizeof sh;

	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_shoff = im->shoff, .e_ehsize = sizeof eh,
		.e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 4,
	};
	memcpy(im->b, &eh, sizeof eh);
}

static Elf64_Ehdr *ehdr(struct image *im)
{
	return (Elf64_Ehdr *)im->b;
}

static Elf64_Shdr *shdr(struct image *im, int i)
{
	return (Elf64_Shdr *)(im->b + im->shoff) + i;
}

static Elf64_Sym *sym(struct image *im, int i)
{
	return (Elf64_Sym *)(im->b + im->symoff) + i;
}

/* What the callback saw.  It also checks that every string it is handed
 * ends inside the image. */
struct seen {
	const uint8_t *img;
	size_t len;
	int n, stop_at;
	struct dc_elfsym s[16];
};

static void check_string(const struct seen *v, const char *s, size_t n)
{
	const uint8_t *p = (const uint8_t *)s;
	CHECK(p >= v->img && p < v->img + v->len);
	CHECK(memchr(p, 0, (size_t)(v->img + v->len - p)) == p + n);
}

static int collect(void *ud, const struct dc_elfsym *s)
{
	struct seen *v = ud;

	check_string(v, s->name, s->name_len);
	if (s->file)
		check_string(v, s->file, strlen(s->file));
	if (v->n < 16)
		v->s[v->n] = *s;
	if (++v->n == v->stop_at)
		return 42;
	return 0;
}

static int scan(struct image *im, struct seen *v)
{
	*v = (struct seen){ .img = im->b, .len = im->len };
	return dc_elfsym_scan(im->b, im->len, collect, v);
}

/* Checks v against want[first..first+n). */
static void check_seen(const struct seen *v, int first, int n)
{
	CHECK_EQ(v->n, n);
	for (int i = 0; i < n; i++) {
		const struct dc_elfsym *a = &v->s[i], *b = &want[first + i];
		CHECK_STREQ(a->name, b->name);
		CHECK_EQ(a->name_len, b->name_len);
		CHECK_STREQ(a->file, b->file);
		CHECK_EQ(a->value, b->value);
		CHECK_EQ(a->size, b->size);
		CHECK_EQ(a->global, b->global);
		CHECK_EQ(a->tls, b->tls);
	}
}

DC_TEST(elfsym, reports_data_symbols_by_the_rules)
{
	struct image im;
	struct seen v;

	build(&im, SHT_SYMTAB, SHT_DYNSYM);
	CHECK_EQ(scan(&im, &v), 0);
	check_seen(&v, 0, NWANT);
}

DC_TEST(elfsym, reads_dynsym_only_without_symtab)
{
	struct image im;
	struct seen v;

	build(&im, SHT_PROGBITS, SHT_DYNSYM);
	CHECK_EQ(scan(&im, &v), 0);
	check_seen(&v, NWANT - 2, 2);
}

DC_TEST(elfsym, no_symbol_table_means_no_symbols)
{
	struct image im;
	struct seen v;

	build(&im, SHT_PROGBITS, SHT_PROGBITS);
	CHECK_EQ(scan(&im, &v), 0);
	CHECK_EQ(v.n, 0);

	build(&im, SHT_SYMTAB, SHT_DYNSYM);
	ehdr(&im)->e_shoff = 0;
	CHECK_EQ(scan(&im, &v), 0);
	CHECK_EQ(v.n, 0);
}

DC_TEST(elfsym, callback_value_stops_the_scan)
{
	struct image im;
	struct seen v;

	build(&im, SHT_SYMTAB, SHT_DYNSYM);
	v = (struct seen){ .img = im.b, .len = im.len, .stop_at = 2 };
	CHECK_EQ(dc_elfsym_scan(im.b, im.len, collect, &v), 42);
	CHECK_EQ(v.n, 2);
}

DC_TEST(elfsym, extended_section_count)
{
	struct image im;
	struct seen v;

	build(&im, SHT_SYMTAB, SHT_DYNSYM);
	ehdr(&im)->e_shnum = 0;
	shdr(&im, 0)->sh_size = 4;
	CHECK_EQ(scan(&im, &v), 0);
	check_seen(&v, 0, NWANT);
}

/* A bad name late in the table is found before the first callback. */
DC_TEST(elfsym, validates_before_first_callback)
{
	struct image im;
	struct seen v;

	build(&im, SHT_SYMTAB, SHT_DYNSYM);
	sym(&im, NTSYM - 1)->st_name = (uint32_t)im.strsz;
	CHECK_EQ(scan(&im, &v), DC_EINVAL);
	CHECK_EQ(v.n, 0);

	build(&im, SHT_SYMTAB, SHT_DYNSYM);
	im.b[im.stroff + im.strsz - 1] = 'x';   /* unterminates "g_obj" */
	CHECK_EQ(scan(&im, &v), DC_EINVAL);
	CHECK_EQ(v.n, 0);
}

DC_TEST(elfsym, rejects_malformed_headers)
{
	struct image im;
	struct seen v;

#define BAD(stmt)                                               \
	do {                                                    \
		build(&im, SHT_SYMTAB, SHT_DYNSYM);             \
		stmt;                                           \
		CHECK_EQ(scan(&im, &v), DC_EINVAL);             \
		CHECK_EQ(v.n, 0);                               \
	} while (0)
	BAD(im.b[1] = 'e');
	BAD(im.b[EI_CLASS] = ELFCLASS32);
	BAD(im.b[EI_DATA] = ELFDATA2MSB);
	BAD(ehdr(&im)->e_type = ET_REL);
	BAD(ehdr(&im)->e_shentsize = 40);
	BAD(ehdr(&im)->e_shnum = 5);
	BAD(shdr(&im, 3)->sh_link = 0);
	BAD(shdr(&im, 3)->sh_link = 4);
	BAD(shdr(&im, 3)->sh_link = 3);         /* not a string table */
	BAD(shdr(&im, 3)->sh_entsize = 0);
	BAD(shdr(&im, 3)->sh_size -= 1);
	BAD(shdr(&im, 3)->sh_size = UINT64_MAX - 23);
	BAD(shdr(&im, 3)->sh_offset = UINT64_MAX - 7);
	BAD(shdr(&im, 2)->sh_size = im.len);
	BAD(shdr(&im, 2)->sh_offset = UINT64_MAX);
	BAD(shdr(&im, 0)->sh_size = 5; ehdr(&im)->e_shnum = 0);
	BAD(shdr(&im, 0)->sh_size = UINT64_MAX; ehdr(&im)->e_shnum = 0);
#undef BAD
}

/* A copy in a block of exactly len bytes, so that AddressSanitizer catches
 * a read one byte past the end. */
static int scan_exact(const uint8_t *img, size_t len, struct seen *v)
{
	uint8_t *p = malloc(len ? len : 1);
	CHECK(p);
	memcpy(p, img, len);
	*v = (struct seen){ .img = p, .len = len };
	int rc = dc_elfsym_scan(p, len, collect, v);
	free(p);
	return rc;
}

DC_TEST(elfsym, every_truncation_is_rejected)
{
	struct image im;
	struct seen v;

	build(&im, SHT_SYMTAB, SHT_DYNSYM);
	for (size_t len = 0; len < im.len; len++) {
		CHECK_EQ(scan_exact(im.b, len, &v), DC_EINVAL);
		CHECK_EQ(v.n, 0);
	}
	CHECK_EQ(scan_exact(im.b, im.len, &v), 0);
	CHECK_EQ(v.n, NWANT);
}

/* Every byte set to a few values, and every offset overwritten with a few
 * 64-bit values that make additions wrap: the reader rejects or reads, and
 * never leaves the buffer (collect checks the strings, ASan the rest). */
DC_TEST(elfsym, corrupt_bytes_stay_inside)
{
	struct image im;
	struct seen v;

	build(&im, SHT_SYMTAB, SHT_DYNSYM);
	const uint64_t wide[] = { UINT64_MAX, UINT64_MAX - 23, 1ull << 63, im.len, im.len - 1 };
	for (size_t i = 0; i < im.len; i++) {
		const uint8_t narrow[] = { 0, 1, 0x7f, 0x80, 0xff, (uint8_t)~im.b[i] };
		for (size_t k = 0; k < sizeof narrow; k++) {
			struct image c = im;
			c.b[i] = narrow[k];
			int rc = scan_exact(c.b, c.len, &v);
			CHECK(rc == 0 || rc == DC_EINVAL);
		}
		for (size_t k = 0; k < sizeof wide / sizeof wide[0] && i + 8 <= im.len; k++) {
			struct image c = im;
			memcpy(c.b + i, &wide[k], 8);
			int rc = scan_exact(c.b, c.len, &v);
			CHECK(rc == 0 || rc == DC_EINVAL);
		}
	}
}

/* ---- this binary's own symbol table ------------------------------------- */

int dc_test_global_array[37];
static char dc_test_twin[29];           /* elfsym_fixture.c has a 13-byte one */
_Thread_local long dc_test_tls[3];

char *dc_test_twin_fixture(void);

struct target {
	const char *name, *file;
	int count;
	struct dc_elfsym s;
};

static int find(void *ud, const struct dc_elfsym *s)
{
	for (struct target *t = ud; t->name; t++) {
		if (strcmp(s->name, t->name) == 0 &&
		    (t->file ? s->file && strcmp(s->file, t->file) == 0 : !s->file)) {
			t->s = *s;
			t->count++;
		}
	}
	return 0;
}

static uint8_t *read_self(size_t *len)
{
	FILE *f = fopen("/proc/self/exe", "rb");
	CHECK(f);
	CHECK(fseek(f, 0, SEEK_END) == 0);
	long n = ftell(f);
	CHECK(n > 0);
	uint8_t *img = malloc((size_t)n);
	CHECK(img);
	rewind(f);
	CHECK(fread(img, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return img;
}

DC_TEST(elfsym, self_globals_locals_and_tls)
{
	struct target t[] = {
		{ .name = "dc_test_global_array" },
		{ .name = "dc_test_twin", .file = "test_elfsym.c" },
		{ .name = "dc_test_twin", .file = "elfsym_fixture.c" },
		{ .name = "dc_test_tls" },
		{ .name = "main" },                     /* a function */
		{ .name = NULL },
	};
	size_t len;
	uint8_t *img = read_self(&len);

	CHECK_EQ(dc_elfsym_scan(img, len, find, t), 0);
	free(img);
	for (int i = 0; i < 4; i++)
		CHECK_EQ(t[i].count, 1);
	CHECK_EQ(t[4].count, 0);

	CHECK_EQ(t[0].s.size, sizeof dc_test_global_array);
	CHECK(t[0].s.global && !t[0].s.tls);
	CHECK_EQ(t[1].s.size, sizeof dc_test_twin);
	CHECK(!t[1].s.global);
	CHECK_EQ(t[2].s.size, 13);
	CHECK(t[3].s.tls && t[3].s.global);
	CHECK_EQ(t[3].s.size, sizeof dc_test_tls);

	/* The load bias is the same for all three, so differences match. */
	uintptr_t g = (uintptr_t)dc_test_global_array;
	CHECK_EQ((uintptr_t)dc_test_twin - g, t[1].s.value - t[0].s.value);
	CHECK_EQ((uintptr_t)dc_test_twin_fixture() - g, t[2].s.value - t[0].s.value);
}

/* The section headers are at the end of what ld writes, so any shorter
 * prefix is rejected. */
DC_TEST(elfsym, self_truncations_are_rejected)
{
	size_t len, bad;
	struct seen v;
	uint8_t *img = read_self(&len);

	for (bad = 0; bad < len; bad += bad < 4096 ? 1 : len / 256)
		if (scan_exact(img, bad, &v) != DC_EINVAL)
			break;
	free(img);
	CHECK(bad >= len);      /* else the prefix of length bad was accepted */
}
