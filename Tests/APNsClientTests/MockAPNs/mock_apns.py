#!/usr/bin/env python3
"""A mock APNs server for PrintBridge's tests and benchmark.

HTTP/2 over TLS (ALPN h2) on 127.0.0.1, port 0. It checks every request the
way Apple documents: path and device token, required headers and their
values, topic against push type, payload JSON and size, and the provider
token (ES256 signature against the test key, kid, iss, iat freshness).

    mock_apns.py --workdir DIR [--team-id T] [--key-id K] [--bundle-id B] [--record FILE]

On start it writes into DIR (all throwaway, made fresh each run):
  ca.pem, server.key         self-signed certificate for 127.0.0.1 / localhost
  AuthKey_TEST.p8            the APNs signing key (PKCS#8, P-256) the client uses
  bad-rsa.p8, bad-p384.p8, bad-garbage.p8   keys that must be refused
and prints "PORT <n>" on stdout. It keeps DIR/stats.json current.
--port N listens on N; --keep-fixtures reuses DIR's certificate and keys,
so a test can stop the server (an outage: connections refused) and start it
again on the same port with the same keys.

A black hole: once DIR/blackhole exists, connections opened before it was
made read and discard everything and answer nothing, not even a PING (a
NAT or middlebox that dropped the connection without a reset); connections
opened after it work.

Behaviour is chosen by the device token, so one server serves every test:
  feedSSSN...   answer status SSS (410, 400, 429, 500, 503, 413, 403) the first N
                times this token is seen (N hex digit, f = always), then 200;
                the reason is Apple's for that status (410 Unregistered,
                400 BadDeviceToken, 403 ExpiredProviderToken, 413
                PayloadTooLarge, 429 TooManyRequests, 500
                InternalServerError, 503 ServiceUnavailable)
  feed4001N...  400 DeviceTokenNotForTopic
  de1aNN...     answer after NN/10 seconds
  90a4N...      the Nth time (hex digit) this token is seen: GOAWAY, then close
  dead N...     the Nth time: drop the TCP connection without an answer
anything else   200 with a fresh apns-id (or the client's)

Broadcast channels (iOS 18), as Apple documents them in "Sending channel
management requests to APNs" and "Sending broadcast push notification
requests to APNs" (the paths and headers as parse-community/node-apn
lib/client.js and alexandercerutti/hapns src/channels/broadcast.ts use
them; the reasons as hapns src/connectors/apns-errors/index.ts lists
Apple's):
  A second port, the channel management API's (Apple: a host of its own,
  api-manage-broadcast[.sandbox].push.apple.com, port 2196 / 2195), is
  written to DIR/manage-port. It answers only /1/apps/{bundle}/channels
  and /1/apps/{bundle}/all-channels; the push port answers them 404 BadPath,
  as the management port does /3/device and /4/broadcasts.
    POST   /1/apps/B/channels  {"message-storage-policy": 0|1, "push-type": "LiveActivity"}
           -> 201, apns-channel-id (base64 of 16 random bytes), apns-request-id
    GET    /1/apps/B/channels  + apns-channel-id -> 200 {"message-storage-policy", "push-type"}
    DELETE /1/apps/B/channels  + apns-channel-id -> 204
    GET    /1/apps/B/all-channels -> 200 {"channels": [...]}
  Every answer carries apns-request-id: the client's (a UUID) or a fresh one.
  Errors: 400 BadChannelId (not base64 or too long), ChannelNotRegistered,
  MissingChannelId, BadRequestPayload (not JSON), BadRequestParams (an
  attribute it does not know), MissingPushType / InvalidPushType (only
  LiveActivity), CannotCreateChannelConfig (--channel-limit channels exist,
  Apple's is 10,000), 403 TopicMismatch (B is not the token's bundle), 404
  BadPath, 405 MethodNotAllowed. Channels are kept in DIR/channels.json (they
  outlive a restart, as Apple's do).
  POST /4/broadcasts/apps/B on the push port + apns-channel-id,
  apns-push-type: liveactivity -> 200 with apns-request-id; the payload is
  checked as a Live Activity's.
  DIR/manage-faults: lines "STATUS REASON COUNT": the next COUNT management
  requests get that answer (COUNT f: always), e.g. "500 InternalServerError 2",
  "400 FeatureNotEnabled f" (the app's broadcast capability is off).
"""
import argparse
import base64
import datetime
import json
import os
import re
import socket
import ssl
import sys
import threading
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.errors
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa, utils
from cryptography.x509.oid import NameOID
import ipaddress

REASONS = {400: "BadDeviceToken", 403: "ExpiredProviderToken", 410: "Unregistered", 413: "PayloadTooLarge",
           429: "TooManyRequests", 500: "InternalServerError", 503: "ServiceUnavailable"}
PUSH_TYPES = {"alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
              "pushtotalk", "widgets"}
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
UUID_ANY_CASE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
CHANNEL_ID_RE = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")


def b64url_decode(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


class Stats:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.data = {"connections": 0, "requests": 0, "max_concurrent_streams": 0, "tokens_seen": {},
                     "jwts": [], "rejected": [], "goaways": 0, "drops": 0,
                     "header_names": [], "broadcasts": 0, "channel_requests": []}
        self.write()

    def update(self, fn):
        with self.lock:
            fn(self.data)
            self.write()

    def write(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f)
        os.replace(tmp, self.path)


class Server:
    def __init__(self, args):
        self.args = args
        self.stats = Stats(os.path.join(args.workdir, "stats.json"))
        self.counts = {}
        self.count_lock = threading.Lock()
        self.public_key = None
        self.benchmark = args.benchmark
        self.verified = {}  # provider token -> iat, once its signature checked out
        self.request_log = open(args.log_requests, "a") if args.log_requests else None
        self.record = open(args.record, "a") if args.record else None
        self.channels_path = os.path.join(args.workdir, "channels.json")
        self.channel_lock = threading.Lock()
        try:
            with open(self.channels_path) as f:
                self.channels = json.load(f)
        except (OSError, ValueError):
            self.channels = {}

    def seen(self, token):
        with self.count_lock:
            self.counts[token] = self.counts.get(token, 0) + 1
            return self.counts[token]

    # --- request checks, Apple's rules -------------------------------------------------
    def check(self, headers, body, path):
        method = headers.get(":method")
        if (path or "").startswith("/1/apps/"):
            return 404, "BadPath"  # the management API has a host and port of its own
        if method != "POST":
            return 405, "MethodNotAllowed"
        if re.fullmatch(r"/4/broadcasts/apps/[^/]+", path or ""):
            return self.check_broadcast(headers, body, path)
        m = re.fullmatch(r"/3/device/([0-9a-fA-F]+)", path or "")
        if not m:
            return 404, "BadPath"
        token = m.group(1)
        if len(token) < 64 or len(token) % 2:
            return 400, "BadDeviceToken"
        reason = self.check_jwt(headers.get("authorization"))
        if reason:
            return 403, reason
        push_type = headers.get("apns-push-type")
        if push_type is None:
            return 400, "MissingPushType" if False else "InvalidPushType"
        if push_type not in PUSH_TYPES:
            return 400, "InvalidPushType"
        topic = headers.get("apns-topic")
        if not topic:
            return 400, "MissingTopic"
        bundle = self.args.bundle_id
        expected_topic = bundle + ".push-type.liveactivity" if push_type == "liveactivity" else bundle
        if topic != expected_topic:
            return 400, "BadTopic" if push_type != "liveactivity" or not topic.startswith(bundle) else "TopicDisallowed"
        priority = headers.get("apns-priority")
        refused = self.check_priority_and_expiration(headers)
        if refused:
            return refused
        apns_id = headers.get("apns-id")
        if apns_id is not None and not UUID_RE.match(apns_id):
            return 400, "BadMessageId"
        collapse = headers.get("apns-collapse-id")
        if collapse is not None and len(collapse.encode()) > 64:
            return 400, "BadCollapseId"
        return self.check_payload(push_type, priority, body)

    def check_payload(self, push_type, priority, body):
        if len(body) > 4096:
            return 413, "PayloadTooLarge"
        try:
            payload = json.loads(body)
        except ValueError:
            return 400, "BadPayload" if False else "PayloadEmpty" if not body else "BadPayload"
        if not isinstance(payload, dict) or not isinstance(payload.get("aps"), dict):
            return 400, "PayloadEmpty"
        aps = payload["aps"]
        # Apple's payload key reference ("Generating a remote notification"): the
        # types iOS reads; a wrong one is our bug, so the mock refuses it.
        if "category" in aps and not isinstance(aps["category"], str):
            return 400, "BadPayload"
        for flag in ("mutable-content", "content-available"):
            if flag in aps and (not isinstance(aps[flag], int) or isinstance(aps[flag], bool) or aps[flag] != 1):
                return 400, "BadPayload"
        if "thread-id" in aps and not isinstance(aps["thread-id"], str):
            return 400, "BadPayload"
        if aps.get("interruption-level", "active") not in ("passive", "active", "time-sensitive", "critical"):
            return 400, "BadPayload"
        if push_type == "background":
            # "Pushing background updates to your app": priority 5 ("Using
            # priority 10 is an error"), and no alert, sound or badge.
            if priority != "5" or set(aps) - {"content-available"}:
                return 400, "BadPriority" if priority != "5" else "BadPayload"
        if push_type == "liveactivity":
            if not isinstance(aps.get("timestamp"), int) or aps.get("event") not in ("start", "update", "end"):
                return 400, "BadPayload"
            if not isinstance(aps.get("content-state"), dict):
                return 400, "BadPayload"
            score = aps.get("relevance-score")
            if score is not None and (not isinstance(score, (int, float)) or isinstance(score, bool)):
                return 400, "BadPayload"
            alert = aps.get("alert")
            if alert is not None and (not isinstance(alert, dict) or not isinstance(alert.get("title"), str)
                                      or not isinstance(alert.get("body"), str)):
                return 400, "BadPayload"
        return None

    # --- broadcast channels ----------------------------------------------------------------
    def check_broadcast(self, headers, body, path):
        """POST /4/broadcasts/apps/{bundle} ("Sending broadcast push notification requests to APNs")."""
        reason = self.check_jwt(headers.get("authorization"))
        if reason:
            return 403, reason
        if path.rsplit("/", 1)[-1] != self.args.bundle_id:
            return 403, "TopicMismatch"
        problem = self.check_channel_header(headers)
        if problem:
            return problem
        push_type = headers.get("apns-push-type")
        if push_type is None:
            return 400, "MissingPushType"
        if push_type != "liveactivity":
            return 400, "InvalidPushType"
        priority = headers.get("apns-priority")
        refused = self.check_priority_and_expiration(headers)
        if refused:
            return refused
        request_id = headers.get("apns-request-id")
        if request_id is not None and not UUID_ANY_CASE.match(request_id):
            return 400, "BadRequestParams"
        return self.check_payload("liveactivity", priority, body)

    @staticmethod
    def check_priority_and_expiration(headers):
        """Apple's reasons for a bad apns-priority or apns-expiration (pushes and broadcasts alike); None if both are fine."""
        priority = headers.get("apns-priority")
        if priority is not None and priority not in ("5", "10", "1"):
            return 400, "BadPriority"
        expiration = headers.get("apns-expiration")
        if expiration is not None and not expiration.isdigit():
            return 400, "BadExpirationDate"
        return None

    def check_channel_header(self, headers):
        channel = headers.get("apns-channel-id")
        if channel is None:
            return 400, "MissingChannelId"
        if not CHANNEL_ID_RE.match(channel) or len(channel) > 64:
            return 400, "BadChannelId"
        with self.channel_lock:
            if channel not in self.channels:
                return 400, "ChannelNotRegistered"
        return None

    def save_channels(self):
        tmp = self.channels_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.channels, f)
        os.replace(tmp, self.channels_path)

    def manage_fault(self):
        """The next injected answer from DIR/manage-faults, if any."""
        path = os.path.join(self.args.workdir, "manage-faults")
        with self.channel_lock:
            try:
                with open(path) as f:
                    lines = [line.split() for line in f.read().splitlines() if line.strip()]
            except OSError:
                return None
            if not lines:
                return None
            status, reason, count = lines[0]
            if count != "f":
                left = int(count) - 1
                lines = lines[1:] if left <= 0 else [[status, reason, str(left)]] + lines[1:]
                with open(path, "w") as f:
                    f.write("".join(" ".join(line) + "\n" for line in lines))
            return int(status), reason

    def manage(self, headers, body):
        """One channel management request: (status, reason, extra headers, JSON body or None)."""
        method = headers.get(":method")
        path = headers.get(":path", "")
        m = re.fullmatch(r"/1/apps/([^/]+)/(channels|all-channels)", path)
        if not m:
            return 404, "BadPath", [], None
        bundle, resource = m.groups()
        allowed = ("GET",) if resource == "all-channels" else ("POST", "GET", "DELETE")
        if method not in allowed:
            return 405, "MethodNotAllowed", [], None
        reason = self.check_jwt(headers.get("authorization"))
        if reason:
            return 403, reason, [], None
        if bundle != self.args.bundle_id:
            return 403, "TopicMismatch", [], None
        fault = self.manage_fault()
        if fault:
            return fault[0], fault[1], [], None
        if resource == "all-channels":
            with self.channel_lock:
                return 200, None, [], {"channels": sorted(self.channels)}
        if method == "POST":
            try:
                request = json.loads(body) if body else None
            except ValueError:
                return 400, "BadRequestPayload", [], None
            if not isinstance(request, dict):
                return 400, "BadRequestPayload", [], None
            if set(request) - {"message-storage-policy", "push-type"}:
                return 400, "BadRequestParams", [], None
            if "push-type" not in request:
                return 400, "MissingPushType", [], None
            if request["push-type"] != "LiveActivity":
                return 400, "InvalidPushType", [], None
            if request.get("message-storage-policy") not in (0, 1):
                return 400, "BadRequestParams", [], None
            with self.channel_lock:
                if len(self.channels) >= self.args.channel_limit:
                    return 400, "CannotCreateChannelConfig", [], None
                channel = base64.b64encode(os.urandom(16)).decode()
                self.channels[channel] = {"message-storage-policy": request["message-storage-policy"],
                                          "push-type": "LiveActivity"}
                self.save_channels()
            return 201, None, [("apns-channel-id", channel)], None
        problem = self.check_channel_header(headers)
        if problem:
            return problem[0], problem[1], [], None
        channel = headers["apns-channel-id"]
        with self.channel_lock:
            if method == "GET":
                return 200, None, [], self.channels[channel]
            del self.channels[channel]
            self.save_channels()
        return 204, None, [], None

    def check_jwt(self, authorization):
        if not authorization or not authorization.startswith("bearer "):
            return "MissingProviderToken"
        token = authorization[len("bearer "):]
        if token in self.verified:
            return self.check_iat(self.verified[token])

        parts = token.split(".")
        if len(parts) != 3:
            return "InvalidProviderToken"
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            signature = b64url_decode(parts[2])
        except ValueError:
            return "InvalidProviderToken"
        if header.get("alg") != "ES256" or header.get("kid") != self.args.key_id:
            return "InvalidProviderToken"
        if claims.get("iss") != self.args.team_id or not isinstance(claims.get("iat"), int):
            return "InvalidProviderToken"
        if len(signature) != 64:
            return "InvalidProviderToken"
        r = int.from_bytes(signature[:32], "big")
        s = int.from_bytes(signature[32:], "big")
        try:
            self.public_key.verify(utils.encode_dss_signature(r, s), (parts[0] + "." + parts[1]).encode(),
                                   ec.ECDSA(hashes.SHA256()))
        except Exception:
            return "InvalidProviderToken"
        self.verified[token] = claims["iat"]
        problem = self.check_iat(claims["iat"])
        if problem:
            return problem
        if not self.benchmark:
            self.stats.update(lambda d: d["jwts"].append(token) if token not in d["jwts"] else None)
        return None

    def check_iat(self, iat):
        now = int(time.time())
        if not self.args.ignore_iat and (iat > now + 60 or iat < now - 3600):
            return "ExpiredProviderToken"
        return None

    # --- connection handling -------------------------------------------------------------
    def serve(self, sock, manage=False):
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(os.path.join(self.args.workdir, "ca.pem"),
                                os.path.join(self.args.workdir, "server.key"))
        context.set_alpn_protocols(["h2"])
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        while True:
            client, _ = sock.accept()
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self.connection, args=(client, context, manage), daemon=True).start()

    def connection(self, raw, context, manage):
        Connection(self, raw, context, manage).run()


class Connection:
    """One client connection. TLS runs over memory BIOs: the socket is read in
    large chunks and every TLS record in them is decrypted at once, as a real
    server's event loop would, so the cost per request does not depend on
    how the client cuts its frames into records."""

    def __init__(self, server, raw, context, manage=False):
        self.server = server
        self.manage = manage
        self.raw = raw
        self.incoming = ssl.MemoryBIO()
        self.outgoing = ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_side=True)
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.lock = threading.Lock()
        self.streams = {}
        self.open_streams = 0
        self.closed = False
        self.opened = time.time()
        self.blackhole = os.path.join(server.args.workdir, "blackhole")

    def flush_tls(self):
        data = self.outgoing.read()
        if data:
            self.raw.sendall(data)

    def handshake(self):
        while True:
            try:
                self.tls.do_handshake()
                self.flush_tls()
                return self.tls.selected_alpn_protocol() == "h2"
            except ssl.SSLWantReadError:
                self.flush_tls()
                data = self.raw.recv(65536)
                if not data:
                    return False
                self.incoming.write(data)

    def send_pending(self):
        data = self.conn.data_to_send()
        if data:
            self.tls.write(data)
            self.flush_tls()

    def shutdown_socket(self):
        try:
            self.raw.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def run(self):
        try:
            if not self.handshake():
                self.raw.close()
                return
        except (ssl.SSLError, OSError):
            self.raw.close()
            return
        # The management port's connections are counted apart: "connections" is the push port's.
        counter = "manage_connections" if self.manage else "connections"
        self.server.stats.update(lambda d: d.__setitem__(counter, d.get(counter, 0) + 1))
        with self.lock:
            self.conn.initiate_connection()
            self.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
            self.send_pending()
        try:
            while not self.closed:
                data = self.raw.recv(262144)
                if not data:
                    break
                try:
                    if os.path.getmtime(self.blackhole) >= self.opened:
                        continue
                except OSError:
                    pass
                self.incoming.write(data)
                plain = bytearray()
                while True:
                    try:
                        chunk = self.tls.read(262144)
                    except ssl.SSLWantReadError:
                        break
                    if not chunk:
                        break
                    plain += chunk
                if not plain:
                    continue
                with self.lock:
                    for event in self.conn.receive_data(bytes(plain)):
                        self.handle(event)
                    if not self.closed:
                        self.send_pending()
        except (OSError, h2.exceptions.ProtocolError, ssl.SSLError):
            pass
        finally:
            self.closed = True
            try:
                self.raw.close()
            except OSError:
                pass

    def handle(self, event):
        if isinstance(event, h2.events.RequestReceived):
            self.streams[event.stream_id] = {"headers": dict(event.headers), "body": b""}
            self.open_streams += 1
            current = self.open_streams
            if not self.server.benchmark:
                names = [name for name, _ in event.headers]
                self.server.stats.update(lambda d: (
                    d.__setitem__("max_concurrent_streams", max(d["max_concurrent_streams"], current)),
                    d.__setitem__("header_names", sorted(set(d["header_names"]) | set(names)))))
        elif isinstance(event, h2.events.DataReceived):
            self.streams[event.stream_id]["body"] += event.data
            self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        elif isinstance(event, h2.events.StreamEnded):
            stream = self.streams.pop(event.stream_id)
            if self.manage:
                self.respond_manage(event.stream_id, stream["headers"], stream["body"])
                return
            if self.server.record:
                try:
                    payload = json.loads(stream["body"])
                except ValueError:
                    payload = {}
                aps = payload.get("aps", {}) if isinstance(payload, dict) else {}
                broadcast = stream["headers"].get(":path", "").startswith("/4/broadcasts/")
                entry = {"token": ("channel:" + stream["headers"].get("apns-channel-id", "")) if broadcast else
                         stream["headers"].get(":path", "").rsplit("/", 1)[-1].lower(),
                         "channel_id": stream["headers"].get("apns-channel-id"),
                         "request_id": stream["headers"].get("apns-request-id"),
                         "relevance_score": aps.get("relevance-score"),
                         "alert": aps.get("alert"),
                         "apns_id": stream["headers"].get("apns-id"),
                         "push_type": stream["headers"].get("apns-push-type"),
                         "event": (payload.get("printerState") or {}).get("type") if isinstance(payload, dict) else None,
                         "progress": (payload.get("printerState") or {}).get("progress") if isinstance(payload, dict) else None,
                         "activity_event": aps.get("event"),
                         "collapse_id": stream["headers"].get("apns-collapse-id"),
                         "priority": stream["headers"].get("apns-priority"),
                         "received_at": time.time(),
                         "payload": payload}
                self.server.record.write(json.dumps(entry) + "\n")
                self.server.record.flush()
            if self.server.request_log:
                try:
                    body = json.loads(stream["body"])["aps"]["alert"]["body"]
                except (ValueError, KeyError, TypeError):
                    body = ""
                self.server.request_log.write(f"{time.monotonic():.6f} {body}\n")
                self.server.request_log.flush()
            self.respond(event.stream_id, stream["headers"], stream["body"])

    def respond(self, stream_id, headers, body):
        path = headers.get(":path", "")
        token = path.rsplit("/", 1)[-1].lower()
        count = self.server.seen(token)
        server = self.server
        if not server.benchmark:
            server.stats.update(lambda d: (d.__setitem__("requests", d["requests"] + 1),
                                           d["tokens_seen"].__setitem__(token, count)))
        if token.startswith("90a4") and count == int(token[4], 16):
            server.stats.update(lambda d: d.__setitem__("goaways", d["goaways"] + 1))
            self.conn.close_connection(error_code=h2.errors.ErrorCodes.NO_ERROR, last_stream_id=stream_id - 2,
                                       additional_data=b'{"reason":"Shutdown"}')
            self.send_pending()
            self.closed = True
            self.shutdown_socket()
            return
        if token.startswith("dead") and count == int(token[4], 16):
            server.stats.update(lambda d: d.__setitem__("drops", d["drops"] + 1))
            self.closed = True
            self.shutdown_socket()
            return
        status, reason = 200, None
        problem = server.check(headers, body, path)
        if problem:
            status, reason = problem
        elif token.startswith("feed4001"):
            if count <= int(token[8], 16) or token[8] == "f":
                status, reason = 400, "DeviceTokenNotForTopic"
        elif token.startswith("feed") and token[4:7].isdigit():
            times = int(token[7], 16)
            if token[7] == "f" or count <= times:
                status = int(token[4:7])
                reason = REASONS.get(status, "BadRequest")
        if reason and not server.benchmark:
            server.stats.update(lambda d: d["rejected"].append({"token": token, "status": status, "reason": reason}))
        delay = int(token[4:6], 16) / 10 if token.startswith("de1a") else 0
        apns_id = headers.get("apns-id") or str(uuid.uuid4())
        if path.startswith("/4/broadcasts/"):
            if not reason and not server.benchmark:
                server.stats.update(lambda d: d.__setitem__("broadcasts", d["broadcasts"] + 1))
            apns_id = headers.get("apns-request-id") or str(uuid.uuid4())

        def send():
            with self.lock:
                if self.closed:
                    return
                response_headers = [(":status", str(status)), self.id_header(path, apns_id)]
                self.open_streams -= 1
                if reason:
                    payload = json.dumps({"reason": reason} if status != 410 else
                                         {"reason": reason, "timestamp": int(time.time() * 1000)}).encode()
                    response_headers.append(("content-type", "application/json"))
                    self.conn.send_headers(stream_id, response_headers)
                    self.conn.send_data(stream_id, payload, end_stream=True)
                else:
                    self.conn.send_headers(stream_id, response_headers, end_stream=True)
                try:
                    self.send_pending()
                except OSError:
                    self.closed = True

        if delay:
            threading.Timer(delay, send).start()
        else:
            # The caller holds the lock and sends afterwards.
            response_headers = [(":status", str(status)), self.id_header(path, apns_id)]
            self.open_streams -= 1
            if reason:
                payload = json.dumps({"reason": reason}).encode()
                self.conn.send_headers(stream_id, response_headers + [("content-type", "application/json")])
                self.conn.send_data(stream_id, payload, end_stream=True)
            else:
                self.conn.send_headers(stream_id, response_headers, end_stream=True)


    def respond_manage(self, stream_id, headers, body):
        """An answer on the channel management port."""
        self.open_streams -= 1
        server = self.server
        status, reason, extra, document = server.manage(headers, body)
        request_id = headers.get("apns-request-id")
        if request_id is None or not UUID_ANY_CASE.match(request_id):
            request_id = str(uuid.uuid4())
        if not server.benchmark:
            entry = {"method": headers.get(":method"), "path": headers.get(":path"),
                     "channel_id": headers.get("apns-channel-id"), "request_id": headers.get("apns-request-id"),
                     "status": status, "reason": reason}
            server.stats.update(lambda d: d["channel_requests"].append(entry))
        response_headers = [(":status", str(status)), ("apns-request-id", request_id)] + extra
        if reason:
            document = {"reason": reason}
        if document is None:
            self.conn.send_headers(stream_id, response_headers, end_stream=True)
            return
        self.conn.send_headers(stream_id, response_headers + [("content-type", "application/json")])
        self.conn.send_data(stream_id, json.dumps(document).encode(), end_stream=True)

    @staticmethod
    def id_header(path, value):
        """A broadcast's answer names the request (apns-request-id), a device push's the notification (apns-id)."""
        return ("apns-request-id", value) if path.startswith("/4/broadcasts/") else ("apns-id", value)


def write_fixtures(workdir):
    """Throwaway certificate and keys, made fresh for every run."""
    server_key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "PrintBridge test APNs")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(server_key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(server_key, hashes.SHA256()))
    with open(os.path.join(workdir, "ca.pem"), "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(os.path.join(workdir, "server.key"), "wb") as f:
        f.write(server_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                         serialization.NoEncryption()))
    pkcs8 = lambda key: key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption())
    apns_key = ec.generate_private_key(ec.SECP256R1())
    with open(os.path.join(workdir, "AuthKey_TEST.p8"), "wb") as f:
        f.write(pkcs8(apns_key))
    with open(os.path.join(workdir, "bad-rsa.p8"), "wb") as f:
        f.write(pkcs8(rsa.generate_private_key(public_exponent=65537, key_size=2048)))
    with open(os.path.join(workdir, "bad-p384.p8"), "wb") as f:
        f.write(pkcs8(ec.generate_private_key(ec.SECP384R1())))
    with open(os.path.join(workdir, "bad-garbage.p8"), "wb") as f:
        f.write(b"-----BEGIN PRIVATE KEY-----\nTUlTVElLRVNFQ1JFVA==\n-----END PRIVATE KEY-----\n")
    return apns_key.public_key()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--team-id", default="TEAMID1234")
    parser.add_argument("--key-id", default="KEYID56789")
    parser.add_argument("--bundle-id", default="com.example.PrinterMonitor")
    parser.add_argument("--ignore-iat", action="store_true", help="accept any iat (manual-clock tests)")
    parser.add_argument("--benchmark", action="store_true", help="skip per-request bookkeeping")
    parser.add_argument("--record", help="append one JSON line per request: token, apns-id, push type, event, "
                        "collapse id, priority, when it arrived (epoch seconds) and the payload")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--manage-port", type=int, default=0, help="the channel management API's port (0: any)")
    parser.add_argument("--channel-limit", type=int, default=10000, help="channels an app may keep (Apple: 10,000)")
    parser.add_argument("--keep-fixtures", action="store_true", help="reuse the workdir's certificate and keys")
    parser.add_argument("--log-requests", help="append 'monotonic-seconds alert-body' per request (latency benchmark)")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    server = Server(args)
    if args.keep_fixtures and os.path.exists(os.path.join(args.workdir, "AuthKey_TEST.p8")):
        with open(os.path.join(args.workdir, "AuthKey_TEST.p8"), "rb") as f:
            server.public_key = serialization.load_pem_private_key(f.read(), password=None).public_key()
    else:
        server.public_key = write_fixtures(args.workdir)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(128)
    manage = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    manage.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    manage.bind(("127.0.0.1", args.manage_port))
    manage.listen(128)
    with open(os.path.join(args.workdir, "manage-port.tmp"), "w") as f:
        f.write(str(manage.getsockname()[1]))
    os.replace(os.path.join(args.workdir, "manage-port.tmp"), os.path.join(args.workdir, "manage-port"))
    threading.Thread(target=server.serve, args=(manage, True), daemon=True).start()
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    # Stop when the test process goes away (stdin closes).
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    server.serve(sock)


if __name__ == "__main__":
    main()
