#!/usr/bin/env python3
"""Run the whole test suite: core unit tests, the core symbol check, the
fuzz corpora under ASan/UBSan (make fuzz-check, docs/fuzzing.md) and the
end-to-end tests in tests/e2e/test_*.py.  Prints one closing line
'N passed, N failed, N skipped' and exits non-zero when anything failed.

Usage: tests/run.py [-k PATTERN] [-v]
"""
import argparse
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_unit():
    """The C unit tests report their own counts on their last line."""
    r = subprocess.run(["make", "-s", "-C", ROOT, "unit"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(r.stdout)
    return r.returncode == 0


def run_fuzz_regression():
    """Every input of tests/fuzz/corpus/ through its fuzz target, built with
    gcc and ASan/UBSan; make fuzz-check prints one line per target."""
    r = subprocess.run(["make", "-s", "-C", ROOT, "fuzz-check"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(r.stdout)
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", dest="pattern", help="only e2e tests whose name contains this")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("--no-unit", action="store_true")
    ap.add_argument("--no-fuzz", action="store_true")
    args = ap.parse_args()

    passed = failed = skipped = 0
    if not args.no_unit and not args.pattern:
        if run_unit():
            passed += 1
        else:
            failed += 1
            print("FAIL: unit tests / core symbol check")
    if not args.no_fuzz and not args.pattern:
        if run_fuzz_regression():
            passed += 1
        else:
            failed += 1
            print("FAIL: fuzz corpora regression (make fuzz-check)")

    sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
    loader = unittest.TestLoader()
    if args.pattern:
        loader.testNamePatterns = ["*%s*" % args.pattern]
    suite = loader.discover(os.path.join(ROOT, "tests", "e2e"), pattern="test_*.py",
                            top_level_dir=os.path.join(ROOT, "tests", "e2e"))
    res = unittest.TextTestRunner(verbosity=2 if args.v else 1, stream=sys.stdout).run(suite)
    n = res.testsRun
    f = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    s = len(res.skipped)
    passed += max(0, n - f - s)
    failed += f
    skipped += s
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
