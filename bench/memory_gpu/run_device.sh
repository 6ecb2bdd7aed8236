#!/usr/bin/env bash
# Builds and runs bench_memory_gpu on a GPU machine that has PyTorch, CMake and the CUDA toolkit
# but not docsift's Debian packages: those come as .deb files in DEBS (default .gpu/debs, made
# here with `apt-get download`, see bench/README.md) and are unpacked into a private prefix, never
# into /. Output goes to OUT (default: the current folder).
#   bench/memory_gpu/run_device.sh [IMAGES=50] [BUDGET_GB=16] [LONG_TOKENS=1024]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DEBS="${DEBS:-$ROOT/.gpu/debs}"
OUT="${OUT:-$PWD}"
PREFIX=/tmp/docsift-debs
ARCH_LIB="$PREFIX/usr/lib/x86_64-linux-gnu"
mkdir -p "$PREFIX"
for f in "$DEBS"/*.deb; do dpkg -x "$f" "$PREFIX"; done
export PATH="$PREFIX/usr/bin:$PATH" LD_LIBRARY_PATH="$ARCH_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PKG_CONFIG_SYSROOT_DIR="$PREFIX" PKG_CONFIG_LIBDIR="$ARCH_LIB/pkgconfig:$PREFIX/usr/share/pkgconfig"
TORCH_PREFIX="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'

start=$(date +%s)
cmake -S "$ROOT" -B "$ROOT/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDOCSIFT_BUILD_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$TORCH_PREFIX;$PREFIX/usr" -DCMAKE_LIBRARY_PATH="$ARCH_LIB" -DTORCH_CUDA_ARCH_LIST=9.0 \
  -Dyaml-cpp_DIR="$ARCH_LIB/cmake/yaml-cpp" -Dnlohmann_json_DIR="$PREFIX/usr/share/cmake/nlohmann_json" \
  -DCLI11_DIR="$PREFIX/usr/share/cmake/CLI11" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--as-needed -Wl,--allow-shlib-undefined -Wl,-rpath-link,$ARCH_LIB" > "$OUT/cmake.log" 2>&1 \
  || { tail -40 "$OUT/cmake.log"; exit 1; }
cmake --build "$ROOT/build-gpu" --target docsift_bench_memory_gpu -j"$(nproc)" > "$OUT/build.log" 2>&1 \
  || { grep -E "error|Error" -A3 "$OUT/build.log" | head -60; exit 1; }
echo "build: $(( $(date +%s) - start )) s"

CKPT=/tmp/internvl3-1b-kv14
python3 "$ROOT/bench/generate/make_checkpoint.py" "$CKPT" 14 2>&1 | tail -1
"$ROOT/build-gpu/docsift_bench_memory_gpu" "$CKPT" "${1:-50}" "${2:-16}" "$OUT/memory_gpu.json" "${3:-1024}" 2>&1 \
  | tee "$OUT/memory_gpu.txt"
