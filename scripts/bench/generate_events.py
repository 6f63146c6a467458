#!/usr/bin/env python3
"""Generates a large recorded-event file for the replay benchmark.

N messages in HA's wire format, opened as PrintBridge's session is (the
entity registry, get_states, subscriptions): about 98 % state_changed events
of entities that are not printer fields (lights, sensors, people, a washer
whose `_remaining_time` the registry gives to another integration, and the
printers' own Wi-Fi/fan/target-temperature entities), about 2 %
printer-field events from two printers running back-to-back prints.
Deterministic for a given seed.

usage: generate_events.py OUT [--messages N] [--seed S]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from ha_wire import BambuPrinter, Household, Wire  # noqa: E402


class StreamingWire(Wire):
    """Writes lines straight to a file instead of keeping them."""

    def __init__(self, out, seed):
        super().__init__(seed)
        self.out = out
        self.count = 0
        self.printer_events = 0

    def emit(self, obj, t=None):
        from ha_wire import dumps
        self.out.write(dumps(obj))
        self.out.write("\n")
        self.count += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    with open(args.out, "w", encoding="utf-8", buffering=1 << 20) as out:
        wire = StreamingWire(out, args.seed)
        printers = [BambuPrinter(wire, "x1c_00m09a350100123", "X1C", 0),
                    BambuPrinter(wire, "p1s_01p09c470200456", "P1S", 0, remaining_unit="h")]
        home = Household(wire, 0)
        wire.session()  # the registry names the washer's look-alike entity another integration's
        rng = wire.rng
        t = 10.0
        # Printer-field events are ~2 % of messages: each progress step emits
        # ~3 matched events (progress, layer, remaining) plus 2 unmatched
        # (nozzle jitter is matched, fan is not), so step every ~150 messages.
        state = [{"printing": False, "percent": 0, "prints": 0} for _ in printers]
        while wire.count < args.messages:
            t += 0.05
            roll = rng.random()
            if roll < 0.0042:
                i = rng.randrange(len(printers))
                p, s = printers[i], state[i]
                if not s["printing"]:
                    s["prints"] += 1
                    p.start(f"part_{i}_{s['prints']}.3mf", 200, 60, t)
                    s["printing"], s["percent"] = True, 0
                    t += 200
                elif s["percent"] >= 99:
                    p.finish(200, t)
                    s["printing"] = False
                else:
                    s["percent"] += 1
                    p.progress_to(s["percent"], 2 * s["percent"], 60 - 0.6 * s["percent"], t)
            elif roll < 0.03:
                p = printers[rng.randrange(len(printers))]
                p.set(rng.choice(["wifi", "fan"]), rng.randrange(-70, 100), t)
            else:
                home.tick(t)
    print(f"wrote {wire.count} messages to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
