#!/usr/bin/env python3
"""A Home Assistant WebSocket API that streams household events as fast as
the client reads them, for ingest_benchmark.py.

    streaming_ha.py --events N [--per-frame ha|K] [--token T] [--seed S]

Speaks enough of HA's protocol on ws://127.0.0.1:<port>/api/websocket
(prints "PORT <n>", then "PLAN <frames> <events> <bytes>"): auth_required ->
auth -> auth_ok / auth_invalid; supported_features,
config/entity_registry/list_for_display (two ha-bambulab printers and the
household), get_states (the same entities), subscribe_events (any type) and
every other command get a result; an app-level ping gets a pong. A
connection's number is printed ("SUBSCRIBED <conn>") once it has
subscribed to state_changed.

The stream: N state_changed events of household entities (lights, sensors,
a TV, a person, a washer: scripts/ha_wire.py's Household, ~1.1 KB each as
HA's orjson writes them; none about a printer), the same N for every
stream and every connection. It goes out when stdin says "GO <conn>", as
pre-built WebSocket frames written with raw non-blocking socket writes of
~256 KiB, so the sender is never what is measured (its own CPU time is
printed with each stream). After the last event a WebSocket ping (as
aiohttp's heartbeat sends them); the client's pong says it has handled every
frame before it (libwebsockets answers it in order, after the frames ahead
of it). Then "STREAMED <conn> <wall seconds> <sender CPU seconds> <bytes>
<replies sent behind events>" and the connection waits for the next GO.

Frames are cut as HA's writer cuts them (homeassistant/components/
websocket_api/http.py in HA 2024.3, WebSocketHandler._writer): to a client
that did not ask for coalesce_messages one message a frame; to one that did,
a lone queued message as is and several queued ones joined into one JSON
array, `[m1,m2,…]`. How many are queued at each writer turn is HA's load:
--per-frame K, K events every frame (1: each its own frame), or `ha` (the
default): frame sizes drawn (seeded) from what HA 2024.3 itself sent under
the flood of Tests/DaemonTests/RealHA, four REST clients setting household
entities as fast as HA takes them (ha_frame_sizes.py measures it: 40 % of
frames one event, the rest 2, 3 or 4; 2.2 on average). A reply that
comes due while events are streaming is queued behind them, as in HA: with
coalescing it leaves inside the next array, `[events…, pong]`.
"""
import argparse
import base64
import hashlib
import json
import os
import select
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ha_wire import BambuPrinter, Household, Wire, dumps  # noqa: E402

WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
CHUNK = 256 * 1024
HA_VERSION = "2024.3.3"
EVENT_ID = Wire.STATE_CHANGED_ID  # the id the events are generated with; re-numbered per subscription
# Events a frame from HA 2024.3 under four concurrent REST clients flooding it
# (frames of each size, of 4,313 frames with 9,374 events at 469 events/s:
# `ha_frame_sizes.py --clients 4 16 --seconds 20`, 2026-11-26, on the 2-core
# development machine; sixteen clients gave 4.8 events a frame, one client
# every event its own frame).
HA_FRAME_SIZES = {1: 1734, 2: 1035, 3: 606, 4: 938}


def per_frame_option(text):
    """--per-frame: `ha` or a whole number of events, at least 1."""
    if text == "ha" or (text.isdigit() and int(text) >= 1):
        return text
    raise argparse.ArgumentTypeError(f"{text!r}: want ha or a number of events, at least 1")


def frame_sizes(events, per_frame, seed):
    """How many events each frame holds: K each, or `ha`'s measured mix."""
    if per_frame != "ha":
        k = int(per_frame)
        return [min(k, events - i) for i in range(0, events, k)]
    import random
    rng = random.Random(seed)
    sizes, total = [], 0
    population, weights = list(HA_FRAME_SIZES), list(HA_FRAME_SIZES.values())
    while total < events:
        size = min(rng.choices(population, weights)[0], events - total)
        sizes.append(size)
        total += size
    return sizes


def frame(opcode, payload):
    """A server frame (FIN, unmasked)."""
    length = len(payload)
    if length < 126:
        header = bytes([0x80 | opcode, length])
    elif length < 1 << 16:
        header = bytes([0x80 | opcode, 126]) + length.to_bytes(2, "big")
    else:
        header = bytes([0x80 | opcode, 127]) + length.to_bytes(8, "big")
    return header + payload


class HouseholdStream:
    """The snapshot, the registry and the events, generated once."""

    def __init__(self, events, seed, sizes):
        self.sizes = sizes  # events a frame, for a client that asked for coalescing
        wire = Wire(seed)
        BambuPrinter(wire, "x1c_00m09a350100123", "X1C", 0)
        BambuPrinter(wire, "p1s_01p09c470200456", "P1S", 0, remaining_unit="h")
        home = Household(wire, 0)
        self.states = list(wire.states.values())
        self.registry = list(wire.registry)
        prefix = ('{"id":%d,' % EVENT_ID).encode()
        t = 10.0
        payloads = []
        while len(payloads) < events:
            t += 0.05
            wire.lines = []
            home.tick(t)
            for _, text in wire.lines:
                payload = text.encode()
                assert payload.startswith(prefix)
                payloads.append(payload[len(prefix):])
        self.bodies = payloads[:events]  # each event without its `{"id":N,`
        self.cache = {}
        self.lock = threading.Lock()

    def plan(self, subscription, coalesce):
        """(frames' event payloads, chunks of pre-built frames, chunk -> first frame index) for a subscription."""
        key = (subscription, coalesce)
        with self.lock:
            if key not in self.cache:
                prefix = ('{"id":%d,' % subscription).encode()
                batches, at = [], 0
                for size in (self.sizes if coalesce else [1] * len(self.bodies)):
                    batches.append([prefix + body for body in self.bodies[at:at + size]])
                    at += size
                frames = [frame(1, message_frame(batch)) for batch in batches]
                chunks, starts, current, size = [], [], [], 0
                for index, data in enumerate(frames):
                    if not current:
                        starts.append(index)
                    current.append(data)
                    size += len(data)
                    if size >= CHUNK:
                        chunks.append(b"".join(current))
                        current, size = [], 0
                if current:
                    chunks.append(b"".join(current))
                self.cache[key] = (batches, chunks, starts)
            return self.cache[key]


def message_frame(messages):
    """A frame's payload as HA's writer makes it: a lone message as is, several as one JSON array."""
    return messages[0] if len(messages) == 1 else b"[" + b",".join(messages) + b"]"


class Connection(threading.Thread):
    def __init__(self, server, sock, number):
        super().__init__(daemon=True)
        self.server, self.sock, self.number = server, sock, number
        self.buffer = bytearray()
        self.fragments = bytearray()
        self.coalesce = False
        self.subscription = None
        self.commands_r, self.commands_w = os.pipe()
        self.pending_frames = []  # control frames that came due while streaming
        self.pending_replies = []  # messages that came due while streaming (queued behind the events)
        self.streaming = False
        self.pong = None

    # --- reading -----------------------------------------------------------------
    def handshake(self):
        while b"\r\n\r\n" not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("closed during the handshake")
            self.buffer += data
        head, _, rest = bytes(self.buffer).partition(b"\r\n\r\n")
        self.buffer = bytearray(rest)
        headers = {}
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        accept = base64.b64encode(hashlib.sha1(headers[b"sec-websocket-key"] + WS_GUID).digest())
        # No Sec-WebSocket-Extensions: no permessage-deflate for anyone, so every
        # client gets the same bytes (aiohttp, HA's server, would deflate for a
        # client that offers it, as Python's websockets does by default).
        self.sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")

    def frames(self):
        """Whole client frames in the buffer: (opcode, payload) of each message or control frame."""
        out = []
        while True:
            b = self.buffer
            if len(b) < 2:
                return out
            fin, opcode, masked, length = b[0] & 0x80, b[0] & 0x0F, b[1] & 0x80, b[1] & 0x7F
            at = 2
            if length == 126:
                if len(b) < 4:
                    return out
                length, at = int.from_bytes(b[2:4], "big"), 4
            elif length == 127:
                if len(b) < 10:
                    return out
                length, at = int.from_bytes(b[2:10], "big"), 10
            mask = b[at:at + 4] if masked else None
            at += 4 if masked else 0
            if len(b) < at + length:
                return out
            payload = bytes(b[at:at + length])
            if mask:
                payload = bytes(x ^ mask[i & 3] for i, x in enumerate(payload))
            del b[:at + length]
            if opcode >= 8:
                out.append((opcode, payload))
            else:
                self.fragments += payload
                if fin:
                    out.append((1, bytes(self.fragments)))
                    self.fragments = bytearray()

    def read(self):
        """Reads what the client sent and handles it; False when it closed."""
        try:
            data = self.sock.recv(65536)
        except BlockingIOError:
            return True
        if not data:
            return False
        self.buffer += data
        for opcode, payload in self.frames():
            if opcode == 8:
                return False
            if opcode == 9:
                self.send(frame(10, payload))
            elif opcode == 10:
                self.pong = payload
            else:
                self.request(json.loads(payload))
        return True

    # --- writing -----------------------------------------------------------------
    def send(self, data):
        if self.streaming:
            self.pending_frames.append(data)
        else:
            self.sock.sendall(data)

    def reply(self, message):
        text = dumps(message).encode()
        if self.streaming:
            self.pending_replies.append(text)
        else:
            self.sock.sendall(frame(1, text))

    def request(self, message):
        kind, rid = message.get("type"), message.get("id")
        if kind == "auth":
            if message.get("access_token") == self.server.token:
                self.send(frame(1, dumps({"type": "auth_ok", "ha_version": HA_VERSION}).encode()))
            else:
                self.send(frame(1, dumps({"type": "auth_invalid", "message": "Invalid access token or password"}).encode()))
        elif kind == "ping":
            self.reply({"id": rid, "type": "pong"})
        elif kind == "supported_features":
            self.coalesce = bool(message.get("features", {}).get("coalesce_messages"))
            self.reply({"id": rid, "type": "result", "success": True, "result": None})
        elif kind == "get_states":
            self.reply({"id": rid, "type": "result", "success": True, "result": self.server.household.states})
        elif kind == "config/entity_registry/list_for_display":
            self.reply({"id": rid, "type": "result", "success": True,
                        "result": {"entity_categories": {"0": "config", "1": "diagnostic"},
                                   "entities": self.server.household.registry}})
        else:
            self.reply({"id": rid, "type": "result", "success": True, "result": None})
            if kind == "subscribe_events" and message.get("event_type") == "state_changed":
                self.subscription = rid
                self.server.say(f"SUBSCRIBED {self.number}")

    def stream(self):
        batches, chunks, starts = self.server.household.plan(self.subscription, self.coalesce)
        sock = self.sock
        sock.setblocking(False)
        self.streaming = True
        self.pong = None
        self.replies_behind_events = 0  # replies sent inside an array behind events
        wall0, cpu0 = time.perf_counter(), time.thread_time()
        sent = 0
        index = 0
        view = None
        done = False
        while True:
            if view is None:
                if self.pending_frames or self.pending_replies:
                    view = memoryview(self.queued_behind_events(batches, chunks, starts, index))
                    if self.coalesce and index < len(chunks):
                        index += 1
                elif index < len(chunks):
                    view = memoryview(chunks[index])
                    index += 1
                elif not done:
                    # After the last event, a WebSocket ping (as aiohttp's heartbeat):
                    # the client's pong comes after every frame before it.
                    done = True
                    view = memoryview(frame(9, b"end of stream"))
                else:
                    break
            readable, writable, _ = select.select([sock], [sock], [])
            if readable and not self.read():
                raise ConnectionError("the client closed the connection")
            if writable:
                try:
                    n = sock.send(view)
                except BlockingIOError:
                    n = 0
                sent += n
                view = view[n:] if n < len(view) else None
        cpu1 = time.thread_time()
        self.streaming = False
        sock.setblocking(True)
        while self.pong is None:
            select.select([sock], [], [])
            if not self.read():
                raise ConnectionError("the client closed the connection")
        wall1 = time.perf_counter()
        self.server.say(f"STREAMED {self.number} {wall1 - wall0:.6f} {cpu1 - cpu0:.6f} {sent} {self.replies_behind_events}")

    def queued_behind_events(self, batches, chunks, starts, index):
        """What came due while streaming, as HA's writer sends it: control
        frames first (aiohttp writes them at once); replies, with coalescing,
        inside the next array behind its events (and the rest of that chunk
        after it), otherwise as frames of their own."""
        control, replies = b"".join(self.pending_frames), self.pending_replies
        self.pending_frames, self.pending_replies = [], []
        if not self.coalesce or index >= len(chunks):
            return control + b"".join(frame(1, text) for text in replies)
        self.replies_behind_events += len(replies)
        first = starts[index]
        last = starts[index + 1] if index + 1 < len(starts) else len(batches)
        frames = [batches[first] + replies] + batches[first + 1:last]
        return control + b"".join(frame(1, message_frame(messages)) for messages in frames)

    def run(self):
        try:
            self.handshake()
            self.send(frame(1, dumps({"type": "auth_required", "ha_version": HA_VERSION}).encode()))
            while True:
                readable, _, _ = select.select([self.sock, self.commands_r], [], [])
                if self.commands_r in readable:
                    os.read(self.commands_r, 1)
                    self.stream()
                if self.sock in readable and not self.read():
                    break
        except (ConnectionError, OSError) as error:
            self.server.say(f"CLOSED {self.number} {error}")
        finally:
            self.sock.close()


class Server:
    def __init__(self, args):
        self.token = args.token
        self.household = HouseholdStream(args.events, args.seed, frame_sizes(args.events, args.per_frame, args.seed))
        self.connections = {}
        self.output = threading.Lock()

    def say(self, line):
        with self.output:
            print(line, flush=True)

    def main(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        self.say(f"PORT {listener.getsockname()[1]}")
        batches, chunks, _ = self.household.plan(EVENT_ID, True)
        self.say(f"PLAN {len(batches)} {len(self.household.bodies)} {sum(map(len, chunks))}")
        threading.Thread(target=self.commands, daemon=True).start()
        number = 0
        while True:
            sock, _ = listener.accept()
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            number += 1
            connection = Connection(self, sock, number)
            self.connections[number] = connection
            connection.start()

    def commands(self):
        """GO <conn> streams to that connection; end of stdin ends the server."""
        for line in sys.stdin:
            words = line.split()
            if len(words) == 2 and words[0] == "GO" and int(words[1]) in self.connections:
                os.write(self.connections[int(words[1])].commands_w, b"g")
        os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--per-frame", default="ha", type=per_frame_option,
                        help="events a frame: ha (HA's measured mix) or a number")
    parser.add_argument("--token", default="bench-token")
    parser.add_argument("--seed", type=int, default=42)
    Server(parser.parse_args()).main()


if __name__ == "__main__":
    main()
