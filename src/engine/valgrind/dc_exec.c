/* dc_exec.c — a process that calls execve: the image that ends leaves a
 * whole dump of its own, and one that fails to exec loses nothing.
 *
 * Notes:
 *  - The tool's pre-syscall hook runs before Valgrind's execve wrapper
 *    (coregrind's syswrap-main.c calls it first), while every thread of
 *    the image is still there and none runs.  The engine copies itself
 *    there (clone without SIGCHLD, as a checkpoint does) and waits for the
 *    copy: the copy appends to the dump what the exit writes, with meta
 *    `exec` (the path given to execve) and `end 1`, and finishes the
 *    --trace-out file.  Finishing a dump changes the state it is written
 *    from (it charges the lines still resident, pops the shadow call
 *    stacks, ends the trace window); in the copy, that costs the process
 *    nothing.
 *  - The dump PATH is then renamed PATH.N and the trace file FILE is
 *    renamed FILE.N, N the first number from 1 up for which PATH.N does
 *    not exist: the images a process ran, in exec order.  The checkpoint
 *    PATH.ckpt is removed, so it cannot stand for the next image.  When
 *    the exec succeeds, Valgrind runs the new image under the engine
 *    again (with --trace-children=yes) with the same options and pid, so
 *    it writes PATH and FILE afresh.
 *  - When the exec fails and the process goes on (no such file, no
 *    permission: Valgrind checks before it execs and returns the error),
 *    the post-syscall hook undoes it: both files are cut back to what the
 *    process had written, get their names back and are written on: the
 *    process's dump holds its whole run, as if it had not tried.  If
 *    Valgrind's checks pass but the kernel's exec fails, Valgrind ends
 *    the process (status 101); PATH.N is then its dump.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "engine/valgrind/dc_tool.h"

#define WCLONE 0x80000000u        /* __WCLONE: wait for children without SIGCHLD */

/* One file of the image set aside while the exec is under way. */
struct aside {
	Int fd;                   /* -1: none */
	Off64T len;               /* what the process had written */
	HChar *path, *moved;      /* its name, and the name it was given */
};

static struct {
	Bool pending;             /* an execve is under way */
	struct aside raw, trace;
} ex;

static SysRes sys(UWord no, UWord a1, UWord a2, UWord a3, UWord a4)
{
	return VG_(do_syscall)(no, a1, a2, a3, a4, 0, 0, 0, 0);
}

/* In the copy: finish the dump (and trace file) and end. */
static void __attribute__((noreturn)) write_image(const HChar *target)
{
	Int ok;

	dc_raw_meta(dc.raw, "exec", target);
	ok = dc_dump_write_tail(True) == 0;
	sys(__NR_exit_group, ok ? 0 : 1, 0, 0, 0);
	for (;;)
		;
}

static Bool exists(const HChar *path)
{
	struct vg_stat st;

	return !sr_isError(VG_(stat)(path, &st));
}

/* Before the copy appends to the file (it shares the file offset). */
static void note_length(struct aside *a, Int fd)
{
	a->fd = fd;
	if (fd >= 0)
		a->len = VG_(lseek)(fd, 0, VKI_SEEK_CUR);
}

static void set_aside(struct aside *a, const HChar *path, UInt n)
{
	SizeT len;

	if (a->fd < 0)
		return;
	len = VG_(strlen)(path) + 16;
	a->path = VG_(strdup)("dc.exec.path", path);
	a->moved = VG_(malloc)("dc.exec.moved", len);
	VG_(snprintf)(a->moved, len, "%s.%u", path, n);
	VG_(rename)(a->path, a->moved);
}

static void put_back(struct aside *a)
{
	if (a->fd < 0)
		return;
	sys(__NR_ftruncate, (UWord)a->fd, (UWord)a->len, 0, 0);
	VG_(lseek)(a->fd, a->len, VKI_SEEK_SET);
	VG_(rename)(a->moved, a->path);
	VG_(free)(a->path);
	VG_(free)(a->moved);
	a->fd = -1;
}

/* Valgrind reads the program it runs (VG_(pre_exec_check)): one that may
 * be executed but not read fails to exec with EACCES, as it would not
 * natively.  Say why. */
static void check_readable(const HChar *target)
{
	struct vg_stat st;
	SysRes sr;

	if (sr_isError(VG_(stat)(target, &st)) || !VKI_S_ISREG(st.mode) || !(st.mode & 0111))
		return;
	sr = VG_(open)(target, VKI_O_RDONLY, 0);
	if (!sr_isError(sr))
		VG_(close)((Int)sr_Res(sr));
	else if (sr_Err(sr) == VKI_EACCES)
		VG_(umsg)("dcprof: cannot exec '%s' under Valgrind: the program is not readable,"
			  " so execve fails with EACCES\n", target);
}

void dc_exec_pre(const HChar *target)
{
	const HChar *trace_path = NULL;
	Int trace_fd, status = 1;
	SizeT len;
	HChar *p;
	UInt n;
	SysRes r;

	check_readable(target);
	if (!dc.raw || ex.pending)
		return;
	dc_ckpt_stop();
	trace_fd = dc_trace_file_flush(&trace_path);
	dc_smplog_flush();
	if (dc_rawout_finish(dc.raw))
		return;           /* the dump cannot be written: nothing to save */
	note_length(&ex.raw, dc.raw_fd);
	note_length(&ex.trace, trace_fd);
	r = sys(__NR_clone, 0, 0, 0, 0);
	if (sr_isError(r)) {
		VG_(umsg)("dcprof: cannot write the raw dump before exec (clone failed)\n");
		return;
	}
	if (sr_Res(r) == 0)
		write_image(target);
	if (sr_isError(sys(__NR_wait4, sr_Res(r), (UWord)&status, WCLONE, 0)) || status != 0)
		VG_(umsg)("dcprof: writing the raw dump before exec failed\n");

	len = VG_(strlen)(dc.raw_path) + 16;
	p = VG_(malloc)("dc.exec.probe", len);
	for (n = 1;; n++) {
		VG_(snprintf)(p, len, "%s.%u", dc.raw_path, n);
		if (!exists(p))
			break;
	}
	VG_(free)(p);
	set_aside(&ex.raw, dc.raw_path, n);
	set_aside(&ex.trace, trace_path, n);
	dc_ckpt_discard();
	ex.pending = True;
}

void dc_exec_failed(void)
{
	if (!ex.pending)
		return;
	put_back(&ex.raw);
	put_back(&ex.trace);
	ex.pending = False;
}
