#!/usr/bin/env python3
"""What the agent costs a busy Home Assistant, and what HA sends it (issue 50).

    scripts/bench/ha_load_benchmark.py [--binary PATH | --skip-build] [--before PATH]
        [--household 3000] [--rate 300] [--window 30] [--rounds 3]

The real Home Assistant 2024.3.3 of the suite (Tests/DaemonTests/RealHA/real_ha.py,
with its test integration custom_components/printbridge_test) holds a
household of --household registered entities that change --rate times a
second inside HA (hass.states.async_set, as integrations write them), and the
X1C printer as ha-bambulab registers it. In every window the printer pauses
and resumes (printbridge_test.pause_cycle, a pause every 3 s) and HA itself
logs time.monotonic() at each pause's write; the mock APNs
(Tests/APNsClientTests/MockAPNs) logs the same clock when the "Print Paused"
alert arrives.

Each round has a window of HA alone (no agent connected), one with the
agent under test (--binary; default the deployed build,
scripts/build-release.sh) and, with --before, one with that older build; the
order turns from round to round. An agent is started for its window, waits
until it is live, settles 5 s, and is stopped after. Per window:

- HA's CPU: utime+stime of its process (/proc/PID/stat), % of one core; the
  agent's "added" is its window's minus the same round's HA-alone window;
- the agent's CPU, the same way;
- what HA sent the agent: a loopback capture (tcpdump) of HA's port, the
  agent's WebSocket stream reassembled into frames (server frames are not
  masked; permessage-deflate undone if HA used it): frames, JSON messages
  in them, bytes (frame headers included), and frames naming a household
  entity;
- alert latency: HA's pause write -> the APNs request at the mock.

The "before" of issue 50 is the commit before "Only the printers on the
wire" (5947feb), built as deployed in /tmp; that commit needs 5c028eb's
Package.swift line to build:

    mkdir /tmp/pb-before && git archive 5947feb | tar -x -C /tmp/pb-before
    git show 5c028eb -- Package.swift | patch -d /tmp/pb-before -p1
    (cd /tmp/pb-before && scripts/build-release.sh)
    --before /tmp/pb-before/.build/deploy/release/printbridge

Runs with HA's Python (re-executes itself with
~/.cache/printbridge/ha-venv/bin/python) and the mock APNs with the test
tooling's (.build/test-venv); scripts/install-test-deps.sh makes both.
Needs tcpdump and root (or CAP_NET_RAW) for the capture.
"""
import argparse
import bisect
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
HA_PYTHON = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                         "printbridge", "ha-venv", "bin", "python")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "Tests", "DaemonTests", "RealHA"))
from agent_harness import BUNDLE, MOCK_APNS, TEST_PYTHON, agent_binary, apns_environment, start  # noqa: E402
from pcap_latency import packets  # noqa: E402
from steal import StealMeter  # noqa: E402

PRINTER = "x1c_00m09a350100123"
PAUSE_EVERY = 3.0  # seconds
SETTLE = 5.0


def cpu_seconds(pid):
    """utime + stime of a process (all its threads), seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def websocket_frames(pcap, ha_port):
    """[(arrival, frame bytes, payload or None)] HA sent on the capture's
    WebSocket connection (the one whose client sent GET /api/websocket);
    payload is the text message a frame ends (inflated), None for others."""
    streams, upgraded = {}, set()
    for stamp, source, destination, payload in packets(pcap):
        if payload and destination == ha_port and payload.startswith(b"GET /api/websocket"):
            upgraded.add(source)
        if payload and source == ha_port:
            streams.setdefault(destination, []).append((stamp, payload))
    if len(upgraded) != 1:
        raise SystemExit(f"{pcap}: {len(upgraded)} WebSocket connections to HA, expected the agent's one")
    segments = streams.get(upgraded.pop(), [])
    data = b"".join(payload for _, payload in segments)
    starts, stamps, offset = [], [], 0
    for stamp, payload in segments:
        starts.append(offset)
        stamps.append(stamp)
        offset += len(payload)
    position = data.index(b"\r\n\r\n") + 4  # HA's 101 Switching Protocols
    inflater, message, compressed, frames = zlib.decompressobj(-15), b"", False, []
    while position + 2 <= len(data):
        first, length = data[position], data[position + 1] & 0x7F
        header = 2 + (2 if length == 126 else 8 if length == 127 else 0) + (4 if data[position + 1] & 0x80 else 0)
        if length >= 126:
            length = int.from_bytes(data[position + 2:position + (4 if length == 126 else 10)], "big")
        end = position + header + length
        if end > len(data):
            break  # cut off by the capture's end
        opcode, text = first & 0x0F, None
        if opcode in (0, 1):  # text or its continuation (HA sends no binary messages)
            if opcode == 1:
                message, compressed = b"", bool(first & 0x40)  # RSV1: permessage-deflate (RFC 7692)
            message += data[position + header:end]
            if first & 0x80:
                text = inflater.decompress(message + b"\x00\x00\xff\xff") if compressed else message
        frames.append((stamps[bisect.bisect_right(starts, position) - 1], end - position, text))
        position = end
    return frames


def alert_latencies(pause_log, apns_log):
    """Milliseconds from each pause HA wrote to its "paused on P<n>" alert at the mock; (values, written)."""
    written, arrived = {}, {}
    with open(pause_log) as f:
        for line in f:
            stamp, name = line.split()
            written[name] = float(stamp)
    with open(apns_log) as f:
        for line in f:
            match = re.search(r" paused on (P\d+)\b", line)
            if match and match.group(1) in written:
                arrived.setdefault(match.group(1), float(line.split()[0]))
    return sorted((arrived[n] - written[n]) * 1000 for n in arrived), len(written)


class Bench:
    def __init__(self, args, ha, work, apns_port, apns_log):
        self.args, self.ha, self.work, self.apns_port, self.apns_log = args, ha, work, apns_port, apns_log
        self.devices = os.path.join(work, "devices.json")
        with open(self.devices, "w") as f:
            f.write('[{"apnsToken":"' + "ab" * 32 + '","settings":{"onPaused":true}}]')
        self.household_file = os.path.join(work, "household.json")
        self.next_pause = 0
        self.windows = 0

    def household_changes(self):
        try:
            with open(self.household_file) as f:
                return json.load(f)["changes"]
        except (OSError, ValueError):
            return 0

    def measure(self, pids):
        """Runs a window with the printer pausing: {pid: % of a core}, HA's rate, the pause log."""
        self.windows += 1
        pause_log = os.path.join(self.work, f"pauses-{self.windows}.log")
        count = int(self.args.window / PAUSE_EVERY)
        changes0, meter, clock0 = self.household_changes(), StealMeter(), time.monotonic()
        cpu0 = {pid: cpu_seconds(pid) for pid in pids}
        self.ha.request("POST", "/api/services/printbridge_test/pause_cycle",
                        {"prefix": PRINTER, "first": self.next_pause, "count": count,
                         "interval": PAUSE_EVERY, "log_file": pause_log})
        self.next_pause += count
        time.sleep(self.args.window)
        elapsed = time.monotonic() - clock0
        cpu = {pid: 100 * (cpu_seconds(pid) - cpu0[pid]) / elapsed for pid in pids}
        return cpu, (self.household_changes() - changes0) / elapsed, meter.percent(), pause_log

    def alone(self):
        cpu, rate, steal, _ = self.measure([self.ha.hass.pid])
        return {"ha_cpu": cpu[self.ha.hass.pid], "rate": rate, "steal": steal}

    def with_agent(self, name, binary):
        state = tempfile.mkdtemp(prefix=f"state-{name}-", dir=self.work)
        log_path = os.path.join(self.work, f"agent-{name}-{self.windows + 1}.log")
        pcap = os.path.join(self.work, f"ha-{self.windows + 1}.pcap")
        # --immediate-mode: a packet is written when it comes (not when the
        # kernel's buffer block times out), so a stop loses none.
        capture = subprocess.Popen(["tcpdump", "-i", "lo", "-s", "0", "-B", "16384", "--immediate-mode", "-U",
                                    "-w", pcap, f"tcp port {self.ha.port}"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        capture.stderr.readline()  # "listening on lo, ..."
        env = apns_environment(os.path.join(self.work, "apns"), self.apns_port,
                               HA_URL=f"http://127.0.0.1:{self.ha.port}", HA_TOKEN=self.ha.token,
                               API_LISTEN="off", STATE_DIR=state, SNAPSHOTS="off")
        with open(log_path, "w") as log:
            agent = subprocess.Popen([binary, "run", "--devices", self.devices], env=env,
                                     stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while "subscribed to state changes" not in open(log_path).read():
                if agent.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{name} did not go live: see {log_path}")
                time.sleep(0.2)
            time.sleep(SETTLE)
            start = time.time()
            cpu, rate, steal, pause_log = self.measure([self.ha.hass.pid, agent.pid])
            end = time.time()
        finally:
            agent.send_signal(signal.SIGTERM)
            agent.wait(30)
            time.sleep(1)
            capture.send_signal(signal.SIGINT)
            dropped = re.search(r"(\d+) packets? dropped by kernel", capture.communicate()[1].decode())
        if dropped and int(dropped.group(1)):
            print(f"warning: tcpdump dropped {dropped.group(1)} packets in {name}'s window", file=sys.stderr)
        inside = [(size, text) for stamp, size, text in websocket_frames(pcap, self.ha.port) if start <= stamp <= end]
        texts = [json.loads(text) for _, text in inside if text is not None]
        latencies, pauses = alert_latencies(pause_log, self.apns_log)
        os.remove(pcap)
        return {"ha_cpu": cpu[self.ha.hass.pid], "agent_cpu": cpu[agent.pid], "rate": rate, "steal": steal,
                "frames": len(inside) / (end - start), "bytes": sum(size for size, _ in inside) / (end - start),
                "messages": sum(len(m) if isinstance(m, list) else 1 for m in texts) / (end - start),
                "household": sum(1 for _, text in inside if text and b"household_" in text),
                "latencies": latencies, "pauses": pauses}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", help="the printbridge under test (default: the deployed build, built first)")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--before", help="an older printbridge measured beside it")
    parser.add_argument("--household", type=int, default=3000)
    parser.add_argument("--rate", type=float, default=300)
    parser.add_argument("--window", type=float, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    # A virtual environment's python links to the base interpreter: compare prefixes.
    if os.path.realpath(sys.prefix) != os.path.realpath(os.path.dirname(os.path.dirname(HA_PYTHON))):
        os.execv(HA_PYTHON, [HA_PYTHON] + sys.argv)
    if shutil.which("tcpdump") is None:
        raise SystemExit("tcpdump is needed (apt-get install tcpdump)")
    builds = [("after", agent_binary(args))] + ([("before", args.before)] if args.before else [])
    for name, binary in builds:
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"{name}: no program at {binary}")
    from real_ha import RealHA  # HA's Python: it makes the token with HA's own auth manager

    class Args:  # what RealHA reads of real_ha.py's command line
        token_file = stats = None
        warm = False

    work = tempfile.mkdtemp(prefix="printbridge-ha-load-")
    ha = RealHA(Args(), household=args.household)
    apns = None
    kinds = ["alone"] + [name for name, _ in builds]
    results = {kind: [] for kind in kinds}
    try:
        apns_log = os.path.join(work, "apns-requests.log")
        apns, apns_port = start([TEST_PYTHON, MOCK_APNS, "--workdir", os.path.join(work, "apns"), "--bundle-id", BUNDLE,
                                 "--benchmark", "--log-requests", apns_log])
        ha.start()
        bench = Bench(args, ha, work, apns_port, apns_log)
        ha.request("POST", "/api/services/printbridge_test/household",
                   {"rate": args.rate, "seconds": 0, "stats_file": bench.household_file})
        time.sleep(SETTLE)
        for round_ in range(args.rounds):
            order = kinds[round_ % len(kinds):] + kinds[:round_ % len(kinds)]
            for kind in order:
                result = bench.alone() if kind == "alone" else bench.with_agent(kind, dict(builds)[kind])
                results[kind].append(result)
                print(f"round {round_ + 1} {kind}: HA {result['ha_cpu']:.1f} % of a core"
                      + (f", agent {result['agent_cpu']:.2f} %, {result['frames']:.1f} frames/s,"
                         f" {result['bytes']:,.0f} B/s" if kind != "alone" else ""), flush=True)
        ha.request("POST", "/api/services/printbridge_test/household", {"rate": 0})
    finally:
        if apns:
            apns.terminate()
        ha.stop()
        shutil.rmtree(ha.dir, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    report(args, builds, results)


def report(args, builds, results):
    names = [name for name, _ in reversed(builds)]  # before, after

    def mean(kind, key):
        return statistics.mean(r[key] for r in results[kind])

    def added(kind):
        """HA's CPU with the agent minus the same round's HA alone: mean (min..max)."""
        values = [r["ha_cpu"] - a["ha_cpu"] for r, a in zip(results[kind], results["alone"])]
        return f"{statistics.mean(values):+.1f} ({min(values):+.1f}..{max(values):+.1f})"

    def latency(kind):
        values = sorted(v for r in results[kind] for v in r["latencies"])
        received, written = len(values), sum(r["pauses"] for r in results[kind])
        if not values:
            return f"none of {written}"
        return (f"{statistics.median(values):.0f} / {values[int(0.9 * (len(values) - 1))]:.0f} / {values[-1]:.0f}"
                f" ({received}/{written})")

    rows = [
        ("HA CPU, % of a core", lambda k: f"{mean(k, 'ha_cpu'):.1f}"),
        ("HA CPU added by the agent (rounds' range)", added),
        ("agent CPU, % of a core", lambda k: f"{mean(k, 'agent_cpu'):.2f}"),
        ("frames/s HA sent the agent", lambda k: f"{mean(k, 'frames'):.1f}"),
        ("messages/s in them", lambda k: f"{mean(k, 'messages'):.1f}"),
        ("bytes/s HA sent the agent", lambda k: f"{mean(k, 'bytes'):,.0f}"),
        ("frames naming a household entity", lambda k: f"{sum(r['household'] for r in results[k]):,}"),
        ("alert latency ms p50 / p90 / max (alerts)", latency),
        ("household changes/s (HA's count)", lambda k: f"{mean(k, 'rate'):.0f}"),
        ("hypervisor steal %", lambda k: f"{mean(k, 'steal'):.1f}"),
    ]
    print(f"\nHome Assistant 2024.3.3 (real, no recorder), {args.household:,} registered household entities changing "
          f"{args.rate:g}/s inside HA, one printer pausing every {PAUSE_EVERY:g} s; {args.rounds} rounds of "
          f"{args.window:g} s windows; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for name, binary in reversed(builds):
        print(f"  {name}: {binary}")
    print(f"  HA alone: {mean('alone', 'ha_cpu'):.1f} % of a core (rounds: "
          + ", ".join(f"{r['ha_cpu']:.1f}" for r in results["alone"]) + ")")
    print(f"\n{'':44}" + "".join(f"{name:>26}" for name in names))
    for label, cell in rows:
        print(f"{label:44}" + "".join(f"{cell(name):>26}" for name in names))


if __name__ == "__main__":
    main()
