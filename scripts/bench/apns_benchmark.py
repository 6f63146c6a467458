#!/usr/bin/env python3
"""APNs sender throughput benchmark: PrintBridge's APNsSender against
aioapns and h2load, on one fast local HTTP/2-over-TLS server.

The server is ../shared/tools/h2mock.c (a small C server shaped like APNs,
built here with gcc), not the validating Python mock: the Python mock's own
ceiling (~2,500 requests/s) would hide anything faster. Each round, on a
fresh h2mock each (so its connection count is that contender's):
  - h2load, one connection, C streams in flight, the headers PrintBridge
    sends: the server's ceiling;
  - aioapns (Python, asyncio + h2), one connection, C pushes in flight;
  - PrintBridge's APNsSender (Benchmarks/Sources/APNsBenchmark, built as
    deployed), C pushes in flight, the caller keeping the window as
    `replay --send` does (a batch of as many as have room each round);
  - with --before BINARY, an APNsBenchmark built from an earlier commit,
    the same way: before and after in one run.
The server runs on CPU 0, each client on CPU 1 (when there are two). The
round with the median PrintBridge/aioapns ratio is shown. Target:
PrintBridge >= 10x aioapns on one connection; its share of h2load's
ceiling is reported.

Then the end-to-end fan-out: `printbridge replay SampleEvents/bambu-full-print.jsonl
--devices FILE --send` (the deployed agent) tells one print to --phones phones
(each following the printer, its alerts only), whole process timed: reading
the recording, planning every phone's pushes, sending them; beside aioapns
sending as many pushes with as many in flight as the agent had at most
(its batches of up to 1,000). Target: >= 10x aioapns.

--callgrind PHONES also counts the fan-out's instructions a push under
callgrind (the whole process, to PHONES phones): a figure the machine's load
does not move. --callgrind-sender N counts the instructions a request of
the sender alone (APNsBenchmark) and of h2load, N requests each, start-up
included, and in the steady state (N requests against N/4, so start-up
cancels out): the sender's share of h2load's ceiling by instructions.

--broadcast-phones N adds the broadcast row (issue 52): one print's Live
Activity (SampleEvents/bambu-full-print.jsonl, `printbridge replay`) to N
phones by activity token (iOS 17: a push each an update) against N phones
on the printer's channel (iOS 18: one broadcast an update): the Live
Activity requests to APNs, their payload bytes, and the replay's time.
With --rounds 0 only that row is measured.

usage: python3 scripts/bench/apns_benchmark.py [--count 30000] [--concurrency 100] [--rounds 3] [--phones 10000]
       [--callgrind 2000] [--callgrind-sender 8000] [--skip-build] [--before OLD_APNsBenchmark]
"""
import argparse
import base64
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from agent_harness import use_test_python, run_as_root, BUNDLE, KEY_ID, ROOT, TEAM_ID
from steal import StealMeter

TARGET_VERSUS_AIOAPNS = 10.0
H2MOCK_SOURCE = os.path.abspath(os.path.join(ROOT, "..", "shared", "tools", "h2mock.c"))
H2MOCK = os.path.join(ROOT, ".build", "bench", "h2mock")
AIOAPNS_CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aioapns_client.py")
APNS_BENCHMARK = os.path.join(ROOT, ".build", "deploy-benchmarks", "release", "APNsBenchmark")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def provider_token(key_path):
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, utils
    with open(key_path, "rb") as f:
        key = serialization.load_pem_private_key(f.read(), None)
    signing_input = b64url(json.dumps({"alg": "ES256", "kid": KEY_ID}, separators=(",", ":")).encode()) + "." + \
        b64url(json.dumps({"iss": TEAM_ID, "iat": int(time.time())}, separators=(",", ":")).encode())
    r, s = utils.decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))



def ensure_tools():
    """h2load and the h2mock build's headers (Debian packages), aioapns in the test environment."""
    missing = []
    if shutil.which("h2load") is None:
        missing.append("nghttp2-client")
    if not os.path.exists("/usr/include/nghttp2/nghttp2.h"):
        missing.append("libnghttp2-dev")
    if shutil.which("gcc") is None:
        missing.append("gcc")
    if missing:
        run_as_root(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + missing)
    use_test_python()
    try:
        import aioapns  # noqa: F401
    except ImportError:
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                               "aioapns==4.0"])


def build_h2mock():
    if not os.path.exists(H2MOCK_SOURCE):
        sys.exit(f"apns_benchmark.py: {H2MOCK_SOURCE} not found (../shared beside the repository)")
    if os.path.exists(H2MOCK) and os.path.getmtime(H2MOCK) >= os.path.getmtime(H2MOCK_SOURCE):
        return
    os.makedirs(os.path.dirname(H2MOCK), exist_ok=True)
    subprocess.check_call(["gcc", "-O2", "-o", H2MOCK, H2MOCK_SOURCE, "-lnghttp2", "-lssl", "-lcrypto", "-lpthread"])


def write_fixtures(workdir):
    """The mock APNs' certificate for 127.0.0.1 and P-256 signing key (generated, test-only)."""
    sys.path.insert(0, os.path.join(ROOT, "Tests", "APNsClientTests", "MockAPNs"))
    import mock_apns
    mock_apns.write_fixtures(workdir)
    return os.path.join(workdir, "ca.pem"), os.path.join(workdir, "server.key"), os.path.join(workdir, "AuthKey_TEST.p8")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class H2Mock:
    """One h2mock on CPU 0; `stop` returns (connections, requests) it served."""

    def __init__(self, pin, cert, key):
        self.port = free_port()
        self.process = subprocess.Popen(pin + [H2MOCK, str(self.port), cert, key], stderr=subprocess.PIPE, text=True)
        for _ in range(200):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.01)
        sys.exit("h2mock did not start")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        _, err = self.process.communicate(timeout=10)
        found = re.search(r"connections=(\d+) requests=(\d+)", err)
        return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def fan_out(args, workdir, pin_server, pin_client, cert, server_key, signing_key):
    """`replay --send` of one print to many phones against aioapns sending as many pushes."""
    devices = os.path.join(workdir, "phones.json")
    with open(devices, "w") as f:
        json.dump([{"apnsToken": f"{index + 1:064x}", "printerPrefix": "x1c_00m09a350100123"}
                   for index in range(args.phones)], f)
    recording = os.path.join(ROOT, "SampleEvents", "bambu-full-print.jsonl")
    binary = os.path.join(ROOT, ".build", "deploy", "release", "printbridge")
    steal = StealMeter()
    server = H2Mock(pin_server, cert, server_key)
    environment = dict(os.environ, APNS_TEAM_ID=TEAM_ID, APNS_KEY_ID=KEY_ID, APNS_BUNDLE_ID=BUNDLE,
                       APNS_KEY_PATH=signing_key, APNS_BASE_URL=f"https://127.0.0.1:{server.port}", APNS_CA_FILE=cert)
    started = time.monotonic()
    # The recording's hours pass at once: every push is due when it is planned.
    result = subprocess.run(pin_client + ["/usr/bin/time", "-f", "peak-rss-kib %M", binary, "replay", recording,
                                          "--devices", devices, "--send", "--speed", "1000000"],
                            env=environment, capture_output=True, text=True)
    seconds = time.monotonic() - started
    connections, requests = server.stop()
    if result.returncode != 0:
        sys.exit("replay --send failed:\n" + result.stdout[-1500:] + result.stderr[-2000:])
    if sum(1 for line in result.stdout.splitlines() if line.strip()) != requests:
        sys.exit(f"replay --send printed other outcomes than the {requests} requests h2mock answered")
    delivered = sum(1 for line in result.stdout.splitlines() if '"delivered"' in line or " delivered" in line)
    rss = int(re.search(r"peak-rss-kib (\d+)", result.stderr).group(1)) / 1024
    agent = {"delivered": requests, "outcome_lines": delivered, "seconds": seconds, "pushes_per_second": requests / seconds,
             "connections": connections, "peak_rss_mib": rss}
    # aioapns at the agent's most in flight and at the sender benchmark's;
    # the faster of the two is the one compared.
    peers = []
    for concurrency in sorted({min(1000, args.phones), args.concurrency}):
        server = H2Mock(pin_server, cert, server_key)
        peer = json.loads(subprocess.run(
            pin_client + [sys.executable, AIOAPNS_CLIENT, str(server.port), cert, signing_key, TEAM_ID, KEY_ID, BUNDLE,
                          str(requests), str(concurrency)], capture_output=True, text=True, check=True).stdout)
        server.stop()
        peers.append((peer["pushes_per_second"], concurrency, peer))
    _, concurrency, peer = max(peers, key=lambda p: p[0])
    return {"printbridge": agent, "aioapns": peer, "concurrency": concurrency, "steal": steal.percent()}


def broadcast_row(phones, workdir):
    """One print's Live Activity to `phones` phones by token, then by channel: what goes to APNs."""
    binary = os.path.join(ROOT, ".build", "deploy", "release", "printbridge")
    if not os.path.exists(binary):
        binary = os.path.join(ROOT, ".build", "debug", "printbridge")
    recording = os.path.join(ROOT, "SampleEvents", "bambu-full-print.jsonl")
    printer = "x1c_00m09a350100123"
    row = {"binary": os.path.relpath(binary, ROOT)}
    for kind in ("token", "channel"):
        devices = os.path.join(workdir, f"broadcast-{kind}.json")
        with open(devices, "w") as f:
            json.dump([dict({"apnsToken": f"{index + 1:064x}", "printerPrefix": printer},
                            **({"activityTokens": {printer: f"{index + 1:080x}"}} if kind == "token"
                               else {"activityChannels": [printer]}))
                       for index in range(phones)], f)
        started = time.monotonic()
        result = subprocess.run([binary, "replay", recording, "--devices", devices], capture_output=True, text=True,
                                check=True)
        seconds = time.monotonic() - started
        pushes = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
        activity = [p for p in pushes if p["push_type"] == "liveactivity"]
        row[kind] = {"requests": len(activity),
                     "bytes": sum(len(json.dumps(p["payload"], separators=(",", ":"), ensure_ascii=False).encode())
                                  for p in activity),
                     "kinds": sorted({p["token_kind"] for p in activity}), "seconds": seconds}
    return row


def print_broadcast_row(phones, row):
    token, channel = row["token"], row["channel"]
    print(f"broadcast: one print's Live Activity (SampleEvents/bambu-full-print.jsonl) to {phones:,} phones "
          f"({row['binary']} replay):")
    print(f"  by token (iOS 17):   {token['requests']:>8,} requests, {token['bytes'] / 1024:>9,.1f} KiB of payload, "
          f"replay {token['seconds']:.2f} s")
    print(f"  by channel (iOS 18): {channel['requests']:>8,} requests, {channel['bytes'] / 1024:>9,.1f} KiB of payload, "
          f"replay {channel['seconds']:.2f} s ({', '.join(channel['kinds'])})")
    print(f"  {token['requests'] / max(1, channel['requests']):,.0f}x fewer requests to APNs")


def h2load_command(port, token, count, concurrency, payload, jwt):
    """h2load sending `count` requests shaped like the sender's (headers, body) on one connection."""
    return ["h2load", f"https://127.0.0.1:{port}/3/device/{token}", "-n", str(count), "-c", "1",
            "-m", str(concurrency), "-d", payload, "-H", f"authorization: bearer {jwt}",
            "-H", "apns-push-type: alert", "-H", f"apns-topic: {BUNDLE}", "-H", "apns-priority: 10",
            "-H", f"apns-expiration: {int(time.time()) + 3600}", "-H", "apns-collapse-id: x1c.complete",
            "-H", "apns-id: 0b1f6a2e-2c1d-4c9e-9f1e-3d4c5b6a7980"]


def sender_instructions(count, concurrency, workdir, pin_server, cert, server_key, signing_key, payload, token, jwt,
                        before=None):
    """Instructions a request of the sender alone (APNsBenchmark) and of
    h2load, each sending requests with `concurrency` in flight on one
    connection to its own h2mock (callgrind's totals over the requests
    h2mock answered): the sender's share of h2load's ceiling in a figure
    that does not move with the machine's load. Two ways: `count` requests
    with start-up included, and the steady state, what `count` requests
    cost beyond `count` / 4 (start-up, the key, the connection cancel out)."""
    from agent_harness import callgrind_instructions
    counted = {}
    environment = dict(os.environ, APNS_TEAM_ID=TEAM_ID, APNS_KEY_ID=KEY_ID, APNS_BUNDLE_ID=BUNDLE,
                       APNS_KEY_PATH=signing_key, APNS_CA_FILE=cert, SWIFT_DETERMINISTIC_HASHING="1")
    senders = {"printbridge": APNS_BENCHMARK}
    if before:
        senders["before"] = before
    for name in list(senders) + ["h2load"]:
        totals = {}
        for n in (count // 4, count):
            server = H2Mock(pin_server, cert, server_key)
            if name in senders:
                command = [senders[name], "--count", str(n), "--concurrency", str(concurrency)]
                env = dict(environment, APNS_BASE_URL=f"https://127.0.0.1:{server.port}")
            else:
                command = [shutil.which("h2load")] + h2load_command(server.port, token, n, concurrency, payload, jwt)[1:]
                env = None
            try:
                total, _ = callgrind_instructions(command, env=env, who="apns_benchmark.py")
            finally:
                _, requests = server.stop()
            # (APNsBenchmark sends one push first, on its own, to open the connection.)
            if requests < n:
                sys.exit(f"apns_benchmark.py: {name} under callgrind had {requests} of {n} requests answered")
            totals[n] = (total, requests)
        (small, small_requests), (large, large_requests) = totals[count // 4], totals[count]
        counted[name] = {"whole": large / large_requests,
                         "steady": (large - small) / max(1, large_requests - small_requests)}
    return counted


def fan_out_instructions(phones, workdir, pin_server, cert, server_key, signing_key):
    """Instructions a push of the fan-out costs the whole `replay --send`
    process (reading, planning, sending, outcome lines; callgrind's total
    over the pushes h2mock answered): a figure that does not move with the
    machine's load. The binary runs without its debug information (valgrind
    3.19 gives up on the DWARF 5 of a C shim, metrics_benchmark.py says)."""
    from agent_harness import callgrind_instructions
    devices = os.path.join(workdir, "phones-callgrind.json")
    with open(devices, "w") as f:
        json.dump([{"apnsToken": f"{index + 1:064x}", "printerPrefix": "x1c_00m09a350100123"}
                   for index in range(phones)], f)
    plain = os.path.join(workdir, "printbridge-plain")
    subprocess.check_call(["strip", "--strip-debug", "-o", plain, os.path.join(ROOT, ".build", "deploy", "release", "printbridge")])
    server = H2Mock(pin_server, cert, server_key)
    environment = dict(os.environ, APNS_TEAM_ID=TEAM_ID, APNS_KEY_ID=KEY_ID, APNS_BUNDLE_ID=BUNDLE,
                       APNS_KEY_PATH=signing_key, APNS_BASE_URL=f"https://127.0.0.1:{server.port}", APNS_CA_FILE=cert,
                       SWIFT_DETERMINISTIC_HASHING="1")
    try:
        total, _ = callgrind_instructions(
            [plain, "replay", os.path.join(ROOT, "SampleEvents", "bambu-full-print.jsonl"), "--devices", devices,
             "--send", "--speed", "1000000"], env=environment, who="apns_benchmark.py")
    finally:
        _, requests = server.stop()
    return total, requests


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=30_000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--phones", type=int, default=10_000, help="the fan-out's phones (0: no fan-out)")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--callgrind", type=int, default=0, metavar="PHONES",
                        help="also count the fan-out's instructions a push (callgrind), to PHONES phones")
    parser.add_argument("--callgrind-sender", type=int, default=0, metavar="N",
                        help="also count the instructions a request of the sender alone and of h2load (callgrind), N requests each")
    parser.add_argument("--broadcast-phones", type=int, default=0, metavar="N",
                        help="also the broadcast row: one print's Live Activity to N phones by token and by channel")
    parser.add_argument("--before", metavar="BINARY",
                        help="an APNsBenchmark built from an earlier commit, run as a contender in every round")
    args = parser.parse_args()
    if args.rounds == 0 and args.broadcast_phones:
        workdir = tempfile.mkdtemp(prefix="printbridge-apns-bench-")
        try:
            print_broadcast_row(args.broadcast_phones, broadcast_row(args.broadcast_phones, workdir))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return
    ensure_tools()
    build_h2mock()
    if not args.skip_build:
        subprocess.check_call([os.path.join(ROOT, "scripts", "build-release.sh"), "APNsBenchmark"], cwd=ROOT,
                              stdout=subprocess.DEVNULL)
        if args.phones:
            subprocess.check_call([os.path.join(ROOT, "scripts", "build-release.sh")], cwd=ROOT,
                                  stdout=subprocess.DEVNULL)
    workdir = tempfile.mkdtemp(prefix="printbridge-apns-bench-")
    pin_server, pin_client = [], []
    if (os.cpu_count() or 1) >= 2 and shutil.which("taskset"):
        pin_server, pin_client = ["taskset", "-c", "0"], ["taskset", "-c", "1"]
    cert, server_key, signing_key = write_fixtures(workdir)
    payload = os.path.join(workdir, "payload.json")
    with open(payload, "w") as f:
        f.write('{"aps":{"alert":{"body":"benchy.3mf finished on X1C","title":"Print Complete! 🎉"},'
                '"sound":"default","thread-id":"x1c"},"printerState":{"filename":"benchy.3mf","prefix":"x1c",'
                '"progress":100,"status":"complete","type":"print_complete"}}')
    token = "ab" * 32
    jwt = provider_token(signing_key)
    rounds = []
    steal = StealMeter()
    try:
        for _ in range(args.rounds):
            figures = {}
            server = H2Mock(pin_server, cert, server_key)
            h2 = subprocess.run(pin_client + h2load_command(server.port, token, args.count, args.concurrency, payload, jwt),
                                capture_output=True, text=True, check=True).stdout
            figures["h2load"] = {"pushes_per_second": float(re.search(r"finished in [\d.]+\w+, ([\d.]+) req/s", h2).group(1)),
                                 "delivered": int(re.search(r"status codes: (\d+) 2xx", h2).group(1))}
            figures["h2load"]["connections"], _ = server.stop()

            server = H2Mock(pin_server, cert, server_key)
            figures["aioapns"] = json.loads(subprocess.run(
                pin_client + [sys.executable, AIOAPNS_CLIENT, str(server.port), cert, signing_key, TEAM_ID, KEY_ID,
                              BUNDLE, str(args.count), str(args.concurrency)],
                capture_output=True, text=True, check=True).stdout)
            figures["aioapns"]["connections"], _ = server.stop()

            server = H2Mock(pin_server, cert, server_key)
            environment = dict(os.environ, APNS_TEAM_ID=TEAM_ID, APNS_KEY_ID=KEY_ID, APNS_BUNDLE_ID=BUNDLE,
                               APNS_KEY_PATH=signing_key, APNS_BASE_URL=f"https://127.0.0.1:{server.port}",
                               APNS_CA_FILE=cert)
            figures["printbridge"] = json.loads(subprocess.run(
                pin_client + [APNS_BENCHMARK, "--count", str(args.count), "--concurrency", str(args.concurrency)],
                env=environment, capture_output=True, text=True, check=True).stdout)
            figures["printbridge"]["connections"], _ = server.stop()

            if args.before:
                server = H2Mock(pin_server, cert, server_key)
                environment["APNS_BASE_URL"] = f"https://127.0.0.1:{server.port}"
                figures["before"] = json.loads(subprocess.run(
                    pin_client + [args.before, "--count", str(args.count), "--concurrency", str(args.concurrency)],
                    env=environment, capture_output=True, text=True, check=True).stdout)
                figures["before"]["connections"], _ = server.stop()
            rounds.append(figures)
        steal = steal.percent()
        fanout = fan_out(args, workdir, pin_server, pin_client, cert, server_key, signing_key) if args.phones else None
        counted = fan_out_instructions(args.callgrind, workdir, pin_server, cert, server_key, signing_key) \
            if args.callgrind else None
        broadcast = broadcast_row(args.broadcast_phones, workdir) if args.broadcast_phones else None
        sender_counted = sender_instructions(args.callgrind_sender, args.concurrency, workdir, pin_server, cert,
                                             server_key, signing_key, payload, token, jwt, args.before) \
            if args.callgrind_sender else None
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    def versus_aioapns(figures):
        return figures["printbridge"]["pushes_per_second"] / figures["aioapns"]["pushes_per_second"]

    shown = sorted(rounds, key=versus_aioapns)[len(rounds) // 2]
    print(f"{args.count} pushes, {args.concurrency} in flight, to h2mock (HTTP/2 over TLS, C) on 127.0.0.1; "
          f"the median of {args.rounds} rounds" + (" (server on CPU 0, clients on CPU 1)" if pin_client else ""))
    print(f"{'contender':<32}{'pushes/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'peak RSS':>11}{'2xx':>8}{'TLS conn.':>11}")
    for name, label in (("h2load", "h2load (the server's ceiling)"), ("aioapns", "aioapns 4.0 (Python)"),
                        ("printbridge", "PrintBridge, replay's window"), ("before", "PrintBridge --before")):
        if name not in shown:
            continue
        f = shown[name]
        p50 = f"{f['p50_ms']:>9.2f}" if "p50_ms" in f else f"{'':>9}"
        p99 = f"{f['p99_ms']:>9.2f}" if "p99_ms" in f else f"{'':>9}"
        rss = f"{f['peak_rss_mib']:>7.1f} MiB" if "peak_rss_mib" in f else f"{'':>11}"
        print(f"{label:<32}{f['pushes_per_second']:>10,.0f}{p50}{p99}{rss}{f['delivered']:>8}{f['connections']:>11}")
    ratio = versus_aioapns(shown)
    window_share = shown["printbridge"]["pushes_per_second"] / shown["h2load"]["pushes_per_second"]
    print("PrintBridge / aioapns per round: " + " ".join(f"{versus_aioapns(r):.1f}x" for r in rounds)
          + f"; hypervisor steal during the rounds: {steal:.1f} % of the machine's CPU time")
    print(f"PrintBridge / aioapns: {ratio:.1f}x (target >= {TARGET_VERSUS_AIOAPNS:.0f}x): "
          f"{'met' if ratio >= TARGET_VERSUS_AIOAPNS else 'NOT met'}; of h2load's ceiling: {100 * window_share:.0f} %")
    if args.before:
        print("--before / aioapns per round: " + " ".join(
            f"{r['before']['pushes_per_second'] / r['aioapns']['pushes_per_second']:.1f}x" for r in rounds)
            + "; PrintBridge / --before per round: " + " ".join(
            f"{r['printbridge']['pushes_per_second'] / r['before']['pushes_per_second']:.2f}" for r in rounds))
    if fanout:
        agent, peer = fanout["printbridge"], fanout["aioapns"]
        print(f"fan-out: one print (SampleEvents/bambu-full-print.jsonl) to {args.phones:,} phones, "
              f"{agent['delivered']:,} pushes, to h2mock; steal {fanout['steal']:.1f} %")
        print(f"  printbridge replay --send, the whole process: {agent['seconds']:.2f} s, "
              f"{agent['pushes_per_second']:,.0f} pushes/s, {agent['connections']} TLS connection(s), peak RSS "
              f"{agent['peak_rss_mib']:.1f} MiB")
        print(f"  aioapns, the same number of pushes, {fanout['concurrency']} in flight (its faster of "
              f"{args.concurrency} and 1,000): {peer['seconds']:.2f} s, "
              f"{peer['pushes_per_second']:,.0f} pushes/s")
        fan_ratio = agent["pushes_per_second"] / peer["pushes_per_second"]
        print(f"  PrintBridge / aioapns end to end: {fan_ratio:.1f}x (target >= {TARGET_VERSUS_AIOAPNS:.0f}x): "
              f"{'met' if fan_ratio >= TARGET_VERSUS_AIOAPNS else 'NOT met'}")
        if agent["delivered"] != peer["delivered"]:
            sys.exit("the fan-out's pushes were not all delivered")
    if counted:
        total, requests = counted
        print(f"fan-out instructions (callgrind, {args.callgrind:,} phones, {requests:,} pushes): "
              f"{total / max(1, requests):,.0f} a push, the whole replay --send process")
    if broadcast:
        print_broadcast_row(args.broadcast_phones, broadcast)
    if sender_counted:
        theirs = sender_counted["h2load"]
        for name in ("printbridge", "before"):
            if name not in sender_counted:
                continue
            ours = sender_counted[name]
            whole, steady = theirs["whole"] / ours["whole"], theirs["steady"] / ours["steady"]
            print(f"{'sender alone' if name == 'printbridge' else '--before'}, instructions a request (callgrind, "
                  f"{args.callgrind_sender:,} requests, {args.concurrency} in flight, start-up included): "
                  f"{ours['whole']:,.0f}, h2load {theirs['whole']:,.0f}: {100 * whole:.0f} % of h2load's by instructions; "
                  f"steady state (beyond {args.callgrind_sender // 4:,}): {ours['steady']:,.0f}, h2load "
                  f"{theirs['steady']:,.0f}: {100 * steady:.0f} %")
    if shown["printbridge"]["delivered"] != args.count:
        sys.exit("not every push was delivered")
    if shown["printbridge"]["connections"] != 1:
        sys.exit(f"PrintBridge opened {shown['printbridge']['connections']} TLS connections, not one")


if __name__ == "__main__":
    main()
