"""A household and registered printers inside Home Assistant, for PrintBridge's tests.

Not an integration anyone installs: Tests/DaemonTests/RealHA/real_ha.py copies
it into the test HA's config directory.

    printbridge_test:
      household: 2000          # sensor.household_<n>_power, registered
      printers:                # registered as ha-bambulab registers them
        - x1c_00m09a350100123

- Household entities are registered (platform printbridge_test), as most of a
  real house's are, so the registry PrintBridge reads is a house's size.
- A printer's entities are registry entries of platform `bambu_lab` with
  ha-bambulab v2.0.46's translation keys (as its real registry shows them:
  SampleEvents' captures), without an entity object: their states are written
  by the test through HA's REST API. `entity_registry_updated` fires for each.
- Services:
  register_printer {prefix}: registers a printer's entities while HA runs
    (a printer's integration set up; PrintBridge picks it up from the events).
  household {rate, seconds, stats_file}: rate household state changes a second
    (hass.states.async_set, as an integration writes them) for seconds (0:
    until the next call with rate 0); the count so far goes to stats_file
    (JSON {"changes": N}) every second and at the end.
  pause_cycle {prefix, first, count, interval, log_file}: the printer runs,
    then pauses and resumes count times, a pause every interval seconds, as
    ha-bambulab writes a pause (the stage paused_user, then the status pause,
    so the pause has its reason at once). Pause n (first, first+1, ...) is
    told apart by its status entity's name, "P<n> Print status" (the agent's
    alert then says "... paused on P<n>"); the time.monotonic() of its write
    is appended to log_file as "<seconds> P<n>": the start of the alert
    latency (scripts/bench/ha_load_benchmark.py; the mock APNs stamps the
    alert's arrival with the same clock).
"""
import asyncio
import json
import os
import time

from homeassistant.core import HomeAssistant, ServiceCall
from homeassistant.helpers import entity_registry as er

DOMAIN = "printbridge_test"

# ha-bambulab's entities PrintBridge reads (and its buttons), with the
# translation keys its registry gives them.
BAMBU_ENTITIES = [
    ("sensor", "print_status", "print_status"),
    ("sensor", "print_progress", "print_progress"),
    ("sensor", "task_name", "subtask_name"),
    ("sensor", "current_layer", "current_layer"),
    ("sensor", "total_layer_count", "total_layers"),
    ("sensor", "remaining_time", "remaining_time"),
    ("sensor", "nozzle_temperature", "nozzle_temp"),
    ("sensor", "nozzle_target_temperature", "target_nozzle_temp"),
    ("sensor", "bed_temperature", "bed_temp"),
    ("sensor", "current_stage", "stage"),
    ("binary_sensor", "print_error", "print_error"),
    ("button", "pause_printing", "pause"),
    ("button", "resume_printing", "resume"),
    ("button", "stop_printing", "stop"),
]


def register_printer(hass: HomeAssistant, prefix: str) -> None:
    registry = er.async_get(hass)
    for domain, suffix, key in BAMBU_ENTITIES:
        registry.async_get_or_create(
            domain, "bambu_lab", f"{prefix}_{suffix}", suggested_object_id=f"{prefix}_{suffix}",
            translation_key=key, has_entity_name=True, original_name=suffix.replace("_", " ").capitalize())


class Household:
    def __init__(self, hass: HomeAssistant, count: int):
        self.hass = hass
        self.ids = []
        registry = er.async_get(hass)
        for index in range(count):
            entry = registry.async_get_or_create(
                "sensor", DOMAIN, f"household-{index}", suggested_object_id=f"household_{index}_power",
                has_entity_name=True, original_name="Power", unit_of_measurement="W")
            self.ids.append(entry.entity_id)
        self.task = None
        self.changes = 0

    async def run(self, rate: float, seconds: float, stats_file: str | None) -> None:
        start = time.monotonic()
        tick = 0
        step = 0.01  # 100 writes-rounds a second
        while seconds == 0 or time.monotonic() - start < seconds:
            tick += 1
            due = start + tick * step
            writes = int(rate * tick * step) - int(rate * (tick - 1) * step)
            for _ in range(writes):
                # Round the house: each write is a change (HA fires nothing
                # for a state written again unchanged), its value the round's number.
                entity = self.ids[self.changes % len(self.ids)]
                self.hass.states.async_set(entity, str(self.changes // len(self.ids) % 3000), {
                    "unit_of_measurement": "W", "device_class": "power", "state_class": "measurement",
                    "friendly_name": f"Socket {self.changes % len(self.ids)} Power"})
                self.changes += 1
            if stats_file and tick % 100 == 0:
                self.write(stats_file)
            await asyncio.sleep(max(0, due - time.monotonic()))
        if stats_file:
            self.write(stats_file)

    def write(self, path: str) -> None:
        with open(path + ".tmp", "w") as f:
            json.dump({"changes": self.changes}, f)
        os.replace(path + ".tmp", path)


async def async_setup(hass: HomeAssistant, config: dict) -> bool:
    conf = config.get(DOMAIN) or {}
    household = Household(hass, int(conf.get("household", 0)))
    for prefix in conf.get("printers", []):
        register_printer(hass, prefix)

    async def registered(call: ServiceCall) -> None:
        register_printer(hass, call.data["prefix"])

    async def flood(call: ServiceCall) -> None:
        if household.task:
            household.task.cancel()
            household.task = None
        rate = float(call.data.get("rate", 0))
        if rate > 0 and household.ids:
            household.task = hass.async_create_background_task(
                household.run(rate, float(call.data.get("seconds", 0)), call.data.get("stats_file")),
                "printbridge_test household")

    async def pause_cycle(call: ServiceCall) -> None:
        hass.async_create_background_task(
            cycle(hass, call.data["prefix"], int(call.data.get("first", 0)), int(call.data["count"]),
                  float(call.data["interval"]), call.data["log_file"]),
            "printbridge_test pause cycle")

    hass.services.async_register(DOMAIN, "pause_cycle", pause_cycle)
    hass.services.async_register(DOMAIN, "register_printer", registered)
    hass.services.async_register(DOMAIN, "household", flood)
    return True


async def cycle(hass: HomeAssistant, prefix: str, first: int, count: int, interval: float,
                log_file: str) -> None:
    status, stage = f"sensor.{prefix}_print_status", f"sensor.{prefix}_current_stage"
    options = {"device_class": "enum", "options": ["failed", "finish", "idle", "offline", "prepare", "running", "pause"]}
    with open(log_file, "a") as log:
        for n in range(first, first + count):
            name = {"friendly_name": f"P{n} Print status"}
            hass.states.async_set(stage, "printing", {"friendly_name": f"P{n} Current stage"})
            hass.states.async_set(status, "running", dict(options, **name))
            await asyncio.sleep(interval / 2)
            hass.states.async_set(stage, "paused_user", {"friendly_name": f"P{n} Current stage"})
            log.write(f"{time.monotonic():.6f} P{n}\n")
            log.flush()
            hass.states.async_set(status, "pause", dict(options, **name))
            await asyncio.sleep(interval / 2)
