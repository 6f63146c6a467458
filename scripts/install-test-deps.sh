#!/usr/bin/env bash
# Test-only tooling: the mock APNs server (Tests/APNsClientTests/MockAPNs) is
# Python with h2 and cryptography, the mock Home Assistant
# (Tests/DaemonTests/MockHA) Python with websockets. Installs them if missing.
set -euo pipefail
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
# jq runs the HA add-on's run.sh; systemd-analyze verifies the systemd unit
# (whose ExecReload needs /bin/kill, from procps).
missing=()
command -v jq >/dev/null || missing+=(jq)
command -v systemd-analyze >/dev/null || missing+=(systemd)
[ -x /bin/kill ] || missing+=(procps)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  run apt-get update -qq && run apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v python3 >/dev/null || {
  run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  run apt-get update -qq && run apt-get install -y -qq python3 python3-pip >/dev/null
}
if ! python3 -c 'import h2, cryptography, websockets, yaml' 2>/dev/null; then
  echo "installing Python test packages: h2 cryptography websockets pyyaml" >&2
  python3 -m pip install --quiet --disable-pip-version-check h2 cryptography websockets pyyaml 2>/dev/null \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages h2 cryptography websockets pyyaml
fi
