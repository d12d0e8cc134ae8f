/* nat_main.c — the native runtime's start, threads, fork, signals and exit.
 *
 * Notes:
 *  - The runtime starts in its constructor when DCPROF_NATIVE_OUT is set
 *    (dcprof record sets it with LD_PRELOAD, and both stay in the
 *    environment, so exec'd programs run under the runtime too); without it
 *    the wrappers only forward.
 *  - Threads: pthread_create is wrapped; the new thread opens its own
 *    event (pid 0, cpu -1, no inherit: one ring per thread) before the
 *    start routine runs.  A thread created some other way opens its event
 *    at its first allocation call.  A thread-specific key's destructor
 *    drains and closes the event when the thread exits.  OpenMP runtimes
 *    create their threads with pthread_create.
 *  - Draining (docs/engine-native.md, "Reading the rings"): a reader thread
 *    poll()s every event, woken by the kernel when a ring is half full
 *    (wakeup_watermark) and at least every 10 ms; and every free, realloc
 *    and munmap drains all rings first, so a sample is attributed while the
 *    block it hit still exists.  A ring that overflows anyway makes the
 *    kernel write PERF_RECORD_LOST: those samples are counted (meta
 *    samples_lost), never dropped silently.
 *  - fork: a pthread_atfork child handler gives the child its own dump,
 *    closes the parent's events and opens its own, and starts its reader.
 *  - The dump is written at exit (destructor, _exit), on a fatal signal
 *    (then marked incomplete and the signal re-raised), and as checkpoints
 *    by the reader thread (nat_dump.c).  The exit status (meta exit_code,
 *    as the simulator engine writes it) comes from an on_exit handler or
 *    _exit's argument.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "engine/native/nat.h"

struct nat_state nat = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static void *env_alloc(void *ud, size_t n, const char *label)
{
	return __libc_malloc(n);
}

static void env_free(void *ud, void *p)
{
	__libc_free(p);
}

const struct dc_env nat_env = { env_alloc, env_free, NULL };

static __thread int busy __attribute__((tls_model("initial-exec")));
static __thread struct nat_thread *self __attribute__((tls_model("initial-exec")));
static pthread_key_t exit_key;
static pthread_t reader;
static volatile int reader_stop;

bool nat_busy(void)
{
	return busy || !nat.ready || nat.off;
}

void nat_busy_set(bool on)
{
	busy = on;
}

void nat_lock(void)
{
	pthread_mutex_lock(&nat.lock);
}

void nat_unlock(void)
{
	pthread_mutex_unlock(&nat.lock);
}

uint64_t nat_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void stack_bounds(struct nat_thread *t)
{
	pthread_attr_t a;
	void *lo;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &a))
		return;
	if (!pthread_attr_getstack(&a, &lo, &size)) {
		t->stack_lo = (uint64_t)(uintptr_t)lo;
		t->stack_hi = t->stack_lo + size;
	}
	pthread_attr_destroy(&a);
}

struct nat_thread *nat_self(void)
{
	struct nat_thread *t = self;

	if (t || nat.off || !nat.ready)
		return t;
	t = nat_zalloc(sizeof *t);
	if (!t)
		return NULL;
	if (nat.nthreads == nat.thread_cap) {
		uint32_t cap = nat.thread_cap ? 2 * nat.thread_cap : 16;
		void *p = nat_realloc(nat.threads, cap * sizeof *nat.threads);
		if (!p) {
			__libc_free(t);
			return NULL;
		}
		nat.threads = p;
		nat.thread_cap = cap;
	}
	t->tid = (pid_t)syscall(SYS_gettid);
	t->num = ++nat.next_num;
	t->fd = -1;
	busy++;
	stack_bounds(t);
	busy--;
	nat.threads[nat.nthreads++] = t;
	self = t;
	nat_tls_thread_add(t);
	nat_perf_open(t);
	pthread_setspecific(exit_key, t);
	return t;
}

/* The thread is exiting: what its ring holds is attributed now. */
static void thread_exit(void *p)
{
	struct nat_thread *t = p;

	nat_lock();
	nat_perf_drain_all();
	nat_perf_close(t);
	nat_tls_thread_drop(t);
	t->done = true;
	nat_unlock();
}

/* ---- pthread_create ---------------------------------------------------- */

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_start(void *p)
{
	struct start st = *(struct start *)p;

	__libc_free(p);
	nat_lock();
	nat_self();
	nat_unlock();
	return st.fn(st.arg);
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static create_fn real_create(void)
{
	static create_fn fn;

	if (!fn) {
		busy++;
		fn = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
		busy--;
	}
	return fn;
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct start *st;
	int rc;

	if (nat_busy())
		return real_create()(th, attr, fn, arg);
	st = __libc_malloc(sizeof *st);
	if (!st)
		return EAGAIN;
	st->fn = fn;
	st->arg = arg;
	rc = real_create()(th, attr, thread_start, st);
	if (rc)
		__libc_free(st);
	return rc;
}

/* ---- the reader thread --------------------------------------------------- */

static void *reader_main(void *unused)
{
	struct pollfd *pfd = NULL;
	uint32_t cap = 0;

	busy = 1;     /* it allocates nothing the program should see */
	while (!reader_stop) {
		uint32_t n = 0;

		nat_lock();
		if (cap < nat.nthreads) {
			void *p = nat_realloc(pfd, nat.nthreads * sizeof *pfd);
			if (p) {
				pfd = p;
				cap = nat.nthreads;
			}
		}
		for (uint32_t i = 0; i < nat.nthreads && n < cap; i++)
			if (nat.threads[i]->fd >= 0 && !nat.threads[i]->pmu[0].no_poll) {
				pfd[n].fd = nat.threads[i]->fd;
				pfd[n].events = POLLIN;
				n++;
			}
		nat_unlock();
		poll(pfd, n, 10);
		if (reader_stop)
			break;
		nat_lock();
		if (!nat.off) {
			nat_perf_drain_all();
			if (nat.ckpt_ms && nat_now_ms() >= nat.ckpt_next_ms) {
				nat_dump_checkpoint();
				nat.ckpt_next_ms = nat_now_ms() + nat.ckpt_ms;
			}
		}
		nat_unlock();
	}
	__libc_free(pfd);
	return NULL;
}

static void reader_start(void)
{
	sigset_t all, old;

	if (nat.event == NAT_EV_REPLAY && !nat.ckpt_ms)
		return;
	/* the program's signals go to its own threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	reader_stop = 0;
	busy++;
	if (real_create()(&reader, NULL, reader_main, NULL))
		reader = 0;
	busy--;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- the end of the process ------------------------------------------------ */

/* Writes the dump once; later calls do nothing. */
static void finish(bool complete)
{
	nat_lock();
	if (nat.off) {
		nat_unlock();
		return;
	}
	nat_perf_drain_all();
	nat_replay_until(UINT64_MAX);
	nat_dump_finish(complete);
	nat.off = true;
	nat_unlock();
}

static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT,
			     SIGHUP, SIGQUIT, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ };

static void on_fatal(int sig)
{
	/* The thread may have held the lock when it faulted: wait a little,
	 * then write without it rather than lose the run. */
	for (int i = 0; i < 200 && pthread_mutex_trylock(&nat.lock); i++)
		usleep(1000);
	if (!nat.off) {
		busy = 1;
		nat_perf_drain_all();
		nat_dump_finish(false);
		nat.off = true;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_fatal(void)
{
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		struct sigaction sa, old;

		if (sigaction(fatal[i], NULL, &old) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal;
		sa.sa_flags = SA_NODEFER | SA_RESETHAND;
		sigaction(fatal[i], &sa, NULL);
	}
}

/* The status exit() was given, main's return value included (glibc's
 * start-up calls exit internally, where a wrapper would not see it).
 * exit runs its handlers in the reverse order of their registration, and
 * the dynamic linker's (which runs the destructors) was registered after
 * the runtime's constructor registered this one: so the dump is written
 * here, after the destructors, and nat_fini leaves it to this handler. */
static bool exit_handler;

static void on_exit_status(int status, void *unused)
{
	nat_lock();
	nat.exited = true;
	nat.exit_code = status;
	nat_unlock();
	reader_stop = 1;
	finish(true);
}

__attribute__((noreturn)) void _exit(int status)
{
	nat_lock();
	nat.exited = true;
	nat.exit_code = status;
	nat_unlock();
	finish(true);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

__attribute__((noreturn)) void _Exit(int status)
{
	_exit(status);
}

__attribute__((destructor)) static void nat_fini(void)
{
	if (exit_handler)
		return;
	reader_stop = 1;
	finish(true);
}

/* ---- fork ------------------------------------------------------------------ */

static void fork_prepare(void)
{
	nat_lock();
	if (!nat.off)
		nat_perf_drain_all();
}

static void fork_parent(void)
{
	nat_unlock();
}

static void fork_child(void)
{
	if (!nat.off) {
		struct nat_thread *me = self;

		/* the rings are not mapped in the child (perf maps them
		 * VM_DONTCOPY); the events are the parent's threads' */
		for (uint32_t i = 0; i < nat.nthreads; i++) {
			struct nat_thread *t = nat.threads[i];
			if (nat.event == NAT_EV_PMU)
				nat_pmu_forget(t);
			else if (t->fd >= 0)
				close(t->fd);
			t->fd = -1;
			t->ring = NULL;
			t->done = t != me;
		}
		if (me)
			me->tid = (pid_t)syscall(SYS_gettid);
		nat.pid = getpid();
		nat_dump_child();
		if (me)
			nat_perf_open(me);
	}
	nat_unlock();
	if (!nat.off)
		reader_start();
}

/* ---- exec ------------------------------------------------------------------ */

/* The runtime's variables (LD_PRELOAD, DCPROF_NATIVE_*) as the process
 * started with them, for an exec given an environment without them. */
static char **run_env;
static unsigned nrun_env;

static void save_env(void)
{
	unsigned n = 0;

	for (char **e = environ; e && *e; e++)
		n++;
	run_env = nat_zalloc((n + 1) * sizeof *run_env);
	if (!run_env)
		return;
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, "DCPROF_NATIVE_", 14) || !strncmp(*e, "LD_PRELOAD=", 11)) {
			size_t len = strlen(*e) + 1;
			char *c = __libc_malloc(len);
			if (c) {
				memcpy(c, *e, len);
				run_env[nrun_env++] = c;
			}
		}
}

static bool env_has(char *const envp[], const char *var)
{
	size_t name = (size_t)(strchr(var, '=') - var) + 1;

	for (char *const *e = envp; e && *e; e++)
		if (!strncmp(*e, var, name))
			return true;
	return false;
}

/* The variables of the runtime missing from envp (execle, env -i). */
static unsigned env_missing(char *const envp[])
{
	unsigned k = 0;

	for (unsigned i = 0; i < nrun_env; i++)
		k += !env_has(envp, run_env[i]);
	return k;
}

/* envp with the runtime's variables added into v (room for envp's
 * entries, env_missing(envp) more and the NULL), so the next image runs
 * under the runtime too.  On the caller's stack: a vfork child must not
 * allocate. */
static char **exec_env(char *const envp[], char **v)
{
	unsigned n = 0;

	for (char *const *e = envp; e && *e; e++)
		v[n++] = *e;
	for (unsigned i = 0; i < nrun_env; i++)
		if (!env_has(envp, run_env[i]))
			v[n++] = run_env[i];
	v[n] = NULL;
	return v;
}

static unsigned env_count(char *const envp[])
{
	unsigned n = 0;

	for (char *const *e = envp; e && *e; e++)
		n++;
	return n;
}

/* A vfork child shares the parent's memory until its exec: the runtime's
 * state is the parent's, so it writes no dump and takes no lock (the
 * parent would wait for it forever); the next image writes its own. */
static bool vfork_child(void)
{
	return getpid() != nat.pid;
}

/* The image's dump is written whole before the exec; the next image,
 * preloaded again through the environment, writes its own. */
static void exec_begin(const char *path)
{
	nat_lock();
	if (!nat.off) {
		nat_perf_drain_all();
		nat_dump_exec(path);
	}
}

static void exec_end(void)
{
	int e = errno;

	if (!nat.off)
		nat_dump_exec_failed();
	nat_unlock();
	errno = e;
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);

int execve(const char *path, char *const argv[], char *const envp[])
{
	static execve_fn next;
	int rc;

	if (!next) {
		busy++;
		next = (execve_fn)dlsym(RTLD_NEXT, "execve");
		busy--;
	}
	char *v[env_count(envp) + env_missing(envp) + 1];
	bool own = !vfork_child();

	if (own)
		exec_begin(path);
	rc = next(path, argv, exec_env(envp, v));
	if (own)
		exec_end();
	return rc;
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	static execvpe_fn next;
	int rc;

	if (!next) {
		busy++;
		next = (execvpe_fn)dlsym(RTLD_NEXT, "execvpe");
		busy--;
	}
	char *v[env_count(envp) + env_missing(envp) + 1];
	bool own = !vfork_child();

	if (own)
		exec_begin(file);
	rc = next(file, argv, exec_env(envp, v));
	if (own)
		exec_end();
	return rc;
}

int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* execl, execlp and execle call glibc's execve inside libc, where the
 * wrapper above would not see it: they are wrapped too, their argument
 * lists gathered into a vector (on the stack: the exec replaces it). */
#define EXEC_MAX_ARGS 4096

enum { EXEC_PATH, EXEC_SEARCH, EXEC_ENV };

/* The argument list after arg0 (up to its NULL; with EXEC_ENV the
 * environment after it) into a vector, then the exec. */
static int exec_list(int how, const char *path, const char *arg0, va_list *ap)
{
	char *argv[EXEC_MAX_ARGS + 1];
	char **envp = environ;
	int n = 0;

	argv[n++] = (char *)arg0;
	while (arg0 && (argv[n] = va_arg(*ap, char *)))
		if (++n == EXEC_MAX_ARGS) {
			errno = E2BIG;
			return -1;
		}
	if (!arg0)
		n = 0;
	argv[n] = NULL;
	if (how == EXEC_ENV)
		envp = va_arg(*ap, char **);
	return how == EXEC_SEARCH ? execvpe(path, argv, envp) : execve(path, argv, envp);
}

#define EXEC_LIST(name, how)                                                      \
	int name(const char *path, const char *arg0, ...)                             \
	{                                                                             \
		va_list ap;                                                           \
		int rc;                                                               \
                                                                                      \
		va_start(ap, arg0);                                                   \
		rc = exec_list(how, path, arg0, &ap);                                 \
		va_end(ap);                                                           \
		return rc;                                                            \
	}

EXEC_LIST(execl, EXEC_PATH)
EXEC_LIST(execlp, EXEC_SEARCH)
EXEC_LIST(execle, EXEC_ENV)

/* ---- start ------------------------------------------------------------------ */

static char *env_copy(const char *name)
{
	const char *v = getenv(name);
	size_t n;
	char *c;

	if (!v || !*v)
		return NULL;
	n = strlen(v) + 1;
	c = __libc_malloc(n);
	if (c)
		memcpy(c, v, n);
	return c;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return def;
	x = strtoull(v, &end, 10);
	return *end ? def : (uint64_t)x;
}

static bool configure(void)
{
	const char *ev = getenv("DCPROF_NATIVE_EVENT");
	const char *cache = getenv("DCPROF_NATIVE_CACHE");
	const char *latency = getenv("DCPROF_NATIVE_LATENCY");
	char err[160];

	nat.out = env_copy("DCPROF_NATIVE_OUT");
	if (!nat.out)
		return false;
	nat.replay = env_copy("DCPROF_NATIVE_REPLAY");
	if (nat.replay) {
		nat.event = NAT_EV_REPLAY;
		nat.event_name = "replay";
		nat.period = env_u64("DCPROF_NATIVE_PERIOD", 1);
	} else if (ev && getenv("DCPROF_NATIVE_PMU") && strcmp(ev, "pagefault") &&
		   strcmp(ev, "cpu-clock")) {
		/* mem-loads, mem-stores, ibs-op, spe: record probed them; the
		 * sample event is what the period counts (docs/engine-native.md) */
		if (!nat_pmu_configure(getenv("DCPROF_NATIVE_PMU")))
			return false;
		nat.event = NAT_EV_PMU;
		nat.pmu_event = env_copy("DCPROF_NATIVE_EVENT");
		nat.event_name = !strcmp(ev, "mem-loads") ? "Dr" : !strcmp(ev, "mem-stores") ? "Dw"
											: "Da";
		nat.period = env_u64("DCPROF_NATIVE_PERIOD", 10007);
	} else if (ev && !strcmp(ev, "cpu-clock")) {
		nat.event = NAT_EV_CPUCLOCK;
		nat.event_name = "cpu-clock";
		/* nanoseconds of CPU time: a sample every millisecond */
		nat.period = env_u64("DCPROF_NATIVE_PERIOD", 1000000);
	} else {
		nat.event = NAT_EV_PAGEFAULT;
		nat.event_name = "pagefault";
		nat.period = env_u64("DCPROF_NATIVE_PERIOD", 1);
	}
	if (!nat.period)
		nat.period = 1;
	nat.depth = (unsigned)env_u64("DCPROF_NATIVE_DEPTH", 3);
	nat.alloc_fns = env_copy("DCPROF_NATIVE_ALLOC_FN");
	nat.ckpt_ms = env_u64("DCPROF_NATIVE_CHECKPOINT_MS", 5000);
	nat.max_block_records = env_u64("DCPROF_NATIVE_MAX_BLOCK_RECORDS", 100000);
	nat.rdx_period = nat.event == NAT_EV_PAGEFAULT || nat.event == NAT_EV_PMU
			 ? env_u64("DCPROF_NATIVE_REUSE_SAMPLE", 0) : 0;
	nat.rdx_wp = (unsigned)env_u64("DCPROF_NATIVE_REUSE_WATCHPOINTS", NAT_RDX_MAX_WP);
	if (nat.rdx_wp < 1 || nat.rdx_wp > NAT_RDX_MAX_WP)
		nat.rdx_wp = NAT_RDX_MAX_WP;
	nat.rdx_oldest = env_u64("DCPROF_NATIVE_REUSE_OLDEST", 0) != 0;
	nat.rdx_noattrib = env_u64("DCPROF_NATIVE_REUSE_NOATTRIB", 0) != 0;
	nat.rdx_seed = env_u64("DCPROF_NATIVE_REUSE_SEED", 1);
	nat.rdx_first = env_u64("DCPROF_NATIVE_REUSE_FIRST", 1);
	nat.rdx_growth = env_u64("DCPROF_NATIVE_REUSE_GROWTH", 2);
	if (!cache || dc_hier_parse_cache(&nat.hier, cache, err, sizeof err))
		dc_hier_typical(&nat.hier);
	if (latency)
		dc_hier_parse_latency(&nat.hier, latency, err, sizeof err);
	for (int k = 0; k < nat.hier.nlevels; k++)
		nat.lat[k + 1] = nat.hier.lv[k].latency;
	nat.lat[nat.hier.nlevels + 1] = nat.hier.mem_latency;
	return true;
}

__attribute__((constructor)) static void nat_init(void)
{
	Dl_info di;

	busy++;
	if (!configure()) {
		nat.off = true;
		busy--;
		return;
	}
	if (dladdr((void *)nat_init, &di) && di.dli_fbase)
		nat.self_lo = (uint64_t)(uintptr_t)di.dli_fbase;
	nat.self_hi = nat.self_lo + (64u << 20);   /* refined by nat_globals_scan */
	nat.pid = getpid();
	nat.start_ms = nat_now_ms();
	nat.ckpt_next_ms = nat.start_ms + nat.ckpt_ms;
	pthread_key_create(&exit_key, thread_exit);
	nat_objs_init();
	if (nat.replay)
		nat_replay_load(nat.replay);
	nat_dump_open();
	nat_heap_init();
	nat_globals_scan();
	nat_deps_scan();
	nat_rdx_init();
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	exit_handler = on_exit(on_exit_status, NULL) == 0;
	save_env();
	catch_fatal();
	nat.ready = true;
	nat_lock();
	nat_self();
	nat_unlock();
	busy--;
	reader_start();
}
