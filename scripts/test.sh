#!/usr/bin/env bash
# The whole test suite: installs missing Debian packages and the Python
# packages of the mock APNs server, then swift test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/install-test-deps.sh
exec swift test --disable-xctest "$@"
