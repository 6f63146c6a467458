#!/usr/bin/env python3
"""A server that takes TCP connections on 127.0.0.1 and never answers (a
hung Home Assistant, or a proxy in front of a stopped one). Prints
"PORT <n>"; exits when stdin closes.

--stats FILE   what it has taken, as JSON written whole: "connections" and
               "bytes" (everything clients sent, read and dropped), so a test
               knows a client is waiting for its answer"""
import argparse
import json
import os
import socket
import sys
import threading

parser = argparse.ArgumentParser()
parser.add_argument("--stats")
args = parser.parse_args()
stats = {"connections": 0, "bytes": 0}
lock = threading.Lock()


def count(key, amount):
    with lock:
        stats[key] += amount
        if args.stats:
            with open(args.stats + ".tmp", "w") as f:
                json.dump(stats, f)
            os.replace(args.stats + ".tmp", args.stats)


def drain(connection):
    """Reads what the client sends and answers nothing, until it goes."""
    while True:
        try:
            data = connection.recv(65536)
        except OSError:
            return
        if not data:
            return
        count("bytes", len(data))


server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(8)
print(f"PORT {server.getsockname()[1]}", flush=True)
threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
held = []
while True:
    connection, _ = server.accept()
    held.append(connection)
    count("connections", 1)
    threading.Thread(target=drain, args=(connection,), daemon=True).start()
