"""Home Assistant WebSocket messages in HA's own wire format.

Shared by make_samples.py (SampleEvents/) and bench/generate_events.py:
compact JSON as HA's orjson writes it, state objects with attributes,
last_changed / last_reported / last_updated and context, events with
origin, time_fired and context.
"""
import datetime as _dt
import json
import random

EPOCH = _dt.datetime(2026, 11, 20, 9, 0, 0, tzinfo=_dt.timezone.utc)
_ULID_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def iso(seconds):
    """HA's timestamp format: microseconds and +00:00."""
    return (EPOCH + _dt.timedelta(seconds=seconds)).isoformat(timespec="microseconds")


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


class Wire:
    """Keeps entity states and writes the messages HA would send about them.

    A session is what `printbridge record` captures on a connection:
    auth, then the answers to PrintBridge's requests in order (ids from 1:
    supported_features, the entity registry, get_states, the state_changed
    subscription, the bambu_lab_event subscription), then events.
    """

    STATE_CHANGED_ID = 4
    BAMBU_EVENT_ID = 5

    def __init__(self, seed, subscription_id=STATE_CHANGED_ID):
        self.rng = random.Random(seed)
        self.states = {}
        self.registry = []  # list_for_display entries: ei, di, pl, tk
        self.subscription_id = subscription_id
        self.lines = []  # (time, text): written in time order, as HA sent them
        self.clock = float("-inf")  # the latest time written so far
        self.batch = None

    def ulid(self):
        return "01JD" + "".join(self.rng.choice(_ULID_ALPHABET) for _ in range(22))

    def context(self):
        return {"id": self.ulid(), "parent_id": None, "user_id": None}

    def define(self, entity_id, state, attributes, t, platform=None, translation_key=None, device_id=None):
        stamp = iso(t)
        self.states[entity_id] = {
            "entity_id": entity_id, "state": str(state), "attributes": attributes,
            "last_changed": stamp, "last_reported": stamp, "last_updated": stamp,
            "context": self.context(),
        }
        if platform:
            entry = {"ei": entity_id, "pl": platform}
            if device_id:
                entry["di"] = device_id
            if translation_key:
                entry["tk"] = translation_key
            self.registry.append(entry)

    def raw(self, line, t=None):
        self.lines.append((self.clock if t is None else t, line))

    def emit(self, obj, t=None):
        """A message at time t (default: with the latest one so far)."""
        if t is not None:
            self.clock = max(self.clock, t)
        if self.batch is not None:
            self.batch.append((t, obj))
        else:
            self.raw(dumps(obj), t)

    def coalesced(self):
        """Messages emitted inside `with wire.coalesced():` go out as one
        JSON array, as HA's writer sends whatever it has queued
        (homeassistant/components/websocket_api/http.py, _writer)."""
        wire = self

        class Batch:
            def __enter__(self):
                wire.batch = []

            def __exit__(self, *exc):
                batch, wire.batch = wire.batch, None
                times = [t for t, _ in batch if t is not None]
                if batch:
                    wire.raw(dumps([obj for _, obj in batch] if len(batch) > 1 else batch[0][1]),
                             min(times) if times else None)
        return Batch()

    def auth(self, version="2026.11.2"):
        self.emit({"type": "auth_required", "ha_version": version})
        self.emit({"type": "auth_ok", "ha_version": version})

    def session(self):
        """A connection as PrintBridge opens it (record captures the answers)."""
        self.auth()
        self.emit({"id": 1, "type": "result", "success": True, "result": None})
        self.emit({"id": 2, "type": "result", "success": True,
                   "result": {"entity_categories": {"0": "config", "1": "diagnostic"}, "entities": self.registry}})
        self.get_states(3)
        self.emit({"id": self.STATE_CHANGED_ID, "type": "result", "success": True, "result": None})
        self.emit({"id": self.BAMBU_EVENT_ID, "type": "result", "success": True, "result": None})

    def get_states(self, request_id=1):
        self.emit({"id": request_id, "type": "result", "success": True,
                   "result": list(self.states.values())})

    def subscribed(self):
        self.emit({"id": self.subscription_id, "type": "result", "success": True, "result": None})

    def pong(self, request_id):
        self.emit({"id": request_id, "type": "pong"})

    def change(self, entity_id, state, t, attributes=None):
        """A state_changed event; returns nothing if the state is unchanged."""
        old = self.states[entity_id]
        new = dict(old)
        stamp = iso(t)
        new_attributes = old["attributes"] if attributes is None else attributes
        if str(state) == old["state"] and new_attributes == old["attributes"]:
            return
        new["state"] = str(state)
        new["attributes"] = new_attributes
        new["last_updated"] = stamp
        new["last_reported"] = stamp
        if str(state) != old["state"]:
            new["last_changed"] = stamp
        new["context"] = self.context()
        self.states[entity_id] = new
        self.emit({"id": self.subscription_id, "type": "event", "event": {
            "event_type": "state_changed",
            "data": {"entity_id": entity_id, "old_state": old, "new_state": new},
            "origin": "LOCAL", "time_fired": stamp, "context": new["context"]}}, t)

    def bus_event(self, event_type, data, t):
        """Another bus event (ha-bambulab's bambu_lab_event), on its own subscription."""
        self.emit({"id": self.BAMBU_EVENT_ID, "type": "event", "event": {
            "event_type": event_type, "data": data, "origin": "LOCAL", "time_fired": iso(t),
            "context": self.context()}}, t)

    def ordered(self):
        """The lines in time order (stable: messages at one time keep their order)."""
        return [text for _, text in sorted(self.lines, key=lambda entry: entry[0])]

    def save(self, path):
        with open(path, "w", encoding="utf-8") as out:
            out.write("\n".join(self.ordered()) + "\n")


# ha-bambulab's print_status and stage options (definitions.py, pybambu/const.py;
# translations/en.json names the states).
STATUS_OPTIONS = ["failed", "finish", "idle", "init", "offline", "pause", "prepare", "running", "slicing"]
STAGE_OPTIONS = [
    "printing", "auto_bed_leveling", "heatbed_preheating", "sweeping_xy_mech_mode", "changing_filament",
    "m400_pause", "paused_filament_runout", "heating_hotend", "calibrating_extrusion", "scanning_bed_surface",
    "inspecting_first_layer", "identifying_build_plate_type", "calibrating_micro_lidar", "homing_toolhead",
    "cleaning_nozzle_tip", "checking_extruder_temperature", "paused_user", "paused_front_cover_falling",
    "calibrating_extrusion_flow", "paused_nozzle_temperature_malfunction",
    "paused_heat_bed_temperature_malfunction", "filament_unloading", "paused_skipped_step", "filament_loading",
    "calibrating_motor_noise", "paused_ams_lost", "paused_low_fan_speed_heat_break",
    "paused_chamber_temperature_control_error", "cooling_chamber", "paused_user_gcode", "motor_noise_showoff",
    "paused_nozzle_filament_covered_detected", "paused_cutter_error", "paused_first_layer_error",
    "paused_nozzle_clog", "idle", "unknown", "offline",
]


class BambuPrinter:
    """The ha-bambulab entities of one printer, as its definitions.py and
    translations/en.json make them: the entity id is the HA device's name
    and the English entity name, slugified (the device is named
    "<MODEL>_<SERIAL>" unless its owner renamed it). Remaining time is in
    hours (ha-bambulab's suggested unit). Dual-nozzle printers (H2D) also
    have a left and a right nozzle temperature and target."""

    def __init__(self, wire, prefix, name, t, remaining_unit="h", dual_nozzle=False):
        self.wire = wire
        self.prefix = prefix
        self.name = name
        self.unit = remaining_unit
        self.device_id = "%032x" % wire.rng.getrandbits(128)
        s, b = f"sensor.{prefix}", f"binary_sensor.{prefix}"
        temperature = {"state_class": "measurement", "unit_of_measurement": "°C", "device_class": "temperature",
                       "icon": "mdi:printer-3d-nozzle"}
        # key: (entity id, translation key, English name, attributes, first state)
        spec = {
            "status": (s + "_print_status", "print_status", "Print status",
                       {"options": STATUS_OPTIONS, "device_class": "enum", "icon": "mdi:list-status"}, "idle"),
            "progress": (s + "_print_progress", "print_progress", "Print progress",
                         {"state_class": "measurement", "unit_of_measurement": "%", "icon": "mdi:progress-clock"}, "100"),
            "layer": (s + "_current_layer", "current_layer", "Current layer",
                      {"state_class": "measurement", "icon": "mdi:printer-3d-nozzle"}, "0"),
            "total": (s + "_total_layer_count", "total_layers", "Total layer count",
                      {"state_class": "measurement", "icon": "mdi:printer-3d-nozzle"}, "0"),
            "remaining": (s + "_remaining_time", "remaining_time", "Remaining time",
                          {"unit_of_measurement": remaining_unit, "device_class": "duration", "icon": "mdi:timer-sand"}, "0"),
            "nozzle": (s + "_nozzle_temperature", "nozzle_temp", "Nozzle temperature", temperature, "26"),
            "nozzle_target": (s + "_nozzle_target_temperature", "target_nozzle_temp", "Nozzle target temperature",
                              temperature, "0"),
            "bed": (s + "_bed_temperature", "bed_temp", "Bed temperature", temperature, "24"),
            "bed_target": (s + "_bed_target_temperature", "target_bed_temp", "Bed target temperature", temperature, "0"),
            "task": (s + "_task_name", "subtask_name", "Task name", {"icon": "mdi:file"}, "calibration_cube"),
            "gcode": (s + "_gcode_filename", "gcode_file", "Gcode filename", {"icon": "mdi:file"},
                      "/data/Metadata/plate_1.gcode"),
            "stage": (s + "_current_stage", "stage", "Current stage",
                      {"options": STAGE_OPTIONS, "device_class": "enum", "icon": "mdi:file-tree"}, "idle"),
            "wifi": (s + "_wi_fi_signal", "wifi_signal", "Wi-Fi signal",
                     {"state_class": "measurement", "unit_of_measurement": "dBm", "device_class": "signal_strength"}, "-52"),
            "fan": (s + "_cooling_fan_speed", "cooling_fan_speed", "Cooling fan speed",
                    {"state_class": "measurement", "unit_of_measurement": "%", "icon": "mdi:fan"}, "0"),
            "error": (b + "_print_error", "print_error", "Print error", {"device_class": "problem"}, "off"),
            "hms": (b + "_hms_errors", "hms_errors", "HMS errors", {"device_class": "problem", "Count": 0}, "off"),
        }
        if dual_nozzle:
            for side in ("left", "right"):
                spec[side] = (f"{s}_{side}_nozzle_temperature", f"{side}_nozzle_temp",
                              f"{side.capitalize()} nozzle temperature", temperature, "26")
                spec[side + "_target"] = (f"{s}_{side}_nozzle_target_temperature", f"{side}_target_nozzle_temp",
                                          f"{side.capitalize()} nozzle target temperature", temperature, "0")
        self.ids = {key: value[0] for key, value in spec.items()}
        self.attributes = {}
        for key, (entity_id, translation_key, label, attributes, first) in spec.items():
            full = dict(attributes, friendly_name=f"{name} {label}")
            self.attributes[key] = full
            wire.define(entity_id, first, full, t, platform="bambu_lab", translation_key=translation_key,
                        device_id=self.device_id)

    def set(self, key, value, t, attributes=None):
        self.wire.change(self.ids[key], value, t, attributes)

    def error(self, code, text, t):
        """The print error binary sensor: on with ha-bambulab's code and text, or off."""
        attributes = dict(self.attributes["error"])
        if code:
            attributes.update({"code": code, "error": text})
        self.set("error", "on" if code else "off", t, attributes)

    def hms(self, errors, t):
        """The HMS errors binary sensor as pybambu's HMSList writes it: `Count`,
        then per error `N-Code` (HMS_…), `N-Error` (the text of
        pybambu/hms_error_text/hms_<language>.json.gz), `N-Wiki` (its
        wiki_links.json.gz page) and `N-Severity` (HMS_SEVERITY_LEVELS by the
        code's third group). `errors`: (code, text, wiki path) tuples."""
        attributes = {"device_class": "problem", "friendly_name": self.attributes["hms"]["friendly_name"]}
        severities = {1: "fatal", 2: "serious", 3: "common", 4: "info"}
        for index, (code, text, wiki) in enumerate(errors, 1):
            attributes[f"{index}-Code"] = f"HMS_{code}"
            attributes[f"{index}-Error"] = text
            attributes[f"{index}-Wiki"] = f"https://wiki.bambulab.com{wiki}" if wiki else "https://wiki.bambulab.com/en/hms/home"
            attributes[f"{index}-Severity"] = severities.get(int(code.split("_")[2], 16), "unknown")
        attributes["Count"] = len(errors)
        self.set("hms", "on" if errors else "off", t, attributes)

    def bus(self, event_type, t):
        """ha-bambulab's bambu_lab_event for this printer (coordinator.py)."""
        self.wire.bus_event("bambu_lab_event", {"device_id": self.device_id, "name": "", "type": event_type}, t)

    def remaining(self, minutes, t):
        value = minutes if self.unit == "min" else round(minutes / 60, 3) if self.unit == "h" else minutes * 60
        self.set("remaining", value, t)

    def start(self, task, total_layers, minutes, t):
        """prepare (heating, levelling) → running. Returns the time printing began."""
        self.set("status", "prepare", t)
        self.set("stage", "heatbed_preheating", t + 1)
        self.set("task", task, t + 1)
        self.set("gcode", "/data/Metadata/plate_1.gcode", t + 1)
        self.set("progress", 0, t + 2)
        self.set("total", total_layers, t + 2)
        self.set("layer", 0, t + 2)
        self.remaining(minutes, t + 2)
        self.set("nozzle_target", 220, t + 3)
        self.set("bed_target", 65, t + 3)
        self.set("bed", 65, t + 95)
        self.set("stage", "auto_bed_leveling", t + 100)
        self.set("nozzle", 220, t + 160)
        self.set("status", "running", t + 180)
        self.set("stage", "printing", t + 180)
        return t + 180

    def progress_to(self, percent, layers, minutes_left, t, jitter=True):
        # ha-bambulab updates every entity from one printer report at once:
        # the events arrive together, milliseconds apart.
        rng = self.wire.rng
        self.set("progress", percent, t)
        self.set("layer", layers, t + 0.004)
        self.remaining(minutes_left, t + 0.009)
        if jitter:
            self.set("nozzle", 220 + rng.choice([-1, 0, 1]), t + 0.012)
            self.set("fan", rng.choice([60, 70, 80, 100]), t + 0.015)

    def finish(self, total_layers, t):
        self.set("progress", 100, t)
        self.set("layer", total_layers, t + 0.004)
        self.set("remaining", 0, t + 0.008)
        self.set("status", "finish", t + 0.011)
        self.set("stage", "idle", t + 0.013)
        self.set("nozzle_target", 0, t + 3)
        self.set("bed_target", 0, t + 3)
        self.set("nozzle", 180, t + 60)
        self.set("bed", 50, t + 60)


HOUSEHOLD = [
    ("light.kitchen", ["on", "off"], {"supported_color_modes": ["brightness"], "color_mode": "brightness",
                                      "brightness": 180, "friendly_name": "Kitchen", "supported_features": 32}),
    ("light.living_room_lamp", ["on", "off"], {"friendly_name": "Living room lamp", "supported_features": 0}),
    ("sensor.living_room_temperature", None, {"state_class": "measurement", "unit_of_measurement": "°C",
                                               "device_class": "temperature", "friendly_name": "Living room temperature"}),
    ("sensor.outdoor_humidity", None, {"state_class": "measurement", "unit_of_measurement": "%",
                                        "device_class": "humidity", "friendly_name": "Outdoor humidity"}),
    ("binary_sensor.hallway_motion", ["on", "off"], {"device_class": "motion", "friendly_name": "Hallway motion"}),
    ("sensor.power_consumption", None, {"state_class": "measurement", "unit_of_measurement": "W",
                                         "device_class": "power", "friendly_name": "Power consumption"}),
    ("switch.coffee_machine", ["on", "off"], {"friendly_name": "Coffee machine"}),
    ("sensor.router_download_speed", None, {"unit_of_measurement": "Mbit/s", "friendly_name": "Router download speed"}),
    ("media_player.living_room_tv", ["playing", "paused", "idle"], {"volume_level": 0.3, "is_volume_muted": False,
                                                                    "friendly_name": "Living room TV", "supported_features": 152461}),
    ("sensor.printer_room_temperature", None, {"state_class": "measurement", "unit_of_measurement": "°C",
                                                "device_class": "temperature", "friendly_name": "Printer room temperature"}),
    ("sensor.phone_battery_level", None, {"unit_of_measurement": "%", "device_class": "battery",
                                           "friendly_name": "Phone battery level"}),
    # An appliance whose id ends like a printer field; the registry says it is Miele's.
    ("sensor.washing_machine_remaining_time", None, {"unit_of_measurement": "min", "device_class": "duration",
                                                     "friendly_name": "Washing machine Remaining time"}),
    ("person.alex", ["home", "not_home"], {"editable": True, "id": "alex", "latitude": 52.52, "longitude": 13.40,
                                           "gps_accuracy": 12, "source": "device_tracker.alex_phone",
                                           "user_id": "5f8a0c1f6a7b4e0f9d1f4a2b3c4d5e6f", "friendly_name": "Alex"}),
]


class Household:
    """Ordinary home entities whose events are noise to PrintBridge."""

    PLATFORMS = {"light": "hue", "sensor": "template", "binary_sensor": "zha", "switch": "shelly",
                 "media_player": "cast", "person": "person"}

    def __init__(self, wire, t):
        self.wire = wire
        for entity_id, choices, attributes in HOUSEHOLD:
            appliance = entity_id == "sensor.washing_machine_remaining_time"
            wire.define(entity_id, choices[0] if choices else "21.5", attributes, t,
                        platform="miele" if appliance else self.PLATFORMS[entity_id.split(".")[0]],
                        translation_key="remaining_time" if appliance else None,
                        device_id="%032x" % wire.rng.getrandbits(128))

    def tick(self, t):
        entity_id, choices, _ = self.wire.rng.choice(HOUSEHOLD)
        if choices:
            value = self.wire.rng.choice(choices)
        else:
            value = round(self.wire.rng.uniform(10, 400), 1)
        self.wire.change(entity_id, value, t)
