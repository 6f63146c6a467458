#!/usr/bin/env python3
"""Instructions per event on the agent's own frame path, counted by
callgrind, so the figure holds from one day to the next. A plain report: the
per-ignored-event figure and its target (<= 2,000) went with the frame
filter (issue 50: the agent no longer receives household events).

Benchmarks/Sources/PathInstructions (built as deployed) reads a generated
recording (scripts/bench/generate_events.py, ~1.1 KB an event) through
HAFrameReader, the path the HA link hands every frame to:
  parsed     a household `state_changed` event (an older HA's, or a
             recording's) read whole and matched to no printer;
  alert      a print's frames (start, progress, finish, idle) through the
             reader, the pipeline and APNsSender's request (path, headers,
             JSON body; HPACK and TLS are nghttp2's and OpenSSL's), per push.
Each is run twice under callgrind, with one round and with two, and the
difference divided by the events (pushes) of the extra round: start-up and the
matcher's teaching cancel out. Steal is printed beside each, for the times.

usage: python3 scripts/bench/path_instructions.py [--messages N] [--skip-build]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from agent_harness import callgrind_instructions, install_packages
from steal import StealMeter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
BINARY = os.path.join(ROOT, ".build", "deploy-benchmarks", "release", "PathInstructions")


def instructions(events_file, mode, rounds):
    """(instructions, events counted, report) of one run of PathInstructions."""
    env = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
    total, stdout = callgrind_instructions([BINARY, events_file, mode, str(rounds)], env=env,
                                           who=f"PathInstructions {mode} {rounds}")
    counted = int(re.search(r"counted (\d+)", stdout).group(1))
    return total, counted, stdout.strip()


def seconds_per_event(events_file, mode, events):
    """Wall time of one round, less a run of none (start-up and teaching), per event."""
    def run(rounds):
        start = time.perf_counter()
        subprocess.run([BINARY, events_file, mode, str(rounds)], check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start
    best = min(run(5) - run(0) for _ in range(3))
    return best / (5 * events)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=20000)
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        install_packages(["valgrind"])
    if not args.skip_build:
        subprocess.check_call([os.path.join(ROOT, "scripts", "build-release.sh"), "PathInstructions"], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix="path-instructions-") as workdir:
        events_file = os.path.join(workdir, "events.jsonl")
        subprocess.check_call([sys.executable, os.path.join(HERE, "generate_events.py"), events_file, "--messages",
                               str(args.messages)], stdout=subprocess.DEVNULL)
        print(f"{'path':<42} {'instructions/event':>18} {'time/event':>11} {'steal':>6}")
        figures = {}
        reports = {}
        for mode, label in [("parsed", "household event parsed, one a frame"),
                            ("alert", "a print's frames to APNs requests, per push")]:
            meter = StealMeter()
            one, counted_one, _ = instructions(events_file, mode, 1)
            two, counted_two, report = instructions(events_file, mode, 2)
            events = counted_two - counted_one
            per_event = (two - one) / events
            seconds = seconds_per_event(events_file, mode, events)
            figures[mode] = per_event
            reports[mode] = report
            print(f"{label:<42} {per_event:>18,.0f} {seconds * 1e9:>8,.0f} ns {meter.percent():>5.1f}%", flush=True)
        print(f"(household events of {args.messages:,} generated messages: {reports['parsed'].split(';')[0]};")
        print(f" {reports['alert']})")


if __name__ == "__main__":
    main()
