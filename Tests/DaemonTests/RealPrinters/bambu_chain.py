#!/usr/bin/env python3
"""ha-bambulab, all real but the printer: a real HA core, the real integration, a simulated printer.

    python bambu_chain.py --token-file FILE --stats FILE [--keep]

Run with the Python of HA's environment (scripts/install-test-deps.sh, then
RealPrinters/install_bambulab.sh). It

1. starts the simulated printers (bambu_printer.py), an X1C and a P1S (and an
   A1 mini with --printers): each its own mosquitto with TLS on its own
   loopback address, port 8883 (in LAN mode the printer is the broker);
2. starts Home Assistant 2024.3.3 (RealHA/real_ha.py's config directory, admin
   user and token) through bambu_shim.py, with ha-bambulab v2.0.46
   (Tests/ThirdParty/ha-bambulab/bambu_lab, copied into the config directory's
   custom_components) and `custom_components.bambu_lab` logging at debug level;
3. adds each printer through HA's config-flow REST API in LAN mode
   (`/api/config/config_entries/flow`, handler `bambu_lab`: step `user`
   {"printer_mode": "lan"}, step `Lan` {host, serial, access_code, usage_hours};
   config_flow.py `async_step_user`, `async_step_Lan`), and waits until the
   integration's entities show the printers' first reports;
4. prints "PORT <n>" (HA's port) and writes HA's token to --token-file.

Then it reads commands from stdin, one per line:
  play SCENARIO [PRINTER]   plays a scenario of bambu_printer.py SCENARIOS on that
                            printer (default: the X1C) in the background (two
                            printers may play at once), then appends it to
                            "played" in --stats with the times of its marks
  restart-ha                stops HA and starts it again (same config directory)
                            and waits until it shows the printers again
  noise SECONDS             household entities (lights, sensors, a TV, a person,
                            a washing machine) change through HA's REST API
                            (POST /api/states/<id>), a few a second and in bursts
                            of parallel requests, so HA's WebSocket writer sends
                            some frames as arrays; "noise" in --stats counts them
  states FILE               writes HA's /api/states to FILE (then "states" += 1)
A scenario's ("restart-ha",) action restarts HA in the background and
("wait-ha",) waits for it (bambu_printer.py).
Closing stdin stops everything and exits (the config directory is removed
unless --keep). Every wait is for a named condition with a deadline; a
deadline passed ends the chain with the condition's name.

--stats is a JSON object: phase, played (list of {scenario, printer, marks,
started, ended}), playing (scenarios under way), ha_dir (HA's config
directory: hass.out is HA's output), devices (printer model -> HA device id),
serials, hosts, entries, states (count), restarts and restart_times (each
{stopped, answering, printers_back}, epoch seconds), noise (events written).
"""
import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "RealHA"))
sys.path.insert(0, HERE)

from real_ha import RealHA  # noqa: E402
from bambu_printer import HOSTS, Printer, wait_for  # noqa: E402

VENDORED = os.path.normpath(os.path.join(HERE, "..", "..", "ThirdParty", "ha-bambulab", "bambu_lab"))
SHIM = os.path.join(HERE, "bambu_shim.py")
ACCESS_CODE = "24681357"
# Serials in Bambu's pattern (00M… an X1C, 01P… a P1S); HA's device is "<type>_<serial>"
# (coordinator.py get_printer_device), its entities "<type>_<serial> <entity name>".
SERIALS = {"x1c": "00M09A391200471", "p1s": "01P09C470200789", "a1mini": "0300AA2A1581641"}
INITIAL_STATUS = {"x1c": "finish", "p1s": "idle", "a1mini": "idle"}


class BambuHA(RealHA):
    """RealHA with the vendored integration, its debug log and the shims (bambu_shim.py)."""

    def __init__(self, args):
        super().__init__(args)
        # A name of its own: other tests' clean-ups of /tmp/printbridge-realha-* must not take it
        # (HA started in a vanished directory writes a default_config that reaches the internet).
        own = tempfile.mkdtemp(prefix="printbridge-bambu-ha-")
        os.rmdir(own)
        os.rename(self.dir, own)
        self.dir = own
        shutil.copytree(VENDORED, os.path.join(self.dir, "custom_components", "bambu_lab"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        with open(os.path.join(self.dir, "configuration.yaml"), "a") as f:
            f.write("logger:\n  default: warning\n  logs:\n    custom_components.bambu_lab: debug\n"
                    "    homeassistant.loader: error\n")

    def start(self, skip_pip=True):
        if not os.path.exists(os.path.join(self.dir, "configuration.yaml")):
            raise SystemExit(f"HA's config directory {self.dir} is gone: not starting HA in an empty one")
        command = [sys.executable, SHIM, "-c", self.dir, "--skip-pip"]
        self.log = open(os.path.join(self.dir, "hass.out"), "a")
        self.hass = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))

        def answering():
            if self.hass.poll() is not None:
                raise SystemExit(f"hass exited: see {self.dir}/hass.out")
            try:
                self.request("GET", "/api/")
                return True
            except OSError:
                return False

        wait_for(answering, 120, "Home Assistant's REST API answering")

    def call(self, method, path, body=None, timeout=60):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Authorization": "Bearer " + self.token,
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return json.loads(response.read() or b"null")

    def states(self):
        return {state["entity_id"]: state for state in self.call("GET", "/api/states")}

    def add_printer(self, serial, host):
        """config_flow.py: user step (printer_mode lan) -> Lan step -> try_connection -> entry."""
        flow = self.call("POST", "/api/config/config_entries/flow", {"handler": "bambu_lab", "show_advanced_options": False})
        if flow.get("step_id") != "user":
            raise SystemExit(f"bambu_lab config flow: unexpected first step {flow}")
        flow = self.call("POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {"printer_mode": "lan"})
        if flow.get("step_id") != "Lan":
            raise SystemExit(f"bambu_lab config flow: unexpected step after printer_mode lan: {flow}")
        result = self.call("POST", f"/api/config/config_entries/flow/{flow['flow_id']}",
                           {"host": host, "serial": serial, "access_code": ACCESS_CODE, "usage_hours": "0"})
        if result.get("type") != "create_entry":
            raise SystemExit(f"bambu_lab config flow did not create an entry: {result}")
        return result["result"]["entry_id"] if isinstance(result.get("result"), dict) else result.get("result")

    def log_text(self):
        with open(os.path.join(self.dir, "hass.out"), errors="replace") as f:
            return f.read()


class Chain:
    def __init__(self, args):
        self.args = args
        self.workdir = tempfile.mkdtemp(prefix="printbridge-bambu-")
        self.models = [model.strip() for model in args.printers.split(",") if model.strip()]
        self.serials = {model: SERIALS[model] for model in self.models}
        self.printers = {}
        self.ha = None
        self.lock = threading.RLock()
        self.stats = {"phase": "starting", "played": [], "playing": [], "states": 0, "serials": self.serials,
                      "hosts": {model: HOSTS[model] for model in self.models}, "entries": {}, "devices": {},
                      "restarts": 0, "restart_times": [], "noise": 0}
        self.marks = {}
        self.timings = {}
        self.restarting = None  # the background restart's thread

    def write_stats(self):
        with self.lock:
            if self.ha:
                self.stats["ha_dir"] = self.ha.dir
            self.stats["timings"] = self.timings
            with open(self.args.stats + ".tmp", "w") as f:
                json.dump(self.stats, f)
            os.replace(self.args.stats + ".tmp", self.args.stats)

    def phase(self, name):
        with self.lock:
            self.stats["phase"] = name
            self.write_stats()

    def entity(self, model, suffix):
        return f"sensor.{model}_{self.serials[model].lower()}_{suffix}"

    def wait_for_printers(self, seconds):
        """The integration's entities show each printer's report, and the sensor platform's
        reload after get_version (coordinator.py _update_ams_info -> _reinitialize_sensors) is done."""
        def shown():
            states = self.ha.states()
            if not self.stats["restarts"]:  # the simulated printers' first state
                return all(states.get(self.entity(model, "print_status"), {}).get("state") == INITIAL_STATUS[model]
                           for model in self.printers)
            return all(states.get(self.entity(model, "print_status"), {}).get("state")
                       not in (None, "unavailable", "unknown", "offline") for model in self.printers)

        wait_for(shown, seconds, "each printer's print_status entity showing its first report")
        wait_for(lambda: self.ha.log_text().count("_reinitialize_sensors DONE") >= len(self.printers) * (1 + self.stats["restarts"]),
                 seconds, "the sensor platform reloaded after each printer's get_version")
        wait_for(shown, seconds, "each printer's print_status entity after the sensor reload")

    def start(self):
        began = time.monotonic()
        for model in self.models:
            self.printers[model] = Printer(model, self.serials[model], ACCESS_CODE, HOSTS[model],
                                           os.path.join(self.workdir, model),
                                           on_mark=lambda mark, at, model=model: self.mark(model, mark, at),
                                           on_action=self.action)
            self.printers[model].start()
        self.timings["brokers_and_printers"] = round(time.monotonic() - began, 2)
        self.ha = BambuHA(self.args)
        self.timings["ha_config"] = round(time.monotonic() - began, 2)
        self.ha.start()
        self.timings["ha_answering"] = round(time.monotonic() - began, 2)
        self.phase("adding printers")
        for model in self.models:
            self.stats["entries"][model] = self.ha.add_printer(self.serials[model], HOSTS[model])
        self.timings["printers_added"] = round(time.monotonic() - began, 2)
        self.wait_for_printers(90)
        self.timings["entities_ready"] = round(time.monotonic() - began, 2)
        self.stats["devices"] = asyncio.run(self.device_ids())
        with open(self.args.token_file, "w") as f:
            f.write(self.ha.token + "\n")
        self.phase("ready")
        print(f"PORT {self.ha.port}", flush=True)

    async def device_ids(self):
        """HA device ids of the printers (what bambu_lab_event's device_id names), from the device registry."""
        import aiohttp
        async with aiohttp.ClientSession() as session:
            async with session.ws_connect(f"http://127.0.0.1:{self.ha.port}/api/websocket") as ws:
                await ws.receive()
                await ws.send_json({"type": "auth", "access_token": self.ha.token})
                await ws.receive()
                await ws.send_json({"id": 1, "type": "config/device_registry/list"})
                result = (await ws.receive_json())["result"]
        devices = {}
        for device in result:
            for model, serial in self.serials.items():
                if ["bambu_lab", serial] in device.get("identifiers", []):
                    devices[model] = device["id"]
        return devices

    def mark(self, model, name, at):
        with self.lock:
            self.marks.setdefault(model, {})[name] = at

    def action(self, name):
        """A scenario's request: restart HA in the background, or wait until that restart is done."""
        if name == "restart-ha":
            with self.lock:
                if self.restarting is None or not self.restarting.is_alive():
                    self.restarting = threading.Thread(target=self.restart_ha, daemon=True)
                    self.restarting.start()
        elif name == "wait-ha":
            thread = self.restarting
            if thread is not None:
                thread.join(180)
                if thread.is_alive():
                    raise TimeoutError("timed out after 180 s waiting for Home Assistant's restart")
        else:
            raise ValueError(f"unknown scenario action {name}")

    def play(self, scenario, model):
        entry = {"scenario": scenario, "printer": model, "started": time.time()}
        with self.lock:
            self.marks[model] = {}
            self.stats["playing"].append(f"{scenario} {model}")
        self.phase(f"playing {scenario} on {model}")
        try:
            self.printers[model].play(scenario)
        except (TimeoutError, OSError) as error:
            entry["error"] = str(error)
        with self.lock:
            entry.update(ended=time.time(), marks=self.marks.pop(model, {}))
            self.stats["played"].append(entry)
            self.stats["playing"].remove(f"{scenario} {model}")
        self.phase(f"played {scenario}")

    def restart_ha(self):
        self.phase("restarting")
        times = {}
        self.ha.stop()
        times["stopped"] = time.time()
        with self.lock:
            self.stats["restarts"] += 1
        self.ha.start()
        times["answering"] = time.time()
        self.wait_for_printers(90)
        times["printers_back"] = time.time()
        with self.lock:
            self.stats["restart_times"].append(times)
        self.phase("restarted")

    def noise(self, seconds):
        """Household entities changing through HA's REST API: one change every ~0.25 s and, every
        ~2 s, a burst of four at once from four threads (HA queues their events together)."""
        entities = [
            ("sensor.hallway_temperature", lambda i: f"{20 + (i % 7) / 10:.1f}",
             {"unit_of_measurement": "°C", "device_class": "temperature", "state_class": "measurement",
              "friendly_name": "Hallway temperature"}),
            ("sensor.living_room_humidity", lambda i: str(45 + i % 5),
             {"unit_of_measurement": "%", "device_class": "humidity", "state_class": "measurement",
              "friendly_name": "Living room humidity"}),
            ("light.kitchen", lambda i: "on" if i % 3 else "off",
             {"supported_color_modes": ["brightness"], "color_mode": "brightness", "brightness": 180,
              "friendly_name": "Kitchen"}),
            ("media_player.living_room_tv", lambda i: ["playing", "paused", "idle"][i % 3],
             {"volume_level": 0.25, "is_volume_muted": False, "media_content_type": "tvshow",
              "friendly_name": "Living room TV", "supported_features": 152463}),
            ("person.alex", lambda i: "home" if (i // 20) % 2 == 0 else "not_home",
             {"friendly_name": "Alex", "source": "device_tracker.alex_phone"}),
            ("sensor.washing_machine_remaining_time", lambda i: str(max(0, 95 - i // 4)),
             {"unit_of_measurement": "min", "device_class": "duration", "friendly_name": "Washing machine Remaining time"}),
            ("sensor.washing_machine_program_progress", lambda i: str(min(100, i // 3)),
             {"unit_of_measurement": "%", "friendly_name": "Washing machine Program progress"}),
        ]

        def write(i):
            entity, state, attributes = entities[i % len(entities)]
            try:
                self.ha.call("POST", f"/api/states/{entity}", {"state": state(i), "attributes": attributes}, timeout=10)
                with self.lock:
                    self.stats["noise"] += 1
            except OSError:
                time.sleep(0.2)  # HA restarting

        def run():
            index = 0
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                if index % 8 == 7:
                    burst = [threading.Thread(target=write, args=(index + k,)) for k in range(4)]
                    for thread in burst:
                        thread.start()
                    for thread in burst:
                        thread.join()
                    index += 4
                else:
                    write(index)
                    index += 1
                time.sleep(0.25)
            self.write_stats()

        threading.Thread(target=run, daemon=True).start()

    def run(self):
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "play" and len(words) >= 2:
                threading.Thread(target=self.play, args=(words[1], words[2] if len(words) > 2 else "x1c"),
                                 daemon=True).start()
            elif words[0] == "restart-ha":
                self.action("restart-ha")
                self.action("wait-ha")
            elif words[0] == "noise" and len(words) == 2:
                self.noise(float(words[1]))
            elif words[0] == "states" and len(words) == 2:
                with open(words[1] + ".tmp", "w") as f:
                    json.dump(list(self.ha.states().values()), f)
                os.replace(words[1] + ".tmp", words[1])
                with self.lock:
                    self.stats["states"] += 1
                self.write_stats()
            else:
                print(f"unknown command: {line.strip()}", file=sys.stderr, flush=True)

    def stop(self):
        for printer in self.printers.values():
            printer.stop()
        if self.ha:
            self.ha.stop()
        if self.args.keep:
            print(f"kept: HA {self.ha.dir if self.ha else '-'}, brokers {self.workdir}", file=sys.stderr, flush=True)
        else:
            if self.ha:
                shutil.rmtree(self.ha.dir, ignore_errors=True)
            shutil.rmtree(self.workdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--stats", required=True)
    parser.add_argument("--keep", action="store_true", help="keep HA's config directory and the brokers' files")
    parser.add_argument("--printers", default="x1c,p1s", help="which simulated printers (x1c, p1s, a1mini)")
    args = parser.parse_args()
    chain = Chain(args)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        chain.start()
        chain.run()
    except (SystemExit, TimeoutError, OSError) as error:
        if isinstance(error, SystemExit) and error.code in (0, None):
            return
        chain.stats["error"] = str(error)
        chain.write_stats()
        print(f"bambu chain: {error}", file=sys.stderr, flush=True)
        raise SystemExit(1)
    finally:
        chain.stop()


if __name__ == "__main__":
    main()
