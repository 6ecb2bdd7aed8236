#!/usr/bin/env bash
# The GPU kit: docsift's Debian libraries, carried to a GPU machine that has PyTorch, CMake, ninja
# and the CUDA toolkit but none of our packages and no network (docs/gpu.md).
#
#   [KIT_NO_TESSDATA=1] bench/gpu/kit.sh pack [KIT=.gpu/kit.tar.xz]
#                                                 here, after scripts/setup.sh: downloads the .debs
#                                                 (apt-get download), keeps what a build and a run
#                                                 need, packs them into one archive (~34 MB)
#   source bench/gpu/kit.sh; kit_build [TARGET...] on the GPU machine: unpacks the kit into
#                                                 /tmp/docsift-kit, builds into ROOT/build-gpu
#                                                 (Release, TORCH_CUDA_ARCH_LIST, default 9.0);
#                                                 kit_env sets what a docsift process needs to run
#
# Which packages: the -dev packages the build finds (cmake/DocsiftDependencies.cmake), the
# English Tesseract data, pkgconf, the two programs the suite calls, and every library those libraries load at run time, found by
# walking their DT_NEEDED entries on this machine, less the C and C++ runtimes, which the GPU
# machine has. One exception: OpenCV's imgcodecs links GDAL (for geospatial rasters; with its own
# closure, ~40 MB of packages) and docsift never decodes through it, so the kit carries a stub
# libgdal.so.32 whose functions return 0: OpenCV calls GDALAllRegister when it starts (a no-op
# now) and the rest only for cv::IMREAD_LOAD_GDAL, which docsift never passes.
set -uo pipefail

KIT_DEV_PACKAGES="libcli11-dev libyaml-cpp-dev nlohmann-json3-dev libpcre2-dev libutf8proc-dev libpsl-dev libopencv-core-dev
  libopencv-imgproc-dev libopencv-imgcodecs-dev libtesseract-dev libleptonica-dev libpoppler-cpp-dev libpoppler-dev
  doctest-dev pkgconf pkgconf-bin libpkgconf3 tesseract-ocr-eng libxml2-utils parallel"
# Programs kept from those packages: pkg-config for the build; xmllint and GNU parallel, which the
# suite runs (the JUnit schema check, scripts/cluster/shards-on-one-host.sh).
KIT_PROGRAMS="pkgconf xmllint parallel"
# Where the build finds the roots of the run-time closure (what our targets link).
KIT_ROOT_LIBS="libopencv_core.so.406 libopencv_imgproc.so.406 libopencv_imgcodecs.so.406 libtesseract.so.5
  liblept.so.5 libpoppler-cpp.so.0 libpcre2-8.so.0 libutf8proc.so.2 libpsl.so.5 libyaml-cpp.so.0.7 libarchive.so.13
  libcurl.so.4
  libpkgconf.so.3"
# Present on every glibc system the kit goes to; never carried.
KIT_BASE_LIBS="libc.so.6 libm.so.6 libstdc++.so.6 libgcc_s.so.1 ld-linux-x86-64.so.2 libpthread.so.0 libdl.so.2
  librt.so.1 libz.so.1 libutil.so.1 libresolv.so.2"
KIT_STUBS="libgdal.so.32"
KIT_PREFIX="${KIT_PREFIX:-/tmp/docsift-kit}"
# The checkout, set when the file is sourced so that every function has it: the caller's ROOT, or
# two folders above this file (sourced on its own, ROOT is not exported).
ROOT="${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"

# SONAME -> path, from this machine's linker cache.
_kit_ldcache() { ldconfig -p | awk '/x86-64/ && $1 ~ /^lib/ {print $1, $NF}'; }
_kit_needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }

kit_pack() {
  local kit stage work so path pkg
  kit="${1:-$ROOT/.gpu/kit.tar.xz}"
  work="$(mktemp -d)"; stage="$work/stage"
  chmod 755 "$work"
  mkdir -p "$stage" "$work/debs" "$(dirname "$kit")"
  declare -A cache=() seen=()
  while read -r so path; do [ -n "${cache[$so]:-}" ] || cache[$so]="$path"; done < <(_kit_ldcache)
  local -a todo=($KIT_ROOT_LIBS) closure=()
  while [ "${#todo[@]}" -gt 0 ]; do
    so="${todo[-1]}"; unset 'todo[-1]'
    [ -z "${seen[$so]:-}" ] || continue
    seen[$so]=1
    [[ " $KIT_BASE_LIBS $KIT_STUBS " == *" $so "* ]] && continue
    path="${cache[$so]:-}"
    [ -n "$path" ] || { echo "kit pack: $so is not installed here; run scripts/setup.sh first" >&2; return 1; }
    closure+=("$so")
    todo+=($(_kit_needed "$path"))
  done
  # The packages that own those libraries, plus the build's own.
  local -a pkgs=($KIT_DEV_PACKAGES)
  # KIT_NO_TESSDATA=1: without Tesseract's English data (1.6 MB of the kit), for a session whose
  # cases never run Tesseract, when the checkout and the kit would pass the device's 64 MiB.
  [ -n "${KIT_NO_TESSDATA:-}" ] && pkgs=(${KIT_DEV_PACKAGES/tesseract-ocr-eng/})
  for so in "${closure[@]}"; do
    path="$(readlink -f "${cache[$so]}")"
    # Merged /usr: dpkg knows some libraries by their /lib path.
    pkg="$( (dpkg -S "$path" || dpkg -S "${path#/usr}") 2>/dev/null | head -1 | cut -d: -f1)"
    [ -n "$pkg" ] || { echo "kit pack: no package owns ${cache[$so]}" >&2; return 1; }
    pkgs+=("$pkg")
  done
  mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u)
  chmod 777 "$work/debs"  # apt's _apt user writes the downloads
  (cd "$work/debs" && apt-get download "${pkgs[@]}" >/dev/null) ||
    { echo "kit pack: apt-get download failed (network, or a package name above)" >&2; return 1; }
  for f in "$work"/debs/*.deb; do dpkg-deb -x "$f" "$stage"; done
  # Keep headers, libraries, pkg-config and CMake files, pkgconf and Tesseract's data; nothing else.
  local lib="$stage/usr/lib/x86_64-linux-gnu"
  # Some bookworm packages still install into /lib (merged /usr on the target).
  [ -d "$stage/lib" ] && mkdir -p "$stage/usr/lib" && cp -a "$stage/lib/." "$stage/usr/lib/"
  rm -rf "$stage"/{etc,var,lib,sbin} "$stage"/usr/{sbin,libexec}
  find "$stage/usr/share" -mindepth 1 -maxdepth 1 ! -name cmake ! -name pkgconfig ! -name tesseract-ocr -exec rm -rf {} +
  local keep=() p
  for p in $KIT_PROGRAMS; do keep+=(! -name "$p"); done
  find "$stage/usr/bin" -mindepth 1 "${keep[@]}" -delete 2>/dev/null
  ln -sf pkgconf "$stage/usr/bin/pkg-config"
  find "$stage" -name '*.a' -delete
  # Sonames the packages leave to maintainer scripts (Debian's alternatives for BLAS/LAPACK),
  # and the unversioned names the linker looks for (-larchive, -lcurl in tesseract.pc).
  for so in "${closure[@]}"; do
    [ -e "$lib/$so" ] && continue
    path="$(find "$stage" -name "$(basename "$(readlink -f "${cache[$so]}")")" | head -1)"
    [ -n "$path" ] || { echo "kit pack: $so missing from its package" >&2; return 1; }
    ln -sf "${path#"$lib/"}" "$lib/$so"
  done
  for so in "$lib"/lib*.so.*; do
    local dev="${so%%.so.*}.so"
    [ -e "$dev" ] || ln -s "$(basename "$so")" "$dev"
  done
  _kit_stubs "$lib" "$work" || return 1
  printf '%s\n' "${pkgs[@]}" > "$stage/PACKAGES"
  # -9e: the kit and the checkout travel together under the device's 64 MiB; -6 left the kit
  # 1 MB larger, over that limit beside a 32 MB checkout (2026-12-04).
  tar -C "$stage" -cf - . | xz -T0 -9e > "$kit"
  rm -rf "$work"
  echo "kit: ${#pkgs[@]} packages, ${#closure[@]} libraries, $(du -h "$kit" | cut -f1) at $kit"
}

# A stub for each of KIT_STUBS: every function its users import from it, each returning 0.
_kit_stubs() {
  local lib="$1" work="$2" stub users real sym
  for stub in $KIT_STUBS; do
    real="$(_kit_ldcache | awk -v s="$stub" '$1 == s && !seen {print $2; seen = 1}')"
    [ -n "$real" ] || { echo "kit pack: $stub is not installed here" >&2; return 1; }
    : > "$work/stub.s"
    users="$(grep -rl --include='*.so*' -F "$stub" "$lib" 2>/dev/null)"
    for sym in $(for u in $users; do nm -D --undefined-only "$u" | awk '{print $2}' | sed 's/@.*//'; done | sort -u |
                 comm -12 - <(nm -D --defined-only "$real" | awk '$2 ~ /[TtWi]/ {print $3}' | sed 's/@.*//' | sort -u)); do
      printf '.globl %s\n.type %s,@function\n%s:\n  xor %%eax, %%eax\n  ret\n' "$sym" "$sym" "$sym" >> "$work/stub.s"
    done
    gcc -shared -nostdlib -o "$lib/$stub" -Wl,-soname,"$stub" "$work/stub.s" ||
      { echo "kit pack: cannot build the stub $stub" >&2; return 1; }
  done
}

# Unpacks the kit (KIT, default ROOT/.gpu/kit.tar.xz) into KIT_PREFIX once.
kit_unpack() {
  local kit="${KIT:-$ROOT/.gpu/kit.tar.xz}"
  [ -f "$KIT_PREFIX/PACKAGES" ] && return 0
  [ -f "$kit" ] || { echo "kit: no $kit; make it with bench/gpu/kit.sh pack and carry .gpu" >&2; return 1; }
  mkdir -p "$KIT_PREFIX" && tar -C "$KIT_PREFIX" -xJf "$kit"
}

# What a process built against the kit needs to run: its libraries, pkgconf, Tesseract's data.
kit_env() {
  local lib="$KIT_PREFIX/usr/lib/x86_64-linux-gnu"
  export PATH="$KIT_PREFIX/usr/bin:$PATH"
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export TESSDATA_PREFIX="$(dirname "$(find "$KIT_PREFIX/usr/share/tesseract-ocr" -name eng.traineddata 2>/dev/null | head -1)")"
}

# Configures and builds ROOT/build-gpu against the Python environment's LibTorch (python3's torch)
# and the kit. Logs go to OUT (cmake.log, build.log), or to the build folder when OUT is unset.
kit_build() {
  local lib="$KIT_PREFIX/usr/lib/x86_64-linux-gnu" torch_prefix start target build="${BUILD_GPU:-$ROOT/build-gpu}"
  local OUT="${OUT:-$build}"
  mkdir -p "$OUT"
  kit_unpack || return 1
  kit_env
  export PKG_CONFIG_SYSROOT_DIR="$KIT_PREFIX" PKG_CONFIG_LIBDIR="$lib/pkgconfig:$KIT_PREFIX/usr/share/pkgconfig"
  torch_prefix="${TORCH_PREFIX:-$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')}" || return 1
  start=$(date +%s)
  cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDOCSIFT_BUILD_TESTS="${KIT_TESTS:-ON}" \
    -DCMAKE_PREFIX_PATH="$torch_prefix;$KIT_PREFIX/usr" -DCMAKE_LIBRARY_PATH="$lib" \
    -DCMAKE_INCLUDE_PATH="$KIT_PREFIX/usr/include" -DTORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$lib" -DCMAKE_SHARED_LINKER_FLAGS="-Wl,-rpath-link,$lib" \
    > "$OUT/cmake.log" 2>&1 || { tail -40 "$OUT/cmake.log"; return 1; }
  grep -E "^-- docsift:" "$OUT/cmake.log"
  if [ "$#" -eq 0 ]; then set -- all; fi
  for target in "$@"; do
    cmake --build "$build" --target "$target" -j"$(nproc)" ${KIT_KEEP_GOING:+-- -k 0} >> "$OUT/build.log" 2>&1 ||
      { grep -E "error|Error|undefined" -A3 "$OUT/build.log" | head -60; return 1; }
  done
  echo "kit build: $* in $(( $(date +%s) - start )) s"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-}" in
    pack) shift; kit_pack "$@" ;;
    *) echo "usage: bench/gpu/kit.sh pack [KIT]   (or source it and call kit_build)" >&2; exit 2 ;;
  esac
fi
