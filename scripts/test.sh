#!/usr/bin/env bash
# The whole test suite: installs missing Debian packages, then swift test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
exec swift test --disable-xctest "$@"
