#!/usr/bin/env bash
# Renders the add-on's icon.png (128×128) and logo.png (250×100) from
# icon.svg and logo.html with headless chromium (scripts/install-test-deps.sh
# installs it). Run after changing the artwork; the PNGs are committed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
addon="$here/../printbridge"
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
# FILE WIDTH HEIGHT OUT: rendered in a window 400 px taller, the top kept.
shot() {
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$profile" \
    --default-background-color=00000000 --window-size="$2,$(($3 + 400))" --screenshot="$profile/shot.png" \
    "file://$here/$1" 2>/dev/null
  python3 "$here/crop_png.py" "$profile/shot.png" "$4" "$2" "$3"
}
shot icon.svg 128 128 "$addon/icon.png"
shot logo.html 250 100 "$addon/logo.png"
