#!/usr/bin/env bash
# Installs the Debian packages PrintBridge builds against, if any is missing.
# Safe to run repeatedly; uses sudo when not root.
set -euo pipefail

packages=(pkg-config libwebsockets-dev libnghttp2-dev libssl-dev libsqlite3-dev libqrencode-dev zlib1g-dev libyaml-dev)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
run() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
export DEBIAN_FRONTEND=noninteractive
run apt-get update -qq
run apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
