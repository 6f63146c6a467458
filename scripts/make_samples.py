#!/usr/bin/env python3
"""Writes the recorded-event scenarios in SampleEvents/ (deterministic).

Each scenario is what `printbridge record` would capture from a live HA:
auth, a get_states snapshot, the subscription result, then state_changed
events. Run from anywhere: python3 scripts/make_samples.py
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ha_wire import BambuPrinter, Household, Wire  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "SampleEvents")
X1C = "x1c_00m09a350100123"
P1S = "p1s_01p09c470200456"
A1M = "a1mini_0300aa2a1500789"


def session(wire, *printers):
    wire.auth()
    wire.get_states()
    wire.subscribed()


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
    x1c = BambuPrinter(w, X1C, "X1C", 0)
    session(w)
    t = x1c.start("benchy_v2.3mf", 250, 52, 60)
    # 2 % steps every ~62 s: routine Live Activity updates throttle to one per 30 s.
    t = print_steps(x1c, None, 250, 52, 50, t, 62)
    x1c.finish(250, t + 30)
    w.save(os.path.join(OUT, "bambu-full-print.jsonl"))


def failed_print():
    w = Wire(seed=2)
    p1s = BambuPrinter(w, P1S, "P1S", 0, remaining_unit="h")
    session(w)
    t = p1s.start("phone_stand_petg.3mf", 180, 95, 30)
    for i in range(1, 9):
        t += 120
        p1s.progress_to(4 * i, 7 * i, 95 - 4 * i, t)
    # Spaghetti detection stops the print: error first, then the failed status.
    p1s.set("error", "on", t + 40, {"device_class": "problem", "friendly_name": "P1S Print error",
                                    "code": "0C00_8003", "error": "Spaghetti failure was detected."})
    p1s.set("status", "failed", t + 41)
    p1s.set("stage", "idle", t + 41)
    p1s.set("nozzle_target", 0, t + 42)
    p1s.set("nozzle", 150, t + 120)
    w.save(os.path.join(OUT, "bambu-failed-print.jsonl"))


def pause_and_resume():
    w = Wire(seed=3)
    x1c = BambuPrinter(w, X1C, "X1C", 0)
    session(w)
    t = x1c.start("gearbox_housing.3mf", 400, 180, 45)
    for i in range(1, 11):
        t += 300
        x1c.progress_to(4 * i, 16 * i, 180 - 7 * i, t)
    # Filament runout: the printer pauses for 20 minutes, then resumes.
    x1c.set("stage", "filament_runout_pause", t + 10)
    x1c.set("status", "pause", t + 11)
    x1c.set("nozzle_target", 0, t + 30)
    x1c.set("nozzle", 180, t + 300)
    t += 1200
    x1c.set("nozzle_target", 220, t)
    x1c.set("nozzle", 220, t + 90)
    x1c.set("status", "running", t + 100)
    x1c.set("stage", "printing", t + 100)
    t += 100
    for i in range(11, 25):
        t += 300
        x1c.progress_to(min(99, 4 * i), 16 * i, max(0, 180 - 7 * i), t)
    x1c.finish(400, t + 60)
    w.save(os.path.join(OUT, "bambu-pause-resume.jsonl"))


def ha_restart_mid_print():
    w = Wire(seed=4)
    x1c = BambuPrinter(w, X1C, "X1C", 0)
    session(w)
    t = x1c.start("lamp_shade_vase.3mf", 300, 120, 20)
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
                       ("bed", 65), ("task", "lamp_shade_vase.3mf"), ("stage", "printing")):
        x1c.wire.states[x1c.ids[key]]["state"] = str(value)
    w.auth()
    w.get_states()
    w.subscribed()
    for i in range(8, 20):
        t += 300
        x1c.progress_to(5 * i, 15 * i, max(0, 120 - 6 * i), t)
    x1c.finish(300, t + 60)
    w.save(os.path.join(OUT, "ha-restart-mid-print.jsonl"))


def two_printers_with_noise():
    w = Wire(seed=5)
    x1c = BambuPrinter(w, X1C, "X1C", 0)
    mini = BambuPrinter(w, A1M, "A1 mini", 0)
    home = Household(w, 0)
    session(w)
    events = []  # (time, callable) merged in time order with household noise

    def at(t, fn):
        events.append((t, len(events), fn))

    # X1C: a 40-minute print.
    at(100, lambda: x1c.start("cable_clips.3mf", 120, 40, 100))
    for i in range(1, 21):
        percent = 5 * i
        at(280 + 110 * i, lambda p=percent, tt=280 + 110 * i: x1c.progress_to(min(p, 99), round(1.2 * p), round(40 * (1 - p / 100)), tt))
    at(280 + 110 * 21, lambda: x1c.finish(120, 280 + 110 * 21))
    # A1 mini: starts later, is cancelled by the user at ~30 %.
    at(600, lambda: mini.start("keychain_set.3mf", 90, 25, 600))
    for i in range(1, 7):
        at(780 + 140 * i, lambda p=5 * i, tt=780 + 140 * i: mini.progress_to(p, round(0.9 * p), 25 - p // 4, tt))
    cancel_time = 780 + 140 * 7
    at(cancel_time, lambda: mini.set("error", "on", cancel_time, {"device_class": "problem", "friendly_name": "A1 mini Print error",
                                                                  "code": "0300_400C", "error": "The task was canceled."}))
    at(cancel_time + 1, lambda: mini.set("status", "failed", cancel_time + 1))
    for k in range(0, 3400, 7):
        at(k + 3, lambda tt=k + 3: home.tick(tt))
    for _, _, fn in sorted(events, key=lambda e: (e[0], e[1])):
        fn()
    w.save(os.path.join(OUT, "two-printers-with-noise.jsonl"))


def milestone_jump():
    w = Wire(seed=6)
    x1c = BambuPrinter(w, X1C, "X1C", 0)
    session(w)
    t = x1c.start("tall_vase.3mf", 500, 300, 10)
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
    x1c = BambuPrinter(w, X1C, "X1C", 0)
    session(w)
    t = x1c.start("bracket.3mf", 60, 20, 10)
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
    w.lines.append(w.lines[-1][:180])  # the recording was cut off mid-line
    w.save(os.path.join(OUT, "odd-input.jsonl"))
    with open(os.path.join(OUT, "odd-input.jsonl"), "rb+") as f:
        data = f.read().rstrip(b"\n")
        f.seek(0)
        f.write(data)
        f.truncate()


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for make in (full_print, failed_print, pause_and_resume, ha_restart_mid_print,
                 two_printers_with_noise, milestone_jump, odd_input):
        make()
    print("wrote", OUT)
