#!/usr/bin/env python3
"""A simulated Bambu Lab printer on its LAN MQTT protocol, for ha-bambulab.

    python bambu_printer.py --workdir DIR [--access-code CODE]     (then `play <scenario> [printer]` on stdin)

Run with the Python of HA's environment (paho-mqtt 1.6.1, cryptography). Two
parts:

- `Broker`: Debian's mosquitto with TLS on <host>:8883, a self-signed
  certificate made at start, and a password file for user `bblp` with the
  access code. pybambu connects to port 8883 only (pybambu/bambu_client.py:
  `connect` and `try_connection` set `self._port = 8883`; the host is the
  config entry's `host`), so the port is fixed; a port already taken is an
  error that says so. In LAN mode the printer itself is the MQTT broker, so
  each simulated printer has a broker of its own on its own loopback address
  (127.0.0.2, 127.0.0.3, …: Linux routes all of 127/8 to `lo`): a printer
  dropping off the network is its broker going away (`Printer.drop`), which
  pybambu sees as the connection lost (bambu_client.py `on_disconnect` ->
  `_on_disconnect` -> `info.set_online(False)`: print_status and
  current_stage read "offline", definitions.py), and it reconnects every
  second (`reconnect_delay_set(min_delay=1, max_delay=1)`), asking
  get_version and pushall again. pybambu's TLS does not verify (`setup_tls`: CERT_NONE,
  `tls_insecure_set(True)`), so any certificate does. Users: `bblp` (every
  printer on a LAN has that user: `username_pw_set("bblp", access_code)`),
  so all simulated printers share one access code.
- `Printer`: one printer's MQTT side, as pybambu expects it. It subscribes to
  `device/<serial>/request` and publishes on `device/<serial>/report`
  (bambu_client.py `subscribe`, `publish`): `{"info": {"command": "get_version"}}`
  is answered with the module list (models.py `Info.info_update`, utils.py
  `get_printer_type`: an X1C is an `AP05` module without project name, a P1S
  `AP04`/`C12`), `{"pushing": {"command": "pushall"|"start"}}` with the full
  `print` report (`"command": "push_status"`, `"msg": 0`: bambu_client.py
  `try_connection` waits for exactly that; models.py `Device.print_update`
  keeps msg 0 as `push_all_data`). Later changes go out as delta reports
  (`"msg": 1`, only the fields that changed, as P1-series printers send them;
  pybambu keeps every field it is not sent: models.py `data.get(key, old)`).
  A report at least every 5 s keeps pybambu's watchdog (bambu_client.py
  `WatchdogThread`, 30 s without data means offline) quiet.

The report's fields and value shapes follow ha-bambulab's own data: the X1C
full report recorded from a real printer in `pybambu/tests/MOCK-X1CMULTIAMS.json`
and the P1P one in `pybambu/tests/P1P.json` (greghesp/ha-bambulab, later than
v2.0.46; they are real `pushall` answers with serials redacted), and the
example payloads in v2.0.46's pybambu/models.py comments (`PrintJob.print_update`,
`Info.print_update`, `AMSList.print_update`, `HMSList.print_update`,
`PrintError.print_update`, `Camera.print_update`). What pybambu reads from them:
gcode_state (upper case, const.py GCODE_STATE_OPTIONS), mc_percent, layer_num,
total_layer_num, mc_remaining_time (minutes), subtask_name, gcode_file, stg_cur
(const.py CURRENT_STAGE_IDS; X1 idle -1, P1 idle 255), print_error (an int: 0x0300400C
= 50348044 is a cancel), hms (a list of {attr, code}), temperatures as floats
(bed_temper, nozzle_temper, ...; pybambu rounds them), wifi_signal "-53dBm",
net.info[].ip (the printer's IPv4 as a little-endian int: its loopback
address here, so a P1S's or A1 mini's camera thread connects to port 6000 of
that address only, and is refused).

The A1 mini's report is the A1's real `pushall` of `pybambu/tests/MOCK-A1.json`
(later than v2.0.46) with its get_version's project name N1 (utils.py
`get_printer_type`: project N1 is an A1MINI; AMS Lite module `ams_f1/0`).
v2.0.46 knows no H2D (no device type, no left/right nozzle in models.py),
so there is none here.

Scenarios (SCENARIOS below) change those fields over time; each step is a
delay, then either the fields of one report or an action, and optionally a
mark (a name the chain records with the time it was published). Actions:
("drop", S) the printer leaves the network for S seconds (in the background:
later steps change its state unseen, and the full report it sends when back
shows where it got to); ("wait-back",) waits until it is back;
("restart-ha",) / ("wait-ha",) ask the chain (`on_action`) to restart Home
Assistant in the background / wait until it shows the printers again.
"""
import argparse
import copy
import datetime
import ipaddress
import json
import os
import socket
import ssl
import subprocess
import sys
import threading
import time

import paho.mqtt.client as mqtt

PORT = 8883  # pybambu/bambu_client.py: self._port = 8883
# Each printer's broker (the printer itself, in LAN mode) on a loopback address of its own.
HOSTS = {"x1c": "127.0.0.2", "p1s": "127.0.0.3", "a1mini": "127.0.0.4"}


def address_as_int(host):
    """The printer's IPv4 as its report's net.info[].ip (utils.py get_ip_address_from_int: little-endian)."""
    return int.from_bytes(socket.inet_aton(host), "little")


# HMS codes as the printer sends them ({attr, code}; models.py HMSList / HMSNotification.hms_code).
HMS_RUNOUT_AMS_A_SLOT_1 = {"attr": 0x07002000, "code": 0x00020001}  # HMS_0700_2000_0002_0001, serious
HMS_HEATBED_SENSOR = {"attr": 0x03000100, "code": 0x00010007}       # HMS_0300_0100_0001_0007, fatal (models.py comment)
HMS_AMS_B_SLOT_2_RUNOUT = {"attr": 0x07012100, "code": 0x00020001}  # HMS_0701_2100_0002_0001, serious
PRINT_ERROR_CANCELLED = 0x0300400C   # 50348044, models.py PrintJob.print_update "canceled by the user"
PRINT_ERROR_SPAGHETTI = 0x03008003   # 0300_8003, const_print_errors.py


def report_x1c():
    """An idle X1C's full report (MOCK-X1CMULTIAMS.json's `pushall.print`, trimmed to what pybambu v2.0.46 reads)."""
    return {
        "command": "push_status", "msg": 0, "sequence_id": "0",
        "gcode_state": "FINISH", "mc_percent": 100, "mc_remaining_time": 0, "mc_print_stage": "1",
        "layer_num": 200, "total_layer_num": 200, "subtask_name": "old_part", "gcode_file": "/data/Metadata/plate_1.gcode",
        "print_type": "local", "stg": [2, 14], "stg_cur": -1, "print_error": 0, "hms": [],
        "bed_temper": 23.0, "bed_target_temper": 0.0, "nozzle_temper": 26.0, "nozzle_target_temper": 0.0,
        "chamber_temper": 25.0, "wifi_signal": "-53dBm", "spd_lvl": 2, "spd_mag": 100,
        "cooling_fan_speed": "0", "heatbreak_fan_speed": "0", "big_fan1_speed": "0", "big_fan2_speed": "0",
        "home_flag": -1067070064, "nozzle_diameter": "0.4", "nozzle_type": "hardened_steel",
        "gcode_start_time": "0", "net": {"conf": 16, "info": [{"ip": 0, "mask": 16777215}, {"ip": 0, "mask": 0}]},
        "ipcam": {"ipcam_dev": "1", "ipcam_record": "enable", "mode_bits": 2, "resolution": "1080p",
                  "rtsp_url": "rtsps://127.0.0.1/streaming/live/1", "timelapse": "disable", "tutk_server": "disable"},
        "lights_report": [{"mode": "on", "node": "chamber_light"}, {"mode": "flashing", "node": "work_light"}],
        "upgrade_state": {"new_version_state": 2, "status": "IDLE", "progress": "0", "sequence_id": 0},
        "ams": {"ams": [{"id": "0", "humidity": "5", "temp": "26.2", "tray": [
            {"id": str(i), "tray_info_idx": "GFA01", "tray_type": "PLA", "tray_sub_brands": "PLA Matte",
             "tray_color": color, "nozzle_temp_min": "190", "nozzle_temp_max": "230", "remain": remain,
             "tag_uid": "0000000000000000", "tray_uuid": "00000000000000000000000000000000", "k": 0.02}
            for i, (color, remain) in enumerate([("000000FF", 93), ("7D6556FF", 100), ("4D3324FF", 100), ("AE835BFF", 83)])]}],
            "ams_exist_bits": "1", "tray_exist_bits": "f", "tray_now": "255", "tray_tar": "255", "version": 3},
        "vt_tray": {"id": "254", "tray_info_idx": "", "tray_type": "", "tray_color": "00000000", "remain": 0,
                    "tag_uid": "0000000000000000", "tray_uuid": "00000000000000000000000000000000", "k": 0.02},
        "xcam": {"first_layer_inspector": True, "print_halt": True, "printing_monitor": True, "spaghetti_detector": True},
    }


def report_p1s():
    """An idle P1S's full report (P1P.json's `push_all` shape: no chamber sensor, stg_cur 255 when idle)."""
    report = report_x1c()
    for key in ("chamber_temper", "ams", "xcam"):
        report.pop(key)
    report.update({"gcode_state": "IDLE", "mc_percent": 0, "layer_num": 0, "total_layer_num": 0, "subtask_name": "",
                   "gcode_file": "", "stg": [], "stg_cur": 255, "print_type": "idle",
                   "ipcam": {"ipcam_dev": "1", "ipcam_record": "enable", "timelapse": "disable", "resolution": "",
                             "tutk_server": "disable", "mode_bits": 3},
                   "lights_report": [{"node": "chamber_light", "mode": "on"}]})
    return report


def report_a1mini():
    """An idle A1 mini's full report: MOCK-A1.json's `pushall.print` (an A1's, the same firmware family), trimmed
    to what pybambu v2.0.46 reads; AMS Lite with four trays (ams version 2), no chamber sensor that means anything
    (chamber_temper 5), stg_cur 0 with print_type idle (models.py StageAction reads that as idle, 255)."""
    return {
        "command": "push_status", "msg": 0, "sequence_id": "0",
        "gcode_state": "IDLE", "mc_percent": 0, "mc_remaining_time": 0, "mc_print_stage": "1",
        "layer_num": 0, "total_layer_num": 0, "subtask_name": "", "gcode_file": "", "print_type": "idle",
        "stg": [], "stg_cur": 0, "print_error": 0, "hms": [],
        "bed_temper": 29.75, "bed_target_temper": 0, "nozzle_temper": 27.8125, "nozzle_target_temper": 0,
        "chamber_temper": 5, "wifi_signal": "-48dBm", "spd_lvl": 2, "spd_mag": 100,
        "cooling_fan_speed": "0", "heatbreak_fan_speed": "0", "big_fan1_speed": "0", "big_fan2_speed": "0",
        "home_flag": 863847839, "nozzle_diameter": "0.4", "nozzle_type": "stainless_steel", "sdcard": True,
        "net": {"conf": 0, "info": [{"ip": 0, "mask": 16777215}]},
        "ipcam": {"ipcam_dev": "1", "ipcam_record": "disable", "timelapse": "disable", "resolution": "1080p",
                  "tutk_server": "disable", "mode_bits": 3},
        "xcam": {"buildplate_marker_detector": True},
        "upgrade_state": {"sequence_id": 0, "progress": "", "status": "IDLE", "new_version_state": 2, "new_ver_list": []},
        "online": {"ahb": False, "rfid": False, "version": 1804806695},
        "lights_report": [{"node": "chamber_light", "mode": "off"}],
        "ams": {"ams": [{"id": "0", "humidity": "5", "temp": "0.0", "tray": [
            {"id": str(i), "remain": 100, "k": 0.02, "n": 1, "tag_uid": "0000000000000000", "tray_info_idx": index,
             "tray_type": "PLA", "tray_sub_brands": "", "tray_color": color, "nozzle_temp_max": "240",
             "nozzle_temp_min": "190", "tray_uuid": "00000000000000000000000000000000", "cols": [color]}
            for i, (index, color) in enumerate([("P8d19ba6", "76D9F4FF"), ("P3a4d8cf", "FFF144FF"),
                                                 ("P8d19ba6", "FF80FFFF"), ("P3a4d8cf", "0ACC38FF")])]}],
            "ams_exist_bits": "1", "tray_exist_bits": "f", "tray_is_bbl_bits": "f", "tray_tar": "255",
            "tray_now": "255", "tray_pre": "255", "version": 2, "insert_flag": True, "power_on_flag": False},
        "vt_tray": {"id": "254", "tag_uid": "0000000000000000", "tray_info_idx": "GFA00", "tray_type": "PLA",
                    "tray_sub_brands": "", "tray_color": "FFFFFFFF", "nozzle_temp_max": "240", "nozzle_temp_min": "190",
                    "tray_uuid": "00000000000000000000000000000000", "remain": 0, "k": 0.02, "n": 1},
    }


def version_x1c(serial):
    """get_version answer (MOCK-X1CMULTIAMS.json `get_version`; utils.py get_printer_type: AP05 without project name is X1C)."""
    return {"command": "get_version", "sequence_id": "0", "module": [
        {"name": "ota", "hw_ver": "N/A", "sw_ver": "01.08.02.00", "sn": serial, "product_name": "Bambu Lab X1-Carbon"},
        {"name": "rv1126", "hw_ver": "AP05", "sw_ver": "00.00.32.14", "sn": serial, "project_name": ""},
        {"name": "ams/0", "hw_ver": "AMS08", "sw_ver": "00.00.06.49", "sn": "00600A3A0100001", "product_name": "AMS (1)"},
        {"name": "mc", "hw_ver": "MC07", "sw_ver": "00.00.32.89", "sn": "X"}]}


def version_p1s(serial):
    """get_version answer of a P1S (models.py Info.info_update comment; get_printer_type: AP04/C12)."""
    return {"command": "get_version", "sequence_id": "0", "module": [
        {"name": "ota", "hw_ver": "OTA", "sw_ver": "01.06.01.02", "sn": serial},
        {"name": "esp32", "hw_ver": "AP04", "sw_ver": "00.03.12.31", "sn": serial, "project_name": "C12"},
        {"name": "mc", "hw_ver": "MC02", "sw_ver": "00.00.23.19", "sn": "X"}]}


def version_a1mini(serial):
    """get_version answer of an A1 mini: MOCK-A1.json's with project name N1 (utils.py get_printer_type:
    "A1Mini = AP05 / N1 or AP04 / N1 or AP07 / N1")."""
    return {"command": "get_version", "sequence_id": "0", "result": "success", "reason": "", "module": [
        {"name": "ota", "project_name": "N1", "sw_ver": "01.04.00.00", "hw_ver": "OTA", "sn": serial, "flag": 3},
        {"name": "esp32", "project_name": "N1", "sw_ver": "01.13.33.99", "hw_ver": "AP05", "sn": serial, "flag": 0},
        {"name": "mc", "project_name": "N1", "sw_ver": "00.01.29.83", "hw_ver": "MC02", "sn": "X", "flag": 0},
        {"name": "ams_f1/0", "project_name": "", "sw_ver": "00.00.07.94", "hw_ver": "AMS_F102", "sn": "03C0AA2A1500001",
         "flag": 0}]}


MODELS = {"x1c": (report_x1c, version_x1c), "p1s": (report_p1s, version_p1s), "a1mini": (report_a1mini, version_a1mini)}


def running(percent, layer, layers, minutes, **more):
    return dict({"gcode_state": "RUNNING", "mc_percent": percent, "layer_num": layer, "total_layer_num": layers,
                 "mc_remaining_time": minutes, "stg_cur": 0, "mc_print_stage": "2"}, **more)


def start(name, layers, idle_stage, bed=60.0, minutes=95):
    """A print starting: prepare (heating, levelling), then running with the new task's first readings.
    The new print's report clears print_error (a failure's code does not outlive it: pybambu fires
    event_print_canceled only when print_error goes from 0 to 0x0300400C, models.py PrintJob.print_update)."""
    return [
        (0.0, {"gcode_state": "PREPARE", "subtask_name": name, "gcode_file": f"/data/Metadata/plate_1.gcode",
               "print_type": "local", "stg_cur": 2, "mc_print_stage": "2", "mc_percent": 0, "layer_num": 0,
               "total_layer_num": 0, "mc_remaining_time": 0, "bed_target_temper": bed, "nozzle_target_temper": 220.0,
               "gcode_start_time": str(int(time.time())), "print_error": 0, "hms": []}, "prepare"),
        (1.0, {"bed_temper": bed - 0.4, "stg_cur": 1, "nozzle_temper": 170.0}, None),
        (1.0, running(0, 1, layers, minutes, nozzle_temper=219.6, bed_temper=bed, stg=[2, 1]), "running"),
    ]


def finish(layers, idle_stage, bed):
    return [(0.0, {"gcode_state": "FINISH", "mc_percent": 100, "layer_num": layers, "mc_remaining_time": 0,
                   "stg_cur": idle_stage, "mc_print_stage": "1", "bed_target_temper": 0.0, "nozzle_target_temper": 0.0,
                   "bed_temper": bed}, "finish")]


def cool(start_temp, steps, interval=1.5, end=33.6):
    """The bed cooling after a finish, a reading every `interval` seconds down to `end` (below 35 °C)."""
    return [(interval, {"bed_temper": round(start_temp - (start_temp - end) * (i + 1) / steps, 1),
                        "nozzle_temper": round(max(30.0, 120 - i * 10.0), 1)}, "cooled" if i == steps - 1 else None)
            for i in range(steps)]


def progress(percents, layers, minutes, interval, jitter=True):
    """Running reports at these percentages, `interval` seconds apart; layers and minutes left follow.
    Temperatures wander by tenths of a degree, as real reports do (pybambu rounds them to integers)."""
    steps = []
    for i, percent in enumerate(percents):
        more = {"nozzle_temper": 219.6 + (i % 3) * 0.4, "bed_temper": 59.8 + (i % 2) * 0.4} if jitter else {}
        steps.append((interval, running(percent, max(1, round(layers * percent / 100)), layers,
                                        max(0, round(minutes * (1 - percent / 100))), **more),
                      f"progress-{percent}"))
    return steps


def scenario_full_print(idle):
    layers = 250
    return (start("gear_housing", layers, idle) + [
        (2.0, running(10, 25, layers, 86, bed_temper=60.2, nozzle_temper=220.1), None),
        (2.0, running(26, 65, layers, 70), "progress-26"),
        (2.0, running(40, 100, layers, 57, nozzle_temper=219.8), None),
        (2.0, running(51, 128, layers, 47), "progress-51"),
        (2.0, running(76, 190, layers, 23), "progress-76"),
        (2.0, running(90, 225, layers, 9), None),
        (2.0, running(99, 248, layers, 1), None),
        (2.0, {}, None),
    ] + finish(layers, idle, 60.0) + cool(60.0, 4))


def scenario_full_print_long(idle):
    """SampleEvents' full print: the stages of preparation, then 2 % every 5 s for about four minutes (routine
    Live Activity updates 30 s apart), the finish with the bed still warm (no Ready to Remove in this file)."""
    layers = 250
    steps = [
        (0.0, {"gcode_state": "PREPARE", "subtask_name": "benchy_v2", "gcode_file": "/data/Metadata/plate_1.gcode",
               "print_type": "local", "stg_cur": 2, "mc_print_stage": "2", "mc_percent": 0, "layer_num": 0,
               "total_layer_num": 0, "mc_remaining_time": 0, "bed_target_temper": 60.0, "nozzle_target_temper": 220.0,
               "gcode_start_time": str(int(time.time())), "print_error": 0, "hms": []}, "prepare"),
        (2.0, {"bed_temper": 45.0, "nozzle_temper": 140.0}, None),
        (2.0, {"bed_temper": 59.6, "stg_cur": 1, "nozzle_temper": 150.0}, None),
        (3.0, {"stg_cur": 8, "nozzle_temper": 219.6}, None),
        (2.0, running(0, 1, layers, 52, stg=[2, 1, 8]), "running"),
    ]
    steps += progress(list(range(2, 100, 2)), layers, 52, 5.0)
    steps += [(4.0, {}, None)] + finish(layers, idle, 60.0) + [
        (3.0, {"bed_temper": 57.0, "nozzle_temper": 120.0}, None), (3.0, {"bed_temper": 54.0, "nozzle_temper": 100.0}, "tail")]
    return steps


def scenario_pause_resume(idle):
    layers = 200
    return (start("filament_swap_test", layers, idle) + [
        (2.0, running(20, 40, layers, 80), None),
        (2.0, running(30, 60, layers, 70), None),
        # A runout: the status, the stage and the HMS error in one report (an X1C sends its state in full).
        (2.0, {"gcode_state": "PAUSE", "stg_cur": 6, "hms": [HMS_RUNOUT_AMS_A_SLOT_1], "mc_print_stage": "2"}, "pause"),
        (6.0, {"gcode_state": "RUNNING", "stg_cur": 0, "hms": []}, "resume"),
        (2.0, running(55, 110, layers, 45), None),
        (2.0, running(80, 160, layers, 20), None),
        (2.0, {}, None),
    ] + finish(layers, idle, 60.0) + cool(60.0, 3))


def scenario_failed_print(idle):
    layers = 175
    return (start("bracket", layers, idle, minutes=140) + [
        (2.0, running(15, 26, layers, 120), None),
        (2.0, running(32, 56, layers, 95), None),
        (2.0, {"gcode_state": "FAILED", "print_error": PRINT_ERROR_SPAGHETTI, "stg_cur": idle, "mc_print_stage": "1",
               "bed_target_temper": 0.0, "nozzle_target_temper": 0.0}, "failed"),
        (4.0, {"bed_temper": 55.0}, None),
    ])


def scenario_cancel(idle, name="spool_holder"):
    layers = 120
    return (start(name, layers, idle, minutes=70) + [
        (2.0, running(15, 18, layers, 60), None),
        (2.0, running(28, 34, layers, 48), None),
        # The user cancels: FAILED with print_error 0x0300400C in one report; the
        # printer clears print_error a couple of seconds later (models.py PrintJob.print_update comment).
        (2.0, {"gcode_state": "FAILED", "print_error": PRINT_ERROR_CANCELLED, "stg_cur": idle, "mc_print_stage": "1",
               "bed_target_temper": 0.0, "nozzle_target_temper": 0.0}, "cancel"),
        (3.0, {"print_error": 0}, "error-cleared"),
    ])


def scenario_cancel_split(idle, name="spool_holder_2"):
    """A cancel whose error code comes one report before the FAILED status (pybambu then fires
    event_print_canceled, and event_print_failed with the next report: models.py PrintJob.print_update)."""
    layers = 120
    return (start(name, layers, idle, minutes=70) + [
        (2.0, running(15, 18, layers, 60), None),
        (2.0, running(27, 32, layers, 50), None),
        (2.0, {"print_error": PRINT_ERROR_CANCELLED}, "cancel-code"),
        (0.5, {"gcode_state": "FAILED", "stg_cur": idle, "mc_print_stage": "1", "bed_target_temper": 0.0,
               "nozzle_target_temper": 0.0}, "cancel-status"),
        (3.0, {"print_error": 0}, "error-cleared"),
    ])


def scenario_hms_idle(idle):
    return [
        (0.0, {"hms": [HMS_HEATBED_SENSOR]}, "error-1"),
        (4.0, {"hms": [HMS_HEATBED_SENSOR, HMS_AMS_B_SLOT_2_RUNOUT]}, "error-2"),
        (4.0, {"hms": []}, "cleared"),
        (3.0, {"hms": [HMS_HEATBED_SENSOR]}, "error-1-back"),
        (4.0, {"hms": []}, "cleared-again"),
    ]


def scenario_error_idle_restart(idle):
    """SampleEvents' printer-error-idle: a fatal HMS error on an idle printer; HA restarts (the printer keeps
    the error: the first report after it carries it again); an AMS error joins; both clear; the first comes
    back after more than the agent's FLICKER_WINDOW (60 s)."""
    return [
        (0.0, {"hms": [HMS_HEATBED_SENSOR]}, "error-1"),
        (3.0, ("restart-ha",), "restart"),
        (0.0, ("wait-ha",), "restarted"),
        (4.0, {"hms": [HMS_HEATBED_SENSOR, HMS_AMS_B_SLOT_2_RUNOUT]}, "error-2"),
        (4.0, {"hms": []}, "cleared"),
        (65.0, {"hms": [HMS_HEATBED_SENSOR]}, "error-1-back"),
        (3.0, {}, "tail"),
    ]


def scenario_bed_cooling(idle):
    """A short print finishing at 65 °C that cools below 35; a second finishing warm; a third starting while it is warm."""
    short = [(2.0, running(30, 15, 50, 7), None), (2.0, running(60, 30, 50, 4), None), (2.0, running(90, 45, 50, 1), None),
             (2.0, {}, None)]  # longer than START_SETTLE (5 s): the start is told before the finish
    steps = start("bed_test_1", 50, idle, bed=65.0) + short + finish(50, idle, 65.0) + cool(65.0, 5)
    steps += start("bed_test_2", 50, idle, bed=65.0) + short + finish(50, idle, 65.0) + [(1.5, {"bed_temper": 58.0}, None)]
    steps += start("bed_test_3", 50, idle, bed=65.0) + [(2.0, running(10, 5, 50, 9), "third-running")]
    return steps


def scenario_bed_cooling_slow(idle):
    """SampleEvents' bed cooling: as bed-cooling, but the first bed cools over about two and a half minutes
    (a reading every 5 s, as a printer reports a falling temperature), so "Ready to Remove" says minutes."""
    short = [(3.0, running(30, 24, 80, 20), None), (3.0, running(60, 48, 80, 12), None),
             (3.0, running(90, 72, 80, 3), None), (3.0, {}, None)]
    steps = start("drawer_knob", 80, idle, bed=65.0) + short + finish(80, idle, 65.0) + cool(65.0, 30, interval=5.0)
    steps += start("drawer_knob", 80, idle, bed=65.0) + short + finish(80, idle, 65.0) + [(4.0, {"bed_temper": 58.0}, None)]
    steps += start("hinge_pin", 40, idle, bed=65.0) + [(3.0, running(10, 4, 40, 14), "third-running"), (2.0, {}, "tail")]
    return steps


def scenario_flicker(idle):
    """running -> idle -> running within seconds, the same task (one print), then on to the finish."""
    layers = 150
    return (start("phone_stand", layers, idle, minutes=60) + progress([10, 20, 30, 40], layers, 60, 3.0) + [
        (3.0, {"gcode_state": "IDLE", "stg_cur": idle, "mc_print_stage": "1"}, "idle"),
        (3.0, {"gcode_state": "RUNNING", "stg_cur": 0, "mc_print_stage": "2"}, "running-again"),
    ] + progress([50, 60, 70, 80, 90, 99], layers, 60, 3.0) + [(2.0, {}, None)] + finish(layers, idle, 33.0))


def scenario_abandon(idle):
    """running -> idle at 24 %, and it stays idle (longer than the agent's FLICKER_WINDOW, 60 s)."""
    layers = 200
    return (start("spool_holder", layers, idle, minutes=90) + progress([6, 12, 18, 24], layers, 90, 3.0) + [
        (3.0, {"gcode_state": "IDLE", "stg_cur": idle, "mc_print_stage": "1", "print_type": "idle"}, "idle"),
        (65.0, {}, "tail"),
    ])


def scenario_prepare_pause(idle):
    """Paused by its user while preparing (stage paused_user), then it prints and finishes."""
    layers = 80
    return [
        (0.0, {"gcode_state": "PREPARE", "subtask_name": "lid_hinge", "gcode_file": "/data/Metadata/plate_1.gcode",
               "print_type": "local", "stg_cur": 2, "mc_print_stage": "2", "mc_percent": 0, "layer_num": 0,
               "total_layer_num": layers, "mc_remaining_time": 30, "bed_target_temper": 60.0,
               "nozzle_target_temper": 220.0, "gcode_start_time": str(int(time.time())), "print_error": 0, "hms": []},
         "prepare"),
        (3.0, {"bed_temper": 48.0}, None),
        (3.0, {"gcode_state": "PAUSE", "stg_cur": 16}, "pause"),
        (8.0, {"gcode_state": "RUNNING", "stg_cur": 0, "bed_temper": 60.0, "nozzle_temper": 219.6}, "resume"),
    ] + progress([10, 20, 30, 40, 50, 60, 70, 80, 90, 99], layers, 30, 3.0) + [(2.0, {}, None)] + finish(layers, idle, 34.0)


def scenario_prepare_cancel(idle):
    """Cancelled while preparing (levelling): the code and the FAILED status in one report."""
    return [
        (0.0, {"gcode_state": "PREPARE", "subtask_name": "cable_chain", "gcode_file": "/data/Metadata/plate_1.gcode",
               "print_type": "local", "stg_cur": 2, "mc_print_stage": "2", "mc_percent": 0, "layer_num": 0,
               "total_layer_num": 0, "mc_remaining_time": 0, "bed_target_temper": 65.0, "nozzle_target_temper": 220.0,
               "gcode_start_time": str(int(time.time())), "print_error": 0, "hms": []}, "prepare"),
        (4.0, {"bed_temper": 64.6, "stg_cur": 1}, None),
        (4.0, {"gcode_state": "FAILED", "print_error": PRINT_ERROR_CANCELLED, "stg_cur": idle, "mc_print_stage": "1",
               "bed_target_temper": 0.0, "nozzle_target_temper": 0.0}, "cancel"),
        (3.0, {"print_error": 0}, "error-cleared"),
    ]


def scenario_finished_before(idle):
    """Setup for late-task-name: a print finished, its file and 100 % still shown."""
    return [(0.0, {"gcode_state": "FINISH", "subtask_name": "previous_part", "mc_percent": 100, "layer_num": 90,
                   "total_layer_num": 90, "mc_remaining_time": 0, "stg_cur": idle, "mc_print_stage": "1",
                   "print_error": 0, "hms": [], "bed_temper": 30.0, "nozzle_temper": 35.0}, "finished")]


def scenario_reset(idle):
    """Setup before a capture: whatever the printer was doing is over (a finish, cooled down), so the
    recording's snapshot shows it done and idle rather than a print left running by the previous capture."""
    return [(0.0, {"gcode_state": "FINISH", "mc_percent": 100, "mc_remaining_time": 0, "stg_cur": idle,
                   "mc_print_stage": "1", "print_error": 0, "hms": [], "bed_temper": 28.0, "nozzle_temper": 30.0,
                   "bed_target_temper": 0.0, "nozzle_target_temper": 0.0}, "reset")]


def scenario_late_task_name(idle):
    """RUNNING arrives a report before the new task's name and readings (the entities still show the
    previous print's file and 100 % for a moment)."""
    layers = 120
    return [
        (0.0, {"gcode_state": "RUNNING", "stg_cur": 0, "mc_print_stage": "2", "print_type": "local",
               "gcode_start_time": str(int(time.time()))}, "running"),
        (1.5, {"subtask_name": "new_part", "mc_percent": 0, "layer_num": 1, "total_layer_num": layers,
               "mc_remaining_time": 50, "nozzle_temper": 219.6, "bed_temper": 60.0, "nozzle_target_temper": 220.0,
               "bed_target_temper": 60.0}, "task-name"),
    ] + progress([10, 20, 30, 40, 50, 60, 70, 80, 90, 99], layers, 50, 3.0) + [(2.0, {}, None)] + finish(layers, idle, 33.0)


def scenario_restart_mid_print(idle):
    """SampleEvents' ha-restart-mid-print: HA restarts while the printer prints on."""
    layers = 300
    return (start("lamp_shade_vase", layers, idle, minutes=120) + progress([5, 10, 15, 20, 25, 30, 35], layers, 120, 3.0)
            + [(2.0, ("restart-ha",), "restart")] + progress([40, 45], layers, 120, 3.0) + [(0.0, ("wait-ha",), "restarted")]
            + progress(list(range(50, 100, 5)) + [99], layers, 120, 3.0) + [(2.0, {}, None)] + finish(layers, idle, 34.0))


def scenario_restart_print(idle):
    """The test's print that HA's restart interrupts: the start and 10, 30 % (the test then restarts HA and,
    once the agent is back, plays restart-print-rest)."""
    layers = 100
    return start("pencil_cup", layers, idle, minutes=30) + progress([10, 30], layers, 30, 2.0)


def scenario_restart_print_rest(idle):
    """The rest of restart-print, after HA's restart: on to the finish."""
    layers = 100
    return progress([40, 55, 80, 99], layers, 30, 2.0) + [(2.0, {}, None)] + finish(layers, idle, 33.0)


def scenario_offline_jump(idle):
    """SampleEvents' milestone-jump: off the network at 10 % for about 75 s; back at 80 %."""
    layers = 500
    return (start("tall_vase", layers, idle, minutes=300) + progress([2, 4, 6, 8, 10], layers, 300, 4.0)
            + [(2.0, ("drop", 75.0), "offline")] + progress([20, 30, 40, 50, 60, 70, 80], layers, 300, 9.0)
            + [(0.0, ("wait-back",), "back")] + progress([85, 90, 95, 99], layers, 300, 4.0) + [(2.0, {}, None)]
            + finish(layers, idle, 33.0))


def scenario_offline_print(idle, away=12.0):
    """The test's printer off the network mid-print (`away` seconds, after the start is told), back printing
    (at 50 %, reached while away), then the finish."""
    layers = 100
    return (start("cable_comb", layers, idle, minutes=30) + progress([10, 30, 40], layers, 30, 2.0)
            + [(1.0, ("drop", away), "offline"), (away / 2, running(50, 50, layers, 15), None), (0.0, ("wait-back",), "back")]
            + progress([60, 80, 99], layers, 30, 2.0) + [(2.0, {}, None)] + finish(layers, idle, 33.0))


def scenario_noise_x1c(idle):
    """two-printers-with-noise, the X1C: a print of about two minutes that completes."""
    layers = 120
    return (start("cable_clips", layers, idle, minutes=40) + progress(list(range(5, 100, 5)) + [99], layers, 40, 5.0)
            + [(3.0, {}, None)] + finish(layers, idle, 33.0))


def scenario_noise_a1mini(idle):
    """two-printers-with-noise, the A1 mini: starts later, cancelled by its user at about 30 %."""
    layers = 90
    return ([(15.0, {}, None)] + start("keychain_set", layers, idle, minutes=25)
            + progress([5, 10, 15, 20, 25, 30], layers, 25, 6.0)
            + [(4.0, {"gcode_state": "FAILED", "print_error": PRINT_ERROR_CANCELLED, "stg_cur": idle,
                      "mc_print_stage": "1", "bed_target_temper": 0.0, "nozzle_target_temper": 0.0}, "cancel"),
               (3.0, {"print_error": 0}, "error-cleared")])


SCENARIOS = {
    "full-print": scenario_full_print,
    "full-print-long": scenario_full_print_long,
    "pause-resume": scenario_pause_resume,
    "failed-print": scenario_failed_print,
    "cancel": scenario_cancel,
    "cancel-split": scenario_cancel_split,
    "hms-idle": scenario_hms_idle,
    "error-idle-restart": scenario_error_idle_restart,
    "bed-cooling": scenario_bed_cooling,
    "bed-cooling-slow": scenario_bed_cooling_slow,
    "flicker": scenario_flicker,
    "abandon": scenario_abandon,
    "prepare-pause": scenario_prepare_pause,
    "prepare-cancel": scenario_prepare_cancel,
    "finished-before": scenario_finished_before,
    "reset": scenario_reset,
    "late-task-name": scenario_late_task_name,
    "restart-mid-print": scenario_restart_mid_print,
    "restart-print": scenario_restart_print,
    "restart-print-rest": scenario_restart_print_rest,
    "offline-jump": scenario_offline_jump,
    "offline-print": scenario_offline_print,
    "noise-x1c": scenario_noise_x1c,
    # SampleEvents' bambu-cancels: the P1S's code and status in one report, the A1 mini's in two.
    "cancel-p1s": lambda idle: scenario_cancel(idle, "desk_organizer"),
    "cancel-split-a1mini": lambda idle: [(2.0, {}, None)] + scenario_cancel_split(idle, "whistle"),
    "noise-a1mini": scenario_noise_a1mini,
}


def make_certificate(directory, host):
    """A self-signed certificate for the printer's address (HA's environment has cryptography)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "simulated-bambu-printer")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=30))
                   .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(host))]), False)
                   .sign(key, hashes.SHA256()))
    cert_path, key_path = os.path.join(directory, "printer.crt"), os.path.join(directory, "printer.key")
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    os.chmod(key_path, 0o600)
    with open(cert_path, "wb") as f:
        f.write(certificate.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def mosquitto_binary():
    for candidate in ("/usr/sbin/mosquitto", "/usr/bin/mosquitto"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def wait_for(condition, seconds, what):
    """Waits for a named condition; raises with its name when the deadline passes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    if not condition():
        raise TimeoutError(f"timed out after {seconds} s waiting for {what}")


class Broker:
    """mosquitto with TLS on host:8883, user bblp with the access code: one printer's LAN side."""

    def __init__(self, workdir, access_code, host="127.0.0.1"):
        self.workdir = workdir
        self.access_code = access_code
        self.host = host
        self.process = None
        self.config = None

    def listening(self):
        try:
            socket.create_connection((self.host, PORT), 0.5).close()
            return True
        except OSError:
            return False

    def start(self):
        binary = mosquitto_binary()
        if binary is None:
            raise SystemExit("mosquitto is not installed: run Tests/DaemonTests/RealPrinters/install_bambulab.sh")
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((self.host, PORT))
            except OSError as error:
                raise SystemExit(f"{self.host}:{PORT} is taken ({error}); pybambu connects to port {PORT} only "
                                 "(pybambu/bambu_client.py sets self._port = 8883): stop what listens there")
        if self.config is None:
            os.makedirs(self.workdir, exist_ok=True)
            cert, key = make_certificate(self.workdir, self.host)
            passwords = os.path.join(self.workdir, "passwords")
            open(passwords, "w").close()
            subprocess.run(["mosquitto_passwd", "-b", passwords, "bblp", self.access_code], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            os.chmod(passwords, 0o600)
            self.config = os.path.join(self.workdir, "mosquitto.conf")
            with open(self.config, "w") as f:
                # mosquitto 2.0 started as root drops to user `mosquitto`, which could not read these files.
                f.write(("user root\n" if os.geteuid() == 0 else "")
                        + f"listener {PORT} {self.host}\ncertfile {cert}\nkeyfile {key}\n"
                        + f"allow_anonymous false\npassword_file {passwords}\npersistence false\n"
                        + f"log_dest file {os.path.join(self.workdir, 'mosquitto.log')}\nlog_type all\n")
        self.process = subprocess.Popen([mosquitto_binary(), "-c", self.config], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)

        def up():
            if self.process.poll() is not None:
                raise SystemExit(f"mosquitto exited ({self.process.returncode}): see {self.workdir}/mosquitto.log")
            return self.listening()

        wait_for(up, 10, f"mosquitto listening on {self.host}:{PORT}")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


class Printer:
    """One printer's MQTT side, with its own broker: answers get_version and pushall, publishes reports,
    plays scenarios, leaves the network and comes back."""

    def __init__(self, model, serial, access_code, host="127.0.0.1", workdir=None, on_mark=None, on_action=None):
        self.model = model
        self.serial = serial
        self.host = host
        report, version = MODELS[model]
        self.state = report()
        for net in self.state["net"]["info"][:1]:
            net["ip"] = address_as_int(host)
        self.version = version(serial)
        self.idle_stage = self.state["stg_cur"] if model != "a1mini" else 255
        self.broker = Broker(workdir or os.path.join("/tmp", f"printbridge-bambu-{model}-{os.getpid()}"),
                             access_code, host) if workdir is not None else None
        self.on_mark = on_mark or (lambda *_: None)
        self.on_action = on_action or (lambda *_: None)
        self.lock = threading.Lock()
        self.sequence = 0
        self.requests = []  # every request HA sent (commands pybambu publishes)
        self.away = threading.Event()  # off the network (its broker stopped)
        self.back = threading.Event()
        self.back.set()
        self.client = mqtt.Client(client_id=f"simulated-{model}-{serial}")
        self.client.username_pw_set("bblp", access_code)
        self.client.tls_set(cert_reqs=ssl.CERT_NONE)
        self.client.tls_insecure_set(True)
        self.client.reconnect_delay_set(min_delay=1, max_delay=1)  # back within a second of its broker
        self.client.on_connect = lambda client, *_: client.subscribe(f"device/{serial}/request")
        self.client.on_message = self.on_request
        self.connected = threading.Event()
        self.client.on_subscribe = lambda *_: self.connected.set()
        self.client.on_disconnect = lambda *_: self.connected.clear()
        self.stop_event = threading.Event()

    def start(self):
        if self.broker:
            self.broker.start()
        self.client.connect(self.host, PORT, keepalive=30)
        self.client.loop_start()
        wait_for(self.connected.is_set, 10, f"the simulated {self.model} subscribed to its request topic")
        threading.Thread(target=self.heartbeat, daemon=True).start()

    def stop(self):
        self.stop_event.set()
        self.client.loop_stop()
        self.client.disconnect()
        if self.broker:
            self.broker.stop()

    def publish(self, message):
        if not self.away.is_set():
            self.client.publish(f"device/{self.serial}/report", json.dumps(message))

    def next_sequence(self):
        self.sequence += 1
        return str(self.sequence)

    def full_report(self):
        with self.lock:
            full = copy.deepcopy(self.state)
            full["sequence_id"] = self.next_sequence()
            full["msg"] = 0
        self.publish({"print": full})

    def on_request(self, client, userdata, message):
        try:
            request = json.loads(message.payload)
        except ValueError:
            return
        self.requests.append(request)
        if request.get("info", {}).get("command") == "get_version":
            self.publish({"info": dict(self.version, sequence_id=request["info"].get("sequence_id", "0"))})
        elif request.get("pushing", {}).get("command") in ("pushall", "start"):
            self.full_report()

    def report(self, fields):
        """Applies fields and publishes them as one delta report (lost while the printer is away)."""
        with self.lock:
            self.state.update(copy.deepcopy(fields))
            message = dict(copy.deepcopy(fields), command="push_status", msg=1, sequence_id=self.next_sequence())
        self.publish({"print": message})

    def heartbeat(self):
        """A report every 5 s, as a printer keeps reporting (pybambu's watchdog wants data within 30 s)."""
        while not self.stop_event.wait(5):
            self.report({"wifi_signal": self.state["wifi_signal"]})

    def drop(self, seconds):
        """Off the network for `seconds`: its broker (the printer, in LAN mode) goes, pybambu's connection
        with it. Back, it answers pybambu's pushall with where the print got to; it also sends that full
        report once itself as soon as it is subscribed again, in case pybambu asked before it was."""
        if self.broker is None:
            raise RuntimeError("this printer has no broker of its own to leave")
        self.back.clear()
        self.away.set()
        self.broker.stop()
        if self.stop_event.wait(seconds):
            return
        self.connected.clear()
        self.broker.start()
        self.away.clear()
        wait_for(self.connected.is_set, 30, f"the simulated {self.model} back on its broker")
        self.full_report()
        self.back.set()
        self.on_mark("back-online", time.time())

    def play(self, name):
        steps = SCENARIOS[name](self.idle_stage)
        for delay, fields, mark in steps:
            if self.stop_event.wait(delay):
                return
            if isinstance(fields, tuple):
                action = fields[0]
                if action == "drop":
                    threading.Thread(target=self.drop, args=(fields[1],), daemon=True).start()
                    wait_for(self.away.is_set, 10, f"the simulated {self.model} off the network")
                elif action == "wait-back":
                    wait_for(self.back.is_set, 300, f"the simulated {self.model} back on the network")
                else:
                    self.on_action(action)
            elif fields:
                self.report(fields)
            if mark:
                self.on_mark(mark, time.time())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--access-code", default="12345678")
    parser.add_argument("--printer", action="append", default=[], help="MODEL:SERIAL (x1c:00M09A391200471)")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    printers = {}
    for spec in args.printer or ["x1c:00M09A391200471"]:
        model, serial = spec.split(":")
        printers[model] = Printer(model, serial, args.access_code, HOSTS[model], os.path.join(args.workdir, model),
                                  on_mark=lambda mark, at, model=model: print(f"MARK {model} {mark} {at:.3f}", flush=True))
        printers[model].start()
    print("READY " + " ".join(f"{model}@{printer.host}" for model, printer in printers.items()), flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if len(words) >= 2 and words[0] == "play":
                printers[words[2] if len(words) > 2 else next(iter(printers))].play(words[1])
                print(f"DONE {words[1]}", flush=True)
    finally:
        for printer in printers.values():
            printer.stop()


if __name__ == "__main__":
    main()
