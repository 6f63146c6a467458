#!/usr/bin/env python3
"""A mock Home Assistant WebSocket API for PrintBridge's daemon tests.

    mock_ha.py --events FILE [--token T] [--reject-token] [--drop-after N]
               [--skip-while-down] [--interval S] [--stats FILE]

Speaks HA's protocol on ws://127.0.0.1:<port>/api/websocket (prints
"PORT <n>"): auth_required -> auth -> auth_ok / auth_invalid, answers
supported_features, config/entity_registry/list_for_display, get_states,
subscribe_events and ping. The recorded-event FILE provides the first
get_states snapshot and the state_changed events, which are streamed to the
subscriber every S seconds, re-numbered with the subscription id.

--drop-after N      close the connection after N events; on the next
                    connection the stream continues where it stopped
--skip-while-down   the events HA would have sent while the agent was
                    disconnected are applied to HA's states but not sent, so
                    the next get_states shows where the printer got to
Stats (connections, auth attempts, events sent) go to --stats as JSON.
"""
import argparse
import asyncio
import json
import os
import sys
import threading

import websockets


class MockHA:
    def __init__(self, args):
        self.args = args
        self.states = {}
        self.events = []
        with open(args.events) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                message = json.loads(line)
                if message.get("type") == "result" and isinstance(message.get("result"), list):
                    if not self.states:
                        self.states = {s["entity_id"]: s for s in message["result"]}
                elif message.get("type") == "event" and message["event"].get("event_type") == "state_changed":
                    self.events.append(message["event"])
        self.position = 0
        self.stats = {"connections": 0, "auth_attempts": 0, "events_sent": 0, "drops": 0}
        self.write_stats()

    def write_stats(self):
        if self.args.stats:
            with open(self.args.stats, "w") as f:
                json.dump(self.stats, f)

    def apply(self, event):
        new_state = event["data"].get("new_state")
        if new_state is not None:
            self.states[event["data"]["entity_id"]] = new_state

    async def handler(self, ws):
        self.stats["connections"] += 1
        self.write_stats()
        await ws.send(json.dumps({"type": "auth_required", "ha_version": "2026.11.2"}))
        auth = json.loads(await ws.recv())
        self.stats["auth_attempts"] += 1
        self.write_stats()
        if self.args.reject_token or auth.get("access_token") != self.args.token:
            await ws.send(json.dumps({"type": "auth_invalid", "message": "Invalid access token or password"}))
            await ws.close()
            return
        await ws.send(json.dumps({"type": "auth_ok", "ha_version": "2026.11.2"}))
        streamer = None
        try:
            async for text in ws:
                request = json.loads(text)
                rid, kind = request.get("id"), request.get("type")
                if kind == "ping":
                    await ws.send(json.dumps({"id": rid, "type": "pong"}))
                elif kind == "get_states":
                    await ws.send(json.dumps({"id": rid, "type": "result", "success": True,
                                              "result": list(self.states.values())}))
                elif kind == "config/entity_registry/list_for_display":
                    await ws.send(json.dumps({"id": rid, "type": "result", "success": True,
                                              "result": {"entity_categories": {}, "entities": []}}))
                elif kind == "subscribe_events":
                    await ws.send(json.dumps({"id": rid, "type": "result", "success": True, "result": None}))
                    streamer = asyncio.create_task(self.stream(ws, rid))
                else:
                    await ws.send(json.dumps({"id": rid, "type": "result", "success": True, "result": None}))
        except websockets.ConnectionClosed:
            pass
        finally:
            if streamer:
                streamer.cancel()

    async def stream(self, ws, subscription):
        sent_here = 0
        while self.position < len(self.events):
            event = self.events[self.position]
            self.position += 1
            self.apply(event)
            await ws.send(json.dumps({"id": subscription, "type": "event", "event": event}, separators=(",", ":")))
            sent_here += 1
            self.stats["events_sent"] += 1
            if self.args.drop_after and sent_here == self.args.drop_after and self.stats["drops"] == 0:
                self.stats["drops"] += 1
                if self.args.skip_while_down:
                    while self.position < len(self.events):
                        self.apply(self.events[self.position])
                        self.position += 1
                self.write_stats()
                await ws.close()
                return
            await asyncio.sleep(self.args.interval)
        self.write_stats()

    async def main(self):
        async with websockets.serve(self.handler, "127.0.0.1", 0, max_size=None) as server:
            port = server.sockets[0].getsockname()[1]
            print(f"PORT {port}", flush=True)
            # Stop when the test process goes away (stdin closes).
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            await asyncio.Future()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", required=True)
    parser.add_argument("--token", default="test-ha-token")
    parser.add_argument("--reject-token", action="store_true")
    parser.add_argument("--drop-after", type=int, default=0)
    parser.add_argument("--skip-while-down", action="store_true")
    parser.add_argument("--interval", type=float, default=0.002)
    parser.add_argument("--stats")
    asyncio.run(MockHA(parser.parse_args()).main())


if __name__ == "__main__":
    main()
