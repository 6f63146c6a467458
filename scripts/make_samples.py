#!/usr/bin/env python3
"""Writes the hand-made recorded-event scenarios in SampleEvents/ (deterministic).

Each scenario is what `printbridge record` would capture from a live HA:
auth, the answers to PrintBridge's requests (the entity registry, a
get_states snapshot, the subscriptions), then events. Run from anywhere:
python3 scripts/make_samples.py

The ha-bambulab files (bambu-*.jsonl, ha-restart-mid-print.jsonl,
milestone-jump.jsonl, two-printers-with-noise.jsonl) are not made here any
more: they are captures of the real chain (real HA 2024.3.3, the real
ha-bambulab v2.0.46, simulated printers), made by
Tests/DaemonTests/RealPrinters/bambu_capture.py (SampleEvents/README.md).
What is still made here: the H2D (ha-bambulab v2.0.46, the newest release
that loads on the HA the chain runs, knows no H2D), the damaged input, and the
OctoPrint, PrusaLink and Moonraker recordings (scripts/ha_wire.py and
scripts/ha_integrations.py say where each fact comes from).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ha_wire import EPOCH, BambuPrinter, Wire, iso  # noqa: E402
from ha_integrations import Moonraker, OctoPrint, PrusaLink  # noqa: E402
import datetime as _dt  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "SampleEvents")
X1C = "x1c_00m09a350100123"
H2D = "h2d_0948ad520400123"
# The HA device names: ha-bambulab names a printer "<MODEL>_<SERIAL>"; this
# (hand-made) X1C's owner renamed it "X1C".
X1C_NAME, H2D_NAME = "X1C", "H2D_0948AD520400123"


def session(wire, *printers):
    wire.session()


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
    w.save(os.path.join(OUT, "octoprint-newer-ha.jsonl"))


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
    for make in (odd_input, dual_nozzle, octoprint_prints, prusalink_prints, moonraker_prints):
        make()
    print("wrote", OUT)
