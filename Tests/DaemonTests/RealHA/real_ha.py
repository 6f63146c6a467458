#!/usr/bin/env python3
"""A real Home Assistant core for PrintBridge's daemon tests.

    python real_ha.py --token-file FILE --stats FILE [--warm]

Run with the Python of the virtual environment scripts/install-test-deps.sh
makes (homeassistant from PyPI). Makes a config directory, an admin user and
a long-lived access token with HA's own auth manager (written to
--token-file; onboarding would need the frontend's whole dependency tree),
starts `hass` on 127.0.0.1 with a free port (no pip: everything was
installed beforehand) and prints "PORT <n>" once HA's REST API answers.

Then it reads commands from stdin, one per line:
  play        plays the scenario below through HA's REST API
              (POST /api/states/<entity_id> makes real state_changed
              events), writing {"phase": …, "done": true} to --stats;
              after HA's restart (phase "restarted") it waits for
  resume      the test's word that the agent is watching again (it
              reconnects with back-off, seconds after HA is back on a
              loaded machine), then plays the rest of the print
Closing stdin stops HA and exits.

The X1C has a camera: HA's own local_file camera on a JPEG, as
camera.x1c_00m09a350100123_camera (stats: picture_bytes, its size; not in
the registry: found by its name).

The test's own integration (custom_components/printbridge_test, copied into
the config directory) registers 2,000 household entities and the printers'
entities as ha-bambulab registers them (platform bambu_lab, its translation
keys), and changes the household inside HA on request (HOUSEHOLD_RATE a
second; stats: household_changes).

The scenario: ha-bambulab's entities (ids, states and attributes as its
definitions.py and translations/en.json make them) for two printers while
the household changes 400 times a second, so HA's WebSocket writer
coalesces frames (websocket_api/http.py). The X1C prints: idle (the
previous print's file and 100 %) -> prepare -> running, the new file and
progress a moment after running, 10 -> 30 %, then HA restarts mid-print (the
printer entities come back as the integration reconnects); its progress
entity is renamed (config/entity_registry/update, as a user does) and the
print goes on under the new id; the workshop's smoke sensor (an
input_boolean) goes off and README's automation fires printbridge_notify
for the X1C; 55 -> 80 %, finish. The P1S is cancelled:
ha-bambulab writes the failed status before the print error 0300_400C. A
third printer, the A1 mini, is registered while the agent runs and prints
(idle -> running -> finish). A second WebSocket client (this script, with
coalesce_messages) counts the array frames HA sent it during the flood.

--warm  start HA once so it installs its default integrations'
        requirements (the first start of a fresh environment), then exit.
"""
import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import timedelta

X1C = "x1c_00m09a350100123"
P1S = "p1s_01p09c470200456"
A1 = "a1mini_0300aa2a1500789"
# Registered household entities, and their changes a second during the scenario.
HOUSEHOLD = 2000
HOUSEHOLD_RATE = 400


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def make_token(config_dir):
    from homeassistant.auth import auth_manager_from_config
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers import device_registry, entity_registry

    hass = HomeAssistant(config_dir)
    await device_registry.async_load(hass)  # the auth store reads them while loading
    await entity_registry.async_load(hass)
    hass.auth = await auth_manager_from_config(hass, [{"type": "homeassistant"}], [])
    user = await hass.auth.async_create_user("PrintBridge test", group_ids=["system-admin"])
    refresh = await hass.auth.async_create_refresh_token(
        user, client_name="printbridge-tests", token_type="long_lived_access_token",
        access_token_expiration=timedelta(days=1))
    token = hass.auth.async_create_access_token(refresh)
    store = hass.auth._store
    await store._store.async_save(store._data_to_save())
    await hass.async_stop(force=True)
    return token


class RealHA:
    def __init__(self, args, household=HOUSEHOLD):
        """household: the registered household entities (the load benchmark asks for more)."""
        self.args = args
        self.dir = tempfile.mkdtemp(prefix="printbridge-realha-")
        self.port = free_port()
        # The X1C's camera: HA's local_file camera (camera/local_file) on a
        # JPEG, named as ha-bambulab names its camera entity, served by HA's
        # real /api/camera_proxy. Pillow: installed at HA's pin (scripts/install-test-deps.sh).
        from PIL import Image
        self.picture = os.path.join(self.dir, "x1c-chamber.jpg")
        Image.new("RGB", (64, 48), (200, 120, 40)).save(self.picture, "JPEG")
        self.stats_picture_bytes = os.path.getsize(self.picture)
        with open(os.path.join(self.dir, "configuration.yaml"), "w") as f:
            f.write(f"""homeassistant:
  name: PrintBridge test
  latitude: 0
  longitude: 0
  elevation: 0
  unit_system: metric
  time_zone: UTC
http:
  server_host: 127.0.0.1
  server_port: {self.port}
api:
websocket_api:
camera:
  - platform: local_file
    name: X1C_00M09A350100123 Camera
    file_path: {self.picture}
input_boolean:
  workshop_smoke:
    name: Workshop smoke
automation:
  - alias: Smoke by the printer
    trigger:
      - platform: state
        entity_id: input_boolean.workshop_smoke
        to: "on"
    action:
      - event: printbridge_notify
        event_data:
          printer: {X1C}
          title: Smoke by the printer
          message: "{{{{ trigger.to_state.name }}}} went off."
          level: time-sensitive
printbridge_test:
  household: {household}
  printers:
    - {X1C}
    - {P1S}
""")
        # The test's own integration (custom_components/printbridge_test):
        # the household changing inside HA, the printers registered.
        shutil.copytree(os.path.join(os.path.dirname(os.path.abspath(__file__)), "custom_components"),
                        os.path.join(self.dir, "custom_components"))
        self.token = asyncio.run(make_token(self.dir))
        self.hass = None
        self.renamed = {}
        self.stats = {"phase": "starting", "done": False, "restarts": 0, "arrays": 0, "frames": 0,
                      "picture_bytes": self.stats_picture_bytes, "household_changes": 0}
        self.household_file = os.path.join(self.dir, "household.json")
        self.household_before = 0

    def write_stats(self):
        if self.args.stats:
            with open(self.args.stats + ".tmp", "w") as f:
                json.dump(self.stats, f)
            os.replace(self.args.stats + ".tmp", self.args.stats)

    def start(self, skip_pip=True):
        command = [sys.executable, "-m", "homeassistant", "-c", self.dir] + (["--skip-pip"] if skip_pip else [])
        self.log = open(os.path.join(self.dir, "hass.out"), "a")
        self.hass = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + (600 if not skip_pip else 120)
        while time.monotonic() < deadline:
            if self.hass.poll() is not None:
                raise SystemExit(f"hass exited: see {self.dir}/hass.out")
            try:
                self.request("GET", "/api/")
                return
            except OSError:
                time.sleep(0.2)
        raise SystemExit("hass did not answer in time")

    def stop(self):
        if self.hass and self.hass.poll() is None:
            self.hass.send_signal(signal.SIGTERM)
            try:
                self.hass.wait(60)
            except subprocess.TimeoutExpired:
                self.hass.kill()
                self.hass.wait()

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Authorization": "Bearer " + self.token,
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.read()

    def set(self, entity, state, attributes):
        self.request("POST", f"/api/states/{entity}", {"state": str(state), "attributes": attributes})

    # --- ha-bambulab's entities -------------------------------------------------
    def printer(self, prefix, name, **fields):
        """Writes a printer's entities as ha-bambulab names them (English)."""
        spec = {
            "status": ("sensor", "_print_status", "Print status", {"device_class": "enum", "icon": "mdi:list-status",
                        "options": ["failed", "finish", "idle", "offline", "prepare", "running", "pause", "slicing", "init"]}),
            "progress": ("sensor", "_print_progress", "Print progress", {"unit_of_measurement": "%", "state_class": "measurement"}),
            "task": ("sensor", "_task_name", "Task name", {}),
            "layer": ("sensor", "_current_layer", "Current layer", {"state_class": "measurement"}),
            "layers": ("sensor", "_total_layer_count", "Total layer count", {"state_class": "measurement"}),
            "remaining": ("sensor", "_remaining_time", "Remaining time", {"unit_of_measurement": "h", "device_class": "duration"}),
            "nozzle": ("sensor", "_nozzle_temperature", "Nozzle temperature", {"unit_of_measurement": "°C", "device_class": "temperature"}),
            "nozzle_target": ("sensor", "_nozzle_target_temperature", "Nozzle target temperature", {"unit_of_measurement": "°C", "device_class": "temperature"}),
            "bed": ("sensor", "_bed_temperature", "Bed temperature", {"unit_of_measurement": "°C", "device_class": "temperature"}),
            "stage": ("sensor", "_current_stage", "Current stage", {"device_class": "enum"}),
        }
        for field, value in fields.items():
            if field == "error":
                attributes = {"device_class": "problem", "friendly_name": f"{name} Print error"}
                if value:
                    attributes.update(value)
                self.set(f"binary_sensor.{prefix}_print_error", "on" if value else "off", attributes)
                continue
            domain, suffix, label, attributes = spec[field]
            entity = self.renamed.get(f"{domain}.{prefix}{suffix}", f"{domain}.{prefix}{suffix}")
            self.set(entity, value, dict(attributes, friendly_name=f"{name} {label}"))

    # --- the scenario -------------------------------------------------------------
    def household(self, rate):
        """The household changing inside HA (printbridge_test's service), or stopped (0)."""
        if rate == 0:
            self.household_before = self.household_changes()
        self.request("POST", "/api/services/printbridge_test/household",
                     {"rate": rate, "seconds": 0, "stats_file": self.household_file})

    def household_changes(self):
        """The household's changes so far, across HA's restarts."""
        try:
            with open(self.household_file) as f:
                return self.household_before + json.load(f)["changes"]
        except (OSError, ValueError):
            return self.household_before

    def rename(self, old, new):
        """Renames an entity as a user does in its settings (config/entity_registry/update,
        an admin's WebSocket command); its state then lives under the new id."""
        async def update():
            import aiohttp
            async with aiohttp.ClientSession() as session:
                async with session.ws_connect(f"http://127.0.0.1:{self.port}/api/websocket") as ws:
                    await ws.receive()
                    await ws.send_json({"type": "auth", "access_token": self.token})
                    await ws.receive()
                    await ws.send_json({"id": 1, "type": "config/entity_registry/update",
                                        "entity_id": old, "new_entity_id": new})
                    answer = await ws.receive_json()
                    if not answer.get("success"):
                        raise SystemExit(f"rename refused: {answer}")
        asyncio.run(update())
        self.request("DELETE", f"/api/states/{old}")
        self.renamed[old] = new

    async def watch(self, stop):
        """A second WebSocket client asking for coalesced frames: counts HA's arrays."""
        import aiohttp
        try:
            async with aiohttp.ClientSession() as session:
                async with session.ws_connect(f"http://127.0.0.1:{self.port}/api/websocket", max_msg_size=0) as ws:
                    await ws.receive()
                    await ws.send_json({"type": "auth", "access_token": self.token})
                    await ws.receive()
                    await ws.send_json({"id": 1, "type": "supported_features", "features": {"coalesce_messages": 1}})
                    await ws.send_json({"id": 2, "type": "subscribe_events", "event_type": "state_changed"})
                    while not stop.is_set():
                        try:
                            message = await asyncio.wait_for(ws.receive(), 0.5)
                        except asyncio.TimeoutError:
                            continue
                        if message.type != aiohttp.WSMsgType.TEXT:
                            break
                        self.stats["frames"] += 1
                        if message.data.startswith("["):
                            self.stats["arrays"] += 1
        except Exception:  # noqa: BLE001 - HA restarting; the count so far stands
            pass

    def phase(self, name):
        self.stats["phase"] = name
        self.write_stats()

    def play(self):
        x1c, p1s = "X1C_00M09A350100123", "P1S_01P09C470200456"
        # Before the print: idle, the previous print's file and 100 %.
        self.printer(X1C, x1c, status="idle", task="old_part.3mf", progress=100, layer=200, layers=200,
                     remaining=0, nozzle=31, nozzle_target=0, bed=30, stage="idle", error=None)
        self.printer(P1S, p1s, status="idle", task="bracket.3mf", progress=0, layer=0, layers=120,
                     remaining=0, nozzle=28, bed=27, stage="idle", error=None)
        self.phase("baseline")
        time.sleep(2)
        self.household(HOUSEHOLD_RATE)
        watch_stop = threading.Event()
        watcher = threading.Thread(target=lambda: asyncio.run(self.watch(watch_stop)), daemon=True)
        watcher.start()

        self.printer(X1C, x1c, status="prepare", stage="heatbed_preheating", nozzle_target=220)
        self.printer(P1S, p1s, status="prepare", stage="auto_bed_leveling")
        time.sleep(1)
        # running first; the new file and progress a report later.
        self.printer(X1C, x1c, status="running", stage="printing")
        time.sleep(0.8)
        self.printer(X1C, x1c, task="gear_housing.3mf", progress=1, layer=1, layers=300, remaining=2.5, nozzle=219, bed=60)
        self.printer(P1S, p1s, status="running", stage="printing", task="bracket.3mf", progress=1, layer=1)
        self.phase("started")
        time.sleep(4)
        self.printer(X1C, x1c, progress=10, layer=30, remaining=2.2)
        time.sleep(2)
        self.printer(X1C, x1c, progress=30, layer=90, remaining=1.7)
        time.sleep(2)
        # The P1S is cancelled: the failed status lands before the print error.
        self.printer(P1S, p1s, status="failed", stage="idle")
        time.sleep(0.3)
        self.printer(P1S, p1s, error={"code": "0300_400C", "error": "The task was canceled."})
        self.phase("cancelled")
        time.sleep(2)

        # HA restarts mid-print; the integration's entities come back when it reconnects.
        watch_stop.set()
        self.phase("restarting")
        self.household(0)
        self.stop()
        self.stats["restarts"] += 1
        self.start()
        self.household(HOUSEHOLD_RATE)
        time.sleep(1)
        self.printer(X1C, x1c, status="running", stage="printing", task="gear_housing.3mf", progress=31, layer=93,
                     layers=300, remaining=1.65, nozzle=220, bed=60, error=None)
        self.printer(P1S, p1s, status="failed", stage="idle", task="bracket.3mf", progress=1,
                     error={"code": "0300_400C", "error": "The task was canceled."})
        self.phase("restarted")
        # The rest of the print once the agent is back: a milestone passed
        # while it was still away would come to it as a jump in the snapshot.
        while sys.stdin.readline().strip() not in ("resume", ""):
            pass
        self.phase("resumed")
        time.sleep(1)
        # The user renames the X1C's progress entity while it prints: the
        # rest of its progress comes under the new id.
        self.rename(f"sensor.{X1C}_print_progress", f"sensor.{X1C}_druckfortschritt")
        self.phase("renamed")
        time.sleep(3)
        # The workshop's smoke sensor goes off: README's automation (above,
        # in configuration.yaml) fires printbridge_notify on HA's bus.
        self.request("POST", "/api/services/input_boolean/turn_on", {"entity_id": "input_boolean.workshop_smoke"})
        self.phase("notified")
        time.sleep(2)
        self.printer(X1C, x1c, progress=55, layer=165, remaining=1.1)
        time.sleep(2)
        # A third printer is set up in HA while the agent runs, and prints.
        self.request("POST", "/api/services/printbridge_test/register_printer", {"prefix": A1})
        a1 = "A1MINI_0300AA2A1500789"
        self.printer(A1, a1, status="idle", task="clip.3mf", progress=0, layer=0, layers=50, remaining=0,
                     nozzle=25, bed=25, stage="idle", error=None)
        self.phase("added")
        time.sleep(3)
        self.printer(X1C, x1c, progress=80, layer=240, remaining=0.4)
        self.printer(A1, a1, status="running", stage="printing", task="clip.3mf", progress=2, layer=1)
        time.sleep(2)
        self.printer(X1C, x1c, progress=100, layer=300, remaining=0, status="finish", stage="idle")
        time.sleep(1)
        self.printer(X1C, x1c, nozzle_target=0, nozzle=180)
        self.printer(A1, a1, progress=10, layer=5)
        time.sleep(4)
        self.printer(A1, a1, status="finish", stage="idle")
        self.printer(A1, a1, progress=100, layer=50)
        time.sleep(1)
        self.household(0)
        self.stats["household_changes"] = self.household_changes()
        watcher.join(2)
        self.stats["done"] = True
        self.phase("done")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token-file")
    parser.add_argument("--stats")
    parser.add_argument("--warm", action="store_true")
    args = parser.parse_args()
    ha = RealHA(args)
    try:
        if args.warm:
            ha.start(skip_pip=False)
            return
        ha.start()
        with open(args.token_file, "w") as f:
            f.write(ha.token + "\n")
        ha.write_stats()
        print(f"PORT {ha.port}", flush=True)
        # readline, not iteration: play() reads its "resume" from stdin too.
        for line in iter(sys.stdin.readline, ""):
            if line.strip() == "play":
                ha.play()
    finally:
        ha.stop()
        shutil.rmtree(ha.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
