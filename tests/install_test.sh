#!/bin/bash
# The installed docsift: `cmake --install` into a fresh prefix, and the .deb from CPack unpacked with
# `dpkg -x`; each binary finds its own CUDA plugin (with a CUDA LibTorch), runs the samples from
# another working directory (/) with the OCR engine, and its eval reaches 0.85. Run by CTest with the
# build folder and the source folder.
set -euo pipefail
BUILD=$1
SOURCE=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
test -x "$WORK/prefix/bin/docsift"
test -f "$WORK/prefix/share/docsift/configs/fields/business-documents.yaml"
test -f "$WORK/prefix/share/docsift/configs/fields/ocr-rules.yaml"
# Tesseract's larger English model goes with the program when setup fetched it (the OCR engine's
# second reading finds it at bin/../share/docsift/tessdata).
if [ -f "$SOURCE/.deps/tessdata/eng.traineddata" ]; then
  cmp "$SOURCE/.deps/tessdata/eng.traineddata" "$WORK/prefix/share/docsift/tessdata/eng.traineddata"
fi

(cd "$BUILD" && cpack -G DEB -B "$WORK/deb" >/dev/null)
deb=$(ls "$WORK"/deb/docsift_*.deb)
dpkg-deb --field "$deb" Package Version Depends
dpkg -x "$deb" "$WORK/unpacked"

for bin in "$WORK/prefix/bin/docsift" "$WORK/unpacked/usr/bin/docsift"; do
  out=$WORK/out-$(basename "$(dirname "$(dirname "$bin")")")
  # With a CUDA LibTorch the installed program finds its installed CUDA plugin, not the build's
  # (`--version` names the plugin it loaded, or the one it could not load and why).
  if [ -f "$BUILD/libdocsift_cuda.so" ]; then
    plugin=$(dirname "$(dirname "$bin")")/lib/docsift/libdocsift_cuda.so
    test -f "$plugin"
    "$bin" --version | grep -qF "$plugin" || { echo "$bin does not use $plugin:"; "$bin" --version; exit 1; }
  fi
  (cd / && "$bin" run "$SOURCE/samples" --out "$out" --quiet)
  (cd / && "$bin" eval "$out/predictions.csv" "$SOURCE/samples/ground_truth.csv" --min-accuracy 0.85 | tail -1)
done
echo "installed and packaged binaries ran the samples from /"
