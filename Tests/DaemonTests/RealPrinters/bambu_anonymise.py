#!/usr/bin/env python3
"""Trims and anonymises a `printbridge record` capture of the ha-bambulab chain.

    python3 bambu_anonymise.py RAW.jsonl OUT.jsonl [--printers x1c,p1s,a1mini] [--household]

- serials become the ones SampleEvents' recordings use (X1C 00M09A350100123,
  P1S 01P09C470200456, A1 mini 0300AA2A1500789), in both cases, everywhere
  (entity ids, friendly names, attributes, AMS and device names);
- the printers' addresses (the chain's loopback addresses 127.0.0.2… and the
  127.0.0.1 of the X1C's camera URL) become documentation addresses
  (192.0.2.x, RFC 5737); HA's own port appears nowhere in a recording;
- the access tokens HA puts in camera and image entities' attributes
  (`access_token`, `entity_picture` `?token=…`) become `REDACTED`;
- only the printers named (default: all) are kept: their registry entries
  (platform bambu_lab, entity ids holding the serial), their states in each
  get_states answer, their state_changed events and the bambu_lab_event
  events of their HA devices. HA's own entities (zone.home…) are dropped,
  unless --household: then every non-printer entity stays (the household
  noise of two-printers-with-noise);
- everything else (the frames' order, HA's coalesced arrays, second sessions
  after a reconnect, pongs, context ids, times) stays as recorded; a frame left
  empty is dropped, an array stays an array.
"""
import argparse
import json
import re

SERIALS = {"00M09A391200471": "00M09A350100123", "01P09C470200789": "01P09C470200456",
           "0300AA2A1581641": "0300AA2A1500789"}
MODELS = {"x1c": "00M09A391200471", "p1s": "01P09C470200789", "a1mini": "0300AA2A1581641"}
HOSTS = {"127.0.0.2": "192.0.2.12", "127.0.0.3": "192.0.2.13", "127.0.0.4": "192.0.2.14", "127.0.0.1": "192.0.2.10"}


def anonymise_text(text):
    for real, old in SERIALS.items():
        text = text.replace(real, old).replace(real.lower(), old.lower())
    for real, documentation in HOSTS.items():
        text = re.sub(re.escape(real) + r"(?![0-9])", documentation, text)
    text = re.sub(r'("access_token":")[^"]*(")', r"\1REDACTED\2", text)
    text = re.sub(r"(token=)[0-9a-f]+", r"\1REDACTED", text)
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--printers", default=",".join(MODELS))
    parser.add_argument("--household", action="store_true")
    args = parser.parse_args()
    kept_serials = [MODELS[model].lower() for model in args.printers.split(",")]
    all_serials = [serial.lower() for serial in MODELS.values()]

    def printer_entity(entity_id):
        return any(serial in entity_id for serial in all_serials)

    def kept_entity(entity_id):
        if any(serial in entity_id for serial in kept_serials):
            return True
        return args.household and not printer_entity(entity_id) and entity_id != "zone.home"

    devices = set()
    out = []
    for line in open(args.source, encoding="utf-8"):
        line = line.rstrip("\n")
        try:
            value = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        messages = value if isinstance(value, list) else [value]
        kept = []
        for message in messages:
            result = message.get("result") if isinstance(message, dict) else None
            if isinstance(result, dict) and "entities" in result:
                entries = [entry for entry in result["entities"] if kept_entity(entry["ei"])]
                devices |= {entry["di"] for entry in entries if entry.get("pl") == "bambu_lab" and entry.get("di")}
                message = dict(message, result=dict(result, entities=entries))
            elif isinstance(result, list) and result and isinstance(result[0], dict) and "entity_id" in result[0]:
                message = dict(message, result=[state for state in result if kept_entity(state["entity_id"])])
            elif message.get("type") == "event":
                event = message["event"]
                if event.get("event_type") == "state_changed" and not kept_entity(event["data"].get("entity_id", "")):
                    continue
                if event.get("event_type") == "bambu_lab_event" and event["data"].get("device_id") not in devices:
                    continue
            kept.append(message)
        if not kept:
            continue
        frame = kept if isinstance(value, list) else kept[0]
        out.append(anonymise_text(json.dumps(frame, ensure_ascii=False, separators=(",", ":"))))
    with open(args.target, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
