#!/usr/bin/env python3
"""The peer of ingest_benchmark.py: a minimal Python receiver of Home
Assistant's event stream, websockets + orjson, receive and parse only.

    ingest_peer.py --port P --token T --frames F

Connects to ws://127.0.0.1:P/api/websocket, authenticates, asks for
coalesced messages (as PrintBridge does, so both get the same frames) and
subscribes to state_changed; prints "READY". Then for every stream: each
message is `orjson.loads`ed and nothing else; after F frames it prints
"DONE <frames>" and waits for the next stream. Ends when the server closes.

websockets is asked for no permessage-deflate (compression=None): the
benchmark's server offers none, and the stream is then the same bytes the
agent reads.
"""
import argparse
import asyncio

import orjson
import websockets


async def main(args):
    async with websockets.connect(f"ws://127.0.0.1:{args.port}/api/websocket", compression=None,
                                  max_size=None, ping_interval=None) as ws:
        await ws.recv()  # auth_required
        await ws.send(orjson.dumps({"type": "auth", "access_token": args.token}).decode())
        await ws.recv()  # auth_ok
        await ws.send(orjson.dumps({"id": 1, "type": "supported_features", "features": {"coalesce_messages": 1}}).decode())
        await ws.send(orjson.dumps({"id": 2, "type": "subscribe_events", "event_type": "state_changed"}).decode())
        await ws.recv()  # the two results
        await ws.recv()
        print("READY", flush=True)
        loads = orjson.loads
        frames = 0
        async for message in ws:
            loads(message)
            frames += 1
            if frames == args.frames:
                print(f"DONE {frames}", flush=True)
                frames = 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--frames", type=int, required=True)
    try:
        asyncio.run(main(parser.parse_args()))
    except websockets.ConnectionClosed:
        pass
