#!/usr/bin/env bash
# OctoPrint from PyPI for the real-printer tests (RealPrinters/octoprint_chain.py),
# in a virtual environment of its own beside Home Assistant's (both outside the
# repository, so a fresh clone reuses them), and HA's `octoprint` integration's
# library in HA's environment (HA would otherwise pip-install it during the
# config flow; the tests start HA with --skip-pip). Installs what is missing:
# run after scripts/install-test-deps.sh (which makes HA's environment).
set -euo pipefail
cache="${XDG_CACHE_HOME:-$HOME/.cache}/printbridge"
# 1.11.x is the newest series that installs on Python 3.11 here.
octoprint_version=1.11.8
octoprint_venv="$cache/octoprint-venv"
if [ ! -f "$octoprint_venv/.ready-$octoprint_version" ]; then
  echo "installing OctoPrint $octoprint_version for the tests into $octoprint_venv (a minute or two, once)" >&2
  rm -rf "$octoprint_venv"
  python3 -m venv "$octoprint_venv"
  "$octoprint_venv/bin/pip" install --quiet --disable-pip-version-check "OctoPrint==$octoprint_version"
  "$octoprint_venv/bin/octoprint" --version >/dev/null
  touch "$octoprint_venv/.ready-$octoprint_version"
fi

# HA 2024.3.3's homeassistant/components/octoprint/manifest.json requires
# pyoctoprintapi==0.1.12; its config_flow.py imports homeassistant.components.zeroconf
# and .ssdp for discovery, so the flow cannot load without zeroconf's library
# (components/zeroconf/manifest.json: zeroconf==0.131.0; ssdp's async-upnp-client
# is among HA's defaults already). real_ha.py's HA does not load default_config,
# so neither is installed by its first start.
ha_venv="$cache/ha-venv"
if [ ! -x "$ha_venv/bin/python" ]; then
  echo "no Home Assistant environment at $ha_venv: run scripts/install-test-deps.sh first" >&2
  exit 1
fi
if ! "$ha_venv/bin/python" -c 'import pyoctoprintapi, zeroconf, async_upnp_client' 2>/dev/null; then
  echo "installing pyoctoprintapi 0.1.12 and zeroconf 0.131.0 into $ha_venv" >&2
  "$ha_venv/bin/pip" install --quiet --disable-pip-version-check 'pyoctoprintapi==0.1.12' 'zeroconf==0.131.0' \
      'async-upnp-client==0.38.2'
fi
