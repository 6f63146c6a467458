#!/usr/bin/env python3
"""How Home Assistant itself cuts a household flood into WebSocket frames,
for the frame sizes streaming_ha.py sends by default (HA_FRAME_SIZES).

Starts HA core 2024.3 (Tests/DaemonTests/RealHA/real_ha.py, in the virtual
environment scripts/install-test-deps.sh makes) and, for each number of
clients given, has that many REST clients set household entities (POST
/api/states, as the RealHA test's flood does) as fast as HA takes them for
--seconds, while a WebSocket client that asked for coalesce_messages counts
the state_changed events in each frame HA sends it (HA's writer,
websocket_api/http.py `_writer`, joins whatever is queued into one array).
Prints events a second, events a frame and how many frames held 1, 2, 3 …

usage: python3 scripts/bench/ha_frame_sizes.py [--clients 1 4 16] [--seconds 15]
"""
import argparse
import asyncio
import collections
import json
import os
import subprocess
import sys
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HA_VENV = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "printbridge", "ha-venv")


async def count_frames(ha, seconds, sizes):
    import aiohttp
    async with aiohttp.ClientSession() as session:
        # compress=0: no permessage-deflate, as PrintBridge's client offers none.
        async with session.ws_connect(f"http://127.0.0.1:{ha.port}/api/websocket", max_msg_size=0, compress=0) as ws:
            await ws.receive()
            await ws.send_json({"type": "auth", "access_token": ha.token})
            await ws.receive()
            await ws.send_json({"id": 1, "type": "supported_features", "features": {"coalesce_messages": 1}})
            await ws.send_json({"id": 2, "type": "subscribe_events", "event_type": "state_changed"})
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                try:
                    message = await asyncio.wait_for(ws.receive(), 0.5)
                except asyncio.TimeoutError:
                    continue
                value = json.loads(message.data)
                events = sum(1 for m in (value if isinstance(value, list) else [value]) if m.get("type") == "event")
                if events:
                    sizes[events] += 1


def flood(ha, clients, seconds):
    stop = threading.Event()
    sent = [0] * clients

    def client(k):
        i = 0
        while not stop.is_set():
            ha.set(f"sensor.room_{(i * 7 + k) % 40}_temperature", 18 + i % 9,
                   {"unit_of_measurement": "°C", "device_class": "temperature", "friendly_name": f"Room {k} temperature"})
            i += 1
            sent[k] += 1

    sizes = collections.Counter()
    watcher = threading.Thread(target=lambda: asyncio.run(count_frames(ha, seconds + 1, sizes)))
    watcher.start()
    time.sleep(1)  # subscribed
    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
    for thread in threads:
        thread.start()
    watcher.join()
    stop.set()
    for thread in threads:
        thread.join()
    frames = sum(sizes.values())
    events = sum(size * count for size, count in sizes.items())
    print(f"{clients} REST clients: {sum(sent) / seconds:.0f} events/s; {frames} frames, {events} events, "
          f"{events / max(1, frames):.2f} events a frame; frames by events: "
          + ", ".join(f"{size}: {count}" for size, count in sorted(sizes.items())), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--seconds", type=float, default=15)
    args = parser.parse_args()
    if os.path.realpath(sys.prefix) != os.path.realpath(HA_VENV):
        # HA's own virtual environment (scripts/install-test-deps.sh makes it), never the system Python.
        subprocess.check_call([os.path.join(ROOT, "scripts", "install-test-deps.sh")])
        python = os.path.join(HA_VENV, "bin", "python")
        os.execv(python, [python] + sys.argv)
    sys.path.insert(0, os.path.join(ROOT, "Tests", "DaemonTests", "RealHA"))
    from real_ha import RealHA

    class Options:
        stats = token_file = None
        warm = False

    ha = RealHA(Options())
    ha.start()
    try:
        print(f"Home Assistant {json.loads(ha.request('GET', '/api/config'))['version']}", flush=True)
        for clients in args.clients:
            flood(ha, clients, args.seconds)
    finally:
        ha.stop()


if __name__ == "__main__":
    main()
