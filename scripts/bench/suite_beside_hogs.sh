#!/usr/bin/env bash
# README's test command (scripts/test.sh) RUNS times in a row beside HOGS busy
# loops (issue 51: "green three times in a row beside two CPU hogs"), to show
# the suite waits for what it asserts on a busy machine. Prints each run's exit
# status, time, load average and swift test's summary line; stops at the first
# failure (its whole output is kept). Exit 0 only if every run passed.
#
#   scripts/bench/suite_beside_hogs.sh [RUNS=3] [HOGS=2]
set -uo pipefail
cd "$(dirname "$0")/../.."
runs="${1:-3}"
hogs="${2:-2}"
out="$(mktemp -d)"
pids=()
stop_hogs() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; }
trap stop_hogs EXIT
for _ in $(seq "$hogs"); do (while :; do :; done) & pids+=($!); done
echo "$(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null): $runs runs of scripts/test.sh beside $hogs busy loops ($(nproc) cores)"
for run in $(seq "$runs"); do
  start=$(date +%s)
  bash scripts/test.sh > "$out/run$run.out" 2>&1
  status=$?
  summary=$(grep -E 'Test run with' "$out/run$run.out" | tail -1)
  echo "run $run: exit $status in $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg); $summary"
  if [ "$status" -ne 0 ]; then
    echo "run $run failed: its output is $out/run$run.out"
    exit 1
  fi
  rm -f "$out/run$run.out"
done
rmdir "$out"
