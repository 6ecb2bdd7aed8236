#!/usr/bin/env bash
# Sets up what is missing (scripts/setup.sh: packages, LibTorch, build), then runs the whole
# test suite through CTest. Exits non-zero on any failure. Same knobs as setup.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
export BUILD_DIR

"$ROOT/scripts/setup.sh"

# The build without LibTorch (docs/install.md, "Without LibTorch"), set up as a user would, beside the full one: its
# tests run the OCR engine's run, eval, merge and report, and one compares its outputs with the
# full build's on samples/.
LIGHT_BUILD_DIR="${LIGHT_BUILD_DIR:-$BUILD_DIR-light}"
DOCSIFT_CMAKE_ARGS="-DDOCSIFT_COMPARE_WITH=$BUILD_DIR/docsift" BUILD_DIR="$LIGHT_BUILD_DIR" DOCSIFT_WITH_TORCH=OFF \
  DOCSIFT_SKIP_APT=1 "$ROOT/scripts/setup.sh"

# What the tests need and the program does not, so installed here rather than by setup.sh:
# headless Chromium for the report's browser test (tests/e2e/test_report.cpp; Debian's
# chromium-headless-shell where the release has it, else chromium), and clang-format for the
# layout check (scripts/format.sh --check). Where one does not install, its test reports itself
# skipped. DOCSIFT_SKIP_APT=1: install nothing.
if [ "${DOCSIFT_SKIP_APT:-0}" != 1 ]; then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  apt_install() { "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; }
  updated=0
  apt_update() { ((updated)) || { "${sudo[@]}" apt-get update -q && updated=1; }; }
  if ! command -v chromium-headless-shell >/dev/null && ! command -v chromium >/dev/null; then
    printf '\n==> headless Chromium (for the report test)\n'
    if ! { apt_update && { apt_install chromium-headless-shell || apt_install chromium; }; }; then
      echo "could not install chromium-headless-shell or chromium; the report's browser test will be skipped"
    fi
  fi
  if ! command -v clang-format >/dev/null; then
    printf '\n==> clang-format (for the layout check)\n'
    if ! { apt_update && apt_install clang-format; }; then
      echo "could not install clang-format; the layout check will be skipped"
    fi
  fi
fi

# setup.sh builds the program; the suite, the fuzz replays and the benches are built here.
printf '\n==> building the tests (%s, %s)\n' "$BUILD_DIR" "$LIGHT_BUILD_DIR"
cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}"
cmake --build "$LIGHT_BUILD_DIR" -j "${JOBS:-$(nproc)}"

printf '\n==> tests (ctest)\n'
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${JOBS:-$(nproc)}"
printf '\n==> tests of the build without LibTorch (ctest, %s)\n' "$LIGHT_BUILD_DIR"
ctest --test-dir "$LIGHT_BUILD_DIR" --output-on-failure -j "${JOBS:-$(nproc)}"
