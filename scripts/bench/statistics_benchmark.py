#!/usr/bin/env python3
"""Statistics scale benchmark (the issue's target): ten years of a busy farm
(10 printers x 20 prints a day x 3,650 days, ~730,000 prints) in the device
store answer a one-year weekly query in under 50 ms on this machine, with an
index that shows it, and the store stays under a stated bound (STORE_LIMIT_*).

Benchmarks/Sources/StatisticsBenchmark, built as deployed
(scripts/build-release.sh), builds the store once through
`DeviceStore.commit(prints:)` (one commit per day of the farm; kept in
.build/bench-stats/ and reused until the store's code changes, `--fresh`
builds it again) and prints: how long building took; the store's size (MB,
bytes a print, by table); min / median / p95 (and CPU time) of the API's
statistics (statisticsCounts + Statistics) for a year by weeks and a month
by days, every printer and one, in Berlin time, and a year in Asia/Kolkata
(+5:30); beside them the floor (counting the year's rows and nothing more,
on a plain connection to the same file) and the same count without the
index; the store's own statements for a query (traced from its connection),
each run alone with its VM steps; and the query plans (EXPLAIN QUERY PLAN:
`SEARCH print_stats USING PRIMARY KEY (ended_at>? AND ended_at<?)` is the
index). Beside the timings: the hypervisor's steal and the machine's load
(another tenant's build on the other core moves every figure), and, with
valgrind (installed when missing and running as root), the instructions of
one every-printer one-year weekly query (a run that opens the store and runs
it once, less one that only opens the store). On 2+ cores the benchmark
runs on CPU 1.

Exit status 1 when the median every-printer one-year weekly query is 50 ms
or more, or the store is larger than the stated bound (STORE_LIMIT_*).

usage: python3 scripts/bench/statistics_benchmark.py [--runs 30] [--fresh] [--skip-build] [--skip-callgrind]
       [--days 3650] [--printers 10] [--per-day 20] [--any-material]
(--any-material: each spool of any of the 24 materials, the worst case for
the material roll-ups; by default each printer prints from the 4 spools
loaded in its AMS, one changed about once a week.)
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys

from agent_harness import ROOT, callgrind_instructions, run_as_root
from steal import StealMeter

TARGET_MS = 50.0
# The stated size bound: 2 MB (the histories, 500 prints a printer) and 150
# bytes a print, 111.5 MB for the ten-year farm. Measured: 92.7 MB, 127 bytes
# a print (the print rows 29 MB and their second index 13 MB, the material
# rows 34 MB, the hourly and daily roll-ups 13 MB).
STORE_LIMIT_FIXED_MB, STORE_LIMIT_BYTES_PER_PRINT = 2.0, 150
BENCHMARK = os.path.join(ROOT, ".build", "deploy-benchmarks", "release", "StatisticsBenchmark")
CACHE = os.path.join(ROOT, ".build", "bench-stats")


def store_code_digest():
    """What the cached store depends on beyond its farm (which the program
    checks itself): the store's code, its schema and what it writes."""
    digest = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(ROOT, "Sources", "DeviceStore", "*.swift"))):
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()



def have_valgrind():
    """valgrind, installed when missing and this runs as root; False (skipped) otherwise."""
    if shutil.which("valgrind"):
        return True
    if os.getuid() != 0:
        return False
    run_as_root(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "valgrind"])
    return shutil.which("valgrind") is not None


def instructions(arguments):
    """Instructions the benchmark program executes with `arguments` (callgrind's total)."""
    return callgrind_instructions([BENCHMARK] + arguments, who="statistics_benchmark.py")[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--days", type=int, default=3650)
    parser.add_argument("--printers", type=int, default=10)
    parser.add_argument("--per-day", type=int, default=20)
    parser.add_argument("--any-material", action="store_true", help="spools of any material (the worst case)")
    parser.add_argument("--fresh", action="store_true", help="build the store again")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--skip-callgrind", action="store_true")
    args = parser.parse_args()
    if not args.skip_build:
        subprocess.check_call([os.path.join(ROOT, "scripts", "build-release.sh"), "StatisticsBenchmark"], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
    # One store per farm shape (the program rebuilds one built with other parameters).
    shape = (args.days, args.printers, args.per_day, args.any_material)
    store = os.path.join(CACHE, "store" if shape == (3650, 10, 20, False) else
                         f"store-{args.days}d-{args.printers}p-{args.per_day}" + ("-any" if args.any_material else ""))
    stamp = os.path.join(store, "store-code.sha256")
    code = store_code_digest()
    if not args.fresh and os.path.exists(stamp) and open(stamp).read() != code:
        print("the store's code changed since the cached store was built: building it again", flush=True)
        args.fresh = True
    if args.fresh:
        shutil.rmtree(store, ignore_errors=True)
    os.makedirs(store, exist_ok=True)
    farm = ["--store", store, "--days", str(args.days), "--printers", str(args.printers), "--per-day", str(args.per_day)] \
        + (["--any-material"] if args.any_material else [])
    pin = ["taskset", "-c", "1"] if (os.cpu_count() or 1) >= 2 and shutil.which("taskset") else []
    command = pin + [BENCHMARK, "--runs", str(args.runs)] + farm

    # The report goes through as it comes (building the store prints its
    # progress on stderr); the last line is the figures as JSON.
    steal = StealMeter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    figures = None
    for line in process.stdout:
        if line.startswith("{"):
            figures = json.loads(line)
        else:
            print(line, end="", flush=True)
    if process.wait() != 0 or figures is None:
        sys.exit(f"statistics_benchmark.py: StatisticsBenchmark failed (exit {process.returncode})")
    with open(stamp, "w") as f:
        f.write(code)
    steal = steal.percent()
    load = os.getloadavg()[0]
    print(f"\nhypervisor steal during the run: {steal:.1f} % of the machine's CPU time; load average {load:.1f} "
          f"on {os.cpu_count()} CPUs" + (" (benchmark on CPU 1)" if pin else ""))

    if args.skip_callgrind:
        print("instructions: skipped (--skip-callgrind)")
    elif not have_valgrind():
        print("instructions: skipped (valgrind is not installed, and installing it needs root)")
    else:
        once = instructions(farm + ["--query-once"])
        none = instructions(farm + ["--query-none"])
        print(f"instructions (callgrind): one every-printer one-year weekly query {(once - none) / 1e6:,.1f} M "
              f"(open + query {once / 1e6:,.1f} M, open only {none / 1e6:,.1f} M)")

    queries = figures["queries"]
    median = queries["year_week_all"]["median_ms"]
    megabytes = (figures["store_bytes"] + figures["wal_bytes"]) / 1e6
    limit = STORE_LIMIT_FIXED_MB + STORE_LIMIT_BYTES_PER_PRINT * figures["prints"] / 1e6
    print(f"\none year by weeks, every printer: median {median:.1f} ms (target < {TARGET_MS:.0f} ms): "
          f"{'met' if median < TARGET_MS else 'NOT met'}; floor (count of the year's rows) "
          f"{queries['floor_year']['median_ms']:.1f} ms")
    print(f"store: {megabytes:.1f} MB, {figures['bytes_per_print']:.0f} bytes a print (stated bound {limit:.1f} MB: "
          f"{STORE_LIMIT_FIXED_MB:.0f} MB + {STORE_LIMIT_BYTES_PER_PRINT} bytes a print): "
          f"{'met' if megabytes < limit else 'NOT met'}")
    if median >= TARGET_MS or megabytes >= limit:
        sys.exit(1)


if __name__ == "__main__":
    main()
