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

swift build -c release --static-swift-stdlib "${package[@]}" --product "$product" \
  -Xswiftc -Xclang-linker -Xswiftc "-L$static_libs" -Xswiftc -Xclang-linker -Xswiftc -static-libgcc "$@"

# The static C++ runtime is checked, not assumed: a toolchain that stops
# asking for -lstdc++ by name would link the shared one again, silently.
binary="$(swift build -c release "${package[@]}" --show-bin-path)/$product"
if readelf -d "$binary" | grep -E 'NEEDED.*(libstdc\+\+|libgcc_s)' >&2; then
  echo "build-release.sh: $binary needs the shared C++ runtime above; it should be linked in statically" >&2
  exit 1
fi
