#!/usr/bin/env bash
# The main job on bundled sample data: replays a recorded Bambu print and
# prints every push PrintBridge would send. No Home Assistant, no Apple account.
# usage: scripts/demo.sh [SampleEvents/FILE.jsonl ...] [replay options]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --product printbridge 2>&1 | grep -Ev '^(\[[0-9]+/[0-9]+\]|Building|Compiling|Write|Planning|Fetching|Cloning|Computing|Working copy)' >&2 || true
[ $# -eq 0 ] && set -- SampleEvents/bambu-full-print.jsonl --format text
exec .build/debug/printbridge replay "$@"
