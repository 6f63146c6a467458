#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ (AddressSanitizer on) and runs each
# for SECONDS (default 30), starting from Fuzz/Corpus/TARGET and what earlier
# runs found (kept in .build/fuzz-corpus). Exits non-zero if any target
# crashes or fails a check; the reproducer is left in .build/fuzz-artifacts.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: FuzzHAFrames FuzzHTTP FuzzSettings FuzzISO8601 FuzzTZif
#   .build/fuzz/release/FuzzHTTP FILE            replay one input (a reproducer)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzHAFrames FuzzHTTP FuzzSettings FuzzISO8601 FuzzTZif)

# lld: gold fails on the sanitizer runtimes' symbols (an internal error in its DWARF reader).
# A failed build stops here: the binaries of an earlier build would fuzz old code.
build_log=".build/fuzz-build.log"
mkdir -p .build
if ! (cd Fuzz && swift build -c release --scratch-path ../.build/fuzz -Xswiftc -enable-testing \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld) >"$build_log" 2>&1; then
  echo "fuzz: the fuzz targets did not build ($build_log):" >&2
  grep -E "error:" "$build_log" | sort -u | head -20 >&2 || tail -20 "$build_log" >&2
  exit 1
fi
grep -E "warning: unre|Build complete" "$build_log" || true
mkdir -p .build/fuzz-artifacts
status=0
for target in "${targets[@]}"; do
  binary=".build/fuzz/release/$target"
  [ -x "$binary" ] || { echo "fuzz: $binary was not built" >&2; exit 1; }
  corpus=".build/fuzz-corpus/$target"
  mkdir -p "$corpus"
  log=".build/fuzz-artifacts/$target.log"
  if LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" "$binary" "$corpus" "Fuzz/Corpus/$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix=".build/fuzz-artifacts/$target-" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz: $target: $runs executions in ${seconds} s, no crash"
  else
    echo "fuzz: $target FAILED; what it said ($log):" >&2
    # A Swift check's message comes first (AddressSanitizer's report of the
    # crash handler reading memory follows it); otherwise AddressSanitizer's
    # own report, whole up to its summary: the access, both stacks, and which
    # frame and variable the address belongs to. Shadow bytes are left out.
    grep -a -m 2 -E "Fatal error|Swift runtime failure" "$log" >&2 || true
    sed -n '/ERROR: AddressSanitizer/,/^SUMMARY:/p' "$log" | grep -a -v -E "^ *$" | head -60 >&2 || true
    echo "fuzz: the end of its log:" >&2
    tail -12 "$log" >&2
    status=1
  fi
done
exit $status
