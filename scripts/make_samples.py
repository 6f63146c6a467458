#!/usr/bin/env python3
"""Writes the recorded-event scenarios in SampleEvents/ (deterministic).

Each scenario is what `printbridge record` would capture from a live HA:
auth, the answers to PrintBridge's requests (the entity registry, a
get_states snapshot, the subscriptions), then events. The printers'
entities are ha-bambulab's (scripts/ha_wire.py says where each fact comes
from). Run from anywhere: python3 scripts/make_samples.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ha_wire import EPOCH, BambuPrinter, Household, Wire, iso  # noqa: E402
from ha_integrations import Moonraker, OctoPrint, PrusaLink  # noqa: E402
import datetime as _dt  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "SampleEvents")
X1C = "x1c_00m09a350100123"
P1S = "p1s_01p09c470200456"
A1M = "a1mini_0300aa2a1500789"
H2D = "h2d_0948ad520400123"
# HMS errors and a print error as ha-bambulab reports them: code, the text of
# pybambu/hms_error_text/hms_en.json.gz (device_hms / device_error), and the
# page its wiki_links.json.gz gives.
RUNOUT_A1 = ("0700_2000_0002_0001", "AMS A Slot 1 filament has run out. Please insert a new filament.",
             "/en/x1/troubleshooting/hmscode/0700_2000_0002_0001")
HEATBED_SENSOR = ("0300_0100_0001_0007", "The heatbed temperature is abnormal; the sensor may have an open circuit.",
                  "/en/x1/troubleshooting/hmscode/0300_0100_0001_0007")
AMS_B_SLOT_3_EMPTY = ("0701_2200_0002_0002", "AMS B Slot 3 is empty; please insert a new filament.",
                      "/en/x1/troubleshooting/hmscode/0700_2000_0002_0002")
SPAGHETTI = ("Spaghetti defects were detected by the AI Print Monitoring. Please check the quality of the printed "
             "model before continuing your print. Cleaning the build plate or drying the filament can effectively "
             "reduce the risk of spaghetti failure.")
# The HA device names: ha-bambulab names a printer "<MODEL>_<SERIAL>"; this
# X1C's owner renamed it "X1C".
X1C_NAME, P1S_NAME, A1M_NAME, H2D_NAME = "X1C", "P1S_01P09C470200456", "A1MINI_0300AA2A1500789", "H2D_0948AD520400123"


def session(wire, *printers):
    wire.session()


def print_steps(printer, start, total_layers, minutes, steps, t0, step_seconds):
    """Progress in `steps` even steps of `step_seconds` from t0; returns the next time."""
    t = t0
    for i in range(1, steps + 1):
        percent = round(99 * i / steps)
        t += step_seconds
        printer.progress_to(percent, round(total_layers * percent / 100), round(minutes * (1 - percent / 100)), t)
    return t


def full_print():
    w = Wire(seed=1)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    session(w)
    t = x1c.start("benchy_v2", 250, 52, 60)
    # 2 % steps every ~62 s: routine Live Activity updates throttle to one per 30 s.
    t = print_steps(x1c, None, 250, 52, 50, t, 62)
    x1c.finish(250, t + 30)
    w.save(os.path.join(OUT, "bambu-full-print.jsonl"))


def failed_print():
    w = Wire(seed=2)
    p1s = BambuPrinter(w, P1S, P1S_NAME, 0)
    session(w)
    t = p1s.start("phone_stand_petg", 180, 95, 30)
    for i in range(1, 9):
        t += 120
        p1s.progress_to(4 * i, 7 * i, 95 - 4 * i, t)
    # Spaghetti detection stops the print: error first, then the failed status.
    # Code and text: pybambu/hms_error_text/hms_en.json.gz, device_error 03008003.
    p1s.error("0300_8003", SPAGHETTI, t + 40)
    p1s.set("status", "failed", t + 41)
    p1s.set("stage", "idle", t + 41)
    p1s.set("nozzle_target", 0, t + 42)
    p1s.set("nozzle", 150, t + 120)
    w.save(os.path.join(OUT, "bambu-failed-print.jsonl"))


def pause_and_resume():
    w = Wire(seed=3)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    session(w)
    t = x1c.start("gearbox_housing", 400, 180, 45)
    for i in range(1, 11):
        t += 300
        x1c.progress_to(4 * i, 16 * i, 180 - 7 * i, t)
    # Filament runout: the printer pauses for 20 minutes, then resumes. One
    # report: the stage, the status and AMS A slot 1's HMS error, milliseconds apart.
    x1c.set("stage", "paused_filament_runout", t + 10)
    x1c.set("status", "pause", t + 10.004)
    x1c.hms([RUNOUT_A1], t + 10.009)
    x1c.set("nozzle_target", 0, t + 30)
    x1c.set("nozzle", 180, t + 300)
    t += 1200
    x1c.set("nozzle_target", 220, t)
    x1c.set("nozzle", 220, t + 90)
    x1c.hms([], t + 95)
    x1c.set("status", "running", t + 100)
    x1c.set("stage", "printing", t + 100)
    t += 100
    for i in range(11, 25):
        t += 300
        x1c.progress_to(min(99, 4 * i), 16 * i, max(0, 180 - 7 * i), t)
    x1c.finish(400, t + 60)
    w.save(os.path.join(OUT, "bambu-pause-resume.jsonl"))


def printer_error_while_idle():
    """An idle P1S reports a fatal HMS error (the heatbed's sensor); HA
    restarts (the entity is unavailable, then off for a moment until
    ha-bambulab has the printer's first report, then on again), and a
    second error joins the first. Cleared for good, the first comes back
    half an hour later."""
    w = Wire(seed=13)
    p1s = BambuPrinter(w, P1S, P1S_NAME, 0)
    session(w)
    p1s.hms([HEATBED_SENSOR], 600)
    p1s.set("hms", "unavailable", 900, {"friendly_name": p1s.attributes["hms"]["friendly_name"]})
    # HA is back: its new session's snapshot shows no error (ha-bambulab has
    # not heard from the printer yet); the printer's first report brings it back.
    hms = p1s.wire.states[p1s.ids["hms"]]
    hms.update(state="off", attributes={"device_class": "problem", "friendly_name": hms["attributes"]["friendly_name"],
                                        "Count": 0}, last_changed=iso(960), last_updated=iso(960))
    w.session()
    p1s.hms([HEATBED_SENSOR], 964)
    p1s.hms([HEATBED_SENSOR, AMS_B_SLOT_3_EMPTY], 1200)
    p1s.hms([], 1500)
    p1s.hms([HEATBED_SENSOR], 3300)
    w.save(os.path.join(OUT, "bambu-printer-error-idle.jsonl"))


def bed_cooling():
    """The X1C finishes with the bed at 65 °C; it cools below 35 °C about
    17 minutes later ("Ready to Remove", once). Its next print finishes
    too, but a third starts while the bed is still warm: no "Ready to
    Remove" for the second."""
    w = Wire(seed=14)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    session(w)

    def drawer_knob(t):
        """A 30-minute print from t to its finish; returns the finish time."""
        t = x1c.start("drawer_knob", 80, 30, t)
        for i in range(1, 10):
            t += 180
            x1c.progress_to(10 * i, 8 * i, 30 - 3 * i, t)
        x1c.finish(80, t + 180)
        return t + 180

    t = drawer_knob(10)
    # ha-bambulab reports the bed every report; it cools roughly exponentially.
    for step, temperature in enumerate([58.4, 53.1, 48.9, 45.6, 42.8, 40.7, 39.0, 37.6, 36.5, 35.4, 34.6, 33.8], 1):
        x1c.set("bed", temperature, t + 60 + 90 * step)
    t = drawer_knob(t + 60 + 90 * 13 + 300)
    x1c.set("bed", 48.2, t + 240)
    x1c.start("hinge_pin", 40, 15, t + 300)
    w.save(os.path.join(OUT, "bambu-bed-cooling.jsonl"))


def ha_restart_mid_print():
    w = Wire(seed=4)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    session(w)
    t = x1c.start("lamp_shade_vase", 300, 120, 20)
    for i in range(1, 8):
        t += 300
        x1c.progress_to(5 * i, 15 * i, 120 - 6 * i, t)
    # HA restarts: its entities go unavailable, the connection drops, and a new
    # session (auth, get_states) shows the print still running.
    t += 20
    for key in ("status", "progress", "layer", "total", "remaining", "nozzle", "bed", "task", "stage"):
        x1c.set(key, "unavailable", t)
    t += 45
    # HA is back: ha-bambulab reconnects to the printer and restores states.
    x1c.set("status", "running", t)
    for key, value in (("progress", 36), ("layer", 108), ("total", 300), ("remaining", 77), ("nozzle", 220),
                       ("bed", 65), ("task", "lamp_shade_vase"), ("stage", "printing")):
        x1c.wire.states[x1c.ids[key]]["state"] = str(value)
    w.session()
    for i in range(8, 20):
        t += 300
        x1c.progress_to(5 * i, 15 * i, max(0, 120 - 6 * i), t)
    x1c.finish(300, t + 60)
    w.save(os.path.join(OUT, "ha-restart-mid-print.jsonl"))


def two_printers_with_noise():
    w = Wire(seed=5)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    mini = BambuPrinter(w, A1M, A1M_NAME, 0)
    home = Household(w, 0)
    session(w)
    events = []  # (time, callable) merged in time order with household noise

    def at(t, fn):
        events.append((t, len(events), fn))

    # X1C: a 40-minute print.
    at(100, lambda: x1c.start("cable_clips", 120, 40, 100))
    for i in range(1, 21):
        percent = 5 * i
        at(280 + 110 * i, lambda p=percent, tt=280 + 110 * i: x1c.progress_to(min(p, 99), round(1.2 * p), round(40 * (1 - p / 100)), tt))
    at(280 + 110 * 21, lambda: x1c.finish(120, 280 + 110 * 21))
    # A1 mini: starts later, is cancelled by the user at ~30 %.
    at(600, lambda: mini.start("keychain_set", 90, 25, 600))
    for i in range(1, 7):
        at(780 + 140 * i, lambda p=5 * i, tt=780 + 140 * i: mini.progress_to(p, round(0.9 * p), 25 - p // 4, tt))
    cancel_time = 780 + 140 * 7
    at(cancel_time, lambda: mini.error("0300_400C", "The task was canceled.", cancel_time))
    at(cancel_time + 1, lambda: mini.set("status", "failed", cancel_time + 1))
    for k in range(0, 3400, 7):
        at(k + 3, lambda tt=k + 3: home.tick(tt))

    def busy(t):
        # HA's writer under load: queued events and a pong leave as one array.
        with w.coalesced():
            home.tick(t)
            home.tick(t + 0.001)
            w.pong(6 + int(t))
            home.tick(t + 0.002)
    for k in range(50, 3400, 300):
        at(k, lambda tt=k: busy(tt))
    for _, _, fn in sorted(events, key=lambda e: (e[0], e[1])):
        fn()
    w.save(os.path.join(OUT, "two-printers-with-noise.jsonl"))


def milestone_jump():
    w = Wire(seed=6)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    session(w)
    t = x1c.start("tall_vase", 500, 300, 10)
    x1c.progress_to(10, 50, 270, t + 600)
    # The printer drops off Wi-Fi for an hour; when it is back, progress has jumped.
    x1c.set("status", "offline", t + 700)
    x1c.set("progress", "unavailable", t + 700)
    x1c.set("status", "running", t + 4300)
    x1c.progress_to(80, 400, 60, t + 4301)
    x1c.progress_to(90, 450, 30, t + 5200)
    x1c.finish(500, t + 6100)
    w.save(os.path.join(OUT, "milestone-jump.jsonl"))


def odd_input():
    """Realistic damage: garbage lines, odd states, a truncated last line."""
    w = Wire(seed=7)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    session(w)
    t = x1c.start("bracket", 60, 20, 10)
    w.raw("this is not JSON at all")
    w.raw('{"type":"event","event":{"event_type":"state_changed"}}')
    w.emit({"id": 2, "type": "event", "event": {"event_type": "call_service", "data": {"domain": "light"},
                                                "origin": "LOCAL", "time_fired": "2026-11-20T09:04:00.000000+00:00"}})
    x1c.set("progress", "unknown", t + 30)
    x1c.set("progress", "150", t + 40)
    x1c.set("progress", "NaN", t + 50)
    x1c.set("remaining", "soon", t + 60)
    x1c.set("status", "garbage_state", t + 70)
    x1c.progress_to(30, 18, 14, t + 300)
    w.raw("[]")
    w.raw('{"id":2,"type":"result","success":false,"error":{"code":"unknown_command","message":"Unknown command."}}')
    x1c.progress_to(60, 36, 8, t + 600)
    w.raw(w.ordered()[-1][:180], t + 700)  # the recording was cut off mid-line
    w.save(os.path.join(OUT, "odd-input.jsonl"))
    with open(os.path.join(OUT, "odd-input.jsonl"), "rb+") as f:
        data = f.read().rstrip(b"\n")
        f.seek(0)
        f.write(data)
        f.truncate()


def cancels():
    """Two cancels in the orders ha-bambulab writes them: the P1S's failed
    status lands before its print error; the A1 mini's bambu_lab_event
    (fired as pybambu sees the cancel code) comes first and its error entity
    only a report later, after the cancel window."""
    w = Wire(seed=8)
    p1s = BambuPrinter(w, P1S, P1S_NAME, 0)
    mini = BambuPrinter(w, A1M, A1M_NAME, 0)
    session(w)
    t = p1s.start("desk_organizer", 220, 140, 10)
    mini.start("whistle", 60, 20, 40)
    for i in range(1, 5):
        t += 240
        p1s.progress_to(8 * i, 17 * i, 140 - 11 * i, t)
        mini.progress_to(9 * i, 5 * i, 20 - 4 * i, t + 1)
    p1s.set("status", "failed", t + 30)
    p1s.set("stage", "idle", t + 30.002)
    p1s.error("0300_400C", "The task was canceled.", t + 30.4)
    mini.bus("event_print_canceled", t + 60)
    mini.set("status", "failed", t + 60.003)
    mini.set("stage", "idle", t + 60.005)
    mini.error("0300_400C", "The task was canceled.", t + 75)
    w.save(os.path.join(OUT, "bambu-cancels.jsonl"))


def abandoned_and_flicker():
    """The X1C's status flickers (running → idle → running within seconds,
    same task: one print); later the P1S's print stops without finish or
    failure (running → idle, and it stays idle)."""
    w = Wire(seed=9)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    p1s = BambuPrinter(w, P1S, P1S_NAME, 0)
    session(w)
    t = x1c.start("phone_stand", 150, 60, 10)
    p1s.start("spool_holder", 200, 90, 20)
    for i in range(1, 5):
        t += 300
        x1c.progress_to(10 * i, 15 * i, 60 - 6 * i, t)
        p1s.progress_to(6 * i, 12 * i, 90 - 5 * i, t + 2)
    x1c.set("status", "idle", t + 30)
    x1c.set("status", "running", t + 34)
    p1s.set("status", "idle", t + 40)
    p1s.set("stage", "idle", t + 40.002)
    for i in range(5, 10):
        t += 300
        x1c.progress_to(10 * i, 15 * i, 60 - 6 * i, t)
    x1c.finish(150, t + 300)
    w.save(os.path.join(OUT, "bambu-abandoned-and-flicker.jsonl"))


def preparation():
    """Things that happen before a print runs: the X1C pauses while
    preparing (the user paused it), then runs and finishes; the P1S is
    cancelled while preparing."""
    w = Wire(seed=10)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    p1s = BambuPrinter(w, P1S, P1S_NAME, 0)
    session(w)
    x1c.set("status", "prepare", 10)
    x1c.set("task", "lid_hinge", 11)
    x1c.set("progress", 0, 12)
    x1c.set("total", 80, 12)
    x1c.set("stage", "heatbed_preheating", 12)
    x1c.set("stage", "paused_user", 60)
    x1c.set("status", "pause", 60.01)
    x1c.set("status", "running", 240)
    x1c.set("stage", "printing", 240.01)
    t = 240
    for i in range(1, 10):
        t += 120
        x1c.progress_to(10 * i, 8 * i, 30 - 3 * i, t)
    x1c.finish(80, t + 120)
    p1s.set("status", "prepare", 30)
    p1s.set("task", "cable_chain", 31)
    p1s.set("stage", "auto_bed_leveling", 90)
    p1s.error("0300_400C", "The task was canceled.", 150)
    p1s.set("status", "failed", 150.02)
    p1s.set("stage", "idle", 150.03)
    w.save(os.path.join(OUT, "bambu-preparation.jsonl"))


def late_task_name():
    """A print after a finished one: ha-bambulab writes `running` a report
    before the new task name and progress, so for a moment the entities
    still show the previous print's file and 100 %."""
    w = Wire(seed=11)
    x1c = BambuPrinter(w, X1C, X1C_NAME, 0)
    x1c.wire.states[x1c.ids["task"]]["state"] = "previous_part"
    session(w)
    x1c.set("status", "running", 10)
    x1c.set("stage", "printing", 10.002)
    x1c.set("task", "new_part", 12)
    x1c.set("progress", 0, 12.001)
    x1c.set("total", 120, 12.002)
    x1c.set("layer", 1, 12.003)
    x1c.remaining(50, 12.004)
    t = 12
    for i in range(1, 10):
        t += 300
        x1c.progress_to(10 * i, 12 * i, 50 - 5 * i, t)
    x1c.finish(120, t + 300)
    w.save(os.path.join(OUT, "bambu-late-task-name.jsonl"))


def dual_nozzle():
    """An H2D: a temperature and target per nozzle beside the active one's."""
    w = Wire(seed=12)
    h2d = BambuPrinter(w, H2D, H2D_NAME, 0, dual_nozzle=True)
    session(w)
    t = h2d.start("two_colour_logo", 100, 45, 10)
    h2d.set("left_target", 220, t - 170)
    h2d.set("right_target", 240, t - 170)
    for i in range(1, 11):
        t += 240
        h2d.progress_to(min(99, 10 * i), 10 * i, 45 - 4 * i, t)
        h2d.set("left", 220 + i % 2, t + 0.02)
        h2d.set("right", 239 + i % 2, t + 0.03)
    h2d.finish(100, t + 240)
    w.save(os.path.join(OUT, "bambu-h2d-dual-nozzle.jsonl"))


def minute_iso(seconds, round_half=False):
    """A timestamp to the minute, as OctoPrint's and Moonraker's sensors write them."""
    moment = EPOCH + _dt.timedelta(seconds=seconds + (30 if round_half else 0))
    return moment.replace(second=0, microsecond=0).isoformat()


def octoprint_prints():
    """Two OctoPrints: the newer integration (ENUM states, Current File, the
    registry) finishes a print seen as Printing → Operational at 100 % and
    cancels one through Cancelling; a second OctoPrint on an older release
    (state text, ids ending `_2`, not in the registry) is cancelled between
    two polls (Printing → Operational, Job Percentage back to 0)."""
    w = Wire(seed=21)
    one = OctoPrint(w, 0)
    two = OctoPrint(w, 0, copy="_2", enum_states=False, registry=False)
    session(w)
    t = 60.0
    one.poll(t, "Operational", 0, file="benchy.gcode", size=2.4, targets=(210, 60))
    minutes = 40
    for i in range(minutes * 2 + 1):
        t += 30
        percentage = round(min(100.0, i * 100 / (minutes * 2)), 2)
        left = (minutes * 2 - i) * 30
        if i < minutes * 2:
            one.poll(t, "Printing", percentage, finish=minute_iso(t + left), start=minute_iso(60),
                     tool0=round(209.6 + (i % 3) * 0.2, 2), bed=round(59.8 + (i % 2) * 0.2, 2), printing=True)
        else:
            # The finish: the poll missed "Finishing"; OctoPrint keeps 100 % and the file.
            one.poll(t, "Operational", 100, finish="unknown", start="unknown", tool0=180.2, bed=58.1,
                     printing=False, targets=(0, 0))
    t += 600
    one.poll(t, "Printing", 0, finish=minute_iso(t + 3600), start=minute_iso(t), file="bracket.gcode", size=1.1,
             printing=True, targets=(215, 60))
    for i in range(1, 13):
        t += 30
        one.poll(t, "Printing", round(i * 1.37, 2), finish=minute_iso(t + 3600 - i * 30), tool0=214.9, bed=60.0)
    t += 30
    one.poll(t, "Cancelling", 16.44, tool0=214.1, bed=59.9)
    t += 30
    one.poll(t, "Operational", 0, finish="unknown", start="unknown", tool0=190.0, bed=57.0, printing=False,
             targets=(0, 0))
    # The older OctoPrint: state text; cancelled between two polls.
    t2 = 200.0
    two.poll(t2, "Printing", 0, finish=minute_iso(t2 + 5400), start=minute_iso(t2), printing=True, targets=(200, 55))
    for i in range(1, 41):
        t2 += 30
        two.poll(t2, "Printing", round(i * 0.83, 2), finish=minute_iso(t2 + 5400 - i * 30), tool0=199.7, bed=55.1)
    t2 += 30
    two.poll(t2, "Operational", 0, finish="unknown", start="unknown", tool0=185.3, bed=54.0, printing=False,
             targets=(0, 0))
    w.save(os.path.join(OUT, "octoprint-prints.jsonl"))


def prusalink_prints():
    """A PrusaLink MK4 without a readable registry (its status entity is
    recognised by its options): a print that needs attention (a runout),
    goes on and finishes, then a print stopped at its user's hand."""
    w = Wire(seed=22)
    mk4 = PrusaLink(w, "prusa_mk4", "prusa-mk4", 0, registry=False)
    session(w)
    t = 30.0
    name = "shape-box_0.4n_0.2mm_PLA_MK4_1h2m.bgcode"
    mk4.status(t, "printing", bed=60.0, nozzle=215.0)
    mk4.job(t + 1.3, 0, name, iso(t), iso(t + 3720))
    for i in range(1, 25):
        t += 150
        progress = round(i * 100 / 25)
        if i == 9:
            mk4.status(t, "attention", bed=59.8, nozzle=170.0)
            t += 480
            mk4.status(t, "printing", bed=60.0, nozzle=214.8)
        mk4.status(t, "printing", bed=60.1, nozzle=215.2 if i % 2 else 214.9)
        mk4.job(t + 2.1, progress, name, iso(30), iso(t + (25 - i) * 155))
    t += 150
    mk4.status(t, "finished", bed=59.9, nozzle=140.0)
    mk4.job(t + 2.6, 100, name, iso(30), iso(t))
    t += 300
    mk4.status(t, "idle", bed=42.0, nozzle=60.0)
    mk4.job(t + 4.0, "unavailable", "unavailable", "unavailable", "unavailable")
    t += 600
    second = "hook_0.4n_0.2mm_PETG_MK4_25m.bgcode"
    mk4.status(t, "printing", bed=85.0, nozzle=240.0)
    mk4.job(t + 1.1, 0, second, iso(t), iso(t + 1500))
    for i in range(1, 9):
        t += 60
        mk4.job(t + 0.8, 5 * i, second, iso(t - 60 * i), iso(t + 1500 - 60 * i))
    t += 20
    mk4.status(t, "stopped", bed=84.0, nozzle=230.0)
    mk4.job(t + 3.0, "unavailable", "unavailable", "unavailable", "unavailable")
    t += 30
    mk4.status(t, "idle", bed=80.0, nozzle=200.0)
    w.save(os.path.join(OUT, "prusalink-prints.jsonl"))


def moonraker_prints():
    """A Voron through Moonraker (registry: platform moonraker, no
    translation keys): a print with layers that pauses and resumes and
    completes, then one cancelled and one ended by a Klipper error."""
    w = Wire(seed=23)
    voron = Moonraker(w, "voron", 0)
    session(w)
    t = 30.0

    def printing(t, percent, layer, total, left_h, name):
        voron.update(t, state="printing", filename=name, time_left=round(left_h, 2),
                     eta=minute_iso(t + left_h * 3600, round_half=True), progress=percent, total=total,
                     layer=layer, extruder=round(239.8 + (layer % 3) * 0.1, 2), bed=round(99.9 + (layer % 2) * 0.1, 2))

    def stopped(t, state):
        voron.update(t, state=state, filename="", time_left=0.0, eta="unknown", progress=0.0, total=0.0, layer=0,
                     extruder=228.0, bed=98.0)

    cube = "voron_cube_ABS.gcode"
    for i in range(0, 21):
        t += 90
        if i == 11:
            voron.update(t, state="paused", time_left=0.0, eta="unknown", progress=0.0, total=0.0)
            t += 300
        printing(t, 5 * i if i < 20 else 99, 12 * i, 240, (20 - i) * 0.025 + 0.01, cube)
    t += 60
    stopped(t, "complete")
    t += 900
    for i in range(0, 8):
        t += 60
        printing(t, 4 * i, 3 * i, 80, 1.2 - i * 0.05, "bracket_PETG.gcode")
    t += 20
    stopped(t, "cancelled")
    t += 600
    for i in range(0, 5):
        t += 60
        printing(t, 3 * i, 2 * i, 120, 2.0 - i * 0.05, "fan_duct_ASA.gcode")
    t += 15
    voron.update(t, printer_state="shutdown")
    stopped(t + 0.5, "error")
    w.save(os.path.join(OUT, "moonraker-prints.jsonl"))


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for make in (full_print, failed_print, pause_and_resume, ha_restart_mid_print,
                 two_printers_with_noise, milestone_jump, odd_input, cancels, abandoned_and_flicker,
                 preparation, late_task_name, dual_nozzle, printer_error_while_idle, bed_cooling,
                 octoprint_prints, prusalink_prints, moonraker_prints):
        make()
    print("wrote", OUT)
