#!/usr/bin/env python3
"""Real OctoPrint printers watched by a real Home Assistant, for PrintBridge's daemon tests.

    python octoprint_chain.py --token-file FILE --stats FILE [--printers 3] [--octoprint-venv DIR]

Run with the Python of HA's virtual environment (scripts/install-test-deps.sh;
RealPrinters/install_octoprint.sh adds pyoctoprintapi and zeroconf to it and makes
OctoPrint's own environment). All of it runs on 127.0.0.1; nothing here
reaches another machine.

Setup, each wait a named condition with a deadline:
  - per printer a fresh OctoPrint base folder: config.yaml with the first-run
    wizard done, the plugins that reach the internet disabled, the discovery
    plugin kept to loopback (HA's config flow needs its upnpUuid) and the
    bundled Virtual Printer enabled without its simulated errors; an admin
    user made by `octoprint user add`, with an API key in users.yaml;
  - `octoprint serve` on a free port; the virtual printer connected through
    POST /api/connection; two G-code files uploaded (generated: relative moves
    the virtual printer sleeps 0.5 s on, heaters on at the start and off at
    the end, as a slicer writes them);
  - a real HA core (RealHA/real_ha.py, with `config:` added to its
    configuration.yaml: the config-flow REST API and the registries'
    WebSocket commands are the config panel's), and HA's `octoprint`
    integration added to it per printer, one after another (so the ids are
    octoprint, octoprint_2, octoprint_3), through HA's config-flow REST API as
    the UI does it: the user step, the app-key request shown as progress,
    approved through OctoPrint's own API (GET /api/plugin/appkeys lists the
    pending request, POST /plugin/appkeys/decision/<user_token> grants it),
    then the entry;
  - until each printer's Current State is in HA's states. The entity ids
    are read from HA's entity registry (unique ids end with the entry's
    unique id, OctoPrint's upnpUuid) and written to --stats.
Printer 1 has a webcam: a tiny HTTP server of this script on 127.0.0.1 (a
thread, a free port) answers like mjpg-streamer, /?action=snapshot with a
JPEG made by Pillow at start and /?action=stream with an MJPEG stream of it.
Printer 1's config.yaml points OctoPrint's bundled Classic Webcam at it
(plugins.classicwebcam.stream and .snapshot, webcam.webcamEnabled), so
/api/settings' webcam section has its streamUrl; HA's octoprint camera
(camera.octoprint_camera, on printer 1's device) fetches its still image
from that URL with action=snapshot (pyoctoprintapi
WebcamSettings.external_snapshot_url): GET /api/camera_proxy/camera.octoprint_camera
gives the JPEG. Printers 2 and 3 keep OctoPrint's defaults (webcamEnabled
true, no stream URL): HA makes camera.octoprint_camera_2/_3 all the same,
whose still image is OctoPrint's own http://127.0.0.1:<port>/?action=snapshot,
the login page's HTML, as a household that never set a webcam up has it.
Printer 3 is reached through a TCP forwarder of this script, so its network
can drop while OctoPrint goes on printing. --unconnected N adds printer N's
integration while its printer is off (OctoPrint up, printer not connected)
and connects it afterwards: HA then gives its temperature sensors the next
free copy numbers, after the other entries' (sensor.octoprint_current_state
but sensor.octoprint_actual_bed_temp_3), as a household whose printer was
off when it added the integration has them.

Then prints "PORT <HA's port>", writes HA's token to --token-file and reads
commands from stdin, one per line (N is a printer, 1-based):
  print N [FILE]          select and print (part_a.gcode by default)
  pause N | resume N | cancel N     through OctoPrint's POST /api/job
  pause-with-milestone N  pause right after OctoPrint crossed a milestone
                          (25/50/75) that HA's last poll has not shown yet,
                          early enough before HA's next poll that the poll
                          shows both: Printing 16 % -> Paused 27 %
  stop-octoprint N        SIGTERM to OctoPrint (`systemctl stop`), mid-print
  start-octoprint N       start it again on the same port, connect the printer
  drop-network N | restore-network N   printer 3's forwarder off / on
  restart-ha              stop HA and start it again
Commands run in threads of their own; --stats says what is going on:
{"phase", "ha_up", "restarts", "busy": [...], "done": [...],
 "printers": {"N": {"prefix", "entities", "cameras": {camera id: device id},
 "webcam": {webcamEnabled, streamUrl, snapshotUrl, ha_still_image_url} (from
 OctoPrint's /api/settings), "octoprint": {state, completion, file, up},
 "ha": {state, progress, unavailable_since, seen_after_restart},
 "pause": {...}, "prints": [...]}}, "webcam": {url, stream_url, jpeg_bytes,
 requests (still images served), stream_requests, last_request_at,
 user_agents}, "log": [...]}.
Closing stdin stops everything and removes the folders.
"""
import argparse
import asyncio
import http.client
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "RealHA"))
from real_ha import RealHA, free_port  # noqa: E402

import yaml  # noqa: E402  (HA's environment has PyYAML)

POLL = 30  # homeassistant/components/octoprint/__init__.py: OctoprintDataUpdateCoordinator(hass, client, entry, 30)
MILESTONES = (25, 50, 75)
DOMAIN_OCTOPRINT = "octoprint"


class Deadline(Exception):
    pass


def wait_for(name, condition, seconds, interval=0.2):
    """Waits until condition() is truthy (its value is returned) or raises Deadline naming it."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            value = condition()
        except (OSError, ValueError, KeyError, http.client.HTTPException):
            # HTTPException: OctoPrint's "intermediary server" answers a bare "Not found"
            # while it starts (octoprint/server/__init__.py IntermediaryServerHandler).
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise Deadline(f"{name}: not within {seconds} s")
        time.sleep(interval)


def gcode(lines_of_motion, name):
    """A slicer-like file: heaters on (ABS: 240/110 °C, not waited for), relative
    moves of 0.5 s each on the virtual printer (virtual.py _performMove: 0.1 *
    50 mm / 600 mm/min * 60), heaters off at the end. The bed cools at 2 °C/s
    (_simulateTemps), so from 110 °C it is still above PrintBridge's 35 °C
    (BED_COOLED_BELOW) at the poll that shows the print done (at most ~33 s
    later) and below it one or two polls after: "Ready to Remove" comes."""
    out = [f"; {name} - generated for PrintBridge's tests", "; FLAVOR:Marlin", "G21", "M104 S240", "M140 S110",
           "G28", "G91"]
    for index in range(lines_of_motion):
        if index % 20 == 0:
            out.append(f";LAYER:{index // 20}")
        out.append("G1 X50 F600")
    out += ["G90", "M104 S0", "M140 S0", "M84", "; end"]
    return "\n".join(out) + "\n"


# part_a: 300 moves, about 150 s of printing; part_b: 480 moves, about 240 s.
FILES = {"part_a.gcode": 300, "part_b.gcode": 480}


class Forwarder:
    """A TCP forwarder (printer 3's network): HA -> this port -> OctoPrint. Dropping
    it closes the listener and every open connection (connection refused, as a
    printer gone from the network); restoring listens on the same port again."""

    def __init__(self, target_port):
        self.target = target_port
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.server = None
        self.writers = set()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()

    async def _pipe(self, reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _handle(self, reader, writer):
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        self.writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        self.writers -= {writer, up_writer}

    async def _start(self):
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", self.port, reuse_address=True)

    async def _stop(self):
        if self.server:
            self.server.close()
            await self.server.wait_closed()
            self.server = None
        for writer in list(self.writers):
            writer.close()

    def start(self):
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)

    def stop(self):
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(10)


class Webcam:
    """Printer 1's webcam, as mjpg-streamer serves one: GET /?action=snapshot answers a
    JPEG (any other GET too, but /?action=stream), /?action=stream a multipart MJPEG
    stream of that picture (boundary "boundarydonotcross", a frame a second) until the
    client goes. The JPEG is made once by Pillow (HA's environment has it). Counts the
    still-image and stream requests into stats (a dict shared with --stats, under lock)."""

    BOUNDARY = "boundarydonotcross"  # mjpg-streamer's output_http

    def __init__(self, lock, stats):
        import io
        from http.server import ThreadingHTTPServer
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (160, 120), (32, 48, 64))
        draw = ImageDraw.Draw(image)
        draw.rectangle((40, 70, 120, 100), fill=(200, 120, 40))  # a part on the bed
        draw.text((8, 8), "PrintBridge cam", fill=(255, 255, 255))
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=80)
        self.jpeg = buffer.getvalue()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler(lock, stats))  # a free port
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        base = f"http://127.0.0.1:{self.port}/"
        self.stream_url = base + "?action=stream"
        self.snapshot_url = base + "?action=snapshot"
        self.closed = threading.Event()
        self.stats = stats
        stats.update({"url": self.snapshot_url, "stream_url": self.stream_url, "jpeg_bytes": len(self.jpeg),
                      "requests": 0, "stream_requests": 0, "last_request_at": None, "user_agents": {}})
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def handler(self, lock, stats):
        from http.server import BaseHTTPRequestHandler

        webcam = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                streaming = "action=stream" in self.path
                with lock:
                    stats["stream_requests" if streaming else "requests"] += 1
                    stats["last_request_at"] = time.time()
                    agent = (self.headers.get("User-Agent") or "-").split("/")[0]
                    stats["user_agents"][agent] = stats["user_agents"].get(agent, 0) + 1
                if not streaming:
                    self.send_response(200)
                    self.send_header("Content-Type", "image/jpeg")
                    self.send_header("Content-Length", str(len(webcam.jpeg)))
                    self.end_headers()
                    self.wfile.write(webcam.jpeg)
                    return
                self.send_response(200)
                self.send_header("Content-Type", f"multipart/x-mixed-replace;boundary={Webcam.BOUNDARY}")
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                try:
                    while not webcam.closed.is_set():
                        self.wfile.write(f"--{Webcam.BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                                         f"Content-Length: {len(webcam.jpeg)}\r\n\r\n".encode()
                                         + webcam.jpeg + b"\r\n")
                        self.wfile.flush()
                        webcam.closed.wait(1)
                except OSError:
                    pass

        return Handler

    def close(self):
        self.closed.set()
        self.server.shutdown()
        self.server.server_close()


class OctoPrint:
    def __init__(self, index, venv, root, forwarded=False, webcam=None):
        self.index = index
        self.venv = venv
        self.dir = os.path.join(root, f"octoprint-{index}")
        self.port = free_port()
        self.api_key = secrets.token_hex(16)
        self.uuid = f"00000000-0000-4000-8000-{index:012d}"
        self.process = None
        self.forwarder = Forwarder(self.port) if forwarded else None
        self.webcam = webcam

    @property
    def ha_port(self):
        """The port HA's config entry uses."""
        return self.forwarder.port if self.forwarder else self.port

    def setup(self):
        os.makedirs(self.dir, exist_ok=True)
        # The admin user, made by OctoPrint itself (argon2 password hash, groups, roles).
        subprocess.run([os.path.join(self.venv, "bin", "octoprint"), "--basedir", self.dir, "user", "add",
                        "--password", secrets.token_hex(8), "--admin", "admin"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        users_path = os.path.join(self.dir, "users.yaml")
        with open(users_path) as f:
            users = yaml.safe_load(f)
        users["admin"]["apikey"] = self.api_key  # octoprint/access/users.py: FilebasedUserManager reads `apikey`
        with open(users_path, "w") as f:
            yaml.safe_dump(users, f)
        config_path = os.path.join(self.dir, "config.yaml")
        with open(config_path) as f:
            config = yaml.safe_load(f) or {}
        config.update({
            "server": {"firstRun": False, "host": "127.0.0.1", "onlineCheck": {"enabled": False},
                       "pluginBlacklist": {"enabled": False}},
            "plugins": {
                # These reach the internet (notes: real-printers.md).
                # health_check asks get.octoprint.org about Python's end of life
                # (plugins/health_check/checks/python_eol.py).
                "_disabled": ["announcements", "softwareupdate", "tracking", "pluginmanager", "errortracking",
                              "achievements", "health_check"],
                # HA's config flow takes the entry's unique id from here
                # (pyoctoprintapi get_discovery_info -> upnpUuid); zeroconf and
                # SSDP stay on loopback.
                "discovery": {"addresses": ["127.0.0.1"], "interfaces": ["lo"], "upnpUuid": self.uuid,
                              "publicHost": "127.0.0.1"},
                # plugins/virtual_printer/__init__.py defaults, without the resends
                # injected around lines 100-115 of every file.
                "virtual_printer": {"enabled": True, "simulated_errors": [], "okAfterResend": False,
                                    "sendWait": False},
            },
            "appearance": {"name": f"Test printer {self.index}"},
        })
        if self.webcam:
            # OctoPrint 1.9+ has the classic webcam in its bundled plugin: /api/settings'
            # webcam.streamUrl and .snapshotUrl are the default webcam's `compat`, which
            # plugins/classicwebcam/__init__.py makes from these two keys (server/api/settings.py,
            # webcams.py get_default_webcam); webcam.webcamEnabled (schema/config/webcam.py,
            # default true) is the switch HA reads. HA's still image is NOT snapshotUrl:
            # pyoctoprintapi's WebcamSettings.external_snapshot_url is streamUrl with its query
            # made action=snapshot (mjpg-streamer's convention), so the stream URL must be set
            # and the server answer ?action=snapshot. snapshot is OctoPrint's own (timelapses,
            # off here). _config_version 1: without it OctoPrint runs classicwebcam's
            # on_settings_migrate at start, which copies the pre-1.9 webcam.stream/.snapshot
            # (absent: "") over these keys.
            config["webcam"] = {"webcamEnabled": True}
            config["plugins"]["classicwebcam"] = {"_config_version": 1, "stream": self.webcam.stream_url,
                                                  "snapshot": self.webcam.snapshot_url}
        with open(config_path, "w") as f:
            yaml.safe_dump(config, f)

    def start(self):
        command = [os.path.join(self.venv, "bin", "octoprint"), "serve", "--basedir", self.dir,
                   "--host", "127.0.0.1", "--port", str(self.port)]
        if os.geteuid() == 0:
            command.append("--iknowwhatimdoing")
        self.log = open(os.path.join(self.dir, "serve.out"), "a")
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_for(f"OctoPrint {self.index} answers /api/version",
                 lambda: self.process.poll() is None and "server" in self.api("GET", "/api/version"), 120)
        if self.forwarder and not self.forwarder.server:
            self.forwarder.start()

    def connect(self):
        self.api("POST", "/api/connection", {"command": "connect", "port": "VIRTUAL", "baudrate": 115200,
                                             "autoconnect": False})
        wait_for(f"OctoPrint {self.index}'s printer operational",
                 lambda: self.api("GET", "/api/connection")["current"]["state"] == "Operational", 60)
        # "Operational" comes ~2 s before the first temperature report. HA's octoprint
        # integration adds a printer's temperature sensors only once /api/printer lists
        # temperatures (sensor.py async_add_tool_sensors), and HA numbers entity ids in
        # the order they are made: an entry set up in that gap gets its temperature
        # sensors' ids after the next entries' (see --unconnected).
        wait_for(f"OctoPrint {self.index}'s printer reports its temperatures",
                 lambda: {"bed", "tool0"} <= set(self.api("GET", "/api/printer").get("temperature", {})), 30)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def api(self, method, path, body=None, timeout=10):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                         headers={"X-Api-Key": self.api_key, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
            return json.loads(text) if text else True

    def upload(self, name, text):
        boundary = secrets.token_hex(8)
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
                f"Content-Type: application/octet-stream\r\n\r\n{text}\r\n--{boundary}--\r\n").encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/api/files/local", data=body, method="POST",
                                         headers={"X-Api-Key": self.api_key,
                                                  "Content-Type": f"multipart/form-data; boundary={boundary}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()

    def job(self):
        return self.api("GET", "/api/job", timeout=3)


class Chain:
    def __init__(self, args):
        self.args = args
        self.root = tempfile.mkdtemp(prefix="printbridge-octoprint-")
        ha_args = argparse.Namespace(stats=None, token_file=args.token_file, warm=False)
        self.ha = RealHA(ha_args)
        with open(os.path.join(self.ha.dir, "configuration.yaml"), "a") as f:
            # The config panel's backend: the config-flow REST API
            # (/api/config/config_entries/flow) and the registries' WebSocket commands.
            f.write("config:\n")
        self.lock = threading.RLock()
        self.started_at = time.time()
        self.stats = {"phase": "setup", "ha_up": False, "restarts": 0, "busy": [], "done": [], "errors": [],
                      "log": [], "printers": {}, "entities": {}, "ha_port": self.ha.port, "ha_dir": self.ha.dir,
                      "octoprint_dir": self.root, "webcam": {}}
        self.webcam = Webcam(self.lock, self.stats["webcam"])  # printer 1's
        self.printers = [OctoPrint(i, args.octoprint_venv, self.root, forwarded=(i == 3),
                                   webcam=self.webcam if i == 1 else None)
                         for i in range(1, args.printers + 1)]
        for p in self.printers:
            self.stats["printers"][str(p.index)] = {
                "port": p.port, "ha_port": p.ha_port, "prefix": None, "entities": {}, "octoprint": {"up": False},
                "ha": {}, "pause": None, "prints": []}
        self.stop_polling = threading.Event()
        self.ha_restarting = False

    # --- stats -----------------------------------------------------------------------
    def write_stats(self):
        # One writer at a time: threads sharing the .tmp file would replace each
        # other's (FileNotFoundError in os.replace).
        with self.lock:
            text = json.dumps(self.stats, indent=1, default=str)
            with open(self.args.stats + ".tmp", "w") as f:
                f.write(text)
            os.replace(self.args.stats + ".tmp", self.args.stats)

    def note(self, message, **extra):
        with self.lock:
            self.stats["log"].append(dict({"t": round(time.time() - self.started_at, 1), "at": time.time(),
                                           "message": message}, **extra))
        print(f"[chain {time.time() - self.started_at:7.1f}] {message} {extra if extra else ''}",
              file=sys.stderr, flush=True)
        self.write_stats()

    def phase(self, name):
        with self.lock:
            self.stats["phase"] = name
        self.note("phase " + name)

    # --- HA ----------------------------------------------------------------------------
    def ha_request(self, method, path, body=None):
        return json.loads(self.ha.request(method, path, body) or b"null")

    def ha_ws(self, *messages):
        """Sends WebSocket commands (id added), returns their results."""
        import aiohttp

        async def run():
            async with aiohttp.ClientSession() as session:
                async with session.ws_connect(f"http://127.0.0.1:{self.ha.port}/api/websocket") as ws:
                    await ws.receive_json()
                    await ws.send_json({"type": "auth", "access_token": self.ha.token})
                    await ws.receive_json()
                    results = []
                    for index, message in enumerate(messages, 1):
                        await ws.send_json(dict(message, id=index))
                        while True:
                            answer = await ws.receive_json()
                            if answer.get("id") == index and answer.get("type") == "result":
                                results.append(answer.get("result"))
                                break
                    return results

        return asyncio.run(run())

    def add_integration(self, printer):
        """HA's octoprint config flow, as the UI drives it through the REST API."""
        flow = self.ha_request("POST", "/api/config/config_entries/flow",
                               {"handler": "octoprint", "show_advanced_options": False})
        assert flow["type"] == "form" and flow["step_id"] == "user", flow
        flow_id = flow["flow_id"]
        # config_flow.py _schema_with_defaults: username, host, port, path, ssl, verify_ssl.
        result = self.ha_request("POST", f"/api/config/config_entries/flow/{flow_id}",
                                 {"username": "admin", "host": "127.0.0.1", "port": printer.ha_port, "path": "/",
                                  "ssl": False, "verify_ssl": True})
        assert result["type"] == "progress" and result["step_id"] == "get_api_key", result
        # pyoctoprintapi's request_app_key waits for the user's decision (appkeys plugin).
        pending = wait_for(f"OctoPrint {printer.index}: HA's app-key request pending",
                           lambda: printer.api("GET", "/api/plugin/appkeys")["pending"], 30)
        for user_token, request in pending.items():
            assert request["app_id"] == "Home Assistant", request
            printer.api("POST", f"/plugin/appkeys/decision/{user_token}", {"decision": True})

        def finished():
            # GET on the flow is what the frontend does after the progress event: it
            # moves the flow on (data_entry_flow's FlowManagerResourceView.get).
            answer = self.ha_request("GET", f"/api/config/config_entries/flow/{flow_id}")
            return answer if answer["type"] != "progress" else None

        try:
            result = wait_for(f"OctoPrint {printer.index}: HA's flow done", finished, 60, interval=0.5)
        except urllib.error.HTTPError as error:
            if error.code != 404:
                raise
            result = {"type": "create_entry"}  # the flow finished between two requests
        assert result["type"] == "create_entry", result
        return result

    def read_registry(self):
        """Each printer's entities from HA's entity registry: their unique ids end with the
        config entry's unique id, OctoPrint's upnpUuid (sensor.py: f"{sensor_type}-{device_id}")."""
        registry, devices = self.ha_ws({"type": "config/entity_registry/list"},
                                       {"type": "config/device_registry/list"})
        with self.lock:
            for printer in self.printers:
                record = self.stats["printers"][str(printer.index)]
                mine = [e for e in registry if e.get("platform") == "octoprint"
                        and (e.get("unique_id") or "").endswith(printer.uuid)]
                if not mine:
                    continue
                record["entry_id"] = mine[0].get("config_entry_id")
                record["entities"] = {e["entity_id"]: {k: e.get(k) for k in (
                    "unique_id", "name", "original_name", "translation_key", "platform", "device_id",
                    "disabled_by", "entity_category", "has_entity_name", "icon", "original_icon")} for e in mine}
                # camera.py: OctoprintCamera, unique id the upnpUuid itself, on the printer's device.
                record["cameras"] = {e["entity_id"]: e.get("device_id") for e in mine
                                     if e["entity_id"].startswith("camera.")}
                status = [e for e in record["entities"] if e.startswith("sensor.") and "current_state" in e]
                if status:
                    # sensor.octoprint_current_state(_2): PrintBridge's prefix keeps HA's copy number.
                    object_id = status[0].split(".", 1)[1]
                    base, _, copy = object_id.rpartition("_current_state")
                    record["prefix"] = base + copy
                    record["status_entity"] = status[0]
                    record["progress_entity"] = next(
                        (e for e in record["entities"] if e.startswith("sensor.") and "job_percentage" in e), None)
                record["devices"] = [d for d in devices if [DOMAIN_OCTOPRINT, printer.uuid] in d.get("identifiers", [])]
        self.write_stats()

    def read_webcam_settings(self, printer):
        """What OctoPrint's /api/settings tells HA about the printer's webcam, and the
        still-image URL HA's camera gets from it (pyoctoprintapi's own WebcamSettings)."""
        from pyoctoprintapi import WebcamSettings

        webcam = printer.api("GET", "/api/settings").get("webcam", {})
        settings = {k: webcam.get(k) for k in ("webcamEnabled", "streamUrl", "snapshotUrl", "defaultWebcam")}
        if webcam.get("streamUrl") is not None:
            # The base URL as HA's entry has it (pyoctoprintapi OctoprintClient: http://host:port/path).
            settings["ha_still_image_url"] = WebcamSettings(
                f"http://127.0.0.1:{printer.ha_port}/", webcam).external_snapshot_url
        with self.lock:
            self.stats["printers"][str(printer.index)]["webcam"] = settings

    # --- polling -------------------------------------------------------------------------
    def poll(self):
        """OctoPrint's /api/job and HA's states of each printer, every 0.25 s, into --stats."""
        while not self.stop_polling.is_set():
            now = time.time()
            states = None
            if not self.ha_restarting:
                try:
                    states = {s["entity_id"]: s for s in self.ha_request("GET", "/api/states")}
                except (OSError, ValueError, http.client.HTTPException):
                    states = None
            with self.lock:
                self.stats["ha_up"] = states is not None
            for printer in self.printers:
                record = self.stats["printers"][str(printer.index)]
                try:
                    job = printer.job() if printer.process and printer.process.poll() is None else None
                except (OSError, ValueError, http.client.HTTPException):
                    job = None
                with self.lock:
                    previous = record["octoprint"].get("state")
                    if job:
                        record["octoprint"] = {"up": True, "state": job["state"],
                                               "completion": job["progress"]["completion"],
                                               "file": job["job"]["file"]["name"],
                                               "print_time": job["progress"]["printTime"]}
                        self.track_print(record, previous, job, now)
                    else:
                        record["octoprint"] = {"up": False, "state": None}
                    if previous != record["octoprint"]["state"]:
                        record["octoprint_since"] = now
                        record.setdefault("octoprint_states", []).append(
                            {"at": now, "state": record["octoprint"]["state"],
                             "completion": record["octoprint"].get("completion")})
                    record["octoprint"]["since"] = record.get("octoprint_since", now)
                    if states is not None and record.get("status_entity"):
                        status = states.get(record["status_entity"])
                        progress = states.get(record["progress_entity"])
                        ha = record["ha"]
                        state = status["state"] if status else None
                        if state != ha.get("state"):
                            ha["since"] = now
                            record.setdefault("ha_states", []).append(
                                {"at": now, "state": state, "progress": progress and progress["state"],
                                 "last_updated": status and status["last_updated"]})
                            if state == "unavailable":
                                ha["unavailable_since"] = now
                        if state != "unavailable":
                            ha["unavailable_since"] = None
                        ha["state"] = state
                        ha["progress"] = progress and progress["state"]
                        if progress and progress["last_updated"] != ha.get("progress_updated"):
                            ha["progress_updated"] = progress["last_updated"]
                            ha["progress_updated_at"] = parse_time(progress["last_updated"])
                            record.setdefault("ha_progress", []).append(
                                {"at": now, "progress": progress["state"], "state": state,
                                 "last_updated": progress["last_updated"]})
                        if self.stats["restarts"] and state and state != "unavailable":
                            ha["seen_after_restart"] = self.stats["restarts"]
            self.write_stats()
            self.stop_polling.wait(0.25)

    @staticmethod
    def track_print(record, previous, job, now):
        prints = record["prints"]
        state = job["state"]
        if state.startswith("Printing") and (previous is None or not previous.startswith(("Printing", "Paus", "Resum"))):
            prints.append({"file": job["job"]["file"]["name"], "started": now, "ended": None, "outcome": None})
        elif prints and prints[-1]["ended"] is None and state in ("Operational", "Offline", "Error"):
            prints[-1].update(ended=now, outcome="complete" if (job["progress"]["completion"] or 0) >= 100 else
                              "stopped", seconds=round(now - prints[-1]["started"], 1),
                              print_time=job["progress"]["printTime"])

    # --- commands --------------------------------------------------------------------------
    def printer(self, number):
        return self.printers[int(number) - 1]

    def command(self, line):
        words = line.split()
        if not words:
            return
        name, rest = words[0], words[1:]
        handler = getattr(self, "do_" + name.replace("-", "_"), None)
        if not handler:
            self.note("unknown command", command=line)
            return

        def run():
            with self.lock:
                self.stats["busy"].append(line)
            try:
                self.note("command", command=line)
                handler(*rest)
                outcome = "done"
            except BaseException as error:  # noqa: BLE001 - reported to the test through --stats
                outcome = f"failed: {type(error).__name__}: {error}"
                with self.lock:
                    self.stats["errors"].append({"command": line, "error": outcome})
            finally:
                with self.lock:
                    self.stats["busy"].remove(line)
                    self.stats["done"].append(line)
            self.note("command " + outcome, command=line)

        threading.Thread(target=run, daemon=True).start()

    def do_print(self, number, file="part_a.gcode"):
        printer = self.printer(number)
        printer.api("POST", f"/api/files/local/{file}", {"command": "select", "print": True})
        wait_for(f"OctoPrint {number} printing", lambda: printer.job()["state"].startswith("Printing"), 30)

    def do_pause(self, number):
        printer = self.printer(number)
        printer.api("POST", "/api/job", {"command": "pause", "action": "pause"})
        wait_for(f"OctoPrint {number} paused", lambda: printer.job()["state"] == "Paused", 30)

    def do_resume(self, number):
        printer = self.printer(number)
        printer.api("POST", "/api/job", {"command": "pause", "action": "resume"})
        wait_for(f"OctoPrint {number} printing again", lambda: printer.job()["state"].startswith("Printing"), 30)

    def do_cancel(self, number):
        printer = self.printer(number)
        printer.api("POST", "/api/job", {"command": "cancel"})
        wait_for(f"OctoPrint {number} operational after the cancel",
                 lambda: printer.job()["state"] == "Operational", 60)

    def do_pause_with_milestone(self, number, margin="3"):
        """Pauses once OctoPrint has crossed a milestone HA's last poll has not shown,
        at least `margin` seconds before HA's next poll (due POLL s after the last one,
        whose time is the Job Percentage's last_updated: it changes at every poll while
        printing; update_coordinator.py schedules the next at int(loop.time()) + a fixed
        microsecond + 30 s, so never earlier). OctoPrint shows "Pausing" at once, which HA
        reads as a pause too. A crossing too close to the next poll is left to that poll
        (told as an ordinary milestone) and the next milestone is tried."""
        printer = self.printer(number)
        record = self.stats["printers"][str(number)]
        skipped = []

        def ready():
            with self.lock:
                ha = dict(record["ha"])
            if ha.get("state") != "Printing" or ha.get("progress_updated_at") is None:
                return None
            try:
                seen = float(ha["progress"])
            except (TypeError, ValueError):
                return None
            completion = printer.job()["progress"]["completion"] or 0
            crossed = [m for m in MILESTONES if seen < m <= completion and m not in skipped]
            if not crossed:
                return None
            next_poll = ha["progress_updated_at"] + POLL
            left = next_poll - time.time()
            if left < float(margin):
                skipped.extend(crossed)
                self.note(f"printer {number}: milestone {crossed} crossed {left:.1f} s before HA's next poll: skipped")
                return None
            return {"milestone": max(crossed), "ha_progress_before": seen, "octoprint_completion": completion,
                    "seconds_before_next_poll": round(left, 1), "ha_last_poll": ha["progress_updated"]}

        found = wait_for(f"printer {number}: a milestone to pause at", ready, 240, interval=0.1)
        printer.api("POST", "/api/job", {"command": "pause", "action": "pause"})
        with self.lock:
            record["pause"] = dict(found, skipped=skipped, paused_at=time.time())
        self.note(f"printer {number}: paused after milestone {found['milestone']}", **found)
        wait_for(f"OctoPrint {number} paused", lambda: printer.job()["state"] == "Paused", 30)

    def do_stop_octoprint(self, number):
        self.printer(number).stop()

    def do_start_octoprint(self, number):
        printer = self.printer(number)
        printer.start()
        printer.connect()

    def do_drop_network(self, number):
        self.printer(number).forwarder.stop()

    def do_restore_network(self, number):
        self.printer(number).forwarder.start()

    def do_restart_ha(self):
        self.ha_restarting = True
        try:
            self.ha.stop()
            with self.lock:
                self.stats["restarts"] += 1
                self.stats["ha_up"] = False
            self.ha.start()
        finally:
            self.ha_restarting = False
        # The octoprint entries are set up again (each makes its first refresh then).
        wait_for("HA's octoprint entities back after the restart", self.all_entities_available, 120, interval=0.5)

    # --- setup ---------------------------------------------------------------------------
    def all_entities_available(self):
        states = {s["entity_id"]: s for s in self.ha_request("GET", "/api/states")}
        for printer in self.printers:
            entity = self.stats["printers"][str(printer.index)].get("status_entity")
            if not entity or states.get(entity, {}).get("state") in (None, "unavailable", "unknown"):
                return False
        return True

    def setup(self):
        self.phase("octoprint-setup")
        threads = []
        errors = []

        def one(printer):
            try:
                printer.setup()
                printer.start()
                if printer.index not in self.args.unconnected:
                    printer.connect()
                for name, moves in FILES.items():
                    printer.upload(name, gcode(moves, name))
                self.read_webcam_settings(printer)
            except Exception as error:  # noqa: BLE001
                errors.append(f"OctoPrint {printer.index}: {type(error).__name__}: {error}")

        for printer in self.printers:
            threads.append(threading.Thread(target=one, args=(printer,)))
            threads[-1].start()
        self.ha.start()  # meanwhile
        for thread in threads:
            thread.join()
        if errors:
            raise SystemExit("; ".join(errors))
        self.phase("ha-config-flows")
        # One after another, so the entity ids are the printers' order: octoprint, octoprint_2, …
        for printer in self.printers:
            began = time.time()
            self.add_integration(printer)
            self.note(f"printer {printer.index}: config entry made", seconds=round(time.time() - began, 1))
            wait_for(f"printer {printer.index}'s entities in HA's registry",
                     lambda: (self.read_registry() or True) and
                     self.stats["printers"][str(printer.index)].get("status_entity"), 60, interval=0.5)
        for printer in self.printers:
            if printer.index in self.args.unconnected:
                # Switched on after its entry was made (its temperature sensors come at
                # the entry's next poll, up to 30 s later).
                printer.connect()
                wait_for(f"printer {printer.index}'s temperature sensors in HA",
                         lambda: (self.read_registry() or True) and any(
                             "_temp" in e for e in self.stats["printers"][str(printer.index)]["entities"]),
                         60, interval=1)
        wait_for("every printer's Current State in HA's states", self.all_entities_available, 90, interval=0.5)
        self.read_registry()
        with self.lock:
            self.stats["entities"] = {s["entity_id"]: {"state": s["state"], "attributes": s["attributes"]}
                                      for s in self.ha_request("GET", "/api/states")
                                      if any(s["entity_id"] in self.stats["printers"][str(p.index)]["entities"]
                                             for p in self.printers)}
        threading.Thread(target=self.poll, daemon=True).start()
        self.phase("ready")

    def close(self):
        self.stop_polling.set()
        self.ha.stop()
        for printer in self.printers:
            printer.stop()
            if printer.forwarder:
                printer.forwarder.stop()
        self.webcam.close()


def parse_time(text):
    return datetime.fromisoformat(text).timestamp()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--printers", type=int, default=3)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    parser.add_argument("--octoprint-venv", default=os.path.join(cache, "printbridge", "octoprint-venv"))
    parser.add_argument("--keep", action="store_true", help="keep the folders (logs) when done")
    parser.add_argument("--unconnected", type=int, action="append", default=[],
                        help="add this printer's integration while its printer is not connected, connect it "
                             "afterwards (HA then numbers its temperature sensors after the others')")
    args = parser.parse_args()
    chain = Chain(args)
    began = time.time()
    try:
        chain.setup()
        chain.note("setup done", seconds=round(time.time() - began, 1))
        with open(args.token_file, "w") as f:
            f.write(chain.ha.token + "\n")
        print(f"PORT {chain.ha.port}", flush=True)
        for line in sys.stdin:
            chain.command(line.strip())
    finally:
        chain.close()
        if args.keep:
            print(f"kept {chain.root} and {chain.ha.dir}", file=sys.stderr)
        else:
            shutil.rmtree(chain.root, ignore_errors=True)
            shutil.rmtree(chain.ha.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
