#!/usr/bin/env python3
"""Records the ha-bambulab chain's real event streams for SampleEvents/ with `printbridge record`.

    python bambu_capture.py --printbridge .build/debug/printbridge --out DIR [NAME ...]

Run with the Python of HA's environment (the chain needs it). Starts
bambu_chain.py with an X1C, a P1S and an A1 mini, and for each capture (NAME:
a key of CAPTURES below; default all of them, in that order) plays its setup
(not recorded), starts `printbridge record --out DIR/raw-NAME.jsonl` against the
chain's HA, waits until it has subscribed (its log says so), plays the
capture's scenarios (bambu_printer.py SCENARIOS; several at once when the
story has two printers) and its chain commands (household noise), waits
until every scenario has played, 2 s more for the last report's events to
reach the recorder, and stops it (SIGTERM). `record` reconnects by itself when HA restarts, so a
capture with an HA restart holds both sessions as received. Then
bambu_anonymise.py writes DIR/NAME.jsonl: the capture's printers only (and the
household entities for the noise capture), serials, hosts and tokens
anonymised. Copy those into SampleEvents/ and run scripts/update-goldens.sh.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bambu_printer import wait_for  # noqa: E402

# name -> printers in the file, setup (played before recording), steps, household entities kept
CAPTURES = {
    "bambu-full-print": {"printers": ["x1c"], "steps": [("play", "full-print-long", "x1c")]},
    "bambu-failed-print": {"printers": ["p1s"], "steps": [("play", "failed-print", "p1s")]},
    "bambu-pause-resume": {"printers": ["x1c"], "steps": [("play", "pause-resume", "x1c")]},
    "bambu-printer-error-idle": {"printers": ["p1s"], "steps": [("play", "error-idle-restart", "p1s")]},
    "bambu-bed-cooling": {"printers": ["x1c"], "steps": [("play", "bed-cooling-slow", "x1c")]},
    "bambu-cancels": {"printers": ["p1s", "a1mini"],
                      "steps": [("play", "cancel-p1s", "p1s"), ("play", "cancel-split-a1mini", "a1mini")]},
    "bambu-abandoned-and-flicker": {"printers": ["x1c", "p1s"], "setup": [("play", "reset", "x1c"), ("play", "reset", "p1s")],
                                    "steps": [("play", "flicker", "x1c"), ("play", "abandon", "p1s")]},
    "bambu-preparation": {"printers": ["x1c", "p1s"],
                          "steps": [("play", "prepare-pause", "x1c"), ("play", "prepare-cancel", "p1s")]},
    "bambu-late-task-name": {"printers": ["x1c"], "setup": [("play", "finished-before", "x1c")],
                             "steps": [("play", "late-task-name", "x1c")]},
    "ha-restart-mid-print": {"printers": ["x1c"], "steps": [("play", "restart-mid-print", "x1c")]},
    "milestone-jump": {"printers": ["x1c"], "steps": [("play", "offline-jump", "x1c")]},
    "two-printers-with-noise": {"printers": ["x1c", "a1mini"], "household": True,
                                "steps": [("noise", "150"), ("play", "noise-x1c", "x1c"), ("play", "noise-a1mini", "a1mini")]},
}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--printbridge", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("names", nargs="*", default=list(CAPTURES))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="printbridge-capture-")
    token, stats = os.path.join(work, "token"), os.path.join(work, "stats.json")
    chain = subprocess.Popen([sys.executable, os.path.join(HERE, "bambu_chain.py"), "--token-file", token, "--stats", stats,
                              "--printers", "x1c,p1s,a1mini"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = chain.stdout.readline()
    if not line.startswith("PORT "):
        raise SystemExit(f"the chain did not start: {line!r}")
    port = int(line.split()[1])

    def read_stats():
        try:
            with open(stats) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def send(command):
        chain.stdin.write(command + "\n")
        chain.stdin.flush()

    def play_all(steps, timeout):
        """Sends the steps; waits until every scenario among them has played."""
        before = len(read_stats().get("played", []))
        plays = 0
        for step in steps:
            if step[0] == "play":
                send(f"play {step[1]} {step[2]}")
                plays += 1
            else:
                send(" ".join(step))
        wait_for(lambda: len(read_stats().get("played", [])) >= before + plays, timeout,
                 f"{plays} scenario(s) played: {[s[1] for s in steps if s[0] == 'play']}")
        played = read_stats()["played"][before:]
        errors = [entry for entry in played if entry.get("error")]
        if errors:
            raise SystemExit(f"a scenario failed: {errors}")
        return played

    try:
        for name in args.names:
            spec = CAPTURES[name]
            if spec.get("setup"):
                play_all(spec["setup"], 120)
                time.sleep(1)  # the setup's events are HA's state, not part of the recording
            raw = os.path.join(args.out, f"raw-{name}.jsonl")
            log = raw + ".log"
            environment = dict(os.environ, HA_URL=f"http://127.0.0.1:{port}", HA_TOKEN_FILE=token, HA_TOKEN="")
            with open(log, "w") as log_file:
                recorder = subprocess.Popen([args.printbridge, "record", "--out", raw], env=environment,
                                            stdout=log_file, stderr=subprocess.STDOUT)

            def logged(text):
                with open(log) as f:
                    return text in f.read()

            wait_for(lambda: logged("subscribed to state changes"), 30, f"printbridge record subscribed ({raw})")
            began = time.monotonic()
            played = play_all(spec["steps"], 900)
            # The recorder writes as it receives (buffered): let the last report's burst reach it.
            time.sleep(2)  # a capture, not a test: a fixed tail after the last report
            recorder.send_signal(signal.SIGTERM)
            recorder.wait(30)
            with open(os.path.join(args.out, f"raw-{name}.plays.json"), "w") as f:
                json.dump({"played": played, "restart_times": read_stats().get("restart_times", []),
                           "noise": read_stats().get("noise", 0), "serials": read_stats().get("serials"),
                           "hosts": read_stats().get("hosts"), "devices": read_stats().get("devices")}, f, indent=1)
            anonymise = [sys.executable, os.path.join(HERE, "bambu_anonymise.py"), raw, os.path.join(args.out, f"{name}.jsonl"),
                         "--printers", ",".join(spec["printers"])] + (["--household"] if spec.get("household") else [])
            subprocess.run(anonymise, check=True)
            reconnects = open(log).read().count("reconnecting to Home Assistant")
            print(f"{name}: {time.monotonic() - began:.1f} s, recorder reconnects {reconnects}", flush=True)
    finally:
        chain.stdin.close()
        chain.wait(180)


if __name__ == "__main__":
    main()
