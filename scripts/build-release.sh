#!/usr/bin/env bash
# Builds PrintBridge as deployed (Deploy/install.sh, the Dockerfiles and the
# benchmarks all build through here): release, the Swift runtime linked
# statically, and every Swift function and constant in a section of its own,
# dependencies included, so the linker can put the code and metadata that
# `printbridge run` touches next to each other (Package.swift,
# Sources/printbridge/printbridge.order). Only a command-line flag reaches the
# dependencies' code, hence this script.
#
#   scripts/build-release.sh [PRODUCT] [swift build options...]
#
# PRODUCT defaults to printbridge. The build has its own directory,
# .build/deploy, because SwiftPM does not rebuild objects when only flags
# change: a plain `swift build -c release` in .build must not leave objects
# without the sections behind. The binary: .build/deploy/release/PRODUCT.
set -euo pipefail
cd "$(dirname "$0")/.."
product="${1:-printbridge}"
shift || true
swift build -c release --static-swift-stdlib --scratch-path .build/deploy --product "$product" \
  -Xswiftc -Xfrontend -Xswiftc -function-sections "$@"
