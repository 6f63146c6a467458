#!/usr/bin/env bash
# Builds PrintBridge as deployed (Deploy/install.sh, the Dockerfiles and the
# benchmarks all build through here): release, the Swift runtime linked
# statically (Package.swift states the release link flags and the glibc they
# need).
#
#   scripts/build-release.sh [PRODUCT] [swift build options...]
#
# PRODUCT defaults to printbridge. The build has its own directory,
# .build/deploy, because SwiftPM does not rebuild objects when only flags
# change: a plain `swift build -c release` in .build must not share objects
# with it. The binary: .build/deploy/release/PRODUCT. The benchmarks' own
# programs (Benchmarks/Package.swift: FootprintFloor, APNsBenchmark) are built
# the same way into .build/deploy-benchmarks/release/PRODUCT.
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

package=(--scratch-path .build/deploy)
if grep -q "name: \"$product\"" Benchmarks/Package.swift; then
  package=(--package-path Benchmarks --scratch-path .build/deploy-benchmarks)
fi

# The agent's code in the order it runs at start-up and idle
# (scripts/symbol-order.txt and scripts/section-order.ld, written by
# scripts/symbol-order.py): packed at the front, the code an idle agent
# touches maps ~3 MiB instead of 8.4 MiB (the kernel maps code 64 KB around
# each page touched; daemon_benchmark.py --smaps). Names the toolchain
# lacks are skipped; a stale order only maps more pages. SwiftPM does not
# relink when only linker flags change, so an order newer than the binary
# removes the binary first.
binary="$(swift build -c release "${package[@]}" --show-bin-path)/$product"
order=()
if [[ "$product" == printbridge && -f scripts/symbol-order.txt ]]; then
  # Each function in a section of its own (Swift's and the C targets'): lld
  # orders sections, and without this swiftc puts most of a file's functions
  # in one `.text`, so the list could only move whole files.
  order=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
    -Xlinker "--symbol-ordering-file=$PWD/scripts/symbol-order.txt" -Xlinker --no-warn-symbol-ordering)
  # What that list cannot name (functions LLVM leaves without a symbol:
  # closure-context destructors, some value witnesses; local names many
  # files define) is placed by file and section by a linker script that
  # lld inserts ahead of the default layout's .text. A pattern that
  # matches nothing is ignored.
  if [[ -f scripts/section-order.ld ]]; then
    order+=(-Xlinker "-T$PWD/scripts/section-order.ld")
    if [[ -f "$binary" && scripts/section-order.ld -nt "$binary" ]]; then rm -f "$binary"; fi
  fi
  if [[ -f "$binary" && scripts/symbol-order.txt -nt "$binary" ]]; then rm -f "$binary"; fi
  # swiftc keeps an object whose code (LLVM IR) hashes the same as before
  # (the .swift_modhash section), and codegen flags are not in that hash:
  # objects built before function sections are removed once, or they stay.
  marker=.build/deploy/function-sections
  if [[ ! -f "$marker" ]]; then
    find .build/deploy -path '*/release/*.build/*' -name '*.o' -delete 2>/dev/null || true
    mkdir -p .build/deploy && touch "$marker"
  fi
fi

swift build -c release --static-swift-stdlib "${package[@]}" --product "$product" \
  -Xswiftc -Xclang-linker -Xswiftc "-L$static_libs" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc "${order[@]}" "$@"

# The static C++ runtime is checked, not assumed: a toolchain that stops
# asking for -lstdc++ by name would link the shared one again, silently.
if readelf -d "$binary" | grep -E 'NEEDED.*(libstdc\+\+|libgcc_s)' >&2; then
  echo "build-release.sh: $binary needs the shared C++ runtime above; it should be linked in statically" >&2
  exit 1
fi
