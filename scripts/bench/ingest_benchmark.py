#!/usr/bin/env python3
"""Ingest CPU: the agent beside a minimal Python receiver (issue 33, "CPU, in
figures that hold from one day to the next").

A Home Assistant-like server (streaming_ha.py: HA's WebSocket protocol,
pre-built frames, raw socket writes) streams N household state_changed
events (~1.1 KB each, no printer among them) as fast as the receiver reads
them, to two receivers connected at the same time, one stream at a time:
  - the agent as deployed (scripts/build-release.sh), `printbridge run
    --dry-run` with one phone and the API on;
  - the peer (ingest_peer.py): Python websockets + orjson, receive and
    `orjson.loads` each message, nothing else.
Each gets --rounds streams, alternating. For each stream: CPU time of all the
receiver's threads (/proc/PID/task/*/schedstat, nanoseconds; utime+stime of
/proc/PID/stat beside it, in 10 ms ticks), context switches (voluntary =
wake-ups after blocking, and involuntary; /proc/PID/task/*/status) and wall
time from the go to the end (the agent: the server has its pong to the
WebSocket ping sent after the last event, which libwebsockets answers after
every frame before it; the peer: it printed that it parsed the last frame).
The agent's /metrics must then count every event. Prints medians per 100,000
events and the agent/peer CPU ratio (target <= 1/10), the sender's own CPU
time, and the hypervisor steal over the runs.

Frames are cut as HA's writer cuts them for a client that asked for
coalesce_messages (both do): by default as HA 2024.3 cut a household flood
(streaming_ha.py, ha_frame_sizes.py: 2.2 events a frame on average, 40 % of
frames a lone event); --per-frame K puts K events in every frame (1: each its
own frame, the frame filter's best case).

--callgrind N  also counts the instructions of the agent and of the peer over a
               stream of N events each (valgrind's callgrind, counters zeroed once
               both have subscribed and dumped after each one's stream;
               SWIFT_DETERMINISTIC_HASHING=1, PYTHONHASHSEED=0): figures that do
               not move with the machine's load; prints the agent's top
               functions by their own instructions.
--perf         samples the agent with perf over its streams and prints its top
               functions (Debian's libwebsockets has no symbols: one line).
--keep DIR     keeps the callgrind dumps and perf.data there.
On 2+ cores the server runs on CPU 0 and the receivers on CPU 1.

usage: python3 scripts/bench/ingest_benchmark.py [--events 100000] [--rounds 3] [--per-frame ha|K]
       [--callgrind 20000] [--perf] [--keep DIR] [--skip-build] [--binary PATH]
"""
import argparse
import glob
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from agent_harness import agent_binary, ensure_orjson, use_test_python, write_agent_inputs
from steal import StealMeter
from streaming_ha import per_frame_option

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_RATIO = 0.1
# Debian 12's libwebsockets 4.1.6-3 is stripped; these two of its functions
# are named from its disassembly beside lib/roles/ws/client-ws.c (v4.1.6):
# the loop calls the other once for every byte received.
LWS_FUNCTIONS = {"28e6afed50d5a86798a157b53b8b017e96e0f6a5": {
    "0x0000000000040810": "lws_ws_client_rx_sm (called once a byte)",
    "0x000000000003f6e0": "lws_ws_handshake_client (its per-byte loop)"}}
TOKEN = "bench-token"


class Lines:
    """A child's stdout, a line at a time, waited for with a deadline."""

    def __init__(self, process, name):
        self.process, self.name = process, name
        self.lines = queue.Queue()
        threading.Thread(target=self.pump, daemon=True).start()

    def pump(self):
        for line in self.process.stdout:
            self.lines.put(line.split())
        self.lines.put(None)

    def expect(self, word, seconds, number=None):
        """The next line starting with `word` (and `number`, when given)."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                words = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                sys.exit(f"{self.name}: no {word} within {seconds:.0f} s")
            if words is None:
                sys.exit(f"{self.name} ended before {word}")
            if words and words[0] == "CLOSED":
                sys.exit(f"{self.name}: connection {words[1]} closed: {' '.join(words[2:])}")
            if words and words[0] == word and (number is None or words[1] == str(number)):
                return words


def sample(pid):
    """(CPU ns of all threads, utime+stime seconds, voluntary, involuntary switches) of a process now."""
    ns = voluntary = involuntary = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                ns += int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        voluntary += int(line.split()[1])
                    elif line.startswith("nonvoluntary_ctxt_switches:"):
                        involuntary += int(line.split()[1])
        except FileNotFoundError:
            pass  # the thread ended
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return ns, ticks, voluntary, involuntary


def by_thread(pid):
    """{thread name: [threads, CPU ns, voluntary, involuntary]} of a process now."""
    result = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                ns = int(f.read().split()[0])
            with open(f"/proc/{pid}/task/{task}/status") as f:
                fields = dict(line.split(":", 1) for line in f if "ctxt_switches" in line)
        except FileNotFoundError:
            continue
        entry = result.setdefault(name, [0, 0, 0, 0])
        entry[0] += 1
        entry[1] += ns
        entry[2] += int(fields["voluntary_ctxt_switches"])
        entry[3] += int(fields["nonvoluntary_ctxt_switches"])
    return result


def metric(api_port, name):
    with urllib.request.urlopen(f"http://127.0.0.1:{api_port}/metrics", timeout=10) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return None


def free_port():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--per-frame", default="ha", type=per_frame_option,
                        help="events a frame: ha (as HA 2024.3 coalesced a flood; the default) or a number")
    parser.add_argument("--callgrind", type=int, default=0, metavar="N",
                        help="also count the agent's and the peer's instructions over a stream of N events each")
    parser.add_argument("--keep", metavar="DIR", help="copy the callgrind dumps and the perf data into DIR")
    parser.add_argument("--perf", action="store_true",
                        help="also sample the agent with perf over its streams and print its top functions")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--binary")
    parser.add_argument("--no-pin", action="store_true", help="let the scheduler place the server and the receivers")
    args = parser.parse_args()
    use_test_python()
    ensure_orjson()
    binary = agent_binary(args)
    pin_server, pin_receiver = [], []
    if (os.cpu_count() or 1) >= 2 and shutil.which("taskset") and not args.no_pin:
        pin_server, pin_receiver = ["taskset", "-c", "0"], ["taskset", "-c", "1"]

    work = tempfile.mkdtemp(prefix="printbridge-ingest-bench-")
    _, devices = write_agent_inputs(work)
    processes = []

    def start_server(events):
        server = subprocess.Popen(pin_server + [sys.executable, os.path.join(HERE, "streaming_ha.py"), "--events", str(events),
                                                "--per-frame", str(args.per_frame), "--token", TOKEN],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        processes.append(server)
        lines = Lines(server, "the server")
        port = int(lines.expect("PORT", 120)[1])
        _, frames, events, size = lines.expect("PLAN", 300)
        return server, lines, port, int(frames), int(size)

    def go(server, number):
        server.stdin.write(f"GO {number}\n")
        server.stdin.flush()

    def agent_command(ha_port, api_port, state, prefix=(), plain=False, **extra_env):
        """`plain`: the binary without its debug information, for valgrind
        (3.19 gives up on the DWARF 5 of a C shim; metrics_benchmark.py)."""
        env = dict(os.environ, **extra_env, HA_URL=f"http://127.0.0.1:{ha_port}", HA_TOKEN=TOKEN, STATE_DIR=state,
                   API_LISTEN=f"127.0.0.1:{api_port}", API_TOKEN="bench-token-0123456789", LOG_LEVEL="warning",
                   GNUTLS_NO_IMPLICIT_INIT="1")  # as every deployment sets it
        os.makedirs(state, exist_ok=True)
        program = binary
        if plain:
            program = os.path.join(work, "printbridge-plain")
            subprocess.check_call(["strip", "--strip-debug", "-o", program, binary])
        agent = subprocess.Popen(list(prefix) + [program, "run", "--dry-run", "--devices", devices], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(agent)
        return agent

    def start_peer(ha_port, frames, prefix=(), **extra_env):
        peer = subprocess.Popen(list(prefix) + [sys.executable, os.path.join(HERE, "ingest_peer.py"), "--port", str(ha_port),
                                                "--token", TOKEN, "--frames", str(frames)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(os.environ, **extra_env))
        processes.append(peer)
        return peer, Lines(peer, "the peer")

    results = {"agent": [], "peer": []}
    sender = []
    agent_threads = None
    try:
        server, lines, port, frames, size = start_server(args.events)
        api_port = free_port()
        agent = agent_command(port, api_port, os.path.join(work, "state"), pin_receiver)
        lines.expect("SUBSCRIBED", 60, 1)
        peer, peer_lines = start_peer(port, frames, pin_receiver)
        lines.expect("SUBSCRIBED", 60, 2)
        peer_lines.expect("READY", 60)
        time.sleep(2)  # both settled: the agent's start-up work done
        events0 = metric(api_port, "printbridge_ha_events_total")
        profile = start_perf(agent.pid, work) if args.perf else None
        steal = StealMeter()
        for round_ in range(args.rounds):
            for who in (("agent", "peer") if round_ % 2 == 0 else ("peer", "agent")):
                pid, number = (agent.pid, 1) if who == "agent" else (peer.pid, 2)
                threads0 = by_thread(pid) if who == "agent" else None
                before = sample(pid)
                start = time.perf_counter()
                go(server, number)
                if who == "peer":
                    peer_lines.expect("DONE", 600)
                    wall = time.perf_counter() - start
                    after = sample(pid)
                    streamed = lines.expect("STREAMED", 60, number)
                else:
                    streamed = lines.expect("STREAMED", 600, number)
                    wall = time.perf_counter() - start
                    after = sample(pid)
                    if threads0 is not None:
                        threads1 = by_thread(pid)
                        agent_threads = {name: [threads1[name][0]] + [threads1[name][i] - threads0.get(name, [0] * 4)[i]
                                                                      for i in (1, 2, 3)] for name in threads1}
                results[who].append({"wall": wall, "ns": after[0] - before[0], "ticks": after[1] - before[1],
                                     "voluntary": after[2] - before[2], "involuntary": after[3] - before[3]})
                sender.append((who, float(streamed[3]), float(streamed[2]), int(streamed[5])))
                time.sleep(0.5)
        steal_percent = steal.percent()
        perf_top = stop_perf(profile, args.keep) if profile else None
        events1 = metric(api_port, "printbridge_ha_events_total")
        agent.terminate()
        agent.wait()
        if events1 - events0 != args.rounds * args.events:
            sys.exit(f"the agent counted {events1 - events0:.0f} events, not {args.rounds * args.events}")

        callgrind = None
        if args.callgrind:
            callgrind = count_instructions(args, work, start_server, agent_command, start_peer, go)
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        shutil.rmtree(work, ignore_errors=True)

    per = 100_000 / args.events
    if args.per_frame == "ha":
        framing = f"frames cut as HA's writer cut a flood ({args.events / frames:.2f} events a frame)"
    else:
        framing = "each event its own frame" if args.per_frame == "1" else f"{args.per_frame} events a frame (JSON arrays)"
    print(f"ingest: {args.events:,} household state_changed events a stream (no printer among them; "
          f"{size / 1e6:.1f} MB, {size / args.events:.0f} bytes an event), {framing}, as fast as the receiver "
          f"reads; {args.rounds} streams each, alternating; medians (min-max)")
    if pin_receiver:
        print("  (the server pinned to CPU 0, the receivers to CPU 1)")

    def row(values, fmt):
        return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"

    columns = {}
    for who in ("agent", "peer"):
        runs = results[who]
        columns[who] = [
            row([r["wall"] for r in runs], "{:.3f}"),
            row([r["ns"] / 1e6 * per for r in runs], "{:.1f}"),
            row([r["ticks"] * 1000 * per for r in runs], "{:.0f}"),
            row([r["ns"] / 1e3 / args.events for r in runs], "{:.2f}"),
            row([(r["voluntary"] + r["involuntary"]) / args.events for r in runs], "{:.4f}"),
            row([r["voluntary"] / args.events for r in runs], "{:.4f}"),
            row([args.events / r["wall"] for r in runs], "{:,.0f}"),
        ]
    labels = ["wall seconds a stream", "CPU ms per 100,000 events (schedstat)", "  utime+stime ms (10 ms ticks)",
              "CPU µs an event", "context switches an event", "  of which wake-ups (voluntary)", "events a second"]
    print(f"  {'':40} {'agent (printbridge run)':>28} {'peer (websockets + orjson)':>28}")
    for i, label in enumerate(labels):
        print(f"  {label:40} {columns['agent'][i]:>28} {columns['peer'][i]:>28}")
    agent_cpu = statistics.median(r["ns"] for r in results["agent"])
    peer_cpu = statistics.median(r["ns"] for r in results["peer"])
    ratio = agent_cpu / peer_cpu
    print(f"  agent / peer CPU: {ratio:.3f} (1/{1 / ratio:.1f}; target <= 1/10): {'met' if ratio <= TARGET_RATIO else 'NOT met'}")
    if agent_threads:
        busiest = sorted(agent_threads.items(), key=lambda item: -item[1][1])
        print("  the agent's threads over its last stream (name xthreads: CPU ms, voluntary + involuntary switches): "
              + ", ".join(f"{name} x{n}: {ns / 1e6:.1f} ms, {v} + {i}" for name, (n, ns, v, i) in busiest if ns or v or i))
    for who in ("agent", "peer"):
        cpu = [c for w, c, _, _ in sender if w == who]
        wall = [s for w, _, s, _ in sender if w == who]
        print(f"  the sender to the {who}: {statistics.median(cpu) * 1000:.0f} ms CPU a stream over "
              f"{statistics.median(wall) * 1000:.0f} ms ({100 * statistics.median(c / s for c, s in zip(cpu, wall)):.0f} % busy: "
              f"{'it was waiting for the receiver' if statistics.median(c / s for c, s in zip(cpu, wall)) < 0.7 else 'IT MAY BE THE LIMIT'})")
    behind = sum(replies for who, _, _, replies in sender if who == "agent")
    if behind:
        print(f"  the agent's pings answered during its streams: {behind} (each pong queued behind events, as HA does)")
    print(f"  hypervisor steal over the streams: {steal_percent:.1f} % of the machine's CPU time")
    if perf_top:
        print("perf, the agent over its streams (the peer's streams too, while it was idle): top functions by their own samples")
        for percent, library, function in perf_top:
            print(f"  {percent:5.1f} %  {library:24} {function[:140]}")
    if callgrind:
        events, instructions, peer_instructions, top = callgrind
        print(f"callgrind, a stream of {events:,} events: the agent {instructions / 1e6:,.1f} M instructions, "
              f"{instructions / events:,.0f} an event; the peer {peer_instructions / 1e6:,.1f} M, "
              f"{peer_instructions / events:,.0f} an event; agent / peer {instructions / peer_instructions:.3f}")
        print("  the agent's top functions by their own instructions:")
        for count, name in top:
            print(f"  {100 * count / instructions:5.1f} %  {count / events:8,.0f} an event  {name}")


def start_perf(pid, work):
    """perf record of `pid` (every thread, call graphs) until stop_perf; None without perf."""
    if shutil.which("perf") is None:
        print("no perf profile: perf is not installed", file=sys.stderr)
        return None
    data = os.path.join(work, "perf.data")
    process = subprocess.Popen(["perf", "record", "-q", "-F", "2999", "-g", "-o", data, "-p", str(pid)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    return process, data


def stop_perf(profile, keep):
    """The top functions of the profile by own samples: [(percent, library, function)];
    a library without symbols (Debian's libwebsockets is stripped) counts as one."""
    process, data = profile
    process.send_signal(subprocess.signal.SIGINT)
    process.wait()
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(data, keep)
    report = subprocess.run(["perf", "report", "-i", data, "--no-children", "--fields", "overhead,dso,sym", "--stdio",
                             "-g", "none", "--percent-limit", "0"], capture_output=True, text=True).stdout
    totals = {}
    for line in report.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[.\]\s+(.*?)\s*$", line)
        if not match:
            continue
        percent, library, function = float(match.group(1)), match.group(2), match.group(3).split()[0]
        if re.fullmatch(r"0x[0-9a-f]+", function):
            function = "(no symbols: the whole library)"
        key = (library, demangle(function))
        totals[key] = totals.get(key, 0) + percent
    return sorted(((p, lib, fn) for (lib, fn), p in totals.items()), reverse=True)[:15]


def build_id(path):
    """The ELF build ID of a library, or None."""
    notes = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    match = re.search(r"Build ID: ([0-9a-f]+)", notes)
    return match.group(1) if match else None


def demangle(name):
    """A Swift symbol demangled (swift demangle --simplified), else the name."""
    if not name.startswith(("$s", "_$s")) or shutil.which("swift") is None:
        return name
    result = subprocess.run(["swift", "demangle", "--simplified", "--compact", name], capture_output=True, text=True)
    return result.stdout.strip() or name


def count_instructions(args, work, start_server, agent_command, start_peer, go):
    """The agent and the peer under callgrind, one stream of --callgrind
    events each: (events, agent's instructions, peer's instructions, the
    agent's [(own instructions, function)] top 12)."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        print("no instruction count: valgrind is not installed", file=sys.stderr)
        return None
    server, lines, port, frames, size = start_server(args.callgrind)
    out = os.path.join(work, "callgrind.out")
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p"]
    agent = agent_command(port, free_port(), os.path.join(work, "state-callgrind"), valgrind, plain=True,
                          # 50 times slower under valgrind, the agent would read the pong to its
                          # ping (30 s) behind megabytes of queued events later than 10 s, and
                          # close the connection as silent.
                          SWIFT_DETERMINISTIC_HASHING="1", HA_PONG_TIMEOUT="600")
    lines.expect("SUBSCRIBED", 600, 1)
    peer, peer_lines = start_peer(port, frames, valgrind, PYTHONHASHSEED="0")
    lines.expect("SUBSCRIBED", 600, 2)
    peer_lines.expect("READY", 600)
    time.sleep(5)  # start-up work done (slowly, under valgrind)

    def callgrind_control(pid, command):
        subprocess.run(["callgrind_control", command, str(pid)], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    totals = {}
    for who, process, number in (("agent", agent, 1), ("peer", peer, 2)):
        callgrind_control(process.pid, "--zero")
        go(server, number)
        if who == "peer":
            peer_lines.expect("DONE", 3600)
        lines.expect("STREAMED", 3600, number)
        callgrind_control(process.pid, "--dump=stream")
        dumps = sorted(glob.glob(f"{out}.{process.pid}.*"))
        process.terminate()
        process.wait()
        if not dumps:
            print(f"no instruction count: callgrind wrote no dump for the {who}", file=sys.stderr)
            return None
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(dumps[-1], os.path.join(args.keep, f"callgrind.out.{who}"))
        annotated = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", dumps[-1]],
                                   capture_output=True, text=True, check=True).stdout
        totals[who] = int(re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", annotated).group(1).replace(",", ""))
        if who == "agent":
            agent_annotated = annotated
    server.stdin.close()
    annotated, total = agent_annotated, totals["agent"]
    names = {}
    for library in set(re.findall(r"\[(\S*libwebsockets\S*)\]", annotated)):
        names.update(LWS_FUNCTIONS.get(build_id(library), {}))
    top = []
    for line in annotated.split("file:function", 1)[1].splitlines():
        match = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(?:[^:\s]*:)?(\S+)(?:\s+\[(.*)\])?", line)
        if not match:
            continue
        count = int(match.group(1).replace(",", ""))
        if count >= total:
            continue  # on the stack when the counters were zeroed (thread entry points): inclusive, not its own
        library = os.path.basename(match.group(3) or "")
        top.append((count, f"{library:24} {names.get(match.group(2)) or demangle(match.group(2))[:120]}"))
        if len(top) == 12:
            break
    return args.callgrind, total, totals["peer"], top


if __name__ == "__main__":
    main()
