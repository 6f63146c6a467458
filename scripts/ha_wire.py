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
    """Keeps entity states and writes the messages HA would send about them."""

    def __init__(self, seed, subscription_id=2):
        self.rng = random.Random(seed)
        self.states = {}
        self.subscription_id = subscription_id
        self.lines = []

    def ulid(self):
        return "01JD" + "".join(self.rng.choice(_ULID_ALPHABET) for _ in range(22))

    def context(self):
        return {"id": self.ulid(), "parent_id": None, "user_id": None}

    def define(self, entity_id, state, attributes, t):
        stamp = iso(t)
        self.states[entity_id] = {
            "entity_id": entity_id, "state": str(state), "attributes": attributes,
            "last_changed": stamp, "last_reported": stamp, "last_updated": stamp,
            "context": self.context(),
        }

    def raw(self, line):
        self.lines.append(line)

    def emit(self, obj):
        self.lines.append(dumps(obj))

    def auth(self, version="2026.11.2"):
        self.emit({"type": "auth_required", "ha_version": version})
        self.emit({"type": "auth_ok", "ha_version": version})

    def get_states(self, request_id=1):
        self.emit({"id": request_id, "type": "result", "success": True,
                   "result": list(self.states.values())})

    def subscribed(self):
        self.emit({"id": self.subscription_id, "type": "result", "success": True, "result": None})

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
            "origin": "LOCAL", "time_fired": stamp, "context": new["context"]}})

    def save(self, path):
        with open(path, "w", encoding="utf-8") as out:
            out.write("\n".join(self.lines) + "\n")


class BambuPrinter:
    """The ha-bambulab entities of one printer, with English entity ids."""

    STATUS_OPTIONS = ["failed", "finish", "idle", "init", "offline", "pause", "prepare",
                      "running", "slicing", "unknown"]

    def __init__(self, wire, prefix, name, t, remaining_unit="min"):
        self.wire = wire
        self.prefix = prefix
        self.name = name
        self.unit = remaining_unit
        p = f"sensor.{prefix}"
        self.ids = {
            "status": p + "_print_status", "progress": p + "_print_progress",
            "layer": p + "_current_layer", "total": p + "_total_layer_count",
            "remaining": p + "_remaining_time", "nozzle": p + "_nozzle_temperature",
            "nozzle_target": p + "_target_nozzle_temperature", "bed": p + "_bed_temperature",
            "bed_target": p + "_target_bed_temperature", "task": p + "_task_name",
            "subtask": p + "_subtask_name", "stage": p + "_current_stage",
            "wifi": p + "_wifi_signal", "fan": p + "_cooling_fan_speed",
            "error": f"binary_sensor.{prefix}_print_error",
        }
        d = wire.define
        d(self.ids["status"], "idle", {"options": self.STATUS_OPTIONS, "device_class": "enum",
                                       "icon": "mdi:list-status", "friendly_name": f"{name} Print status"}, t)
        d(self.ids["progress"], "100", {"state_class": "measurement", "unit_of_measurement": "%",
                                        "icon": "mdi:progress-clock", "friendly_name": f"{name} Print progress"}, t)
        d(self.ids["layer"], "0", {"unit_of_measurement": " ", "icon": "mdi:printer-3d-nozzle",
                                   "friendly_name": f"{name} Current layer"}, t)
        d(self.ids["total"], "0", {"unit_of_measurement": " ", "icon": "mdi:printer-3d-nozzle",
                                   "friendly_name": f"{name} Total layer count"}, t)
        d(self.ids["remaining"], "0", {"unit_of_measurement": remaining_unit, "device_class": "duration",
                                       "icon": "mdi:timer-sand", "friendly_name": f"{name} Remaining time"}, t)
        for key, label, value in (("nozzle", "Nozzle temperature", "26"), ("nozzle_target", "Target nozzle temperature", "0"),
                                  ("bed", "Bed temperature", "24"), ("bed_target", "Target bed temperature", "0")):
            d(self.ids[key], value, {"state_class": "measurement", "unit_of_measurement": "°C",
                                     "device_class": "temperature", "friendly_name": f"{name} {label}"}, t)
        d(self.ids["task"], "calibration_cube.3mf", {"icon": "mdi:file", "friendly_name": f"{name} Task name"}, t)
        d(self.ids["subtask"], "calibration_cube", {"icon": "mdi:file", "friendly_name": f"{name} Subtask name"}, t)
        d(self.ids["stage"], "idle", {"device_class": "enum", "icon": "mdi:file-tree",
                                      "friendly_name": f"{name} Current stage"}, t)
        d(self.ids["wifi"], "-52", {"state_class": "measurement", "unit_of_measurement": "dBm",
                                    "device_class": "signal_strength", "friendly_name": f"{name} Wi-Fi signal"}, t)
        d(self.ids["fan"], "0", {"state_class": "measurement", "unit_of_measurement": "%",
                                 "icon": "mdi:fan", "friendly_name": f"{name} Cooling fan speed"}, t)
        d(self.ids["error"], "off", {"device_class": "problem", "friendly_name": f"{name} Print error"}, t)

    def set(self, key, value, t, attributes=None):
        self.wire.change(self.ids[key], value, t, attributes)

    def remaining(self, minutes, t):
        value = minutes if self.unit == "min" else round(minutes / 60, 2) if self.unit == "h" else minutes * 60
        self.set("remaining", value, t)

    def start(self, task, total_layers, minutes, t):
        """prepare (heating, levelling) → running. Returns the time printing began."""
        self.set("status", "prepare", t)
        self.set("stage", "heatbed_preheating", t + 1)
        self.set("task", task, t + 1)
        self.set("subtask", task.rsplit(".", 1)[0], t + 1)
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
    ("person.alex", ["home", "not_home"], {"editable": True, "id": "alex", "latitude": 52.52, "longitude": 13.40,
                                           "gps_accuracy": 12, "source": "device_tracker.alex_phone",
                                           "user_id": "5f8a0c1f6a7b4e0f9d1f4a2b3c4d5e6f", "friendly_name": "Alex"}),
]


class Household:
    """Ordinary home entities whose events are noise to PrintBridge."""

    def __init__(self, wire, t):
        self.wire = wire
        for entity_id, choices, attributes in HOUSEHOLD:
            wire.define(entity_id, choices[0] if choices else "21.5", attributes, t)

    def tick(self, t):
        entity_id, choices, _ = self.wire.rng.choice(HOUSEHOLD)
        if choices:
            value = self.wire.rng.choice(choices)
        else:
            value = round(self.wire.rng.uniform(10, 400), 1)
        self.wire.change(entity_id, value, t)
