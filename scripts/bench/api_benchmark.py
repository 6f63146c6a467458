#!/usr/bin/env python3
"""The app's API under strangers: /healthz while connections are held.

Starts `printbridge run --dry-run` (built as deployed, scripts/build-release.sh)
against the mock HA and measures how long GET /healthz takes, over a fresh
connection each time:
  1. reference: nothing else connected;
  2. while --idle connections (500) are held open sending nothing, and
     --trickle of them (60) send a header byte every few milliseconds;
  3. --flood requests (2,000) at once, a thread each: how many
     got an HTTP answer (200 or 503), how many were closed without one.
Target: /healthz p99 < 100 ms in phase 2; every flood request answered.

usage: python3 scripts/bench/api_benchmark.py [--idle 500] [--trickle 60] [--probes 50] [--flood 2000]
       [--skip-build] [--binary PATH] [--before PATH]

--before PATH measures another build (an older commit's, as deployed) the
same way right after, in the same run, each line labelled with its build.
"""
import argparse
import os
import socket
import statistics
import subprocess
import tempfile
import threading
import time

from agent_harness import agent_binary, start_dry_run_agent, use_test_python, ROOT


def healthz(port):
    """(seconds, status) of one GET /healthz; status b"none" when the
    connection was closed or reset without an HTTP answer."""
    started = time.monotonic()
    data = b""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n")
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
    except OSError:
        pass
    return time.monotonic() - started, data.split(b" ", 2)[1] if data.startswith(b"HTTP/1.1 ") else b"none"


def summary(times):
    times = sorted(times)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return f"p50 {statistics.median(times) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, max {times[-1] * 1000:.1f} ms"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--idle", type=int, default=500)
    parser.add_argument("--trickle", type=int, default=60)
    parser.add_argument("--probes", type=int, default=50)
    parser.add_argument("--flood", type=int, default=2000)
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--binary")
    parser.add_argument("--before", help="another build measured the same way after this one")
    args = parser.parse_args()
    use_test_python()
    binary = agent_binary(args)
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))
    builds = [("this build", binary)] + ([("before", args.before)] if args.before else [])
    for label, path in builds:
        print(f"== {label}: {path}")
        measure(path, args)


def measure(binary, args):
    work = tempfile.mkdtemp(prefix="printbridge-api-bench-")
    ha, agent, api_port = start_dry_run_agent(binary, work)
    try:
        for _ in range(100):
            if healthz(api_port)[1] == b"200":
                break
            time.sleep(0.1)
        probes = [healthz(api_port) for _ in range(args.probes)]
        reference = [seconds for seconds, _ in probes]
        answered = sum(1 for _, status in probes if status == b"200")
        print(f"/healthz, nothing else connected: {answered}/{args.probes} answered 200, {summary(reference)}")

        held = []
        for _ in range(args.idle):
            try:
                held.append(socket.create_connection(("127.0.0.1", api_port), timeout=5))
            except OSError as error:
                print(f"  could hold only {len(held)} connections: {error}")
                break
        stop = threading.Event()

        def trickle(sockets):
            for s in sockets:
                try:
                    s.sendall(b"POST /api/devices/register HTTP/1.1\r\n")
                except OSError:
                    pass
            while not stop.is_set():
                for s in sockets:
                    try:
                        s.send(b"X")
                    except OSError:
                        pass
                time.sleep(0.005)

        trickler = threading.Thread(target=trickle, args=(held[:args.trickle],), daemon=True)
        trickler.start()
        time.sleep(0.5)
        loaded, statuses = [], []
        for _ in range(args.probes):
            seconds, status = healthz(api_port)
            loaded.append(seconds)
            statuses.append(status)
        answered = sum(1 for s in statuses if s == b"200")
        verdict = "met" if sorted(loaded)[min(len(loaded) - 1, int(len(loaded) * 0.99))] < 0.1 and answered == len(loaded) else "NOT met"
        print(f"/healthz while {args.idle} connections are held ({args.trickle} trickling a byte every 5 ms): "
              f"{answered}/{len(loaded)} answered 200, {summary(loaded)} (target p99 < 100 ms): {verdict}")
        stop.set()
        trickler.join()
        for s in held:
            s.close()

        results = {"200": 0, "503": 0, "other": 0, "no answer": 0}
        lock = threading.Lock()

        threading.stack_size(256 * 1024)
        barrier = threading.Barrier(args.flood)

        def flood(count):
            barrier.wait()
            for _ in range(count):
                try:
                    _, status = healthz(api_port)
                    key = status.decode() if status in (b"200", b"503") else ("no answer" if status == b"none" else "other")
                except OSError:
                    key = "no answer"
                with lock:
                    results[key] += 1

        threads = [threading.Thread(target=flood, args=(1,)) for _ in range(args.flood)]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"{args.flood} requests at once (a thread each): {results} in {time.monotonic() - started:.1f} s")
    finally:
        agent.terminate()
        agent.wait()
        ha.terminate()


if __name__ == "__main__":
    main()
