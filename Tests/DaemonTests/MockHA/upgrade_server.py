#!/usr/bin/env python3
"""A WebSocket server of one scripted answer, for the HA link's upgrade
and frames (libwebsockets' WebSocket client). Prints "PORT <n>"; exits
when stdin closes. Every connection reads the client's request head, then:

--status CODE   answers "HTTP/1.1 CODE <reason>" and closes
--ping-close    answers a correct 101 with a ping ("p1") in the same write,
                checks the client's pong (masked, the same payload), sends a
                close (1000) and reads the client's close

--stats FILE    what the client did, as JSON: "requests", and for
                --ping-close "pong" (the payload it sent back, or null) and
                "close_code" (its close frame's code, or null)"""
import argparse
import base64
import hashlib
import json
import os
import socket
import struct
import sys
import threading

parser = argparse.ArgumentParser()
parser.add_argument("--status", type=int)
parser.add_argument("--ping-close", action="store_true")
parser.add_argument("--stats")
args = parser.parse_args()
stats = {"requests": 0, "pong": None, "close_code": None}


def save():
    if args.stats:
        with open(args.stats + ".tmp", "w") as f:
            json.dump(stats, f)
        os.replace(args.stats + ".tmp", args.stats)


def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_client_frame(connection):
    """One frame from the client (RFC 6455 §5.2): (opcode, payload); None when not masked."""
    first, second = read_exactly(connection, 2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack(">H", read_exactly(connection, 2))[0]
    elif length == 127:
        length = struct.unpack(">Q", read_exactly(connection, 8))[0]
    if not second & 0x80:
        return None
    mask = read_exactly(connection, 4)
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(read_exactly(connection, length)))
    return first & 0x0F, payload


def serve(connection):
    try:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = connection.recv(4096)
            if not chunk:
                return
            head += chunk
        stats["requests"] += 1
        save()
        if args.status:
            reasons = {404: "Not Found", 503: "Service Unavailable", 200: "OK"}
            connection.sendall(f"HTTP/1.1 {args.status} {reasons.get(args.status, 'Status')}\r\nContent-Length: 0\r\n\r\n".encode())
            return
        key = next(line.split(b":", 1)[1].strip() for line in head.split(b"\r\n") if line.lower().startswith(b"sec-websocket-key:"))
        accept = base64.b64encode(hashlib.sha1(key + b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest())
        answer = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n"
        connection.sendall(answer + b"\x89\x02p1")
        frame = read_client_frame(connection)
        while frame is not None and frame[0] != 10:  # the session's own texts may come first
            frame = read_client_frame(connection)
        stats["pong"] = frame[1].decode() if frame else None
        save()
        connection.sendall(b"\x88\x02\x03\xe8")
        frame = read_client_frame(connection)
        while frame is not None and frame[0] != 8:
            frame = read_client_frame(connection)
        stats["close_code"] = struct.unpack(">H", frame[1][:2])[0] if frame and len(frame[1]) >= 2 else None
        save()
    except (OSError, EOFError):
        pass
    finally:
        connection.close()


server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(8)
print(f"PORT {server.getsockname()[1]}", flush=True)
threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
while True:
    client, _ = server.accept()
    threading.Thread(target=serve, args=(client,), daemon=True).start()
