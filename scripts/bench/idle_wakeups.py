#!/usr/bin/env python3
"""Wake-ups of an idle agent, per thread (issue 38, "Nothing awake when nothing happens").

Starts `printbridge run --dry-run` (built as deployed, scripts/build-release.sh)
against the mock HA serving a snapshot and no events, with the API listening
and nothing calling it; once HA is connected and the agent settled, reads
every thread's voluntary and involuntary context switches
(/proc/PID/task/*/status) over --seconds and prints them per minute, by
thread name, and in all. Target: <= 30 a minute in all.

usage: python3 scripts/bench/idle_wakeups.py [--seconds 60] [--settle 5] [--skip-build] [--binary PATH]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from agent_harness import agent_binary, start_dry_run_agent, use_test_python, ROOT, threads, wakeups_by_name


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--settle", type=float, default=5)
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--binary")
    args = parser.parse_args()
    use_test_python()
    binary = agent_binary(args)

    work = tempfile.mkdtemp(prefix="printbridge-wakeups-")
    ha, agent, api_port = start_dry_run_agent(binary, work)
    try:
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{api_port}/healthz", timeout=2) as reply:
                    if json.loads(reply.read()).get("ha") == "connected":
                        break
            except OSError:
                pass
            time.sleep(0.1)
        else:
            sys.exit("the agent did not connect to the mock HA")
        time.sleep(args.settle)
        before = threads(agent.pid)
        time.sleep(args.seconds)
        after = threads(agent.pid)
    finally:
        agent.terminate()
        agent.wait()
        ha.terminate()

    print(f"idle {args.seconds:.0f} s, HA connected, no events, no API requests; context switches a minute "
          f"(voluntary + involuntary), by thread name:")
    rows, total = wakeups_by_name(before, after, args.seconds)
    for name, count, voluntary, involuntary in rows:
        print(f"  {name:<16} x{count}: {voluntary:7.1f} + {involuntary:6.1f}")
    print(f"  all {len(after)} threads: {total:.1f} a minute (target <= 30)")


if __name__ == "__main__":
    main()
