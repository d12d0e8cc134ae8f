/* nat_dump.c — the native runtime's raw dump (docs/raw-dump.md).
 *
 * Notes:
 *  - Files as the simulator engine names them ("Dump files of a
 *    process"): raw.PID is created when the image starts, with the header
 *    and meta; a block record is streamed into it as each of the first
 *    --max-block-records heap blocks is allocated (FREE 0), and a bfree
 *    record when one of those ends (docs/raw-dump.md): the block table
 *    needs no sequence number kept per live block (blockmap.h), and the
 *    blocks live at exit need no record at exit.  Buckets, locations,
 *    maps, counts and the end record go out at exit.  A fatal signal writes the same tail with
 *    `end 0`.
 *  - Checkpoints: the reader thread copies the file so far to
 *    raw.PID.ckpt.PID.tmp, adds the tail there and renames it raw.PID.ckpt,
 *    so a process killed by SIGKILL leaves the run up to its last one.
 *  - exec: the ending image writes its dump whole (meta exec) and renames
 *    it raw.PID.N; if the exec fails the tail is cut off again and the
 *    file gets its name back.
 *  - Code locations have only their address and heap buckets only their
 *    call path (hpath): finalize symbolises them from the map records, the
 *    executable mappings of /proc/self/maps at the time of the dump.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/native/nat.h"

static struct dc_rawout main_raw, side_raw;

static int fd_write(void *ud, const void *buf, size_t n)
{
	int fd = *(int *)ud;
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return DC_EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void expand_path(void)
{
	const char *s = nat.out;
	size_t k = 0;

	while (*s && k + 24 < sizeof nat.path) {
		if (s[0] == '%' && s[1] == 'p') {
			k += (size_t)snprintf(nat.path + k, sizeof nat.path - k, "%d", (int)getpid());
			s += 2;
		} else {
			nat.path[k++] = *s++;
		}
	}
	nat.path[k] = '\0';
}

/* The command line from /proc/self/cmdline: program and arguments. */
static void write_command(struct dc_rawout *o)
{
	static char buf[8192];
	ssize_t n = 0, r;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	char exe[4096];

	if (fd >= 0) {
		while (n < (ssize_t)sizeof buf - 1 &&
		       (r = read(fd, buf + n, sizeof buf - 1 - (size_t)n)) > 0)
			n += r;
		close(fd);
	}
	if (n > 0 && buf[n - 1] == '\0')
		n--;
	buf[n > 0 ? n : 0] = '\0';
	r = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[r > 0 ? r : 0] = '\0';
	dc_raw_meta(o, "program", n > 0 ? buf : exe);
	for (ssize_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	dc_raw_meta(o, "command", buf);
}

static void write_header(struct dc_rawout *o)
{
	char v[64];

	dc_raw_header(o);
	write_command(o);
	dc_raw_meta_u64(o, "pid", (uint64_t)getpid());
	dc_raw_meta(o, "engine", "native");
	dc_raw_meta(o, "sample_event", nat.event_name);
	dc_raw_meta_u64(o, "sample_period", nat.period);
	if (nat.event == NAT_EV_REPLAY || nat.event == NAT_EV_PMU || nat.event == NAT_EV_CPUCLOCK)
		dc_raw_meta_u64(o, "sample_seed", 0);   /* reports read one: 0, none */
	if (nat.event == NAT_EV_PMU)
		dc_raw_meta(o, "pmu_event", nat.pmu_event ? nat.pmu_event : "");
	dc_raw_meta(o, "sample_skid", "hardware");
	if (nat.event == NAT_EV_CPUCLOCK)
		dc_raw_meta(o, "sample_ip_only", "1");
	dc_raw_meta(o, "cache_source", getenv("DCPROF_NATIVE_CACHE") ? "option" : "default");
	dc_raw_meta(o, "cache_reason", "the native engine simulates no cache; the hierarchy"
		    " gives the latencies of sampled accesses by the level that served them");
	snprintf(v, sizeof v, "fn:%u", nat.depth);
	dc_raw_meta(o, "heap_names", v);
	dc_raw_meta_u64(o, "alloc_depth", nat.depth);
	dc_raw_meta(o, "alloc_fns", nat.alloc_fns ? nat.alloc_fns : "");
	dc_raw_meta(o, "stack_frames", "no");
	dc_raw_meta(o, "collect_atstart", "yes");
	dc_raw_hier(o, &nat.hier);
}

static void open_file(void)
{
	expand_path();
	nat.fd = open(nat.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (nat.fd < 0) {
		nat.off = true;
		return;
	}
	nat.raw = &main_raw;
	dc_rawout_init(nat.raw, (struct dc_sink){ fd_write, &nat.fd });
	write_header(nat.raw);
}

void nat_dump_open(void)
{
	open_file();
}

bool nat_dump_alloc(uint32_t bucket, uint64_t lo, uint64_t size, uint64_t alloc_seq)
{
	if (nat.block_records >= nat.max_block_records) {
		nat.block_records_dropped++;
		return false;
	}
	nat.block_records++;
	dc_raw_block(nat.raw, bucket, lo, size, alloc_seq, 0);
	return true;
}

void nat_dump_free(uint64_t lo, uint64_t free_seq)
{
	dc_raw_bfree(nat.raw, lo, free_seq);
}

/* ---- the tail ---------------------------------------------------------------- */

static void write_maps(struct dc_rawout *o)
{
	static char buf[1 << 16];
	size_t have = 0;
	ssize_t r;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	for (;;) {
		char *nl;
		r = read(fd, buf + have, sizeof buf - 1 - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = '\0';
		char *line = buf;
		while ((nl = strchr(line, '\n'))) {
			unsigned long long lo, hi, off;
			char perm[8];
			int pathpos = 0;

			*nl = '\0';
			if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perm, &off,
				   &pathpos) == 4 && pathpos && perm[2] == 'x' &&
			    line[pathpos] == '/' &&
			    !(lo < nat.self_hi && nat.self_lo < hi))
				dc_raw_map(o, lo, hi, off, line + pathpos);
			line = nl + 1;
		}
		have = (size_t)(buf + have - line);
		memmove(buf, line, have);
		if (have == sizeof buf - 1)
			have = 0;      /* a line longer than the buffer: not a mapping */
	}
	close(fd);
}

static int ftouch_cb(void *ud, void *rec)
{
	const struct nat_ftouch *f = rec;

	if (f->pages)
		dc_raw_ftouch(ud, f->bucket, f->loc, f->thread, f->pages);
	return 0;
}

static int ipsamp_cb(void *ud, void *rec)
{
	const struct nat_ipsamp *s = rec;

	if (s->count)
		dc_raw_ipsamp(ud, s->loc, s->thread, s->count);
	return 0;
}

static int scost_cb(void *ud, const struct dc_cost *c)
{
	if (c->acc[0] || c->acc[1])
		dc_raw_scost(ud, c, nat.hier.nlevels);
	return 0;
}

/* What follows the streamed records; changes nothing in the state. */
static void write_tail(struct dc_rawout *o, bool complete, const char *exec_path)
{
	for (uint32_t i = 0; i < nat.nbuckets; i++) {
		static const char *const kinds[] = { "global", "heap", "stack", "unknown", "global",
						     "mmap" };
		const struct nat_bucket *b = &nat.buckets[i];

		dc_raw_bucket(o, i, kinds[b->kind], b->name);
		if (b->npath)
			dc_raw_hpath(o, i, b->path, b->npath);
	}
	for (uint32_t i = 0; i < nat.nlocs; i++)
		dc_raw_loc(o, i, nat.loc_ip[i], "", "", "", "", 0, NULL);
	write_maps(o);
	for (uint32_t i = 0; i < nat.nbuckets; i++) {
		const struct nat_bucket *b = &nat.buckets[i];
		if (b->blocks)
			dc_raw_bstat(o, i, b->blocks, b->max_live, b->max_live_bytes,
				     b->total_bytes, b->min_size, b->max_size);
	}
	dc_costtab_each(&nat.scosts, scost_cb, o);
	nat_rdx_dump(o);
	dc_rectab_each(&nat.ftouch, ftouch_cb, o);
	dc_rectab_each(&nat.ipsamp, ipsamp_cb, o);
	dc_raw_meta_u64(o, "samples", nat.samples);
	dc_raw_meta_u64(o, "samples_lost", nat.lost);
	dc_raw_meta_u64(o, "samples_runtime", nat.runtime_samples);
	if (nat.event == NAT_EV_PMU) {
		dc_raw_meta_u64(o, "samples_kernel", nat.kernel_samples);
		dc_raw_meta_u64(o, "samples_other", nat.other_samples);
		dc_raw_meta_u64(o, "samples_aux_truncated", nat.aux_truncated);
	}
	if (nat.event == NAT_EV_REPLAY) {
		dc_raw_meta(o, "replay_kind", nat.replay_kind ? nat.replay_kind : "");
		dc_raw_meta_u64(o, "replay_unresolved", nat.replay_unresolved);
	}
	dc_raw_meta_u64(o, "block_records_dropped", nat.block_records_dropped);
	dc_raw_meta_u64(o, "checkpoints", nat.checkpoints);
	if (exec_path)
		dc_raw_meta(o, "exec", exec_path);
	else if (nat.exited && complete)
		dc_raw_meta_u64(o, "exit_code", (uint64_t)(uint8_t)nat.exit_code);
	dc_raw_end(o, complete);
}

static void ckpt_path(char *buf, size_t n, bool tmp)
{
	if (tmp)
		snprintf(buf, n, "%s.ckpt.%d.tmp", nat.path, (int)getpid());
	else
		snprintf(buf, n, "%s.ckpt", nat.path);
}

void nat_dump_finish(bool complete)
{
	char ck[4200];

	if (nat.fd < 0)
		return;
	nat_rdx_end();
	write_tail(nat.raw, complete, NULL);
	if (dc_rawout_finish(nat.raw) == 0) {
		ckpt_path(ck, sizeof ck, false);
		unlink(ck);
	}
	close(nat.fd);
	nat.fd = -1;
}

void nat_dump_checkpoint(void)
{
	char tmp[4200], ck[4200], buf[1 << 15];
	int in, out;
	ssize_t r;

	if (nat.fd < 0 || dc_rawout_finish(nat.raw))
		return;
	ckpt_path(tmp, sizeof tmp, true);
	ckpt_path(ck, sizeof ck, false);
	in = open(nat.path, O_RDONLY | O_CLOEXEC);
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (in < 0 || out < 0)
		goto fail;
	while ((r = read(in, buf, sizeof buf)) > 0)
		if (fd_write(&out, buf, (size_t)r))
			goto fail;
	nat.checkpoints++;
	dc_rawout_init(&side_raw, (struct dc_sink){ fd_write, &out });
	dc_raw_meta_u64(&side_raw, "checkpoint_ms", nat_now_ms() - nat.start_ms);
	write_tail(&side_raw, false, NULL);
	if (dc_rawout_finish(&side_raw))
		goto fail;
	close(in);
	close(out);
	rename(tmp, ck);
	return;
fail:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	unlink(tmp);
}

static void unmark(void *ud, struct dc_obj *o)
{
	(void)ud;
	o->flags &= (uint8_t)~NAT_F_RECORDED;
}

void nat_dump_child(void)
{
	if (nat.fd >= 0)
		close(nat.fd);
	nat.raw->n = 0;   /* what the parent buffered is the parent's to write */
	open_file();
	nat_rdx_child();
	dc_costtab_zero(&nat.scosts);
	dc_blockset_clear(&nat.touched);
	dc_rectab_release(&nat.ftouch);
	dc_rectab_release(&nat.ipsamp);
	dc_rectab_init(&nat.ftouch, &nat_env, sizeof(struct nat_ftouch), 12, "nat.ftouch");
	dc_rectab_init(&nat.ipsamp, &nat_env, sizeof(struct nat_ipsamp), 8, "nat.ipsamp");
	nat.samples = nat.lost = nat.runtime_samples = nat.unattributed = 0;
	nat.block_records = nat.block_records_dropped = 0;
	/* the blocks inherited are recorded in the parent's dump: the
	 * child's records its own */
	dc_blockmap_unmark_all(&nat.blocks);
	dc_objmap_each(&nat.objs, unmark, NULL);
	nat.checkpoints = 0;
	nat.start_ms = nat_now_ms();
	nat.ckpt_next_ms = nat.start_ms + nat.ckpt_ms;
}

/* ---- exec ---------------------------------------------------------------------- */

static off_t exec_cut;
static char exec_name[4200];

void nat_dump_exec(const char *path)
{
	struct stat st;

	if (nat.fd < 0 || dc_rawout_finish(nat.raw))
		return;
	exec_cut = lseek(nat.fd, 0, SEEK_END);
	write_tail(nat.raw, true, path);
	if (dc_rawout_finish(nat.raw))
		return;
	for (unsigned n = 1; n < 100000; n++) {
		snprintf(exec_name, sizeof exec_name, "%s.%u", nat.path, n);
		if (stat(exec_name, &st) && errno == ENOENT) {
			rename(nat.path, exec_name);
			return;
		}
	}
	exec_name[0] = '\0';
}

void nat_dump_exec_failed(void)
{
	if (nat.fd < 0)
		return;
	if (exec_name[0])
		rename(exec_name, nat.path);
	if (ftruncate(nat.fd, exec_cut) == 0)
		lseek(nat.fd, 0, SEEK_END);
	exec_name[0] = '\0';
}
