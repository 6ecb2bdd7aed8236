#!/usr/bin/env bash
# Sets up what is missing (scripts/setup.sh: packages, LibTorch, build), then runs the whole
# test suite through CTest. Exits non-zero on any failure. Same knobs as setup.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
export BUILD_DIR

"$ROOT/scripts/setup.sh"

printf '\n==> tests (ctest)\n'
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${JOBS:-$(nproc)}"
