/* nat.h — the native engine's runtime: shared state of its files.
 *
 * The runtime is a shared object `dcprof record --engine=native` preloads
 * into the program (docs/engine-native.md).  It feeds the core's object
 * map, tables and raw-dump writer from perf_event_open samples and from
 * the allocation calls it wraps.  Everything here runs inside the
 * program, so: one lock (nat.lock) guards all of the state below; the
 * runtime's own memory comes from glibc's allocator entry points
 * (__libc_malloc, nat_mem.c), never from the wrapped ones; and a thread-local flag
 * turns the wrappers into plain forwards while the runtime itself runs.
 */
#ifndef DC_NAT_H
#define DC_NAT_H

#include <pthread.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "core/hier.h"
#include "core/objmap.h"
#include "core/blockmap.h"
#include "core/blockset.h"
#include "core/costtab.h"
#include "core/rectab.h"
#include "core/rawout.h"
#include "core/smpfile.h"

#define NAT_MAX_FRAMES 24     /* allocation call path kept per block */
#define NAT_MAX_DEPS 8        /* libraries loaded only for the runtime */

/* glibc's allocator entry points: the runtime's own memory, and what the
 * wrappers forward to. */
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);
void __libc_free(void *p);
/* nat_mem.c: the runtime's memory zeroed and grown with its own memset
 * and memcpy (not glibc's calloc and realloc), so the pages it first
 * touches are the runtime's samples */
void *nat_zalloc(size_t n);
void *nat_realloc(void *p, size_t n);

enum nat_event {
	NAT_EV_PAGEFAULT,     /* software page faults: first touches */
	NAT_EV_CPUCLOCK,      /* cpu-clock: IP-only samples */
	NAT_EV_REPLAY,        /* samples read from a file (nat_replay.c) */
	NAT_EV_PMU,           /* PEBS, IBS or SPE: data-address samples (nat_pmu.c) */
};

/* A PMU event as dcprof record probed it (DCPROF_NATIVE_PMU, nat_pmu.c):
 * one per PMU, two on a hybrid Intel CPU. */
#define NAT_MAX_PMU 2
enum nat_pmu_kind { NAT_PMU_PEBS, NAT_PMU_IBS, NAT_PMU_SPE };
struct nat_pmu {
	uint8_t kind;             /* enum nat_pmu_kind */
	uint8_t precise_ip, exclude_kernel;
	bool has_leader;          /* Intel's mem-loads-aux, config leader */
	uint32_t type;
	uint64_t config, config1, config2, leader;
};

/* A thread's event of one PMU: its ring, and for SPE its AUX area. */
struct nat_pmu_ring {
	int fd, leader_fd;
	uint8_t kind;
	bool no_poll;             /* IBS with --reuse-sample: wakes per sample, drained on the timer */
	void *ring, *aux;
	/* --reuse-sample with IBS or SPE: the offset of the ring (IBS) or AUX
	 * area (SPE) nat_rdx.c's handler has read up to; the reader stops
	 * there (NULL: no limit) */
	const uint64_t *lead;
};

enum nat_kind { NAT_K_GLOBAL, NAT_K_HEAP, NAT_K_STACK, NAT_K_UNKNOWN, NAT_K_TLS, NAT_K_MMAP };
/* dc_obj flags: a heap block whose block record is written (nat_dump_alloc) */
#define NAT_F_RECORDED 1u

struct nat_bucket {
	char *name;               /* "-" for heap buckets finalize names */
	uint8_t kind;             /* enum nat_kind */
	uint32_t npath;           /* heap: the call path, innermost first */
	uint64_t *path;
	uint64_t blocks, live, live_bytes, max_live, max_live_bytes, total_bytes;
	uint64_t min_size, max_size;
};

/* One thread the runtime follows. */
struct nat_thread {
	pid_t tid;
	uint32_t num;             /* 1 = the process's first thread, then in order */
	int fd;                   /* perf event, -1 when none */
	void *ring;               /* its mmap'ed ring: header page + data */
	uint64_t stack_lo, stack_hi;
	bool done;                /* exited: drained and closed */
	/* NAT_EV_PMU: fd and ring above are pmu[0]'s */
	struct nat_pmu_ring pmu[NAT_MAX_PMU];
	uint32_t npmu;
	struct nat_tls_copy *tls; /* its copies of the thread-local variables */
	uint32_t ntls;
};

struct nat_tls_copy {
	struct dc_obj *o;
	uint32_t gen;             /* o is still this copy while o->gen == gen */
};

/* (bucket, location, thread) -> pages first touched. */
struct nat_ftouch {
	uint32_t bucket, loc, thread;
	uint32_t pad;
	uint64_t pages;
};

/* (location, thread) -> samples x period, for IP-only samples. */
struct nat_ipsamp {
	uint32_t loc, thread;
	uint64_t count;
};

struct nat_state {
	pthread_mutex_t lock;
	bool ready;               /* the constructor has run */
	bool off;                 /* no configuration: the runtime does nothing */
	pid_t pid;                /* the process the state is of (a vfork child is not) */
	/* configuration (environment of the process, set by dcprof record) */
	char *out;                /* dump path template (%p = pid) */
	enum nat_event event;
	const char *event_name;
	uint64_t period;
	char *replay;             /* --replay file */
	struct nat_pmu pmu[NAT_MAX_PMU];   /* NAT_EV_PMU's events */
	uint32_t npmu;
	char *pmu_event;          /* --event (mem-loads, ...), meta pmu_event */
	const char *replay_kind;  /* its kind: pebs, ibs, spe */
	unsigned depth;           /* frames of a call path kept (alloc_depth) */
	char *alloc_fns;          /* --alloc-fn names, comma-separated */
	uint64_t ckpt_ms;         /* checkpoint interval, 0 = none */
	/* --reuse-sample (nat_rdx.c): a use every rdx_period page faults */
	uint64_t rdx_period, rdx_seed, rdx_first, rdx_growth;
	unsigned rdx_wp;
	bool rdx_oldest, rdx_noattrib;
	struct dc_hier hier;
	uint32_t lat[DC_MAX_LEVELS + 2];
	/* the dump */
	char path[4096];
	int fd;
	struct dc_rawout *raw;
	uint64_t block_records, block_records_dropped, max_block_records;
	/* objects: small heap blocks in blocks, the others in objs */
	struct dc_blockmap blocks;
	struct dc_objmap objs;
	struct dc_objmap regions;       /* mappings, looked up when no object holds an address */
	struct nat_bucket *buckets;
	uint32_t nbuckets, bucket_cap;
	uint32_t *bucket_slots;   /* hash of names/paths -> id + 1 */
	uint32_t bucket_slot_cap;
	uint32_t stack_bucket, unknown_bucket, malloc_bucket;
	uint64_t alloc_seq;       /* allocation events so far */
	uint64_t region_seq;      /* mappings so far: not allocation events */
	/* code locations */
	uint64_t *loc_ip;
	uint32_t nlocs, loc_cap;
	uint32_t *loc_slots;
	uint32_t loc_slot_cap;
	/* threads */
	struct nat_thread **threads;
	uint32_t nthreads, thread_cap;
	uint32_t next_num;
	/* results */
	struct dc_blockset touched;     /* (page, object) pairs seen */
	struct dc_rectab ftouch;        /* struct nat_ftouch */
	struct dc_rectab ipsamp;        /* struct nat_ipsamp */
	struct dc_costtab scosts;       /* data-address samples (replay, PEBS) */
	uint64_t samples, lost, runtime_samples, unattributed;
	uint64_t kernel_samples;  /* PMU samples with a kernel IP (IBS without exclude_kernel) */
	uint64_t other_samples;   /* PMU samples of no load or store (IBS samples every op) */
	uint64_t aux_truncated, ring_skipped;
	uint64_t replay_unresolved;   /* replayed samples whose object is not in this run */
	/* the runtime's own text, whose samples and frames are skipped */
	uint64_t self_lo, self_hi;
	/* the libraries loaded only for the runtime (nat_deps.c) */
	struct { uint64_t lo, hi; } deps[NAT_MAX_DEPS];
	uint32_t ndeps;
	/* the brk heap's start (the allocator's memory no block covers is
	 * <malloc>, nat_bucket_at) */
	uint64_t brk_lo;
	uint64_t start_ms, ckpt_next_ms, checkpoints;
	bool exited;
	int exit_code;
};

extern struct nat_state nat;
extern const struct dc_env nat_env;

/* nat_main.c */
void nat_lock(void);
void nat_unlock(void);
uint64_t nat_now_ms(void);
/* The calling thread's record, made (and its event opened) on first use;
 * NULL while the runtime is off.  Call with the lock held. */
struct nat_thread *nat_self(void);
/* True while the calling thread runs the runtime's own code: wrappers
 * forward without recording. */
bool nat_busy(void);
void nat_busy_set(bool on);

/* nat_pmu.c: DCPROF_NATIVE_PMU, and the events of a thread */
bool nat_pmu_configure(const char *spec);
int nat_pmu_open(struct nat_thread *t);
void nat_pmu_close(struct nat_thread *t);
void nat_pmu_forget(struct nat_thread *t);
void nat_pmu_drain(struct nat_thread *t);

/* nat_perf.c */
size_t nat_page_size(void);
int nat_perf_open(struct nat_thread *t);
void nat_perf_close(struct nat_thread *t);
/* Reads every thread's ring; lock held. */
void nat_perf_drain_all(void);
/* A small heap block [lo, lo + size) ended: --event=pagefault counts its
 * pages again for a later block at the same place. */
void nat_perf_block_gone(uint64_t lo, uint64_t size);
/* One sample as the decoders give it (the normalized sample: what PEBS,
 * IBS and SPE records have in common). */
struct nat_smp {
	uint32_t thread;          /* nat_thread.num (decoders: 0, see tid) */
	uint32_t tid;             /* the kernel's thread id the record names */
	uint64_t ip;
	bool has_addr;            /* false: IP-only (cpu-clock) */
	bool is_write;
	uint8_t level;            /* level that served the access: 1..4 (L1..L4),
				     DC_SMP_MEM, 0 unknown */
	uint32_t latency;         /* cycles the access took, 0 when the record has none */
	uint64_t addr;
	uint64_t weight;          /* events the sample stands for (the period) */
	uint64_t time;            /* the record's time stamp */
};
/* The thread numbered for kernel thread id tid, 0 when none; lock held. */
uint32_t nat_thread_num(uint32_t tid);
/* Records are read and written in the host's byte order, unaligned. */
static inline uint64_t nat_get64(const unsigned char *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, 8);
	return v;
}

static inline void nat_put64(unsigned char *p, uint64_t v)
{
	__builtin_memcpy(p, &v, 8);
}
/* Attributes one sample; lock held. */
void nat_sample(const struct nat_smp *s);

/* nat_objs.c */
void nat_objs_init(void);
uint32_t nat_bucket_get(const char *name, enum nat_kind kind);
uint32_t nat_bucket_path(enum nat_kind kind, const uint64_t *path, uint32_t n);
void nat_bucket_add_block(uint32_t b, uint64_t size);
void nat_bucket_drop_block(uint32_t b, uint64_t size);
uint32_t nat_loc_get(uint64_t ip);
/* The bucket holding addr (objects, thread stacks, the brk heap's
 * memory outside blocks as <malloc>, else <unknown>) and the identity of
 * the object holding it: its allocation sequence number + 1 (globals 1)
 * for the object map's, nat_small_ident(lo) for the compact block map's
 * (which keeps no sequence number), the mapping's sequence number + 1
 * with bit 63 for a region, NAT_MALLOC_IDENT for <malloc>, 0 when no
 * object holds addr. */
uint32_t nat_bucket_at(uint64_t addr, uint64_t *seq);
/* The identity of the brk heap's memory outside blocks (<malloc>): a
 * region's bit with no region's sequence number (those are 2 or more). */
#define NAT_MALLOC_IDENT (1ULL << 63)
static inline uint64_t nat_small_ident(uint64_t lo)
{
	return lo >> 4 | 1ULL << 62;
}
void nat_globals_scan(void);

/* Scans the objects loaded since the last scan (dlopen); lock held. */
void nat_globals_rescan(void);
/* Forgets the objects of modules no longer loaded (dlclose); lock held. */
void nat_globals_unloaded(void);
/* [lo, hi) is a region named name (kind NAT_K_MMAP), or, name NULL, an
 * anonymous one of the call path; lock held. */
void nat_region_add(uint64_t lo, uint64_t hi, const char *name, const uint64_t *path,
		    uint32_t n);
/* Objects and regions that start inside [lo, hi) end; lock held. */
void nat_objs_unmapped(uint64_t lo, uint64_t hi);

/* nat_maps.c: the runtime's own mappings, which the wrappers must not see */
void *nat_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int nat_sys_munmap(void *addr, size_t len);

/* nat_deps.c: which loaded libraries only the runtime needs (at start
 * and after dlopen; lock held), and whether an instruction is the
 * runtime's: its own text or theirs. */
void nat_deps_scan(void);
bool nat_runtime_ip(uint64_t ip);

/* nat_tls.c */
/* A module with a PT_TLS segment of memsz bytes whose block is tpoff from
 * the thread pointer in every thread (static TLS); returns its index. */
uint32_t nat_tls_module(int64_t tpoff, uint64_t memsz);
void nat_tls_var(uint32_t mod, const char *name, uint64_t off, uint64_t size);
/* The thread pointer of the calling thread. */
uint64_t nat_tls_tp(void);
/* The calling thread t's copies become objects / end; lock held. */
void nat_tls_thread_add(struct nat_thread *t);
void nat_tls_thread_drop(struct nat_thread *t);

/* nat_heap.c */
void nat_heap_init(void);
/* The call path of the calling code: return addresses outside the
 * runtime, innermost first, at most NAT_MAX_FRAMES. */
uint32_t nat_call_path(uint64_t *out);

/* nat_dump.c */
void nat_dump_open(void);
/* A heap block allocated: its block record (FREE 0) while fewer than
 * --max-block-records are written; true when written (the block is then
 * "recorded" and its end a bfree record, nat_dump_free). */
bool nat_dump_alloc(uint32_t bucket, uint64_t lo, uint64_t size, uint64_t alloc_seq);
void nat_dump_free(uint64_t lo, uint64_t free_seq);
/* Writes the rest of the dump and closes it (complete: normal exit). */
void nat_dump_finish(bool complete);
void nat_dump_checkpoint(void);
/* A forked child's own dump, counts from zero. */
void nat_dump_child(void);
/* Before an exec: the image's dump, whole, renamed PATH.N. */
void nat_dump_exec(const char *path);
void nat_dump_exec_failed(void);

/* The decoders (nat_pebs.c, nat_ibs.c, nat_spe.c): one record of their
 * kind into a normalized sample, 0 or -1 when the record is malformed or
 * is no data-address sample; and the encoders --replay uses to build the
 * record a sample file's line stands for (bytes written, 0: no room).
 * SPE records carry no period: the decoder takes the session's. */
#define NAT_PEBS_SAMPLE_TYPE DC_PEBS_SAMPLE_TYPE
#define NAT_IBS_SAMPLE_TYPE DC_IBS_SAMPLE_TYPE
#define NAT_SPE_SAMPLE_TYPE DC_SPE_SAMPLE_TYPE
int nat_pebs_decode(const unsigned char *rec, size_t len, struct nat_smp *s);
size_t nat_pebs_encode(const struct nat_smp *s, unsigned char *buf, size_t cap);
int nat_ibs_decode(const unsigned char *rec, size_t len, struct nat_smp *s);
size_t nat_ibs_encode(const struct nat_smp *s, unsigned char *buf, size_t cap);
int nat_spe_decode(const unsigned char *rec, size_t len, uint64_t period, struct nat_smp *s);
size_t nat_spe_encode(const struct nat_smp *s, unsigned char *buf, size_t cap);

/* nat_replay.c: --replay.  Reads the file at start; the allocation
 * wrappers call nat_replay_until before each allocation event (samples
 * up to that time are attributed while the blocks they hit exist) and
 * nat_replay_block for each new block; the end of the run replays the
 * rest (seq UINT64_MAX).  No-ops without --replay; lock held. */
void nat_replay_load(const char *path);
void nat_replay_until(uint64_t seq);
void nat_replay_block(uint64_t seq, uint64_t lo);

/* nat_rdx.c: sampled reuse with hardware watchpoints (--reuse-sample) */
#define NAT_RDX_MAX_WP 4      /* x86's debug registers */
void nat_rdx_init(void);
/* On the thread itself, after its event is open / before it exits. */
void nat_rdx_open(struct nat_thread *t);
void nat_rdx_close(struct nat_thread *t);
/* Attributes what the threads' watchpoints queued; lock held. */
void nat_rdx_drain_all(void);
/* The image ends: armed uses are never reused. */
void nat_rdx_end(void);
void nat_rdx_child(void);
void nat_rdx_dump(struct dc_rawout *o);

/* nat_rdx_use.c: use points from IBS's ring or SPE's AUX area.  Of the
 * records with a data address, every `every`-th is a use (seen counts
 * them); SPE records take period as their weight. */
struct nat_rdx_pick {
	uint8_t kind;             /* NAT_PMU_IBS or NAT_PMU_SPE */
	uint64_t every, seen, period;
};
typedef void (*nat_use_fn)(void *ud, uint64_t addr, uint64_t ip);
/* Passes each use in buf[from, head) (offsets modulo size, a power of
 * two) to fn; returns the offset read up to (a record cut by head is
 * left).  Async-signal-safe. */
uint64_t nat_rdx_uses(struct nat_rdx_pick *p, const unsigned char *buf, uint64_t size,
		      uint64_t from, uint64_t head, nat_use_fn fn, void *ud);

#endif
