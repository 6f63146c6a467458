#!/usr/bin/env python3
"""Home Assistant's ingress path to an add-on, as the status page meets it.

The browser asks HA for /api/hassio_ingress/<token>/...; HA core adds
X-Ingress-Path and X-Hass-Source (homeassistant/components/hassio/ingress.py,
_init_header) and the Supervisor requests http://<add-on>:<ingress_port>/<rest>
from its own address, passing the browser's headers on and appending to
X-Forwarded-For (supervisor/api/ingress.py, _create_url and _init_header).
Here the Supervisor's address is --source (an address on the loopback
network), so the agent can be told to trust it as it trusts 172.30.32.2.

Prints "PORT <n>" once listening on 127.0.0.1. --log FILE appends a line
"<status> <content-type> <bytes> <path>" per request (what the browser
fetched: the page, and the pictures it shows).
"""
import argparse
import http.client
import http.server

parser = argparse.ArgumentParser()
parser.add_argument("--target-port", type=int, required=True)
parser.add_argument("--token", default="aBcD1234ingress")
parser.add_argument("--source", default="127.0.0.2")
parser.add_argument("--log")
args = parser.parse_args()
prefix = f"/api/hassio_ingress/{args.token}"
HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "upgrade", "host"}


class Ingress(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.forward("GET")

    def do_POST(self):
        self.forward("POST")

    def forward(self, method):
        if not (self.path == prefix or self.path.startswith(prefix + "/")):
            self.send_error(404)
            return
        rest = self.path[len(prefix):].lstrip("/")
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        headers["X-Hass-Source"] = "core.ingress"
        headers["X-Ingress-Path"] = prefix
        headers["X-Forwarded-For"] = f"{self.headers.get('X-Forwarded-For')}, {self.client_address[0]}"
        # hassio/ingress.py _init_header: X-Forwarded-Host is the host the browser asked
        headers["X-Forwarded-Host"] = self.headers.get("X-Forwarded-Host") or self.headers.get("Host", "")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        upstream = http.client.HTTPConnection("127.0.0.1", args.target_port, timeout=10,
                                              source_address=(args.source, 0))
        upstream.request(method, "/" + rest, body=body, headers=headers)
        reply = upstream.getresponse()
        body = reply.read()
        self.send_response(reply.status)
        for name, value in reply.getheaders():
            if name.lower() not in HOP and name.lower() != "content-type":
                self.send_header(name, value)
        self.send_header("Content-Type", reply.getheader("Content-Type", "application/octet-stream"))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        upstream.close()
        if args.log:
            with open(args.log, "a") as log:
                log.write(f"{reply.status} {reply.getheader('Content-Type', '-')} {len(body)} {self.path}\n")

    def log_message(self, *_):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Ingress)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
