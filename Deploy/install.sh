#!/usr/bin/env bash
# Installs PrintBridge on a Debian or Raspberry Pi OS host with the Swift
# toolchain: builds it, installs the binary and the systemd unit, prepares
# /etc/printbridge, and says what to do next.
#
#   Deploy/install.sh                 build and install (uses sudo when not root)
#   Deploy/install.sh --root DIR      install into DIR instead of / (no systemctl)
#   Deploy/install.sh --binary FILE   install FILE instead of building
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=""
BINARY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT="$2"; shift 2 ;;
    --binary) BINARY="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 64 ;;
  esac
done
run() { if [ -n "$ROOT" ] || [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if [ -z "$BINARY" ]; then
  scripts/install-deps.sh
  scripts/build-release.sh printbridge
  BINARY=.build/deploy/release/printbridge
fi
run install -D -m 0755 "$BINARY" "$ROOT/usr/local/bin/printbridge"
run install -D -m 0644 Deploy/systemd/printbridge.service "$ROOT/etc/systemd/system/printbridge.service"
run install -d -m 0700 "$ROOT/etc/printbridge"
if [ ! -e "$ROOT/etc/printbridge/printbridge.env" ]; then
  run install -m 0600 Deploy/systemd/printbridge.env.example "$ROOT/etc/printbridge/printbridge.env"
fi
if [ -z "$ROOT" ]; then run systemctl daemon-reload; fi

cat <<NEXT
PrintBridge is installed. Next:
  1. Edit $ROOT/etc/printbridge/printbridge.env (HA_URL, APNS_TEAM_ID, APNS_KEY_ID, APNS_BUNDLE_ID, ...).
  2. Put the secrets next to it, readable by root only (chmod 600):
       $ROOT/etc/printbridge/ha-token      a long-lived access token from your HA profile
       $ROOT/etc/printbridge/apns-key.p8   your AuthKey_XXXXXXXXXX.p8 from Apple
       $ROOT/etc/printbridge/api-token     any long random string; the app sends it
  3. sudo systemctl enable --now printbridge
  4. journalctl -u printbridge -f
NEXT
