#!/usr/bin/env bash
# The add-on's entry point: turns the add-on options (/data/options.json) into
# PrintBridge's settings and runs it against Home Assistant through the
# Supervisor (ws://supervisor/core/websocket, SUPERVISOR_TOKEN).
set -euo pipefail
OPTIONS_FILE="${OPTIONS_FILE:-/data/options.json}"
PRINTBRIDGE_BIN="${PRINTBRIDGE_BIN:-/usr/local/bin/printbridge}"
SECRETS_DIR="${SECRETS_DIR:-/tmp/printbridge}"

option() { jq -r --arg key "$1" '.[$key] // empty' "$OPTIONS_FILE"; }

[ -r "$OPTIONS_FILE" ] || { echo "printbridge add-on: cannot read $OPTIONS_FILE" >&2; exit 78; }
[ -n "${SUPERVISOR_TOKEN:-}" ] || { echo "printbridge add-on: SUPERVISOR_TOKEN missing (homeassistant_api)" >&2; exit 78; }

export HA_URL="ws://supervisor/core/websocket"
export STATE_DIR="${STATE_DIR:-/data}"
export APNS_TEAM_ID="$(option apns_team_id)"
export APNS_KEY_ID="$(option apns_key_id)"
export APNS_KEY_PATH="$(option apns_key_file)"
export APNS_BUNDLE_ID="$(option apns_bundle_id)"
export APNS_PRODUCTION="$(option apns_production)"
export MILESTONES="$(option milestones)"
export API_LISTEN="0.0.0.0:3000"

# The API token goes to a file readable only by this process, not the environment.
api_token="$(option api_token)"
if [ -z "$api_token" ]; then
  echo "printbridge add-on: set api_token in the add-on options (the app sends it)" >&2
  exit 78
fi
mkdir -p "$SECRETS_DIR" && chmod 700 "$SECRETS_DIR"
umask 077
printf '%s\n' "$api_token" > "$SECRETS_DIR/api-token"
unset api_token
export API_TOKEN_FILE="$SECRETS_DIR/api-token"

exec "$PRINTBRIDGE_BIN" run
