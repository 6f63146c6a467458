#!/usr/bin/env python3
"""aioapns (PyPI's asyncio APNs client: h2 on asyncio) sending N pushes with C in flight over one
connection to a local HTTP/2 server; prints one JSON line like APNsBenchmark's.
Run by apns_benchmark.py, in the test virtual environment.

usage: aioapns_client.py PORT CA KEY TEAM_ID KEY_ID TOPIC COUNT CONCURRENCY
"""
import asyncio
import json
import ssl
import sys
import time

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsProductionClientProtocol


async def run(port, ca, key_path, team_id, key_id, topic, count, concurrency):
    # aioapns talks to api.push.apple.com:443 only; these two class
    # attributes are where it keeps that address.
    APNsProductionClientProtocol.APNS_SERVER = "127.0.0.1"
    APNsProductionClientProtocol.APNS_PORT = port
    context = ssl.create_default_context(cafile=ca)
    context.set_alpn_protocols(["h2"])
    with open(key_path) as f:
        key = f.read()
    client = APNs(key=key, key_id=key_id, team_id=team_id, topic=topic, max_connections=1, ssl_context=context)
    message = {"aps": {"alert": {"title": "Print Complete! 🎉", "body": "benchy.3mf finished on X1C"},
                       "sound": "default", "thread-id": "x1c"},
               "printerState": {"type": "print_complete", "prefix": "x1c", "filename": "benchy.3mf",
                                "progress": 100, "status": "complete"}}
    token = "ab" * 32

    async def one():
        started = time.monotonic()
        result = await client.send_notification(NotificationRequest(
            device_token=token, message=message, push_type=PushType.ALERT, priority=10, collapse_key="x1c.complete"))
        return time.monotonic() - started, result.is_successful

    await one()  # the connection and the provider token, as APNsBenchmark warms up
    queue = iter(range(count))
    results = []

    async def worker():
        for _ in queue:
            results.append(await one())

    started = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.monotonic() - started
    latencies = sorted(r[0] for r in results)
    print(json.dumps({"pushes": count, "delivered": sum(1 for r in results if r[1]), "seconds": elapsed,
                      "pushes_per_second": count / elapsed,
                      "p50_ms": latencies[len(latencies) // 2] * 1000,
                      "p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000}))


if __name__ == "__main__":
    a = sys.argv[1:]
    asyncio.run(run(int(a[0]), a[1], a[2], a[3], a[4], a[5], int(a[6]), int(a[7])))
