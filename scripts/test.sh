#!/usr/bin/env bash
# The whole test suite: installs missing Debian packages and the Python
# packages of the mocks, runs swift test, then each libFuzzer target in
# Fuzz/ for FUZZ_SECONDS (30) so a regression on the input paths fails too.
# Arguments (e.g. --filter X) go to swift test, and then the fuzzers are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/install-test-deps.sh
# The mocks run on the test virtual environment's Python (tests start them with `python3`).
export PATH="$PWD/.build/test-venv/bin:$PATH"
swift test --disable-xctest "$@"
if [ $# -eq 0 ]; then
  scripts/fuzz.sh "${FUZZ_SECONDS:-30}"
fi
