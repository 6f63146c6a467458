"""Printers of Home Assistant's OctoPrint and PrusaLink integrations and of
the Moonraker custom integration, as HA writes their entities.

Each class names the source its entities come from. A coordinator update
writes the entities of one integration in the order they were added
(HA calls the coordinator's listeners in order), a few milliseconds apart.
"""

TEMPERATURE = {"state_class": "measurement", "unit_of_measurement": "°C", "device_class": "temperature"}


class IntegrationPrinter:
    """Entities of one printer: key -> (entity id, translation key, friendly name, attributes, first state)."""

    def __init__(self, wire, platform, spec, t, registry=True):
        self.wire = wire
        self.device_id = "%032x" % wire.rng.getrandbits(128)
        self.ids = {}
        self.attributes = {}
        self.order = list(spec)
        for key, (entity_id, translation_key, name, attributes, first) in spec.items():
            full = dict(attributes, friendly_name=name)
            self.ids[key] = entity_id
            self.attributes[key] = full
            wire.define(entity_id, first, full, t, platform=platform if registry else None,
                        translation_key=translation_key, device_id=self.device_id)

    def update(self, t, **values):
        """One coordinator update: the given entities, in the integration's order, 2 ms apart."""
        n = 0
        for key in self.order:
            if key in values:
                self.wire.change(self.ids[key], values[key], t + 0.002 * n)
                n += 1


class OctoPrint(IntegrationPrinter):
    """homeassistant/components/octoprint/sensor.py and binary_sensor.py:
    entities named "OctoPrint <sensor>" (no device name in the id, `_2` for
    a second OctoPrint); tool sensors first (added when the printer is
    first read), then Current State, Job Percentage, Estimated Finish Time,
    Start Time, Current File, Current File Size. `enum_states`: the newer
    integration's ENUM values (`_API_STATE_VALUE`, translation key
    "status"); else OctoPrint's state text (octoprint/util/comm.py
    getStateString), as releases before the ENUM wrote. The coordinator
    polls every 30 s (__init__.py)."""

    ENUM = {"Operational": "operational", "Printing": "printing", "Cancelling": "cancelling",
            "Pausing": "pausing", "Paused": "paused", "Resuming": "resuming", "Finishing": "finishing",
            "Offline": "offline", "Error": "error", "Offline after error": "offline_after_error"}

    def __init__(self, wire, t, copy="", enum_states=True, registry=True):
        s, b = "sensor.octoprint_", "binary_sensor.octoprint_"
        self.enum_states = enum_states
        status_attributes = {"icon": "mdi:printer-3d"}
        if enum_states:
            status_attributes = {"options": ["open_serial", "detect_serial", "connecting", "operational",
                                             "starting_sd", "starting_streaming", "starting", "printing_sd",
                                             "printing_streaming", "printing", "cancelling", "pausing", "paused",
                                             "resuming", "finishing", "offline", "error", "offline_after_error",
                                             "transferring_file"],
                                 "device_class": "enum"}
        spec = {
            "printing": (b + "printing" + copy, None, "OctoPrint Printing", {"device_class": "running"}, "off"),
            "error": (b + "printing_error" + copy, None, "OctoPrint Printing Error", {"device_class": "problem"}, "off"),
            "tool0": (s + "actual_tool0_temp" + copy, None, "OctoPrint actual tool0 temp",
                      dict(TEMPERATURE, icon="mdi:printer-3d-nozzle-heat"), "24.8"),
            "tool0_target": (s + "target_tool0_temp" + copy, None, "OctoPrint target tool0 temp",
                             dict(TEMPERATURE, icon="mdi:printer-3d-nozzle-heat"), "0.0"),
            "bed": (s + "actual_bed_temp" + copy, None, "OctoPrint actual bed temp",
                    dict(TEMPERATURE, icon="mdi:printer-3d-nozzle-heat"), "23.9"),
            "bed_target": (s + "target_bed_temp" + copy, None, "OctoPrint target bed temp",
                           dict(TEMPERATURE, icon="mdi:printer-3d-nozzle-heat"), "0.0"),
            "state": (s + "current_state" + copy, "status" if enum_states else None, "OctoPrint Current State",
                      status_attributes, self.text("Operational")),
            "percentage": (s + "job_percentage" + copy, None, "OctoPrint Job Percentage",
                           {"unit_of_measurement": "%", "icon": "mdi:file-percent"}, "0"),
            "finish": (s + "estimated_finish_time" + copy, None, "OctoPrint Estimated Finish Time",
                       {"device_class": "timestamp", "icon": "mdi:clock-end"}, "unknown"),
            "start": (s + "start_time" + copy, None, "OctoPrint Start Time",
                      {"device_class": "timestamp", "icon": "mdi:clock-start"}, "unknown"),
        }
        if enum_states:
            spec["file"] = (s + "current_file" + copy, "file_name", "OctoPrint Current File", {}, "unavailable")
            spec["size"] = (s + "current_file_size" + copy, None, "OctoPrint Current File Size",
                            {"device_class": "data_size", "unit_of_measurement": "MB"}, "unavailable")
        super().__init__(wire, "octoprint", spec, t, registry=registry)

    def text(self, state):
        return self.ENUM[state] if self.enum_states else state

    def poll(self, t, state, percentage, finish=None, start=None, tool0=None, bed=None, file=None, size=None,
             printing=None, targets=None):
        """One 30 s poll. Percentage as HA rounds it; finish/start: iso strings (minute precision) or "unknown"."""
        values = {"state": self.text(state), "percentage": percentage}
        if printing is not None:
            values["printing"] = "on" if printing else "off"
        if tool0 is not None:
            values["tool0"] = tool0
        if bed is not None:
            values["bed"] = bed
        if targets is not None:
            values["tool0_target"], values["bed_target"] = targets
        if finish is not None:
            values["finish"] = finish
        if start is not None:
            values["start"] = start
        if file is not None and "file" in self.ids:
            values["file"] = file
            values["size"] = size
        self.update(t, **values)


class PrusaLink(IntegrationPrinter):
    """homeassistant/components/prusalink/sensor.py and strings.json: the
    device is named after the printer's hostname; the status entity has no
    name of its own (`sensor.<device>`, an ENUM of pyprusalink's
    PrinterState in lower case), the others are "<device> Progress",
    "Filename", "Print start", "Print finish" (timestamps), "Nozzle
    temperature", "Heatbed temperature". Status and job are separate
    coordinators (5 s while printing, else 30 s)."""

    OPTIONS = ["idle", "busy", "printing", "paused", "finished", "stopped", "error", "attention", "ready"]

    def __init__(self, wire, device, name, t, registry=True):
        s = f"sensor.{device}"
        spec = {
            "state": (s, "printer_state", name, {"options": self.OPTIONS, "device_class": "enum",
                                                  "icon": "mdi:printer-3d"}, "idle"),
            "bed": (s + "_heatbed_temperature", "heatbed_temperature", f"{name} Heatbed temperature", TEMPERATURE, "23.0"),
            "nozzle": (s + "_nozzle_temperature", "nozzle_temperature", f"{name} Nozzle temperature", TEMPERATURE, "24.0"),
            "speed": (s + "_print_speed", "print_speed", f"{name} Print speed", {"unit_of_measurement": "%"}, "100"),
            "progress": (s + "_progress", "progress", f"{name} Progress",
                         {"unit_of_measurement": "%", "icon": "mdi:progress-clock"}, "unavailable"),
            "filename": (s + "_filename", "filename", f"{name} Filename", {"icon": "mdi:file-image-outline"}, "unavailable"),
            "start": (s + "_print_start", "print_start", f"{name} Print start",
                      {"device_class": "timestamp", "icon": "mdi:clock-start"}, "unavailable"),
            "finish": (s + "_print_finish", "print_finish", f"{name} Print finish",
                       {"device_class": "timestamp", "icon": "mdi:clock-end"}, "unavailable"),
        }
        super().__init__(wire, "prusalink", spec, t, registry=registry)

    def status(self, t, state, bed=None, nozzle=None):
        values = {"state": state}
        if bed is not None:
            values["bed"] = bed
        if nozzle is not None:
            values["nozzle"] = nozzle
        self.update(t, **values)

    def job(self, t, progress, filename, start, finish):
        """The job coordinator: "unavailable" when there is no job (its available_fn)."""
        self.update(t, progress=progress, filename=filename, start=start, finish=finish)


class Moonraker(IntegrationPrinter):
    """marcolivierarsenault/moonraker-home-assistant, custom_components/
    moonraker/sensor.py: `has_entity_name` with English names and no
    translation keys, in the order of its sensor list: Printer State,
    Current Print State (Klipper's print_stats.state), Filename, Print
    Time Left, Print ETA, Progress, Total Layer, Current Layer, then the
    heaters' "Extruder Temperature" and "Bed Temperature". Not printing:
    filename "", progress, time left and layers 0, ETA unknown
    (empty_result_when_not_printing, calculate_eta)."""

    def __init__(self, wire, device, t):
        s = f"sensor.{device}"
        spec = {
            "printer_state": (s + "_printer_state", None, f"{device} Printer State",
                              {"options": ["ready", "startup", "shutdown", "error"], "device_class": "enum"}, "ready"),
            "state": (s + "_current_print_state", None, f"{device} Current Print State",
                      {"options": ["standby", "printing", "paused", "complete", "cancelled", "error"],
                       "device_class": "enum"}, "standby"),
            "filename": (s + "_filename", None, f"{device} Filename", {"icon": "mdi:file"}, ""),
            "time_left": (s + "_print_time_left", None, f"{device} Print Time Left",
                          {"unit_of_measurement": "h", "device_class": "duration", "icon": "mdi:timer"}, "0.0"),
            "eta": (s + "_print_eta", None, f"{device} Print ETA", {"device_class": "timestamp", "icon": "mdi:timer"},
                    "unknown"),
            "progress": (s + "_progress", None, f"{device} Progress", {"unit_of_measurement": "%", "icon": "mdi:percent"},
                         "0.0"),
            "total": (s + "_total_layer", None, f"{device} Total Layer", {"state_class": "measurement"}, "0.0"),
            "layer": (s + "_current_layer", None, f"{device} Current Layer", {}, "0"),
            "extruder": (s + "_extruder_temperature", None, f"{device} Extruder Temperature",
                         dict(TEMPERATURE, icon="mdi:printer-3d-nozzle-heat"), "25.1"),
            "bed": (s + "_bed_temperature", None, f"{device} Bed Temperature", dict(TEMPERATURE, icon="mdi:radiator"),
                    "24.6"),
        }
        super().__init__(wire, "moonraker", spec, t)
