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
#
# The C++ runtime that the Swift runtime uses (libstdc++) and libgcc are linked
# in statically too. No other library the agent loads needs them, and loading
# the shared libstdc++ costs ~0.8 MiB of resident memory (its symbol tables and
# relocations are read whole) for the few functions the runtime calls. The
# toolchain's static-stdlib arguments ask for -lstdc++ by name, so the build
# puts a directory holding only GCC's libstdc++.a ahead of GCC's own on the
# search path.
set -euo pipefail
cd "$(dirname "$0")/.."
product="${1:-printbridge}"
shift || true

static_libs="$PWD/.build/deploy/static-libs"
libstdcxx=""
for compiler in clang gcc cc; do  # the toolchain's clang, else the system's compilers
  if command -v "$compiler" >/dev/null; then
    libstdcxx="$("$compiler" -print-file-name=libstdc++.a)"
    [[ "$libstdcxx" == /* ]] && break
  fi
done
if [[ "$libstdcxx" != /* ]]; then
  echo "build-release.sh: no libstdc++.a found; install GCC's libstdc++ -dev package (libstdc++-12-dev on Debian 12)" >&2
  exit 1
fi
mkdir -p "$static_libs"
ln -sfn "$libstdcxx" "$static_libs/libstdc++.a"

swift build -c release --static-swift-stdlib --scratch-path .build/deploy --product "$product" \
  -Xswiftc -Xfrontend -Xswiftc -function-sections \
  -Xswiftc -Xclang-linker -Xswiftc "-L$static_libs" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc "$@"
