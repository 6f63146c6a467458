#!/usr/bin/env python3
"""A server that takes TCP connections on 127.0.0.1 and never answers (a
hung Home Assistant, or a proxy in front of a stopped one). Prints
"PORT <n>"; exits when stdin closes."""
import os
import socket
import sys
import threading

server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(8)
print(f"PORT {server.getsockname()[1]}", flush=True)
threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
held = []
while True:
    connection, _ = server.accept()
    held.append(connection)
