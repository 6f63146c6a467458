#!/usr/bin/env bash
# Test-only tooling: the mock APNs server (Tests/APNsClientTests/MockAPNs) is
# Python with h2 and cryptography, the mock Home Assistant
# (Tests/DaemonTests/MockHA) Python with websockets. Installs them if missing.
set -euo pipefail
command -v python3 >/dev/null || {
  run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  run apt-get update -qq && run apt-get install -y -qq python3 python3-pip >/dev/null
}
if ! python3 -c 'import h2, cryptography, websockets' 2>/dev/null; then
  echo "installing Python test packages: h2 cryptography websockets" >&2
  python3 -m pip install --quiet --disable-pip-version-check h2 cryptography websockets 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages h2 cryptography websockets
fi
