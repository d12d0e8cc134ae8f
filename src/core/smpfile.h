/* smpfile.h — the sample file `dcprof record --engine=native --replay` reads.
 *
 * Notes:
 *  - Text, one sample a line; the first line names the kind of hardware
 *    record each sample is replayed as: "dcprof-samples pebs", "... ibs"
 *    or "... spe", optionally followed by the event the samples count
 *    ("dcprof-samples pebs D1m"; meta sample_event).  Blank lines and lines starting with '#' are skipped.
 *  - A sample: ADDRESS IP WEIGHT OP SOURCE THREAD TIME, separated by
 *    blanks (docs/engine-native.md, "Replay", has the table).
 *    ADDRESS is absolute (0xHEX) or relative to an object of the run the
 *    samples are replayed into: heap:SEQ+0xOFF (the heap block of
 *    allocation event SEQ), global:NAME+0xOFF (the global named NAME as
 *    dcprof names it), stack:+0xOFF (below the thread's stack top), or
 *    "-" (no object).  IP is absolute or OBJECT+0xOFF (an offset in the
 *    ELF file whose base name is OBJECT: its virtual address).  Names are
 *    %XX-escaped: blanks, '%', '+' and bytes outside printable ASCII.
 *  - SOURCE is the level that served the access: L1..L4 or MEM; IBS and
 *    SPE records name no level below L3 (their data sources stop at the
 *    last-level cache), so L4 is refused for them.
 *  - The parser allocates nothing: names point into the caller's line.
 */
#ifndef DC_SMPFILE_H
#define DC_SMPFILE_H

#include "core/port.h"

enum dc_smp_kind { DC_SMP_PEBS, DC_SMP_IBS, DC_SMP_SPE };
enum dc_smp_where { DC_SMP_ABS, DC_SMP_HEAP, DC_SMP_GLOBAL, DC_SMP_STACK, DC_SMP_NONE };

#define DC_SMP_MEM 5            /* SOURCE MEM: served by memory */

/* The perf_event_attr.sample_type of each kind's live records, which its
 * decoder (src/engine/native/nat_pebs.c, nat_ibs.c) reads field by field;
 * `dcprof record` opens the same when it probes the PMU.  The bits of
 * linux/perf_event.h, enum perf_event_sample_format: IP 1 << 0, TID 1 << 1,
 * TIME 1 << 2, ADDR 1 << 3, PERIOD 1 << 8, RAW 1 << 10, WEIGHT 1 << 14,
 * DATA_SRC 1 << 15 (the native runtime checks them against the header).
 * SPE writes its records to the AUX area: its ring's samples carry only
 * IP, TID and TIME. */
#define DC_PEBS_SAMPLE_TYPE 0xc10fULL   /* IP TID TIME ADDR PERIOD WEIGHT DATA_SRC */
#define DC_IBS_SAMPLE_TYPE 0x507ULL     /* IP TID TIME PERIOD RAW */
#define DC_SPE_SAMPLE_TYPE 0x7ULL       /* IP TID TIME */

struct dc_smpline {
	uint8_t where;            /* enum dc_smp_where */
	bool is_write;
	uint8_t level;            /* 1..4 (L1..L4) or DC_SMP_MEM */
	uint64_t addr;            /* ABS: the address; else the offset in the object */
	uint64_t seq;             /* HEAP: the block's allocation sequence number */
	const char *name;         /* GLOBAL: the object's name, escaped */
	size_t name_len;
	const char *ip_obj;       /* IP relative to this file (escaped), NULL: absolute */
	size_t ip_obj_len;
	uint64_t ip;
	uint64_t weight;          /* events the sample stands for, >= 1 */
	uint32_t thread;          /* >= 1 */
	uint64_t time;            /* allocation events before the sample */
};

/* The kind named by a file's first line (without its newline), or -1;
 * event gets the event the samples count, which the line may name after
 * the kind (D1m..D4m, DLm, Dr, Dw, Da; default Da). */
int dc_smpfile_kind(const char *line, size_t len, char event[4]);
extern const char *const dc_smp_kind_name[3];

/* Parses one line (without its newline): 1 a sample, 0 blank or comment,
 * -1 malformed (err says why). */
int dc_smpline_parse(int kind, const char *line, size_t len, struct dc_smpline *out,
		     char *err, size_t errlen);

/* Unescapes n bytes of a name into out (NUL-terminated); false when the
 * escapes are malformed or out is too small. */
bool dc_smp_unescape(const char *s, size_t n, char *out, size_t outlen);

#endif
