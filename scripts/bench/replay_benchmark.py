#!/usr/bin/env python3
"""Replay throughput benchmark (issue: core pipeline, "Measure and report").

Generates (once) a recorded-event file of N HA messages, ~98 % unrelated
entities and ~2 % printer entities (an older recording's `state_changed`
flood), then in one run measures:
  1. a parse-only baseline: Python orjson.loads on every line;
  2. `printbridge replay` (release build), the full pipeline, every line parsed.
Prints messages/s, peak RSS and the pipeline / baseline ratio: a plain
report. (Its target, >= 4x, was met by the frame filter that skipped the
household lines unparsed; the filter went with issue 50, as the agent no
longer receives household events.)

usage: python3 scripts/bench/replay_benchmark.py [--messages N] [--workdir DIR] [--skip-build]
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

from agent_harness import ensure_orjson, use_test_python

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def run_child(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd; returns its stderr. (Each contender reports its own peak RSS,
    VmHWM: ru_maxrss of a child would include this Python process's.)"""
    return subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True, check=True).stderr


def replay_stats(stderr):
    match = re.search(r"replay: (\d+) lines in ([\d.]+) s \((\d+) messages/s\).*?(\d+) parsed"
                      r".*?(\d+) pushes; peak RSS ([\d.]+) MiB", stderr, re.S)
    if not match:
        sys.exit("could not read replay --stats output:\n" + stderr)
    lines, seconds, rate, parsed, pushes, rss = match.groups()
    return {"lines": int(lines), "seconds": float(seconds), "rate": int(rate),
            "parsed": int(parsed), "pushes": int(pushes), "rss": float(rss)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--workdir", default="/tmp/printbridge-bench")
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    use_test_python()  # orjson goes into .build/test-venv, not the system Python
    os.makedirs(args.workdir, exist_ok=True)

    if not args.skip_build:
        subprocess.check_call(["swift", "build", "-c", "release", "--product", "printbridge"], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
    binary = os.path.join(ROOT, ".build", "release", "printbridge")
    # The file is kept between runs, named after what makes it: the count and
    # the generator's source (a changed generator makes a new file).
    source = hashlib.sha256()
    for name in ("generate_events.py", os.path.join("..", "ha_wire.py")):
        with open(os.path.join(HERE, name), "rb") as f:
            source.update(f.read())
    events = os.path.join(args.workdir, f"events-{args.messages}-{source.hexdigest()[:10]}.jsonl")
    if not os.path.exists(events):
        print(f"generating {args.messages} messages into {events} ...", file=sys.stderr)
        subprocess.check_call([sys.executable, os.path.join(HERE, "generate_events.py"), events,
                               "--messages", str(args.messages)])
    ensure_orjson()
    size_mib = os.path.getsize(events) / 1048576

    # Warm the page cache so every contender reads from memory.
    with open(events, "rb") as f:
        while f.read(1 << 24):
            pass

    base_out = subprocess.run([sys.executable, os.path.join(HERE, "orjson_baseline.py"), events],
                              capture_output=True, text=True, check=True)
    base_lines, base_seconds, base_rss = base_out.stdout.split()
    base_rate = int(base_lines) / float(base_seconds)
    base_rss = float(base_rss)

    with open(os.devnull, "w") as out:
        stderr = run_child([binary, "replay", events, "--stats"], stdout=out)
    replay = replay_stats(stderr)

    ratio = replay["rate"] / base_rate
    print(f"input: {replay['lines']} messages, {size_mib:.0f} MiB; {replay['parsed']} parsed")
    print(f"{'contender':<38}{'messages/s':>12}{'seconds':>10}{'peak RSS':>12}")
    print(f"{'orjson.loads per line (parse only)':<38}{base_rate:>12,.0f}{float(base_seconds):>10.2f}{base_rss:>9.1f} MiB")
    print(f"{'printbridge replay (full pipeline)':<38}{replay['rate']:>12,}{replay['seconds']:>10.2f}{replay['rss']:>9.1f} MiB")
    print(f"pushes: {replay['pushes']}; pipeline / parse-only baseline: {ratio:.1f}x")


if __name__ == "__main__":
    main()
