#!/usr/bin/env python3
"""Makes a `printbridge record` capture of the OctoPrint chain fit for SampleEvents.

    python3 anonymise_capture.py RAW.jsonl OUT.jsonl

What a capture of RealOctoPrintTests holds, checked line by line (the script
fails if one of these changes):
  - no HA access token: `record` writes only what HA sends (auth_required,
    auth_ok, results, events, pongs); the long-lived token is only ever sent;
  - no host or port: the entity registry's list_for_display has no device
    configuration_url, and no state names the OctoPrint's address;
  - no user: every context's user_id is null (the states are the integration's
    own writes); context ids are ULIDs (time and randomness only);
  - camera tokens: HA's camera entity writes its access token (rotated every
    5 minutes, homeassistant/components/camera/__init__.py) as the
    `access_token` attribute and in `entity_picture`'s `?token=`. These are
    replaced, each distinct token by a fixed fake one of the same length (HA's
    tokens are hex of varying length: 63 digits were seen).
Every other byte stays as HA sent it (compact JSON, coalesced arrays, pongs),
so the file replays exactly as the capture did. Nothing is cut: a whole run
of the chain is about 4.5 minutes and 175 KB.
"""
import json
import re
import sys

# Hex of no fixed length: one token in a capture had 63 digits.
TOKEN = re.compile(r'(?<="access_token":")[0-9a-f]+(?=")|(?<=\?token=)[0-9a-f]+(?=")')


def main():
    raw, out = sys.argv[1], sys.argv[2]
    fakes = {}
    lines = []
    for number, line in enumerate(open(raw, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line:
            continue
        frames = json.loads(line)
        for frame in frames if isinstance(frames, list) else [frames]:
            for context in contexts(frame):
                assert context.get("user_id") is None, f"line {number}: a user id {context}"
        assert "127.0.0.1" not in line and "localhost" not in line, f"line {number}: an address"
        assert '"access_token":"' not in TOKEN.sub("", line).replace('"access_token":""', ""), f"line {number}"

        def fake(match):
            token = match.group(0)
            return fakes.setdefault(token, ("%x" % (0xCA3E7A0000 + len(fakes) + 1)).rjust(len(token), "0"))

        lines.append(TOKEN.sub(fake, line))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} lines, {len(fakes)} camera tokens replaced", file=sys.stderr)


def contexts(value):
    if isinstance(value, dict):
        if isinstance(value.get("context"), dict):
            yield value["context"]
        for item in value.values():
            yield from contexts(item)
    elif isinstance(value, list):
        for item in value:
            yield from contexts(item)


if __name__ == "__main__":
    main()
