# Sourced by the run_device.sh scripts: on a GPU machine that has PyTorch, CMake and the CUDA
# toolkit but not docsift's Debian packages, unpacks the packages from .deb files in DEBS (default
# .gpu/debs, made here with `apt-get download`, see docs/bench-history.md) into a private prefix, never
# into /, and builds the named targets against PyTorch's LibTorch into build-gpu/ (Release, sm_90).
#   source bench/gpu_build.sh; gpu_build TARGET...      (ROOT and OUT must be set)
gpu_build() {
  local debs="${DEBS:-$ROOT/.gpu/debs}" prefix=/tmp/docsift-debs
  local arch_lib="$prefix/usr/lib/x86_64-linux-gnu" start torch_prefix target
  mkdir -p "$prefix"
  for f in "$debs"/*.deb; do dpkg -x "$f" "$prefix"; done
  export PATH="$prefix/usr/bin:$PATH" LD_LIBRARY_PATH="$arch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PKG_CONFIG_SYSROOT_DIR="$prefix" PKG_CONFIG_LIBDIR="$arch_lib/pkgconfig:$prefix/usr/share/pkgconfig"
  torch_prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  start=$(date +%s)
  cmake -S "$ROOT" -B "$ROOT/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDOCSIFT_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$prefix/usr" -DCMAKE_LIBRARY_PATH="$arch_lib" -DTORCH_CUDA_ARCH_LIST=9.0 \
    -Dyaml-cpp_DIR="$arch_lib/cmake/yaml-cpp" -Dnlohmann_json_DIR="$prefix/usr/share/cmake/nlohmann_json" \
    -DCLI11_DIR="$prefix/usr/share/cmake/CLI11" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--as-needed -Wl,--allow-shlib-undefined -Wl,-rpath-link,$arch_lib" \
    > "$OUT/cmake.log" 2>&1 || { tail -40 "$OUT/cmake.log"; return 1; }
  grep -E "^-- docsift:" "$OUT/cmake.log" || true
  for target in "$@"; do
    cmake --build "$ROOT/build-gpu" --target "$target" -j"$(nproc)" >> "$OUT/build.log" 2>&1 \
      || { grep -E "error|Error" -A3 "$OUT/build.log" | head -60; return 1; }
  done
  echo "build: $(( $(date +%s) - start )) s"
}
