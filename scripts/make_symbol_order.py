#!/usr/bin/env python3
"""Regenerates Sources/printbridge/printbridge.order, the linker's symbol order for release builds.

Release builds put the code `printbridge run` executes next to each other
at the start of the code (lld --symbol-ordering-file moves the input sections
that hold those functions; scripts/build-release.sh gives every function its
own), so the kernel maps one block of code instead of faulting in pieces all
over a 10 MB binary. The functions are found by running `run` under
valgrind's callgrind between the mock HA and the mock APNs twice: connected
and idle, then through a full print (pushes made) with the API asked too.
The idle daemon's functions come first, those a print adds after them. Then
come the protocol conformance descriptors and nominal type descriptors: the
runtime's conformance and type lookups read every one of them, so together
they are a few pages instead of a few bytes on every page of the constants;
last, the few other constants every start reads (READ_AT_START).

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
from agent_harness import use_test_python, BUNDLE, MOCK_APNS, MOCK_HA, ROOT, apns_environment, start, write_agent_inputs  # noqa: E402

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


DESCRIPTOR_SUFFIXES = ("Mc", "Mn")

# Constants every start reads that no profile names: the Unicode property
# tables behind Character.isUppercase / isWhitespace, which ArgumentParser's
# derivation of option names consults (found with valgrind's lackey).
READ_AT_START = ["_ZL29_swift_stdlib_scalar_binProps", "_ZL34_swift_stdlib_scalar_binProps_data"]


def descriptors(link_map):
    """Names of the Swift protocol conformance (…Mc) and nominal type (…Mn) descriptors in the map."""
    names = set()
    with open(link_map, errors="replace") as f:
        for line in f:
            name = line.rstrip("\n").rsplit(" ", 1)[-1]
            if name.startswith("$s") and name.endswith(DESCRIPTOR_SUFFIXES):
                names.add(name)
    return sorted(names, key=lambda name: (name[-2:], name))  # conformances, then types


def placeable(functions, defined, big=16384):
    """Drops names the linker cannot place on their own. Local helpers
    ("outlined copy of ...", metadata accessors) share one name across
    objects; ordering such a name also moves every other copy, and a copy
    inside a large section that holds a whole module's code (the toolchain's
    static libraries are not all built with function sections) would drag
    hundreds of KB of cold code into the ordered block."""
    return [name for name in functions if len(defined.get(name, [])) <= 1 or max(defined[name]) <= big]


class Profile:
    """Runs `printbridge run` under callgrind against the mock HA and the mock APNs."""

    def __init__(self, work, binary, apns_port, devices):
        self.work, self.binary, self.apns_port, self.devices = work, binary, apns_port, devices

    def run(self, name, events, seconds, api=False):
        """The functions run in the binary: connected to a mock HA that sends
        `events` after 5 s, for `seconds`, and with `api`, the control API asked
        for its health, metrics and devices halfway."""
        ha, ha_port = start([sys.executable, MOCK_HA, "--events", events, "--token", "order-token",
                             "--interval", "0.05", "--start-delay", "5"])
        state = os.path.join(self.work, "state-" + name)
        os.makedirs(state)
        # Set here, so the agent does not restart itself to set it (Entry.swift): callgrind would lose it.
        env = apns_environment(os.path.join(self.work, "apns"), self.apns_port, GNUTLS_NO_IMPLICIT_INIT="1",
                               HA_TOKEN="order-token", HA_URL=f"http://127.0.0.1:{ha_port}",
                               API_TOKEN="order-api-token", API_LISTEN="127.0.0.1:38123", STATE_DIR=state)
        output = os.path.join(self.work, f"callgrind.{name}")
        agent = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", "--callgrind-out-file=" + output,
                                  self.binary, "run", "--devices", self.devices], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(seconds / 2)
            for path in ("/healthz", "/metrics", "/api/devices") if api else ():
                request = urllib.request.Request("http://127.0.0.1:38123" + path,
                                                 headers={"Authorization": "Bearer order-api-token"})
                try:
                    urllib.request.urlopen(request, timeout=10).read()
                except OSError:
                    pass
            time.sleep(seconds / 2)
        finally:
            agent.terminate()
            agent.wait(timeout=60)
            ha.terminate()
        return executed_functions(output, os.path.basename(self.binary))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=40)
    args = parser.parse_args()
    use_test_python()
    if not shutil.which("valgrind"):
        sys.exit("make_symbol_order.py needs valgrind (apt-get install valgrind)")
    work = tempfile.mkdtemp(prefix="printbridge-order-")
    link_map = os.path.join(work, "link.map")
    binary = os.path.join(ROOT, ".build", "deploy", "release", "printbridge")
    if os.path.exists(binary):
        os.remove(binary)  # so the build links again and writes the map
    subprocess.check_call([os.path.join(ROOT, "scripts", "build-release.sh"), "printbridge",
                           "-Xlinker", "-Map=" + link_map], cwd=ROOT, stdout=subprocess.DEVNULL)
    apns = None
    try:
        apns, apns_port = start([sys.executable, MOCK_APNS, "--workdir", os.path.join(work, "apns"),
                                 "--bundle-id", BUNDLE])
        snapshot, devices = write_agent_inputs(work)
        profile = Profile(work, binary, apns_port, devices)
        idle = profile.run("idle", snapshot, args.seconds)
        full = profile.run("full", os.path.join(ROOT, "SampleEvents", "bambu-full-print.jsonl"), args.seconds,
                           api=True)
        defined = text_sections(link_map)
        functions = placeable(sorted(idle), defined) + placeable(sorted(set(full) - set(idle)), defined)
        seen = set(idle) | set(full)
        data = descriptors(link_map)
    finally:
        if apns and apns.poll() is None:
            apns.terminate()
        shutil.rmtree(work, ignore_errors=True)
    if len(functions) < 500:
        sys.exit(f"only {len(functions)} functions seen; the profile run did not work")
    with open(ORDER, "w") as f:
        f.write("\n".join(functions + data + READ_AT_START) + "\n")
    # The linker does not track the order file: make the next build link again.
    for stale in (binary, os.path.realpath(binary)):
        if os.path.exists(stale):
            os.remove(stale)
    print(f"{ORDER}: {len(functions)} functions ({len(seen) - len(functions)} of those run left out: "
          f"their name also names code inside a large section), then {len(data)} descriptors")


if __name__ == "__main__":
    main()
