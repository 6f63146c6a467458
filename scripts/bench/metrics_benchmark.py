#!/usr/bin/env python3
"""The cost of the agent's metrics (docs/BEHAVIOUR.md, "Health and metrics"):
Benchmarks/Sources/MetricsBenchmark, built as deployed
(scripts/build-release.sh), under callgrind: the instructions of one push
counted (`AgentMetrics.push`), one refused API request counted
(`authFailure`, a labeled counter and nothing else) and one /metrics
rendered (`exposition()`, every family in use), each a run of N less a run
that only sets up (deterministic hashing); and the time of each without valgrind (noisy on a shared
machine: the instructions are the figure to compare).

usage: python3 scripts/bench/metrics_benchmark.py [--skip-build] [--binary PATH] [--count 20000] [--renders 2000]
(--binary: another build of the program, e.g. an older commit's, to compare.)
"""
import argparse
import os
import subprocess
import tempfile

from agent_harness import ROOT, callgrind_instructions

BENCHMARK = os.path.join(ROOT, ".build", "deploy-benchmarks", "release", "MetricsBenchmark")


def instructions(binary, arguments):
    """Instructions the program executes with `arguments` (callgrind's total),
    with the same hashing in every run (Swift's is seeded anew in each
    process, which moves a dictionary's walk and so the count). The program
    runs without its debug information: valgrind 3.19 (Debian 12) gives up
    on the DWARF 5 that clang writes for swift-atomics' C shim."""
    with tempfile.TemporaryDirectory(prefix="printbridge-metrics-strip-") as workdir:
        plain = os.path.join(workdir, "MetricsBenchmark")
        subprocess.check_call(["strip", "--strip-debug", "-o", plain, binary])
        return callgrind_instructions([plain] + arguments, env=dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1"),
                                      who="metrics_benchmark.py")[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--binary", default=BENCHMARK)
    parser.add_argument("--count", type=int, default=20000, help="pushes or refusals counted in a run")
    parser.add_argument("--renders", type=int, default=2000, help="/metrics renders in a run")
    args = parser.parse_args()
    if not args.skip_build and args.binary == BENCHMARK:
        subprocess.check_call([os.path.join(ROOT, "scripts", "build-release.sh"), "MetricsBenchmark"], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
    size = len(subprocess.run([args.binary, "1", "print"], capture_output=True, check=True).stdout)
    print(f"/metrics of the benchmark's agent: {size} bytes")
    base = instructions(args.binary, ["1", "none"])
    for mode, n in [("push", args.count), ("auth", args.count), ("render", args.renders)]:
        each = (instructions(args.binary, [str(n), mode]) - base) / n
        timed = subprocess.run([args.binary, str(n), mode], capture_output=True, text=True, check=True).stdout
        print(f"{mode}: {each:,.0f} instructions each (callgrind, N = {n}); {timed.splitlines()[0]}")


if __name__ == "__main__":
    main()
