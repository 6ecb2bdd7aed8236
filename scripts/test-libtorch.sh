#!/usr/bin/env bash
# Builds docsift against another LibTorch from PyPI and runs the whole test suite with it, in its
# own build folder, so that "LibTorch 2.4 and newer" is checked, not assumed. The default, 2.7.1,
# is the CUDA 12.6 build a V100 needs (its kernels include sm_70).
#
#   scripts/test-libtorch.sh [VERSION]      default 2.7.1; build-libtorch-VERSION/, .deps/libtorch-VERSION/
#
# Only wheels with the cxx11 std::string ABI can link with the Debian libraries: PyPI's are from
# 2.7 on. For 2.4 to 2.6, download the "cxx11 ABI" LibTorch zip from pytorch.org and use
# LIBTORCH_DIR=... BUILD_DIR=... scripts/test.sh instead. Only the LibTorch inside the wheel is
# used, with the two CUDA libraries its CPU library needs (the CUDA runtime and CUPTI); the other
# CUDA libraries are not downloaded, so the CUDA plugin builds but cannot load here, and the
# tests see a machine without CUDA (the plugin's load error is what `docsift --version` says).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${1:-2.7.1}"
DEST="$ROOT/.deps/libtorch-$VERSION"
PY="$ROOT/.deps/venv/bin/python"
[ -x "$PY" ] || "$ROOT/scripts/setup.sh"  # the project's venv, for pip

if [ ! -f "$DEST/torch/share/cmake/Torch/TorchConfig.cmake" ]; then
  mkdir -p "$DEST/wheels"
  "$PY" -m pip download -q --no-deps --only-binary=:all: "torch==$VERSION" -d "$DEST/wheels"
  wheel=$(ls "$DEST"/wheels/torch-"$VERSION"*.whl)
  # The CUDA runtime and CUPTI versions this torch was built with, from its own metadata.
  mapfile -t needs < <(unzip -p "$wheel" '*/METADATA' |
    sed -n 's/^Requires-Dist: \(nvidia-cuda-\(runtime\|cupti\)-cu[0-9]*==[^;]*\);.*/\1/p')
  [ "${#needs[@]}" -eq 0 ] || "$PY" -m pip download -q --no-deps --only-binary=:all: "${needs[@]}" -d "$DEST/wheels"
  (cd "$DEST" && unzip -q -o "$wheel" 'torch/include/*' 'torch/lib/*' 'torch/share/*' 'torch/version.py')
  for w in "$DEST"/wheels/nvidia_*.whl; do [ -f "$w" ] && (cd "$DEST" && unzip -q -o "$w" 'nvidia/*'); done
  rm -rf "$DEST/wheels"
fi

# An older LibTorch's CMake files may not know the newest GPUs: build docsift's kernels for the
# ones every CUDA 12 and 13 toolkit knows.
TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-8.0;9.0}" LIBTORCH_DIR="$DEST/torch" \
  BUILD_DIR="$ROOT/build-libtorch-$VERSION" "$ROOT/scripts/test.sh"
