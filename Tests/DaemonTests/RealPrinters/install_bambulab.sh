#!/usr/bin/env bash
# What the ha-bambulab chain (RealPrinters/bambu_chain.py) needs besides the
# repository: Debian's mosquitto (the simulated printer's MQTT broker, with TLS)
# and the integration's requirements in Home Assistant's environment. The
# integration itself is vendored (Tests/ThirdParty/ha-bambulab, UPSTREAM.md):
# no package index carries it. Installs what is missing; run after
# scripts/install-test-deps.sh (which makes HA's environment).
set -euo pipefail
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# The broker only: the chain starts its own mosquitto with its own config; the
# package's system service is not needed (it is stopped if the package started it).
if ! command -v mosquitto >/dev/null && [ ! -x /usr/sbin/mosquitto ]; then
  echo "installing mosquitto" >&2
  run apt-get update -qq
  run apt-get install -y -qq --no-install-recommends mosquitto >/dev/null
  if command -v systemctl >/dev/null && systemctl is-active --quiet mosquitto 2>/dev/null; then
    run systemctl stop mosquitto || true
  fi
fi

ha_venv="${XDG_CACHE_HOME:-$HOME/.cache}/printbridge/ha-venv"
if [ ! -x "$ha_venv/bin/python" ]; then
  echo "no Home Assistant environment at $ha_venv: run scripts/install-test-deps.sh first" >&2
  exit 1
fi
# ha-bambulab v2.0.46's manifest.json: requirements cloudscraper, dependencies
# mqtt and ffmpeg. HA 2024.3.3 pins those components' libraries:
# homeassistant/components/mqtt/manifest.json paho-mqtt==1.6.1 and
# homeassistant/components/ffmpeg/manifest.json ha-ffmpeg==3.1.0. Its
# config_flow.py imports homeassistant.components.ssdp, whose library is
# async-upnp-client==0.38.2 (ssdp/manifest.json; without it HA logs "Error
# occurred loading flow for integration bambu_lab" and the flow API answers 404).
# Its camera platform needs HA's camera integration, which imports stream's
# core (numpy==1.26.0; camera/manifest.json PyTurboJPEG==1.7.1); without them
# HA logs "Setup failed for 'camera': ... No module named 'numpy'" and the
# printers have no camera entities. (ffmpeg itself is not installed: only a
# camera stream would run it; HA logs "FFmpeg fails" once at start.)
# The tests start HA with --skip-pip, so all of them are installed here.
if ! "$ha_venv/bin/python" -c 'import paho.mqtt.client, haffmpeg, cloudscraper, async_upnp_client, numpy, turbojpeg' 2>/dev/null; then
  echo "installing ha-bambulab's requirements into $ha_venv" >&2
  "$ha_venv/bin/pip" install --quiet --disable-pip-version-check \
      'paho-mqtt==1.6.1' 'ha-ffmpeg==3.1.0' 'cloudscraper==1.2.71' 'async-upnp-client==0.38.2' \
      'numpy==1.26.0' 'PyTurboJPEG==1.7.1'
fi
