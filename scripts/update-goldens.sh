#!/usr/bin/env bash
# Rewrites SampleEvents/expected/ from the current build. Review the diff
# (git diff SampleEvents/expected) before committing: the goldens are the
# contract the golden tests hold replay to.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product printbridge >/dev/null
mkdir -p SampleEvents/expected
for file in SampleEvents/*.jsonl; do
  name=$(basename "$file" .jsonl)
  .build/debug/printbridge replay "$file" > "SampleEvents/expected/$name.jsonl" 2>/dev/null
done
.build/debug/printbridge replay SampleEvents/two-printers-with-noise.jsonl \
  --devices SampleEvents/devices.example.json > SampleEvents/expected/two-printers-with-noise.devices.jsonl
# NAME.devices.json: NAME.jsonl replayed with those phones.
for devices in SampleEvents/*.devices.json; do
  name=$(basename "$devices" .devices.json)
  .build/debug/printbridge replay "SampleEvents/$name.jsonl" --devices "$devices" \
    > "SampleEvents/expected/$name.devices.jsonl"
done
echo "goldens written to SampleEvents/expected/"
