/* test_elfsym.c — the ELF symbol reader on a hand-built image (every rule in
 * elfsym.h's Notes, every truncation, corrupted bytes) and on this test
 * binary's own symbol table, as GCC and ld wrote it.
 *
 * The builder uses <elf.h>'s structs while the reader uses hand-written
 * offsets, so the two check each other. */
#include <elf.h>
#include <sys/auxv.h>
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
	/* a program's copy of a versioned symbol, a versioned definition */
	{ "g_copy@GLIBC_2.2.5", STT_OBJECT, STB_GLOBAL, 5, 0x1160, 8 },
	{ "g_def@@VER_1", STT_OBJECT, STB_GLOBAL, 5, 0x1170, 8 },
};
#define NTSYM (sizeof tsyms / sizeof tsyms[0])

static const struct dc_elfsym want[] = {
	{ "a_local", 7, "a.c", 0x1000, 4, false, false },
	{ "ld_local", 8, NULL, 0x1020, 8, false, false },
	{ "b_tls", 5, "b.c", 0x10, 8, false, true },
	{ "g_weak", 6, NULL, 0x1040, 24, true, false },
	{ "g_obj", 5, NULL, 0x1060, 0x100, true, false },
	{ "g_copy@GLIBC_2.2.5", 6, NULL, 0x1160, 8, true, false },   /* g_copy */
	{ "g_def@@VER_1", 5, NULL, 0x1170, 8, true, false },         /* g_def */
};
#define NDYN 4          /* the globals want lists: those .dynsym holds */
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

/* s ends inside the image, n bytes in (or, for a versioned name, at
 * its '@'). */
static void check_string(const struct seen *v, const char *s, size_t n)
{
	const uint8_t *p = (const uint8_t *)s, *end;
	CHECK(p >= v->img && p < v->img + v->len);
	end = memchr(p, 0, (size_t)(v->img + v->len - p));
	CHECK(end && (end == p + n || (end > p + n && p[n] == '@')));
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
	check_seen(&v, NWANT - NDYN, NDYN);
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

/* ---- program headers, DT_SONAME, TLS placement ------------------------- */

/* An ELF header followed by program headers, as ld writes them. */
struct phimage {
	uint8_t b[1024];
	size_t len;
};

static void build_ph(struct phimage *im, const Elf64_Phdr *ph, int n)
{
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_phoff = sizeof eh, .e_ehsize = sizeof eh,
		.e_phentsize = sizeof(Elf64_Phdr), .e_phnum = (uint16_t)n,
	};
	memset(im, 0, sizeof *im);
	memcpy(im->b, &eh, sizeof eh);
	memcpy(im->b + sizeof eh, ph, (size_t)n * sizeof *ph);
	im->len = sizeof eh + (size_t)n * sizeof *ph;
}

/* The layout of globals_aligned's library: a .bss alone in a segment with
 * no file bytes (p_offset 0, p_filesz 0), a TLS template, an empty PT_TLS
 * that does not count. */
static const Elf64_Phdr lib_ph[] = {
	{ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = 0, .p_vaddr = 0,
	  .p_filesz = 0x4b8, .p_memsz = 0x4b8, .p_align = 0x1000 },
	{ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0x1000, .p_vaddr = 0x1000,
	  .p_filesz = 0x15d, .p_memsz = 0x15d, .p_align = 0x1000 },
	{ .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = 0x2e60, .p_vaddr = 0x3e60,
	  .p_filesz = 0x1a8, .p_memsz = 0x1a8, .p_align = 0x1000 },
	{ .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = 0, .p_vaddr = 0x8000,
	  .p_filesz = 0, .p_memsz = 0x9000, .p_align = 0x8000 },
	{ .p_type = PT_TLS, .p_flags = PF_R, .p_offset = 0x2de0, .p_vaddr = 0x3de0,
	  .p_filesz = 0x10, .p_memsz = 0x200, .p_align = 0x10 },
	{ .p_type = PT_TLS, .p_memsz = 0 },
};
#define NLIB_PH (int)(sizeof lib_ph / sizeof lib_ph[0])

DC_TEST(elfsym, phdrs_segments_span_and_tls)
{
	struct phimage im;
	struct dc_elfimage e;
	size_t need = 0;

	build_ph(&im, lib_ph, NLIB_PH);
	CHECK_EQ(dc_elfsym_phdrs(im.b, im.len, &e, &need), 0);
	CHECK_EQ(e.type, DC_ET_DYN);
	CHECK(!e.interp);
	CHECK_EQ(e.nload, 4);
	CHECK_EQ(e.load[3].vaddr, 0x8000);
	CHECK_EQ(e.load[3].filesz, 0);
	CHECK_EQ(e.load[3].memsz, 0x9000);
	CHECK_EQ(e.load[3].align, 0x8000);
	CHECK_EQ(e.load[1].flags, DC_PF_R | DC_PF_X);
	CHECK_EQ(e.load[1].offset, 0x1000);
	CHECK_EQ(e.span_lo, 0);
	CHECK_EQ(e.span_hi, 0x11000);
	CHECK(e.tls);
	CHECK_EQ(e.tls_seg.vaddr, 0x3de0);
	CHECK_EQ(e.tls_seg.filesz, 0x10);
	CHECK_EQ(e.tls_seg.memsz, 0x200);
	CHECK_EQ(e.tls_seg.align, 0x10);
}

DC_TEST(elfsym, phdrs_need_more_bytes_then_read)
{
	struct phimage im;
	struct dc_elfimage e;
	size_t need = 0;

	build_ph(&im, lib_ph, NLIB_PH);
	for (size_t len = 64; len < im.len; len++) {
		need = 0;
		CHECK_EQ(dc_elfsym_phdrs(im.b, len, &e, &need), DC_ERANGE);
		CHECK_EQ(need, im.len);
	}
	for (size_t len = 0; len < 64; len++)
		CHECK_EQ(dc_elfsym_phdrs(im.b, len, &e, &need), DC_EINVAL);
}

DC_TEST(elfsym, phdrs_rejects_malformed)
{
	Elf64_Phdr many[DC_ELF_MAX_LOAD + 1], none[1] = { { .p_type = PT_TLS, .p_memsz = 8 } };
	struct phimage im;
	struct dc_elfimage e;
	size_t need;

	for (int i = 0; i <= DC_ELF_MAX_LOAD; i++)
		many[i] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_vaddr = 0x1000u * (unsigned)i,
					.p_memsz = 0x10 };
	build_ph(&im, many, DC_ELF_MAX_LOAD);
	CHECK_EQ(dc_elfsym_phdrs(im.b, im.len, &e, &need), 0);
	CHECK_EQ(e.nload, DC_ELF_MAX_LOAD);
	CHECK_EQ(e.span_hi, 0x1000u * (DC_ELF_MAX_LOAD - 1) + 0x10);
	build_ph(&im, many, DC_ELF_MAX_LOAD + 1);
	CHECK_EQ(dc_elfsym_phdrs(im.b, im.len, &e, &need), DC_EINVAL);
	build_ph(&im, none, 1);                         /* no PT_LOAD */
	CHECK_EQ(dc_elfsym_phdrs(im.b, im.len, &e, &need), DC_EINVAL);
	build_ph(&im, lib_ph, NLIB_PH);
	ehdr((struct image *)(void *)&im)->e_phentsize = 32;
	CHECK_EQ(dc_elfsym_phdrs(im.b, im.len, &e, &need), DC_EINVAL);
	build_ph(&im, lib_ph, NLIB_PH);
	ehdr((struct image *)(void *)&im)->e_phoff = UINT64_MAX - 8;
	CHECK_EQ(dc_elfsym_phdrs(im.b, im.len, &e, &need), DC_EINVAL);
	build_ph(&im, lib_ph, NLIB_PH);
	((Elf64_Phdr *)(im.b + 64))[2].p_memsz = UINT64_MAX;   /* wraps */
	CHECK_EQ(dc_elfsym_phdrs(im.b, im.len, &e, &need), DC_EINVAL);
}

/* This binary's program headers as the kernel and ld.so see them. */
DC_TEST(elfsym, phdrs_of_self)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)getauxval(AT_PHDR);
	size_t n = getauxval(AT_PHNUM), len, need;
	uint8_t *img = read_self(&len);
	struct dc_elfimage e;
	unsigned loads = 0;
	bool tls = false;

	CHECK_EQ(dc_elfsym_phdrs(img, len, &e, &need), 0);
	free(img);
	CHECK(e.interp);
	for (size_t i = 0; i < n; i++) {
		if (ph[i].p_type == PT_LOAD) {
			CHECK(loads < e.nload);
			CHECK_EQ(e.load[loads].vaddr, ph[i].p_vaddr);
			CHECK_EQ(e.load[loads].memsz, ph[i].p_memsz);
			CHECK_EQ(e.load[loads].offset, ph[i].p_offset);
			loads++;
		} else if (ph[i].p_type == PT_TLS) {
			tls = true;
			CHECK_EQ(e.tls_seg.memsz, ph[i].p_memsz);
			CHECK_EQ(e.tls_seg.align, ph[i].p_align);
		}
	}
	CHECK_EQ(loads, e.nload);
	CHECK(tls && e.tls);            /* dc_test_tls */
}

/* Sections [0] null, [1] .dynstr, [2] .dynamic. */
static size_t build_dyn(uint8_t *b, const char *soname, bool terminate)
{
	static const char str[] = "\0libneeded.so.1\0libself.so.2";
	Elf64_Dyn dyn[3] = {
		{ .d_tag = DT_NEEDED, .d_un.d_val = 1 },
		{ .d_tag = soname ? DT_SONAME : DT_DEBUG, .d_un.d_val = 16 },
		{ .d_tag = terminate ? DT_NULL : DT_DEBUG },
	};
	Elf64_Shdr sh[3];
	size_t off = sizeof(Elf64_Ehdr), stroff, dynoff, shoff;

	memset(b, 0, 1024);
	memset(sh, 0, sizeof sh);
	stroff = off;
	memcpy(b + off, str, sizeof str);
	off += sizeof str;
	dynoff = off = (off + 7) & ~(size_t)7;
	memcpy(b + off, dyn, sizeof dyn);
	shoff = off += sizeof dyn;
	sh[1] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_offset = stroff, .sh_size = sizeof str };
	sh[2] = (Elf64_Shdr){ .sh_type = SHT_DYNAMIC, .sh_link = 1, .sh_offset = dynoff,
			      .sh_size = sizeof dyn, .sh_entsize = sizeof(Elf64_Dyn) };
	memcpy(b + off, sh, sizeof sh);
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_shoff = shoff, .e_ehsize = sizeof eh,
		.e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 3,
	};
	memcpy(b, &eh, sizeof eh);
	return off + sizeof sh;
}

DC_TEST(elfsym, soname)
{
	uint8_t b[1024];
	size_t len, slen;
	uint8_t *self = read_self(&slen);

	len = build_dyn(b, "libself.so.2", true);
	CHECK_STREQ(dc_elfsym_soname(b, len), "libself.so.2");
	len = build_dyn(b, NULL, true);
	CHECK_STREQ(dc_elfsym_soname(b, len), NULL);
	len = build_dyn(b, NULL, false);        /* no DT_NULL: the section's end */
	CHECK_STREQ(dc_elfsym_soname(b, len), NULL);
	for (size_t n = 0; n < len; n++)       /* truncated: never a read outside */
		CHECK_STREQ(dc_elfsym_soname(b, n), NULL);
	CHECK_STREQ(dc_elfsym_soname(self, slen), NULL);        /* a program has none */
	free(self);
}

/* glibc's arithmetic, worked by hand: blocks go down from the thread
 * pointer, each aligned; a gap alignment leaves is taken by a later block
 * that fits. */
DC_TEST(elfsym, tls_place_like_glibc)
{
	struct dc_elftls st;

	/* tls_threads: the program (0x1040, 16), its library (0x200, 16), libc
	 * (0x90, 8), as glibc 2.36 placed them in a run of the test */
	memset(&st, 0, sizeof st);
	CHECK_EQ(dc_elfsym_tls_place(&st, 0x1040, 16, 0x3d70), 0x1040);
	CHECK_EQ(dc_elfsym_tls_place(&st, 0x200, 16, 0x3de0), 0x1240);
	CHECK_EQ(dc_elfsym_tls_place(&st, 0x90, 8, 0x1cf8d0), 0x12d0);

	/* a gap: 8 bytes aligned to 64 leave [8, 64) free below tp - 64 ... */
	memset(&st, 0, sizeof st);
	CHECK_EQ(dc_elfsym_tls_place(&st, 8, 64, 0), 64);
	/* ... which a block of 16 takes (its offset 16, it ends at tp - 0) */
	CHECK_EQ(dc_elfsym_tls_place(&st, 16, 8, 0), 16);
	/* one of 100 does not fit what is left ([16, 56)): below the first */
	CHECK_EQ(dc_elfsym_tls_place(&st, 100, 4, 0), 164);

	/* a template not aligned in the file keeps its misalignment:
	 * tp - offset = p_vaddr (mod p_align) for tp aligned */
	memset(&st, 0, sizeof st);
	uint64_t off = dc_elfsym_tls_place(&st, 40, 16, 0x1004);
	CHECK_EQ(off, 44);
	CHECK_EQ((0 - off) & 15, 0x1004 & 15);
	/* p_align 0 is 1; 3 bytes fit the 4 that alignment left above it */
	CHECK_EQ(dc_elfsym_tls_place(&st, 3, 0, 0), 3);
	CHECK_EQ(dc_elfsym_tls_place(&st, 3, 0, 0), 47);
}

/* The program is module 1: its block ends at the thread pointer, so a
 * thread-local variable lies at tp - offset + st_value. */
DC_TEST(elfsym, tls_place_matches_this_thread)
{
	struct target t[] = { { .name = "dc_test_tls" }, { .name = NULL } };
	size_t len, need;
	uint8_t *img = read_self(&len);
	struct dc_elfimage e;
	struct dc_elftls st;

	CHECK_EQ(dc_elfsym_phdrs(img, len, &e, &need), 0);
	CHECK_EQ(dc_elfsym_scan(img, len, find, t), 0);
	free(img);
	CHECK_EQ(t[0].count, 1);
	memset(&st, 0, sizeof st);
	uint64_t off = dc_elfsym_tls_place(&st, e.tls_seg.memsz, e.tls_seg.align, e.tls_seg.vaddr);
	uintptr_t tp = (uintptr_t)__builtin_thread_pointer();
	CHECK_EQ((uintptr_t)dc_test_tls, tp - off + t[0].s.value);
}
