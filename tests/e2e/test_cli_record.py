"""dcprof record.

Most tests run record against a fake valgrind (a shell script) that logs its
arguments and environment, copies a chosen raw dump to the --dcprof-out path
and ends the way the test asks: so the argument list, the naming of profiles,
exit statuses and incomplete marking are checked exactly and without the
engine.  The tests at the end run the real engine when it is built."""
import os
import re
import shutil
import signal
import subprocess
import time
import unittest

from harness import BUILD, DCPROF, run
from test_cli_common import TWO_LEVEL, CliTest, meta

ENGINE = os.path.join(BUILD, "lib", "dcprof", "dcprof-amd64-linux")

FAKE_VALGRIND = r"""#!/bin/sh
# Fake valgrind: log the environment and arguments, then act on $FAKE_MODE.
{ echo "pid $$"; echo "VALGRIND_LIB=$VALGRIND_LIB"; for a in "$@"; do echo "$a"; done; } > "$FAKE_LOG"
for a in "$@"; do case "$a" in --dcprof-out=*) out="${a#--dcprof-out=}";; esac; done
dump() { cp "$FAKE_RAW" "$(echo "$out" | sed "s/%p/$1/")"; }
case "$FAKE_MODE" in
exit:*) dump $$; exit "${FAKE_MODE#exit:}";;
fork)   dump $$; dump 999999; exit 0;;
term)   dump $$; kill -TERM $$;;
emptychild) dump $$; : > "$(echo "$out" | sed "s/%p/999999/")"; exit 0;;
# images that exec'd leave raw.PID.N: the process and a child ran three
# and two; or the process's last exec was to a program not followed
exec)   dump $$.1; dump $$.2; dump $$; dump 999999.1; dump 999999; exit 3;;
execout) dump $$.1; exit 3;;
nodump) kill -KILL $$;;
# SIGKILL after the engine streamed part of its dump; a checkpoint was
# written, is being written (by a process that renames it in a moment), or
# was left half-written by a process that is gone
ckpt*)  raw="$(echo "$out" | sed "s/%p/$$/")"
        head -n 3 "$FAKE_RAW" > "$raw"
        ck() { sed -e 's/^end 1$/meta checkpoint_ms 1500\nend 0/' "$FAKE_RAW" > "$1"; }
        case "$FAKE_MODE" in
        ckpt) ck "$raw.ckpt";;
        ckptlate) sh -c 'sleep 1; mv "$0.ckpt.$$.tmp" "$0.ckpt"' "$raw" &
                  ck "$raw.ckpt.$!.tmp";;
        ckptstale) ck "$raw.ckpt"; echo junk > "$raw.ckpt.999999999.tmp";;
        ckptdone) ck "$raw.ckpt"; dump $$; exit 0;;
        esac
        kill -KILL $$;;
esac
"""


class FakeRecord(CliTest):
    def setUp(self):
        super().setUp()
        self.lib = self.path("lib")
        os.mkdir(self.lib)
        self.write("lib/dcprof-amd64-linux", "")
        os.chmod(os.path.join(self.lib, "dcprof-amd64-linux"), 0o755)
        # --cachegrind-compat runs from the sibling directory without the
        # malloc-replacement preload
        os.mkdir(self.lib + "-compat")
        self.write("lib-compat/dcprof-amd64-linux", "")
        os.chmod(os.path.join(self.lib + "-compat", "dcprof-amd64-linux"), 0o755)
        self.valgrind = self.write("valgrind", FAKE_VALGRIND)
        os.chmod(self.valgrind, 0o755)
        self.tmpdir = self.path("tmp")
        os.mkdir(self.tmpdir)
        self.log = self.path("log")
        self.out = self.path("p.db")

    def record(self, args, mode="exit:0", raw=TWO_LEVEL, cwd=None, env=None):
        e = dict(os.environ, DCPROF_LIB=self.lib, DCPROF_VALGRIND=self.valgrind,
                 TMPDIR=self.tmpdir, FAKE_LOG=self.log, FAKE_MODE=mode, FAKE_RAW=raw)
        e.update(env or {})
        return run([DCPROF, "record"] + args, env=e, cwd=cwd)

    def logged(self):
        """(pid, VALGRIND_LIB, arguments) the fake valgrind saw."""
        with open(self.log) as f:
            lines = f.read().splitlines()
        return int(lines[0].split()[1]), lines[1].split("=", 1)[1], lines[2:]

    def assertNotStarted(self):
        self.assertFalse(os.path.exists(self.log), "valgrind was started")
        self.assertEqual(os.listdir(self.tmpdir), [], "temporary directory left behind")


class RecordRun(FakeRecord):
    def test_engine_arguments(self):
        r = self.record(["-q", "-o", self.out, "--cache=L1=32K:8:64,L2=1M:16:64",
                         "--latency", "L1=3,MEM=100", "--heap-names=site",
                         "--alloc-fn=xmalloc", "--alloc-fn", "ymalloc", "--stack-frames=yes",
                         "--collect-atstart=no", "--max-block-records=5",
                         "true", "a b", "--help", "-o"])
        self.assertEqual(r.returncode, 0, r.stderr)
        pid, lib, args = self.logged()
        self.assertEqual(lib, self.lib)
        # every exec'd program under the engine too, but not Valgrind's own
        self.assertEqual(args[:5], ["-q", "--vgdb=no", "--trace-children=yes",
                                    "--trace-children-skip=valgrind,*/valgrind,*/vgdb,"
                                    "*/valgrind-di-server,*/valgrind-listener,"
                                    "*/libexec/valgrind/*", "--tool=dcprof"])
        self.assertRegex(args[5], r"^--dcprof-out=%s/dcprof-\w{6}/raw\.%%p$" % self.tmpdir)
        # engine options with the same spelling, then the program untouched
        self.assertEqual(args[6:], ["--cache=L1=32K:8:64,L2=1M:16:64", "--latency=L1=3,MEM=100",
                                    "--heap-names=site", "--alloc-fn=xmalloc",
                                    "--alloc-fn=ymalloc", "--stack-frames=yes",
                                    "--collect-atstart=no", "--max-block-records=5",
                                    "--", "true", "a b", "--help", "-o"])

    def test_follow_exec_option(self):
        for given, valgrind in ((["--follow-exec=no"], ["--trace-children=no"]),
                                (["--follow-exec=no", "--follow-exec"],
                                 ["--trace-children=yes"])):
            r = self.record(["-q", "-o", self.out] + given + ["true"])
            self.assertEqual(r.returncode, 0, r.stderr)
            args = self.logged()[2]
            self.assertEqual(args[2], valgrind[0])
            self.assertEqual(any(a.startswith("--trace-children-skip=") for a in args),
                             valgrind[0].endswith("yes"))

    def test_sampling_and_eviction_options(self):
        r = self.record(["-q", "-o", self.out, "--evictions", "--sample=D2m:1000",
                         "--sample-seed=42", "--cache=L1=32K:8:64,L2=1M:16:64", "true"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.logged()[2][6:], ["--evictions=yes", "--sample=D2m:1000",
                                                "--sample-seed=42",
                                                "--cache=L1=32K:8:64,L2=1M:16:64",
                                                "--", "true"])
        r = self.record(["-q", "-o", self.out, "--evictions=no", "--sample", "DLm:1", "true"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.logged()[2][6:], ["--evictions=no", "--sample=DLm:1", "--", "true"])

    def test_reuse_options(self):
        r = self.record(["-q", "-o", self.out, "--reuse", "--reuse-block=8",
                         "--reuse-bins=4:8", "true"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.logged()[2][6:], ["--reuse=yes", "--reuse-block=8",
                                                "--reuse-bins=4:8", "--", "true"])
        r = self.record(["-q", "-o", self.out, "--reuse=no", "--reuse=yes",
                         "--reuse-block=1048576", "--reuse-block=1", "--reuse-bins=1:2", "true"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.logged()[2][6:], ["--reuse=no", "--reuse=yes",
                                                "--reuse-block=1048576", "--reuse-block=1",
                                                "--reuse-bins=1:2", "--", "true"])

    def test_sample_events(self):
        # every event; D4m without --cache is left to the engine's hierarchy
        for event in ("D1m", "D2m", "D3m", "D4m", "DLm", "Dr", "Dw", "Da"):
            r = self.record(["-q", "-o", self.out, "--sample=%s:7" % event, "true"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("--sample=%s:7" % event, self.logged()[2])

    def test_cachegrind_compat_spelling(self):
        r = self.record(["-q", "-o", self.out, "--cachegrind-compat", "--", "true"])
        self.assertEqual(r.returncode, 0, r.stderr)
        pid, lib, args = self.logged()
        self.assertIn("--cachegrind-compat=yes", args)
        # the same engine directory as every mode (no preload to leave out)
        self.assertEqual(lib, self.lib)

    def test_exit_code_and_summary(self):
        r = self.record(["-o", self.out, "true"], mode="exit:3")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(r.stderr, "dcprof: wrote %s (3 buckets accessed, Dr=3,110, Dw=1,510, D1 misses=550,"
                         " LL misses=160)\n" % self.out)
        m = meta(self.out)
        self.assertEqual((m["complete"], m["exit_status"]), ("1", "exit 3"))
        self.assertEqual(os.listdir(self.tmpdir), [], "temporary directory left behind")

    def test_quiet(self):
        r = self.record(["-q", "-o", self.out, "true"])
        self.assertEqual((r.returncode, r.stderr), (0, ""))

    def test_default_output_name(self):
        r = self.record(["-q", "true"], cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        pid = self.logged()[0]
        self.assertTrue(os.path.exists(self.path("dcprof.%d.db" % pid)), os.listdir(self.tmp))

    def test_forked_processes(self):
        # the fake writes raw.PID (its own) and raw.999999 (a "child")
        r = self.record(["-o", self.out, "true"], mode="fork")
        self.assertEqual(r.returncode, 0, r.stderr)
        child = self.path("p.999999.db")
        self.assertEqual(meta(child)["complete"], "1")
        self.assertIn("wrote %s (" % child, r.stderr)
        self.assertEqual(meta(self.out)["exit_status"], "exit 0")
        self.assertEqual(meta(child)["exit_status"], "exit 0")  # from the dump's exit_code

    def test_forked_process_killed_before_its_dump(self):
        # the engine creates raw.PID at start-up: an empty one has no profile
        r = self.record(["-o", self.out, "true"], mode="emptychild")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("dcprof: no profile for process 999999: it was killed before its raw"
                      " dump was written\n", r.stderr)
        self.assertFalse(os.path.exists(self.path("p.999999.db")))
        self.assertTrue(os.path.exists(self.out))

    def test_exec_images(self):
        # two images exec'd from before the last: BASE.PID.N-PROGRAM.db,
        # PROGRAM from the dump's meta program (/opt/demo/bin/demo)
        r = self.record(["-o", self.out, "true"], mode="exec")
        self.assertEqual(r.returncode, 3, r.stderr)
        pid = self.logged()[0]
        images = ["p.%d.1-demo.db" % pid, "p.%d.2-demo.db" % pid,
                  "p.999999.1-demo.db", "p.999999.2-demo.db"]
        self.assertEqual(sorted(f for f in os.listdir(self.tmp) if f.endswith(".db")),
                         sorted(images + ["p.db"]))
        # the program's exit status is its last image's
        self.assertEqual(meta(self.out)["exit_status"], "exit 3")
        for f in images:
            self.assertIn("wrote %s (" % self.path(f), r.stderr)
            self.assertEqual(meta(self.path(f))["complete"], "1")
        self.assertNotIn("killed", r.stderr)

    def test_exec_images_without_output(self):
        r = self.record(["-q", "true"], mode="exec", cwd=self.tmp)
        self.assertEqual(r.returncode, 3, r.stderr)
        pid = self.logged()[0]
        for f in ("dcprof.%d.db" % pid, "dcprof.%d.1-demo.db" % pid, "dcprof.999999.2-demo.db",
                  "dcprof.999999.1-demo.db"):
            self.assertTrue(os.path.exists(self.path(f)), os.listdir(self.tmp))

    def test_exec_to_a_program_not_followed(self):
        # -o names the last image that ran under the engine; the status is
        # not its own
        r = self.record(["-o", self.out, "true"], mode="execout")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("dcprof: process %d exec'd a program that ran without the engine: %s"
                      " holds the image before\n" % (self.logged()[0], self.out), r.stderr)
        self.assertEqual(meta(self.out)["exit_status"], "exit 0")  # the dump's exit_code

    def test_forked_output_without_db_suffix(self):
        r = self.record(["-q", "-o", self.path("prof"), "true"], mode="fork")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(self.path("prof")))
        self.assertTrue(os.path.exists(self.path("prof.999999.db")))

    def test_killed_by_sigterm(self):
        r = self.record(["-q", "-o", self.out, "true"], mode="term")
        self.assertEqual(r.returncode, 128 + signal.SIGTERM, r.stderr)
        m = meta(self.out)
        self.assertEqual(m["complete"], "0")
        self.assertEqual(m["incomplete_reason"], "killed by signal 15 (SIGTERM)")
        self.assertEqual(m["exit_status"], "signal 15")

    def check_checkpoint_profile(self, r):
        self.assertEqual(r.returncode, 128 + signal.SIGKILL, r.stderr)
        pid = self.logged()[0]
        self.assertIn("dcprof: process %d left no dump of its own: %s holds the run up to its"
                      " checkpoint at 1.5 s\n" % (pid, self.out), r.stderr)
        m = meta(self.out)
        self.assertEqual(m["complete"], "0")
        self.assertEqual(m["incomplete_reason"], "killed by signal 9 (SIGKILL); profile of the"
                         " run up to the checkpoint at 1.5 s")
        self.assertEqual(m["checkpoint_ms"], "1500")
        self.assertEqual(os.listdir(self.tmpdir), [])

    def test_killed_by_sigkill_after_a_checkpoint(self):
        self.check_checkpoint_profile(self.record(["-o", self.out, "true"], mode="ckpt"))

    def test_checkpoint_being_written_is_waited_for(self):
        # its writer renames it a second after the program died
        self.check_checkpoint_profile(self.record(["-o", self.out, "true"], mode="ckptlate"))

    def test_half_written_checkpoint_of_a_gone_process_is_ignored(self):
        self.check_checkpoint_profile(self.record(["-o", self.out, "true"], mode="ckptstale"))

    def test_finished_dump_beats_checkpoint(self):
        r = self.record(["-o", self.out, "true"], mode="ckptdone")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("checkpoint", r.stderr)
        m = meta(self.out)
        self.assertEqual(m["complete"], "1")
        self.assertNotIn("checkpoint_ms", m)

    def test_checkpoint_budget_option(self):
        for budget in ("100", "none"):
            r = self.record(["-q", "-o", self.out, "--checkpoint-budget=" + budget, "true"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.logged()[2][6:], ["--checkpoint-budget=" + budget, "--", "true"])

    def test_checkpoint_option(self):
        for given, ms in (("0.5", "500"), ("0", "0"), ("12", "12000"), ("1.25", "1250"),
                          (".001", "1"), ("1000000", "1000000000")):
            r = self.record(["-q", "-o", self.out, "--checkpoint", given, "true"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.logged()[2][6:], ["--checkpoint-ms=" + ms, "--", "true"])

    def test_no_raw_dump(self):
        r = self.record(["-q", "-o", self.out, "true"], mode="nodump")
        self.assertError(r, "dcprof record", "no profile written: the engine wrote no raw dump"
                         " (program killed by signal 9 (SIGKILL))")
        self.assertFalse(os.path.exists(self.out))
        self.assertEqual(os.listdir(self.tmpdir), [])

    def test_bad_raw_dump(self):
        r = self.record(["-q", "-o", self.out, "true"], raw=self.write("bad.raw", "junk\n"))
        self.assertError(r, "dcprof record", "cannot read raw dump '%s/dcprof-"
                         % self.tmpdir)
        self.assertIn("line 1: not a dcprof raw dump", r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_keep_raw(self):
        r = self.record(["-o", self.out, "--keep-raw", "true"])
        self.assertEqual(r.returncode, 0, r.stderr)
        kept = re.search(r"^dcprof: raw dumps kept in (\S+)$", r.stderr, re.M)
        self.assertTrue(kept, r.stderr)
        self.assertEqual(os.listdir(kept.group(1)), ["raw.%d" % self.logged()[0]])


class RecordErrors(FakeRecord):
    """Checked before valgrind starts: one line, exit 2, nothing left."""

    def bad(self, args, message, env=None):
        r = self.record(args, env=env)
        self.assertError(r, "dcprof record", message)
        self.assertNotStarted()

    def test_unknown_option(self):
        self.bad(["--frob", "true"], "unknown option '--frob'; see 'dcprof help record'")

    def test_no_program(self):
        self.bad(["-q"], "no program given")
        self.bad(["-q", "--"], "no program given")

    def test_missing_program_in_path(self):
        self.bad(["--", "dcprof-no-such-program"],
                 "cannot find program 'dcprof-no-such-program' in PATH")

    def test_missing_program_path(self):
        p = self.path("nothing")
        self.bad([p], "cannot run program '%s': No such file or directory" % p)

    def test_not_executable(self):
        p = self.write("script", "#!/bin/sh\n")
        self.bad([p], "cannot run program '%s': Permission denied" % p)

    def test_not_executable_in_path(self):
        self.write("script", "#!/bin/sh\n")
        self.bad(["script"], "cannot run program 'script': Permission denied",
                 env={"PATH": self.tmp})

    def test_directory(self):
        self.bad([self.tmp], "cannot run program '%s': Is a directory" % self.tmp)

    def test_bad_cache(self):
        self.bad(["--cache=L1=32K:8:60", "true"],
                 "invalid --cache 'L1=32K:8:60': L1: line size 60 is not a power of two")
        self.bad(["--cache=L2=1M:16:64", "true"], "invalid --cache 'L2=1M:16:64'")

    def test_latency_for_missing_level(self):
        self.bad(["--cache=L1=32K:8:64,L2=1M:16:64", "--latency=L3=40", "true"],
                 "invalid --latency 'L3=40': latency given for L3 but the hierarchy has 2 levels")

    def test_bad_latency_without_cache(self):
        self.bad(["--latency=L1=fast", "true"], "invalid --latency 'L1=fast'")

    def test_compat_with_cache(self):
        # --cache stands for Cachegrind's --D1 and --LL: exactly two levels
        self.bad(["--cachegrind-compat", "--cache=L1=32K:8:64", "true"],
                 "invalid --cache 'L1=32K:8:64': with --cachegrind-compat, give two levels"
                 " (Cachegrind's D1 and LL)")

    def test_cache_use_options(self):
        self.bad(["--cache-use=maybe", "true"], "invalid --cache-use value 'maybe'")
        self.bad(["--cache-use", "--cache-use-granularity=2", "true"],
                 "invalid --cache-use-granularity value '2' (exact or callgrind)")
        self.bad(["--cache-use-granularity=exact", "true"],
                 "--cache-use-granularity needs --cache-use")
        self.bad(["--cache-use", "--cache=L1=32K:8:64,L2=1M:16:128", "true"],
                 "invalid --cache 'L1=32K:8:64,L2=1M:16:128': --cache-use needs one line"
                 " size at every level")

    def test_bad_follow_exec(self):
        self.bad(["--follow-exec=sometimes", "true"],
                 "invalid --follow-exec value 'sometimes' (yes or no)")

    def test_bad_engine_values(self):
        self.bad(["--heap-names=fn:17", "true"], "invalid --heap-names value 'fn:17'")
        self.bad(["--heap-names=fn:0", "true"], "invalid --heap-names value 'fn:0'")
        self.bad(["--stack-frames=maybe", "true"], "invalid --stack-frames value 'maybe'")
        self.bad(["--collect-atstart=1", "true"], "invalid --collect-atstart value '1'")
        self.bad(["--max-block-records=-1", "true"], "invalid --max-block-records value '-1'")
        self.bad(["--alloc-fn=", "true"], "--alloc-fn needs a function name")
        self.bad(["--cachegrind-compat=maybe", "true"], "invalid --cachegrind-compat value")

    def test_bad_sample(self):
        for v in ("D1m", "D1m:", "D1m:0", "D1m:x", "D5m:10", "D0m:10", "L1m:10", "d1m:10",
                  ":10", "D1m:-1", "DLmx:10", "D1m:99999999999999999999"):
            self.bad(["--sample=" + v, "true"], "invalid --sample value '%s' (EVENT:N with"
                     " EVENT one of D1m D2m D3m D4m DLm Dr Dw Da and N >= 1)" % v)

    def test_sample_level_beyond_the_hierarchy(self):
        self.bad(["--cache=L1=32K:8:64,L2=1M:16:64", "--sample=D3m:10", "true"],
                 "invalid --sample 'D3m:10': D3m is a miss at L3 but the hierarchy has 2 levels")
        self.bad(["--cachegrind-compat", "--sample=D3m:10", "true"],
                 "invalid --sample 'D3m:10': D3m is a miss at L3 but the hierarchy has 2 levels")

    def test_bad_eviction_and_seed_values(self):
        self.bad(["--evictions=maybe", "true"], "invalid --evictions value 'maybe' (yes or no)")
        self.bad(["--sample=D1m:10", "--sample-seed=-1", "true"],
                 "invalid --sample-seed value '-1' (0 to 2^63-1)")
        self.bad(["--sample-seed=3", "true"], "--sample-seed needs --sample")

    def test_bad_checkpoint_values(self):
        for bad in ("", "x", "-1", "1.2345", "1e3", ".", "1000001", "5s"):
            self.bad(["--checkpoint=" + bad, "true"], "invalid --checkpoint value '%s' (seconds,"
                     " 0 to 10^6, at most three decimals)" % bad)

    def test_bad_checkpoint_budget_values(self):
        for bad in ("0", "101", "x", "2.5", "", "None", "none1"):
            self.bad(["--checkpoint-budget=" + bad, "true"],
                     "invalid --checkpoint-budget value '%s' (1 to 100, or none)" % bad)

    def test_bad_reuse_values(self):
        self.bad(["--reuse=maybe", "true"], "invalid --reuse value 'maybe' (yes or no)")
        for v in ("0", "3", "96", "2097152", "x", "-64", ""):
            self.bad(["--reuse", "--reuse-block=" + v, "true"], "invalid --reuse-block value"
                     " '%s' (a power of two from 1 to 1048576)" % v)
        for v in ("1", "0:2", "1:1", "1:0", ":2", "1:", "x:2", "1:2:3", "4294967297:2",
                  "1:65537", "-1:2"):
            self.bad(["--reuse", "--reuse-bins=" + v, "true"], "invalid --reuse-bins value"
                     " '%s' (FIRST:GROWTH with FIRST from 1 to 2^32 and GROWTH from 2 to"
                     " 65536)" % v)
        self.bad(["--reuse-block=64", "true"], "--reuse-block needs --reuse")
        self.bad(["--reuse=no", "--reuse-bins=1:2", "true"], "--reuse-bins needs --reuse")

    def test_no_tool_directory(self):
        missing = self.path("nolib")
        self.bad(["true"], "cannot find the dcprof engine '%s/dcprof-amd64-linux'" % missing,
                 env={"DCPROF_LIB": missing})

    def test_tool_next_to_binary(self):
        # without DCPROF_LIB: BINDIR/../lib/dcprof; a copy of dcprof in a
        # directory without lib/ must say where it looked
        bindir = self.path("bin")
        os.mkdir(bindir)
        shutil.copy(DCPROF, bindir)
        env = dict(os.environ, DCPROF_VALGRIND=self.valgrind, TMPDIR=self.tmpdir,
                   FAKE_LOG=self.log)
        env.pop("DCPROF_LIB", None)
        r = run([os.path.join(bindir, "dcprof"), "record", "true"], env=env)
        self.assertError(r, "dcprof record", "cannot find the dcprof engine '%s/../lib/dcprof/"
                         "dcprof-amd64-linux'" % bindir)
        self.assertNotStarted()

    def test_no_valgrind(self):
        self.bad(["true"], "cannot find valgrind '%s'" % self.path("novg"),
                 env={"DCPROF_VALGRIND": self.path("novg")})

    def test_unwritable_output_directory(self):
        out = self.path("no/such/dir/p.db")
        self.bad(["-o", out, "true"], "cannot write profile '%s'" % out)


@unittest.skipUnless(os.path.exists(ENGINE), "the engine is not built")
class RecordEngine(CliTest):
    """The real engine: the program's stdio and exit status pass through,
    SIGINT reaches only the program, SIGTERM to dcprof is forwarded, and a
    forked child gets its own profile."""

    def start(self, script, options=()):
        return subprocess.Popen([DCPROF, "record", "-q", "-o", self.path("p.db")]
                                + list(options) + ["--", "sh", "-c", script],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def finish(self, p):
        try:
            p.wait(timeout=120)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            err = p.stderr.read()
            p.stdout.close()
            p.stderr.close()
        return p.returncode, err

    def test_stdio_and_exit_status(self):
        r = run([DCPROF, "record", "-q", "-o", self.path("p.db"), "--", "sh", "-c",
                 "read x; echo got $x; echo to-stderr >&2; exit 3"], input="hello\n")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(r.stdout, "got hello\n")
        self.assertEqual(r.stderr, "to-stderr\n")
        self.assertEqual(meta(self.path("p.db"))["exit_status"], "exit 3")

    def test_sigint_ignored_sigterm_forwarded(self):
        p = self.start("echo ready; while :; do :; done")
        self.assertEqual(p.stdout.readline(), "ready\n")
        p.send_signal(signal.SIGINT)       # to dcprof only: ignored
        time.sleep(0.5)
        self.assertIsNone(p.poll(), "dcprof died of SIGINT")
        p.send_signal(signal.SIGTERM)      # forwarded to the program
        rc, err = self.finish(p)
        self.assertEqual(rc, 128 + signal.SIGTERM, err)
        m = meta(self.path("p.db"))
        self.assertEqual(m["complete"], "0")
        self.assertEqual(m["incomplete_reason"], "killed by signal 15 (SIGTERM)")

    def test_program_killed_by_sigkill_without_checkpoints(self):
        p = self.start("echo $$; while :; do :; done", ["--checkpoint=0"])
        os.kill(int(p.stdout.readline()), signal.SIGKILL)
        rc, err = self.finish(p)
        self.assertEqual(rc, 2, err)
        self.assertEqual(err, "dcprof record: no profile written: the engine wrote no raw dump"
                         " (program killed by signal 9 (SIGKILL))\n")
        self.assertFalse(os.path.exists(self.path("p.db")))

    @unittest.skipUnless(shutil.which("cc"), "no C compiler")
    def test_fork(self):
        src = self.write("fork.c", r"""
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
volatile char child_buf[1 << 16];
int main(void)
{
	pid_t p = fork();
	if (p == 0) {
		for (int i = 0; i < (int)sizeof child_buf; i += 64)
			child_buf[i] = 1;          /* 1024 writes, in the child only */
		return 0;
	}
	printf("%d\n", (int)p);
	waitpid(p, NULL, 0);
	return 0;
}
""")
        prog = self.path("fork")
        subprocess.run(["cc", "-O1", "-o", prog, src], check=True)
        r = run([DCPROF, "record", "-q", "-o", self.path("p.db"), "--", prog])
        self.assertEqual(r.returncode, 0, r.stderr)
        child = self.path("p.%d.db" % int(r.stdout))
        self.assertTrue(os.path.exists(child), os.listdir(self.tmp))
        from harness import bucket_totals
        self.assertEqual(bucket_totals(child)["child_buf"]["Dw"], 1024)
        self.assertNotIn("child_buf", bucket_totals(self.path("p.db")))


class Help(CliTest):
    def test_version(self):
        from test_cli_common import makefile_version
        r = run([DCPROF, "--version"])
        self.assertEqual((r.returncode, r.stdout), (0, "dcprof %s\n" % makefile_version()))

    def test_help_lists_commands(self):
        r = run([DCPROF, "--help"])
        self.assertEqual(r.returncode, 0)
        for cmd in ("record", "report", "accuracy", "evictions", "reuse", "mrc", "finalize"):
            self.assertRegex(r.stdout, r"\n  %s " % cmd)

    def test_command_help(self):
        options = {
            "record": ["--output", "--quiet", "--keep-raw", "--cache", "--latency",
                       "--cachegrind-compat", "--heap-names", "--alloc-fn", "--stack-frames",
                       "--collect-atstart", "--max-block-records", "--evictions",
                       "--sample", "--sample-seed", "--reuse", "--reuse-block",
                       "--reuse-bins"],
            "report": ["--by", "--object", "--function", "--thread", "--sort", "--top",
                       "--stats", "--sampled", "--format"],
            "accuracy": ["--top", "--format"],
            "evictions": ["--level", "--sampled", "--top", "--object", "--by", "--format"],
            "reuse": ["--object", "--kind", "--pairs", "--top", "--format"],
            "mrc": ["--object", "--format"],
            "finalize": ["--output", "--exit-status", "--quiet"],
        }
        for cmd, opts in options.items():
            r1 = run([DCPROF, "help", cmd])
            r2 = run([DCPROF, cmd, "--help"])
            self.assertEqual((r1.returncode, r2.returncode), (0, 0))
            self.assertEqual(r1.stdout, r2.stdout)
            self.assertTrue(r1.stdout.startswith("usage: dcprof %s" % cmd))
            for o in opts:
                self.assertIn(o, r1.stdout, "%s: %s" % (cmd, o))

    def test_errors(self):
        self.assertError(run([DCPROF]), "dcprof", "no command given")
        self.assertError(run([DCPROF, "frob"]), "dcprof", "unknown command 'frob'")
        self.assertError(run([DCPROF, "--frob"]), "dcprof", "unknown option '--frob'")
        self.assertError(run([DCPROF, "help", "frob"]), "dcprof", "unknown command 'frob'")
