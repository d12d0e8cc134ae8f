/* dc_ckpt.c — checkpoints: the raw dump as it would be now, so that a
 * process killed by SIGKILL still leaves a profile of what ran.
 *
 * Notes:
 *  - Every --checkpoint-ms of wall time the engine copies itself with
 *    clone() and the copy, which holds the whole state of that instant,
 *    writes PATH.ckpt (PATH the raw dump's path): the bytes the dump had
 *    streamed so far, the meta checkpoint_ms (milliseconds since the run
 *    started), then what dc_dump_finish writes at exit, ending `end 0`.
 *    The copy writes PATH.ckpt.PID.tmp and renames it, so PATH.ckpt is
 *    always a whole dump; `dcprof record` uses it when the process left
 *    no finished dump of its own.
 *  - The copy is made without SIGCHLD: the program's wait() and waitpid(-1)
 *    do not see it, and it sends no signal when it ends.  The process goes
 *    on at once; it reaps the copy later (__WCLONE) and starts no new one
 *    while one is running.
 *  - The time is checked when a thread starts running client code (every
 *    scheduler time slice, at most every 100,000 superblocks), and only
 *    once per 2^16 superblocks run: a program that waits in a system call
 *    runs no code and takes no checkpoints, having nothing new to save.
 *  - Cost: the clone copies the page tables; afterwards the process's
 *    first write to each page takes a page fault, which copies the page
 *    while the copy lives (about 16 us a fault, measured on the bench
 *    workloads, docs/performance.md); and the copy's own work takes CPU
 *    time.  The cost of a checkpoint is estimated as the clone's time, the
 *    copy's CPU time (from wait4) and 16 us per minor fault the process
 *    took since (for the first checkpoint: since the run started, the
 *    pages it has touched), and the next one waits, beyond --checkpoint-ms,
 *    until that cost is at most --checkpoint-budget percent (default 2) of
 *    the time since the last (none: no wait).  Faults of freshly allocated
 *    memory count too, so a program that keeps touching new memory gets
 *    fewer checkpoints.
 *  - At exit a running copy is killed and its file removed, and once the
 *    dump is written the last checkpoint is removed: the dump supersedes
 *    it.
 *  - A forked child of the program has its own dump and checkpoints.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "engine/valgrind/dc_tool.h"

#define WCLONE 0x80000000u        /* __WCLONE: wait for children without SIGCHLD */
#define CHECK_BLOCKS (1ULL << 16) /* superblocks run between looks at the clock */
#define FAULT_US 16               /* what a page fault after a clone costs */

static struct {
	Int pid;                  /* the running copy, or 0 */
	UInt last_ms;             /* the last copy was made then (or the run started) */
	UInt clone_ms;            /* the clone took that long */
	UInt copy_ms;             /* the copy's CPU time (user + system) */
	ULong faults;             /* the process's minor faults then */
	ULong next_blocks;        /* the clock is looked at from then */
	ULong taken;              /* copies made */
} ck;

/* Raw system calls: VG_(fork) would send SIGCHLD when the copy ends. */
static SysRes sys(UWord no, UWord a1, UWord a2, UWord a3, UWord a4)
{
	return VG_(do_syscall)(no, a1, a2, a3, a4, 0, 0, 0, 0);
}

static ULong cpu_ms(const struct vki_rusage *ru)
{
	return (ULong)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000 +
	       (ULong)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1000;
}

/* True once the copy has ended (or when there is none); its CPU time is
 * then in ck.copy_ms. */
static Bool reaped(UWord options)
{
	struct vki_rusage ru;
	Int status;
	SysRes r;

	if (!ck.pid)
		return True;
	r = sys(__NR_wait4, (UWord)ck.pid, (UWord)&status, WCLONE | options, (UWord)&ru);
	if (!sr_isError(r) && sr_Res(r) == 0)
		return False;     /* WNOHANG: still running */
	ck.copy_ms = sr_isError(r) ? 0 : (UInt)cpu_ms(&ru);
	ck.pid = 0;
	return True;
}

/* PATH.ckpt, or with pid the file the copy pid writes (see the Notes). */
static HChar *ckpt_path(Int pid)
{
	SizeT len = VG_(strlen)(dc.raw_path) + 32;
	HChar *p = VG_(malloc)("dc.ckpt.path", len);

	if (pid)
		VG_(snprintf)(p, len, "%s.ckpt.%d.tmp", dc.raw_path, pid);
	else
		VG_(snprintf)(p, len, "%s.ckpt", dc.raw_path);
	return p;
}

/* Copies the first n bytes of the dump (as flushed before the clone) to fd. */
static Bool copy_dump(Int fd, Off64T n)
{
	SysRes sr = VG_(open)(dc.raw_path, VKI_O_RDONLY, 0);
	static char buf[1 << 16];
	Int in;
	Bool ok = True;

	if (sr_isError(sr))
		return False;
	in = (Int)sr_Res(sr);
	while (ok && n > 0) {
		Int want = n < (Off64T)sizeof buf ? (Int)n : (Int)sizeof buf;
		Int got = VG_(read)(in, buf, want);
		ok = got > 0 && VG_(write)(fd, buf, got) == got;
		n -= got;
	}
	VG_(close)(in);
	return ok;
}

/* In the copy: write PATH.ckpt and end. */
static void __attribute__((noreturn)) write_checkpoint(Off64T streamed, UInt ms)
{
	HChar *tmp = ckpt_path(VG_(getpid)()), *dst = ckpt_path(0);
	SysRes sr = VG_(open)(tmp, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
	Int ok = 0;

	if (!sr_isError(sr)) {
		/* The parent's descriptor shares its file offset: leave it alone. */
		dc.raw_fd = (Int)sr_Res(sr);
		dc_trace_detach_file();
		dc_smplog_detach();
		if (copy_dump(dc.raw_fd, streamed)) {
			dc_rawout_init(dc.raw, dc_fd_sink(&dc.raw_fd));
			dc_raw_meta_u64(dc.raw, "checkpoint_ms", ms);
			ok = dc_dump_write_tail(False) == 0 && VG_(rename)(tmp, dst) == 0;
		}
		if (!ok)
			VG_(unlink)(tmp);
	}
	sys(__NR_exit_group, ok ? 0 : 1, 0, 0, 0);
	for (;;)
		;
}

static ULong minor_faults(void)
{
	struct vki_rusage ru;

	if (sr_isError(sys(__NR_getrusage, VKI_RUSAGE_SELF, (UWord)&ru, 0, 0)))
		return 0;
	return (ULong)ru.ru_minflt;
}

/* Is a checkpoint due at now (see the Notes)? */
static Bool due(UInt now)
{
	ULong since = now - ck.last_ms, cost_us;

	if (since < (ULong)dc.opt.checkpoint_ms)
		return False;
	if (!dc.opt.checkpoint_budget)
		return True;      /* --checkpoint-budget=none */
	cost_us = (ck.clone_ms + ck.copy_ms) * 1000ULL + (minor_faults() - ck.faults) * FAULT_US;
	return since * 10 * (ULong)dc.opt.checkpoint_budget >= cost_us;
}

void dc_ckpt_start(void)
{
	VG_(memset)(&ck, 0, sizeof ck);
	ck.last_ms = VG_(read_millisecond_timer)();
	ck.faults = minor_faults();
}

void dc_ckpt_maybe(ULong blocks_done)
{
	Off64T streamed;
	UInt now;
	SysRes r;

	if (!dc.opt.checkpoint_ms || blocks_done < ck.next_blocks || !dc.raw)
		return;
	ck.next_blocks = blocks_done + CHECK_BLOCKS;
	now = VG_(read_millisecond_timer)();
	if (!reaped(VKI_WNOHANG) || !due(now))
		return;
	if (dc_rawout_finish(dc.raw))
		return;           /* the dump cannot be written: nor can a copy */
	streamed = VG_(lseek)(dc.raw_fd, 0, VKI_SEEK_CUR);
	if (streamed < 0)
		return;
	ck.faults = minor_faults();
	r = sys(__NR_clone, 0, 0, 0, 0);
	if (sr_isError(r))
		return;
	if (sr_Res(r) == 0)
		write_checkpoint(streamed, now);
	ck.pid = (Int)sr_Res(r);
	ck.taken++;
	ck.last_ms = now;
	ck.clone_ms = VG_(read_millisecond_timer)() - now;
}

void dc_ckpt_stop(void)
{
	Int pid = ck.pid;
	HChar *tmp;

	if (!pid)
		return;
	sys(__NR_kill, (UWord)pid, VKI_SIGKILL, 0, 0);
	reaped(0);
	tmp = ckpt_path(pid);
	VG_(unlink)(tmp);
	VG_(free)(tmp);
}

void dc_ckpt_discard(void)
{
	HChar *path = ckpt_path(0);

	VG_(unlink)(path);
	VG_(free)(path);
}

ULong dc_ckpt_taken(void)
{
	return ck.taken;
}

/* A forked child of the program: the parent's copy is not its own. */
void dc_ckpt_reset_child(void)
{
	dc_ckpt_start();
}
