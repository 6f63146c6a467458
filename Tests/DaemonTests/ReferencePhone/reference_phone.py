#!/usr/bin/env python3
"""The reference phone: walks docs/app.md exactly as written.

Each exchange in docs/app.md marked `<!-- walk: NAME STATUS -->` is a
```http block: request line, headers, blank line, body, with {{name}}
placeholders. This phone sends each step it is asked for exactly as the
block says (plus what URLSession adds on its own: Host, Content-Length,
Accept, User-Agent, Connection), over TLS trusted as docs/app.md's
AgentLink trusts it, to the URL AgentLink would use:

- the pairing comes from the QR code's PNG, read as a camera reads it
  (zbarimg): `url` (home), `outsideUrl`, `code`, `fingerprint`;
- at the home URL only the certificate whose SHA-256 is the fingerprint;
  at the outside URL that one, or one the phone's trust store (--ca)
  vouches for that host name; anything else refuses the step;
- the URL that worked last first (home at the start), the other when the
  agent was not reached there (refused, no answer, no such name, or a
  certificate the rule refuses: the handshake ends before anything is
  sent); an answer, whatever its status, is not retried elsewhere;
- connections from --source (an address of this machine that is not
  loopback), names resolved by --resolve NAME=ADDRESS (the phone's DNS).

State (the pairing, the credential, the device id, which URL worked last)
is kept in --state between runs, as the app keeps it; --fresh starts as a
new process does (the Notification Service Extension, the buttons'
handler): AgentLink.load() knows the pairing, not which URL worked last. Prints one JSON line per step: name,
status, the base URL used, the JSON answer (or, for a picture, its type
and size). Exits 1 at the first step whose status is not the documented
one, or that could not be done.

usage: reference_phone.py --doc docs/app.md --state FILE [--qr PNG] --steps a,b,c
       [--set name=value ...] [--source IP] [--resolve NAME=IP ...] [--ca PEM] [--save-picture FILE]
"""
import argparse
import hashlib
import json
import re
import socket
import ssl
import subprocess
import sys
import urllib.parse

# URLError's cannotConnectToHost, timedOut, cannotFindHost, …: nobody answered there. (A TLS
# failure is not one of them: ssl.SSLError, an OSError too, is let through.)
UNREACHABLE = (ConnectionRefusedError, TimeoutError, socket.timeout, socket.gaierror, OSError)


class Refused(Exception):
    """The certificate is not one AgentLink trusts at that URL."""


class NotReached(Exception):
    """Neither URL reached the agent: what each attempt met."""


def walk_steps(doc):
    """{name: (expected status, block text)} of docs/app.md's walked exchanges."""
    steps = {}
    for match in re.finditer(r"<!-- walk: (\S+) (\d{3}) -->\s*```http\n(.*?)```", doc, re.S):
        steps[match.group(1)] = (int(match.group(2)), match.group(3))
    return steps


def fill(text, values):
    def one(match):
        name = match.group(1)
        if name not in values:
            raise SystemExit(f"the walk needs {{{{{name}}}}}, which the phone does not have")
        return str(values[name])
    return re.sub(r"\{\{(\w+)\}\}", one, text)


def parse_block(block):
    head, _, body = block.partition("\n\n")
    lines = head.strip("\n").split("\n")
    method, target = lines[0].split(" ", 1)
    headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:] if line.strip()]
    return method, target.strip(), headers, body.strip("\n").encode()


class Phone:
    def __init__(self, args):
        self.args = args
        self.resolve = dict(item.split("=", 1) for item in args.resolve)
        try:
            with open(args.state) as f:
                self.state = json.load(f)
        except FileNotFoundError:
            self.state = {}

    def save(self):
        with open(self.args.state, "w") as f:
            json.dump(self.state, f)

    def scan(self, png):
        """The QR code, read as the camera reads it."""
        text = subprocess.run(["zbarimg", "--raw", "-q", png], capture_output=True, text=True, check=True).stdout.strip()
        code = json.loads(text)
        self.state.update(home=code["url"], outside=code.get("outsideUrl"), fingerprint=(code.get("fingerprint") or "").upper(),
                          code=code.get("code"), credential=code.get("token"), preferOutside=False)

    def connect(self, base):
        """A TLS connection to `base` that AgentLink's trust rule accepts."""
        url = urllib.parse.urlsplit(base)
        host, port = url.hostname, url.port or (443 if url.scheme == "https" else 80)
        address = self.resolve.get(host, host)
        source = (self.args.source, 0) if self.args.source else None
        raw = socket.create_connection((address, port), timeout=6, source_address=source)
        if url.scheme != "https":
            return raw
        loose = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        loose.check_hostname = False
        loose.verify_mode = ssl.CERT_NONE
        tls = loose.wrap_socket(raw, server_hostname=host)
        seen = ":".join(f"{b:02X}" for b in hashlib.sha256(tls.getpeercert(binary_form=True)).digest())
        if seen == self.state.get("fingerprint"):
            return tls
        tls.close()
        is_outside = self.state.get("outside") and urllib.parse.urlsplit(self.state["outside"]).hostname == host
        if is_outside and self.args.ca:
            strict = ssl.create_default_context(cafile=self.args.ca)  # checks the chain and the host name
            raw = socket.create_connection((address, port), timeout=6, source_address=source)
            try:
                return strict.wrap_socket(raw, server_hostname=host)
            except ssl.SSLError as error:
                raw.close()
                raise Refused(f"{base}: neither the paired certificate nor one trusted for {host}: {error}")
        raise Refused(f"{base}: the certificate {seen[:23]}… is not the paired one")

    def exchange(self, base, method, target, headers, body):
        connection = self.connect(base)
        prefix = urllib.parse.urlsplit(base).path.rstrip("/")
        url = urllib.parse.urlsplit(base)
        lines = [f"{method} {prefix}{target} HTTP/1.1", f"Host: {url.netloc}"]
        lines += [f"{name}: {value}" for name, value in headers]
        # What URLSession adds by itself.
        lines += ["Accept: */*", "User-Agent: PrinterMonitor/1 CFNetwork/1494.0.7 Darwin/23.4.0", "Accept-Language: en-GB,en;q=0.9",
                  "Connection: close"]
        if body or method in ("POST", "PATCH", "PUT"):
            lines.append(f"Content-Length: {len(body)}")
        connection.settimeout(30)
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        answer = b""
        while True:
            try:
                chunk = connection.recv(65536)
            except ssl.SSLError:
                break
            if not chunk:
                break
            answer += chunk
        connection.close()
        head, _, content = answer.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        answer_headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in header_lines if ":" in line)}
        return int(status_line.split(" ")[1]), answer_headers, content

    def send(self, method, target, headers, body):
        """AgentLink.perform: the URL that worked last first, then the other when nobody answered there."""
        bases = [self.state["home"]] + ([self.state["outside"]] if self.state.get("outside") else [])
        if self.state.get("preferOutside"):
            bases.reverse()
        tried = []
        for base in bases:
            try:
                status, answer_headers, content = self.exchange(base, method, target, headers, body)
            except (Refused, ssl.SSLError) as error:
                tried.append(f"{base}: {error}")  # not the agent: the handshake went no further
                continue
            except UNREACHABLE as error:
                tried.append(f"{base}: {error}")
                continue
            self.state["preferOutside"] = base == self.state.get("outside")
            return base, status, answer_headers, content, tried
        raise NotReached(tried)

    def run(self, name, expected, block, values):
        method, target, headers, body = parse_block(fill(block, values))
        try:
            base, status, answer_headers, content, tried = self.send(method, target, headers, body)
        except NotReached as error:
            print(json.dumps({"step": name, "notReached": error.args[0]}), flush=True)
            return False
        line = {"step": name, "status": status, "base": base, "unreachable": tried}
        kind = answer_headers.get("content-type", "")
        if kind.startswith("image/"):
            line.update(type=kind, bytes=len(content))
            if self.args.save_picture:
                with open(self.args.save_picture, "wb") as f:
                    f.write(content)
        else:
            try:
                line["json"] = json.loads(content or b"null")
            except ValueError:
                line["text"] = content.decode("utf-8", "replace")[:500]
        answer = line.get("json") if isinstance(line.get("json"), dict) else {}
        if status == expected:
            if answer.get("credential"):
                self.state["credential"] = answer["credential"]
            if answer.get("deviceId"):
                self.state["deviceId"] = answer["deviceId"]
        print(json.dumps(line), flush=True)
        return status == expected


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--doc", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--qr")
    parser.add_argument("--steps", required=True)
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--source")
    parser.add_argument("--resolve", action="append", default=[])
    parser.add_argument("--ca")
    parser.add_argument("--save-picture")
    parser.add_argument("--fresh", action="store_true")
    args = parser.parse_args()
    with open(args.doc) as f:
        steps = walk_steps(f.read())
    phone = Phone(args)
    if args.qr:
        phone.scan(args.qr)
    if args.fresh:
        phone.state["preferOutside"] = False
    for name in args.steps.split(","):
        if name not in steps:
            print(json.dumps({"step": name, "missing": "docs/app.md has no such walked step"}), flush=True)
            phone.save()
            sys.exit(1)
        expected, block = steps[name]
        values = {k: v for k, v in phone.state.items() if isinstance(v, str)}
        values.update(item.split("=", 1) for item in args.set)
        ok = phone.run(name, expected, block, values)
        phone.save()
        if not ok:
            sys.exit(1)


if __name__ == "__main__":
    main()
