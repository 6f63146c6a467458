#!/usr/bin/env python3
"""Writes scripts/symbol-order.txt: the functions of the deployed agent in the
order `printbridge run` first executes them, starting, connecting to a mock
Home Assistant and a mock APNs and then idling, for lld's
--symbol-ordering-file (scripts/build-release.sh links with it).

Why: the kernel maps a program's code 64 KB at a time around each page
touched (fault-around), and without an order the functions the agent runs
are spread over its 13.5 MB of code, so an idle agent had 8.4 MiB of it
mapped (PSS, private to its one process). Packed at the front, the same
functions take ~5 MiB (daemon_benchmark.py: idle PSS 15.7 -> 12.8 MiB, then
11.7 once every function of ours had a section of its own, build-release.sh).
What stays spread is the static Swift runtime's: its Swift.o keeps 1.6 MB of
internal functions in one `.text` that no order can split.
Nothing depends on the order for correctness: a name the toolchain no longer
has is skipped (--no-warn-symbol-ordering), a new function lands after the
ordered ones; a stale file only maps more pages. Run it again after large
changes to what start-up runs.

usage: python3 scripts/symbol-order.py [--seconds 25] [--skip-build]
Needs valgrind (callgrind) and the test environment's Python (mock_ha.py).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from agent_harness import (BUNDLE, MOCK_APNS, MOCK_HA, ROOT, apns_environment, start,  # noqa: E402
                           use_test_python, write_agent_inputs)

OUTPUT = os.path.join(ROOT, "scripts", "symbol-order.txt")


def first_executed(callgrind_out, binary_name):
    """The binary's function names (mangled) in the order callgrind first records them."""
    objects, functions, current, order, seen = {}, {}, None, [], set()
    pattern = re.compile(r"^(c?)(ob|fn)=\((\d+)\)(?: (.*))?$")
    with open(callgrind_out, errors="replace") as f:
        for line in f:
            found = pattern.match(line.rstrip("\n"))
            if not found:
                continue
            called, kind, number, name = found.groups()
            (objects if kind == "ob" else functions).update({number: name} if name else {})
            if called:
                continue
            if kind == "ob":
                current = objects.get(number)
            elif current and os.path.basename(current) == binary_name:
                # callgrind marks recursion levels with a quote: foo'2.
                name = functions.get(number, "").split("'")[0]
                if name and not name.startswith("0x") and name not in seen:
                    seen.add(name)
                    order.append(name)
    return order


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=25)
    parser.add_argument("--skip-build", action="store_true")
    args = parser.parse_args()
    use_test_python()
    if not args.skip_build:
        subprocess.check_call([os.path.join(ROOT, "scripts", "build-release.sh")], cwd=ROOT, stdout=subprocess.DEVNULL)
    work = tempfile.mkdtemp(prefix="printbridge-symbol-order-")
    snapshot, devices = write_agent_inputs(work)
    processes = []
    try:
        apns, apns_port = start([sys.executable, MOCK_APNS, "--workdir", os.path.join(work, "apns"), "--bundle-id",
                                 BUNDLE, "--benchmark"])
        processes.append(apns)
        ha, ha_port = start([sys.executable, MOCK_HA, "--events", snapshot, "--token", "bench-token"])
        processes.append(ha)
        os.makedirs(os.path.join(work, "state"))
        env = apns_environment(os.path.join(work, "apns"), apns_port, HA_TOKEN="bench-token",
                               API_TOKEN="bench-api-token", API_LISTEN="127.0.0.1:0", GNUTLS_NO_IMPLICIT_INIT="1",
                               HA_URL=f"http://127.0.0.1:{ha_port}", STATE_DIR=os.path.join(work, "state"))
        # valgrind 3.19 gives up on the DWARF 5 of the C shims: a copy without debug information.
        plain = os.path.join(work, "printbridge")
        subprocess.check_call(["strip", "--strip-debug", "-o", plain,
                               os.path.join(ROOT, ".build", "deploy", "release", "printbridge")])
        out = os.path.join(work, "callgrind.out")
        agent = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}",
                                  plain, "run", "--devices", devices], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(args.seconds)
        agent.send_signal(signal.SIGTERM)
        agent.wait(timeout=120)
        order = first_executed(out, "printbridge")
    finally:
        for process in processes:
            process.terminate()
    if len(order) < 3000:
        sys.exit(f"symbol-order.py: only {len(order)} functions recorded; did the agent start?")
    with open(OUTPUT, "w") as f:
        f.write("\n".join(order) + "\n")
    print(f"{OUTPUT}: {len(order)} functions")


if __name__ == "__main__":
    main()
