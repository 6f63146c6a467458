#!/usr/bin/env python3
"""Another site, as a malicious web page the user opens: serves one HTML
file at / from --host (an address of the loopback network other than the
agent's, so the browser sees another origin) and prints "PORT <n>" once
listening. The page is whatever the test wrote into --page.
"""
import argparse
import http.server

parser = argparse.ArgumentParser()
parser.add_argument("--host", default="127.0.0.3")
parser.add_argument("--page", required=True)
args = parser.parse_args()


class Site(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(args.page, "rb") as page:
            body = page.read()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_):
        pass


server = http.server.ThreadingHTTPServer((args.host, 0), Site)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
