#!/usr/bin/env python3
"""The agent's memory through a flood of hostile connections (issue 48, point 9).

Starts `printbridge run --dry-run` (built as deployed, scripts/build-release.sh)
against the mock HA, its API listening beyond loopback (0.0.0.0 on a free
port, so it speaks HTTPS with its own certificate; this script connects to
127.0.0.1 only), and once HA is connected and the agent settled:
  1. reads its memory (RssAnon, PSS and VmRSS: /proc/PID/status and
     smaps_rollup): "before";
  2. floods the API with --connections (9,000) hostile connections,
     --concurrency (500) at once in batches, each batch held open until all
     of it has acted: TLS handshakes then nothing, heads half sent, garbage
     after the handshake, requests with a wrong token, ClientHellos cut in
     half; the memory is read every 50 ms: "peak";
  3. closes them all, waits until the agent has let every connection go (its
     socket descriptors back to the count before), keeps quiet for --quiet
     seconds (60, as the probe did) and reads the memory again: "after quiet".
Each build is measured in a run of its own, one after the other, and the
figures printed side by side: the deployed build, and with --binary another
build (e.g. the one before a change) beside it.

usage: python3 scripts/bench/connection_flood.py [--connections 9000] [--concurrency 500] [--quiet 60]
       [--settle 3] [--skip-build] [--binary PATH ...]  (another build measured beside the deployed one)
       python3 scripts/bench/connection_flood.py --port PORT [--connections N] [--concurrency N]
       (only the flood, against an API already listening on 127.0.0.1:PORT; prints its outcome as JSON:
       Tests/DaemonTests/ConnectionFloodTests.swift)
"""
import argparse
import asyncio
import collections
import json
import os
import ssl
import sys
import tempfile
import threading
import time
import urllib.request

from agent_harness import agent_binary, start_dry_run_agent, use_test_python, ROOT
from daemon_benchmark import memory

KINDS = ("handshake only", "half a head", "garbage", "wrong token", "half a ClientHello")


def client_context():
    """A TLS client that trusts anything: the flood is hostile, not a phone pinning the certificate."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def half_client_hello(context):
    """The first half of a real ClientHello record (the server takes it for TLS and waits for the rest)."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = context.wrap_bio(incoming, outgoing, server_hostname="flood")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = outgoing.read()
    return hello[:len(hello) // 2]


async def hostile(kind, port, context, hello, outcome):
    """One connection of `kind`: acts, reads an answer where one comes, and
    returns its writer to be closed with the rest of its batch."""
    if kind == "half a ClientHello":
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(hello)
        await writer.drain()
        return writer
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context, server_hostname="flood")
    outcome["handshakes"] += 1
    if kind == "half a head":
        writer.write(b"POST /api/devices/register HTTP/1.1\r\nHost: flood\r\nContent-Le")
    elif kind == "garbage":
        writer.write(os.urandom(1500))
    elif kind == "wrong token":
        writer.write(b"GET /api/printers HTTP/1.1\r\nHost: flood\r\nAuthorization: Bearer "
                     + os.urandom(16).hex().encode() + b"\r\n\r\n")
    await writer.drain()
    if kind in ("garbage", "wrong token"):
        # The whole answer, to the server's close_notify (random garbage
        # without a line feed waits for its head's deadline: a 408).
        answer = await asyncio.wait_for(reader.read(), 10)
        outcome["HTTP " + (answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/1.1 ") else "none")] += 1
    return writer


async def close(writer):
    """Closes a connection (TLS: close_notify first); how the server takes it is its own affair."""
    writer.close()
    try:
        await asyncio.wait_for(writer.wait_closed(), 10)
    except (OSError, asyncio.TimeoutError):  # ssl.SSLError is an OSError
        pass


async def flood_async(port, connections, concurrency):
    """--connections hostile connections, --concurrency at a time: each batch
    is opened and acts, then all of it is closed. Returns the counts."""
    context = client_context()
    hello = half_client_hello(context)
    outcome = collections.Counter()
    started = 0
    while started < connections:
        batch = [KINDS[(started + i) % len(KINDS)] for i in range(min(concurrency, connections - started))]
        started += len(batch)
        results = await asyncio.gather(*(asyncio.wait_for(hostile(kind, port, context, hello, outcome), 20) for kind in batch),
                                       return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                outcome["failed: " + type(result).__name__] += 1
        await asyncio.gather(*(close(result) for result in results if not isinstance(result, BaseException)))
    outcome["connections"] = connections
    return dict(outcome)


def flood(port, connections, concurrency):
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, concurrency * 2 + 256)), hard))
    return asyncio.run(flood_async(port, connections, concurrency))


def sockets(pid):
    """The process's socket descriptors now."""
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except FileNotFoundError:
            pass
    return count


def figures(pid):
    """(RssAnon, PSS, VmRSS) in MiB."""
    rss, pss, _, anonymous = memory(pid)
    with open(f"/proc/{pid}/status") as f:
        vmrss = next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS:"))
    return anonymous, pss, vmrss


def measure(binary, args):
    """One build: {before, peak, after} figures and the flood's outcome."""
    work = tempfile.mkdtemp(prefix="printbridge-flood-")
    ha, agent, port = start_dry_run_agent(binary, work, api_host="0.0.0.0")
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
                    if json.loads(reply.read()).get("ha") == "connected":
                        break
            except OSError:
                pass
            time.sleep(0.1)
        else:
            sys.exit(f"{binary}: the agent did not connect to the mock HA")
        time.sleep(args.settle)
        quiet_sockets = sockets(agent.pid)
        before = figures(agent.pid)
        peak = list(before)
        sampling = threading.Event()

        def sample():
            while not sampling.wait(0.05):
                try:
                    peak[:] = [max(a, b) for a, b in zip(peak, figures(agent.pid))]
                except (FileNotFoundError, StopIteration):
                    return

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        started = time.monotonic()
        outcome = flood(port, args.connections, args.concurrency)
        flooded = time.monotonic() - started
        # The agent lets go of what the flood left (lingering answers end
        # when the client closes, half heads at their deadline).
        deadline = time.monotonic() + 30
        while sockets(agent.pid) > quiet_sockets and time.monotonic() < deadline:
            time.sleep(0.05)
        sampling.set()
        sampler.join()
        idle_after = time.monotonic() - started - flooded
        time.sleep(args.quiet)
        after = figures(agent.pid)
        if agent.poll() is not None:
            sys.exit(f"{binary}: the agent exited during the flood ({agent.returncode})")
    finally:
        agent.terminate()
        agent.wait()
        ha.terminate()
    return {"before": before, "peak": peak, "after": after, "outcome": outcome, "seconds": flooded,
            "idle after": idle_after}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=9000)
    parser.add_argument("--concurrency", type=int, default=500)
    parser.add_argument("--quiet", type=float, default=60, help="seconds of quiet after the flood before the last reading")
    parser.add_argument("--settle", type=float, default=3)
    parser.add_argument("--port", type=int, help="only flood an API already listening on 127.0.0.1:PORT; print JSON")
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--binary", action="append", default=[], help="another build measured beside the deployed one")
    args = parser.parse_args()
    if args.port:
        print(json.dumps(flood(args.port, args.connections, args.concurrency), sort_keys=True))
        return
    use_test_python()
    builds = [agent_binary(argparse.Namespace(binary=None, skip_build=args.skip_build))] + args.binary
    results = [(binary, measure(binary, args)) for binary in builds]

    print(f"{args.connections} hostile connections over TLS, {args.concurrency} at once "
          f"({', '.join(KINDS)}), then {args.quiet:.0f} s of quiet; MiB:")
    header = "".join(f"{name:^26}" for name in ("RssAnon", "PSS", "VmRSS"))
    print(f"  {'build':<40}{header}")
    print(f"  {'':<40}" + "  before    peak   after  " * 3)
    for binary, result in results:
        cells = "".join(f"  {result['before'][i]:6.1f}  {result['peak'][i]:6.1f}  {result['after'][i]:6.1f}  " for i in range(3))
        print(f"  {os.path.relpath(binary, ROOT) if binary.startswith(ROOT) else binary:<40}{cells}")
    for binary, result in results:
        outcome = ", ".join(f"{key} {value}" for key, value in sorted(result["outcome"].items()))
        print(f"  {os.path.basename(binary)}: flood {result['seconds']:.1f} s, all let go {result['idle after']:.1f} s later; {outcome}")


if __name__ == "__main__":
    main()
