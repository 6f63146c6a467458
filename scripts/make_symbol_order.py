#!/usr/bin/env python3
"""Regenerates Sources/printbridge/printbridge.order, the linker's symbol order for release builds.

Release builds put the code `printbridge run` executes next to each other
at the start of the code (lld --symbol-ordering-file moves the input sections
that hold those functions), so the kernel maps one block of code instead of
faulting in pieces all over a 10 MB binary: the daemon stays ~2 MB smaller. The list
is found by running `run` under valgrind's callgrind between the mock HA
(a full print, so pushes are made) and the mock APNs, with the API up.

A stale list costs only memory (new functions land outside the ordered
block); rerun this after larger changes. Needs valgrind (apt-get install
valgrind). usage: python3 scripts/make_symbol_order.py [--seconds 40]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from agent_harness import BUNDLE, MOCK_APNS, MOCK_HA, ROOT, apns_environment, start  # noqa: E402

ORDER = os.path.join(ROOT, "Sources", "printbridge", "printbridge.order")


def executed_functions(callgrind_file, binary_name):
    """Mangled names of the functions callgrind saw run in `binary_name`."""
    names, objects, executed, current = {}, {}, set(), None
    with open(callgrind_file, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            match = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
            if match:
                if match.group(3):
                    objects[match.group(2)] = match.group(3)
                if match.group(1) == "ob":
                    current = objects.get(match.group(2))
                continue
            match = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
            if match:
                if match.group(3):
                    names[match.group(2)] = match.group(3)
                if match.group(1) == "fn" and current and current.endswith("/" + binary_name):
                    executed.add(match.group(2))
    return sorted({names[i] for i in executed if i in names and not names[i].startswith("0x")})


def text_sections(link_map):
    """name -> sizes of the .text input sections that define it, from lld's -Map output."""
    defined, in_text, size = {}, False, 0
    with open(link_map, errors="replace") as f:
        for line in f:
            match = re.match(r"\s*[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(.*)$", line.rstrip("\n"))
            if not match:
                continue
            depth, name = len(match.group(2)), match.group(3)
            if depth == 0:
                in_text = name == ".text"
            elif in_text and ":(" in name:
                size = int(match.group(1), 16)
            elif in_text:
                defined.setdefault(name.strip(), []).append(size)
    return defined


def placeable(functions, defined, big=16384):
    """Drops names the linker cannot place on their own. Local helpers
    ("outlined copy of ...", metadata accessors) share one name across
    objects; ordering such a name also moves every other copy, and a copy
    inside a large section that holds a whole module's code (the toolchain's
    static libraries are not all built with function sections) would drag
    hundreds of KB of cold code into the ordered block."""
    return [name for name in functions if len(defined.get(name, [])) <= 1 or max(defined[name]) <= big]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=40)
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("make_symbol_order.py needs valgrind (apt-get install valgrind)")
    work = tempfile.mkdtemp(prefix="printbridge-order-")
    link_map = os.path.join(work, "link.map")
    binary = os.path.join(ROOT, ".build", "release", "printbridge")
    if os.path.exists(binary):
        os.remove(binary)  # so the build links again and writes the map
    subprocess.check_call(["swift", "build", "-c", "release", "--static-swift-stdlib", "--product", "printbridge",
                           "-Xlinker", "-Map=" + link_map], cwd=ROOT, stdout=subprocess.DEVNULL)
    processes = []
    try:
        apns, apns_port = start([sys.executable, MOCK_APNS, "--workdir", os.path.join(work, "apns"),
                                 "--bundle-id", BUNDLE])
        processes.append(apns)
        ha, ha_port = start([sys.executable, MOCK_HA, "--events",
                             os.path.join(ROOT, "SampleEvents", "bambu-full-print.jsonl"),
                             "--token", "order-token", "--interval", "0.05", "--start-delay", "5"])
        processes.append(ha)
        devices = os.path.join(work, "devices.json")
        with open(devices, "w") as f:
            f.write('[{"apnsToken":"' + "ab" * 32 + '","settings":{"onPaused":true}}]')
        os.makedirs(os.path.join(work, "state"))
        # Set here, so the agent does not restart itself to set it (Entry.swift): callgrind would lose it.
        env = apns_environment(os.path.join(work, "apns"), apns_port, GNUTLS_NO_IMPLICIT_INIT="1", HA_TOKEN="order-token",
                               HA_URL=f"http://127.0.0.1:{ha_port}", API_TOKEN="order-api-token",
                               API_LISTEN="127.0.0.1:38123", STATE_DIR=os.path.join(work, "state"))
        profile = os.path.join(work, "callgrind.out")
        agent = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", "--callgrind-out-file=" + profile,
                                  binary, "run", "--devices", devices], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(agent)
        time.sleep(args.seconds / 2)
        for path in ("/healthz", "/metrics", "/api/devices"):
            request = urllib.request.Request("http://127.0.0.1:38123" + path,
                                             headers={"Authorization": "Bearer order-api-token"})
            try:
                urllib.request.urlopen(request, timeout=10).read()
            except OSError:
                pass
        time.sleep(args.seconds / 2)
        agent.terminate()
        agent.wait(timeout=60)
        seen = executed_functions(profile, "printbridge")
        functions = placeable(seen, text_sections(link_map))
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        shutil.rmtree(work, ignore_errors=True)
    if len(functions) < 500:
        sys.exit(f"only {len(functions)} functions seen; the profile run did not work")
    with open(ORDER, "w") as f:
        f.write("\n".join(functions) + "\n")
    # The linker does not track the order file: make the next build link again.
    for stale in (binary, os.path.realpath(binary)):
        if os.path.exists(stale):
            os.remove(stale)
    print(f"{ORDER}: {len(functions)} functions ({len(seen) - len(functions)} of those run left out: "
          "their name also names code inside a large section)")


if __name__ == "__main__":
    main()
