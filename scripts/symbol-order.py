#!/usr/bin/env python3
"""Writes the release link's order of the deployed agent's code: the input
sections `printbridge run` executes starting, connecting to a mock Home
Assistant and a mock APNs and then idling, in the order first executed.
scripts/build-release.sh links with both files it writes:
- scripts/symbol-order.txt, for lld's --symbol-ordering-file: each section
  by a symbol defined in it (a function's own section, or the one .text of
  a file compiled without function sections);
- scripts/section-order.ld, a linker script placing the sections no symbol
  names alone at the front of .text: functions LLVM leaves unnamed
  (.L__unnamed_N value witnesses, .Lobjectdestroy closure-context
  destructors) and local names many files define (outlined helpers such as
  __swift_get_extra_inhabitant_indexTm: naming one in the list would pull
  every file's copy in, whole 0.5 MB .text sections of the static runtime
  included), by file and section.

Why: the kernel maps a program's code 64 KB at a time around each page
touched (fault-around), so code the agent runs spread over its 13.5 MB of
text maps far more than its size; packed at the front it maps ~3 MiB
(daemon_benchmark.py --smaps: 8.4 MiB with no order; 5.2 MiB with functions
named by symbol only, the unnamed ones and the shared local names left
spread or pulling in whole files).

How: the agent runs under callgrind (--dump-instr=yes) against the mocks,
--runs times (what a run executes varies a little with timing: how far a
queue grows); each executed instruction address is looked up in the link
map of the same binary (linked again here with -Map). Nothing depends on
the order for correctness: names and patterns that match nothing are
skipped, a new function lands after the ordered ones; a stale order only
maps more pages. Run it again after changes to what start-up runs.

usage: python3 scripts/symbol-order.py [--seconds 90] [--runs 2]
Needs valgrind (callgrind) and the test environment's Python (mock_ha.py).
"""
import argparse
import bisect
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from agent_harness import (BUNDLE, MOCK_APNS, MOCK_HA, ROOT, apns_environment, start,  # noqa: E402
                           use_test_python, write_agent_inputs)

OUTPUT = os.path.join(ROOT, "scripts", "symbol-order.txt")
SCRIPT = os.path.join(ROOT, "scripts", "section-order.ld")
BINARY = os.path.join(ROOT, ".build", "deploy", "release", "printbridge")


def executed_addresses(callgrind_out, binary_name):
    """The binary's instruction addresses callgrind saw executed
    (--dump-instr=yes --compress-pos=no), in the order first recorded."""
    objects, current, order, seen = {}, None, [], set()
    pattern = re.compile(r"^(c?)ob=\((\d+)\)(?: (.*))?$")
    with open(callgrind_out, errors="replace") as f:
        for line in f:
            if line.startswith("0x"):
                if current:
                    address = int(line.split(None, 1)[0], 16)
                    if address not in seen:
                        seen.add(address)
                        order.append(address)
                continue
            found = pattern.match(line.rstrip("\n"))
            if found:
                called, number, name = found.groups()
                if name:
                    objects[number] = name
                if not called:
                    current = os.path.basename(objects.get(number, "")) == binary_name
    return order


def text_sections(link_map):
    """The input sections of the binary's .text from lld's -Map output:
    sorted (address, size, "file:(section)")."""
    sections, in_text = [], False
    line_pattern = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ (\s*)(\S.*)$")
    with open(link_map) as f:
        for line in f:
            found = line_pattern.match(line.rstrip("\n"))
            if not found:
                continue
            address, size, indent, name = found.groups()
            if not indent:  # an output section
                in_text = name == ".text"
            elif in_text and len(indent) == 8 and int(size, 16):
                sections.append((int(address, 16), int(size, 16), name))
    sections.sort()
    return sections


def function_symbols(binary):
    """The binary's function symbols, local ones included, sorted (address, name)."""
    listing = subprocess.run(["nm", "--defined-only", "-n", binary], capture_output=True, text=True, check=True).stdout
    return [(int(parts[0], 16), parts[2]) for parts in (line.split() for line in listing.splitlines())
            if len(parts) == 3 and parts[1] in "tTW"]


def script_file_pattern(file):
    """The file part of a linker-script input section description that
    matches this object wherever the tree is: its module directory and
    name, or archive:member for an archive's (as lld names them)."""
    member = re.match(r"^(.*)\((.*)\)$", file)
    if member:
        return "*/" + os.path.basename(member.group(1)) + ":" + member.group(2)
    return "*/" + "/".join(file.split("/")[-2:])


def order_of(addresses, sections, symbols):
    """The executed input sections in the order first executed, as
    (symbols for --symbol-ordering-file, linker-script lines for the
    sections no symbol names alone)."""
    starts = [section[0] for section in sections]
    symbol_addresses = [symbol[0] for symbol in symbols]
    # lld moves every section that defines a listed name: a local name
    # many files define (outlined helpers such as
    # __swift_get_extra_inhabitant_indexTm) would pull in all of them,
    # whole-file .text sections of 0.5 MB included.
    defined = collections.Counter(name for _, name in symbols)
    names, lines, done = [], [], set()
    for address in addresses:
        index = bisect.bisect_right(starts, address) - 1
        if index < 0 or index in done or address >= sections[index][0] + sections[index][1]:
            continue
        done.add(index)
        start, size, name = sections[index]
        file, section = re.match(r"^(.*):\((.*)\)$", name).groups()
        # .text.NAME, or a C++ function's .text.unlikely.NAME (its cold
        # part) or .text.startup.NAME, is named by its function; the whole
        # .text of a file compiled without function sections by a symbol
        # inside it. A function LLVM left unnamed (.L__unnamed_N,
        # .Lobjectdestroy) or a name defined more than once: by the script.
        symbol = re.sub(r"^\.text\.(?:(?:unlikely|startup|hot|exit|split)\.)?", "", section)
        if symbol == section or not symbol or symbol.startswith(".") \
                or symbol in ("unlikely", "startup", "hot", "exit", "split"):
            found = bisect.bisect_right(symbol_addresses, address) - 1
            symbol = symbols[found][1] if found >= 0 and symbols[found][0] >= start else ""
        if symbol and not symbol.startswith(".L") and defined[symbol] == 1:
            names.append(symbol)
        else:
            lines.append(f"    {script_file_pattern(file)}({section})")
    return names, lines


def record_run(work, run, seconds):
    """Runs the agent under callgrind against fresh mocks for `seconds`;
    its executed addresses."""
    state = os.path.join(work, f"run{run}", "state")
    os.makedirs(state)
    snapshot, devices = write_agent_inputs(os.path.join(work, f"run{run}"))
    processes = []
    try:
        apns_dir = os.path.join(work, f"run{run}", "apns")
        apns, apns_port = start([sys.executable, MOCK_APNS, "--workdir", apns_dir, "--bundle-id", BUNDLE, "--benchmark"])
        processes.append(apns)
        ha, ha_port = start([sys.executable, MOCK_HA, "--events", snapshot, "--token", "bench-token"])
        processes.append(ha)
        env = apns_environment(apns_dir, apns_port, HA_TOKEN="bench-token",
                               API_TOKEN="bench-api-token", API_LISTEN="127.0.0.1:0", GNUTLS_NO_IMPLICIT_INIT="1",
                               HA_URL=f"http://127.0.0.1:{ha_port}", STATE_DIR=state)
        out = os.path.join(work, f"callgrind.out.{run}")
        agent = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=yes",
                                  "--compress-pos=no", f"--callgrind-out-file={out}",
                                  os.path.join(work, "printbridge"), "run", "--devices", devices], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(seconds)
        agent.send_signal(signal.SIGTERM)
        agent.wait(timeout=120)
        return executed_addresses(out, "printbridge")
    finally:
        for process in processes:
            process.terminate()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=90,
                        help="how long each run lasts: past the idle agent's periodic work (the HA link's pings)")
    parser.add_argument("--runs", type=int, default=2,
                        help="runs recorded (what a run executes varies a little with timing: how far a queue grows)")
    args = parser.parse_args()
    use_test_python()
    work = tempfile.mkdtemp(prefix="printbridge-symbol-order-")
    try:
        # Linked again with a map (SwiftPM relinks only a missing binary): the
        # addresses callgrind reports are found in the map's input sections.
        link_map = os.path.join(work, "link.map")
        if os.path.exists(BINARY):
            os.remove(BINARY)
        subprocess.check_call([os.path.join(ROOT, "scripts", "build-release.sh"), "printbridge", "-Xlinker",
                               f"-Map={link_map}"], cwd=ROOT, stdout=subprocess.DEVNULL)
        # valgrind 3.19 gives up on the DWARF 5 of the C shims: a copy without debug information.
        subprocess.check_call(["strip", "--strip-debug", "-o", os.path.join(work, "printbridge"), BINARY])
        addresses, seen = [], set()
        for run in range(args.runs):
            for address in record_run(work, run, args.seconds):
                if address not in seen:
                    seen.add(address)
                    addresses.append(address)
        names, lines = order_of(addresses, text_sections(link_map), function_symbols(BINARY))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if len(names) < 3000:
        sys.exit(f"symbol-order.py: only {len(names)} functions recorded; did the agent start?")
    with open(OUTPUT, "w") as f:
        f.write("\n".join(names) + "\n")
    with open(SCRIPT, "w") as f:
        f.write("/* Written by scripts/symbol-order.py: the functions `printbridge run` executes\n"
                "   starting and idling that no symbol names alone for scripts/symbol-order.txt\n"
                "   (LLVM leaves closure-context destructors and some value witnesses unnamed;\n"
                "   outlined helpers share local names across files),\n"
                "   at the front of .text in the order first executed. */\n"
                "SECTIONS {\n  .text : {\n" + "\n".join(lines) + "\n  }\n} INSERT BEFORE .init;\n")
    print(f"{OUTPUT}: {len(names)} functions; {SCRIPT}: {len(lines)} sections named by file")


if __name__ == "__main__":
    main()
