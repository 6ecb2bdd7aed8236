#!/bin/bash
# Downloads 427 more real receipts of the ICDAR 2019 SROIE *training* split, the ones not among the
# 200 of ../shared/data/sroie-train (the rules were developed on those; these came later, as a
# check on how far the rules carry to receipts they were not fitted to), from the public mirror
# zzzDavid/ICDAR-2019-SROIE (MIT licence; the receipts are the competition's research data) at a
# pinned commit, into ${RECEIPTS_UNSEEN:-.deps/receipts-unseen}, each NNN.jpg with its labels
# NNN.json, and checks them against bench/ocr/receipts/SHA256SUMS. Nothing from the test split,
# which is held out. SROIE_MIRROR=DIR reads a local git copy of that repository instead.
#   bench/ocr/get_receipts.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${RECEIPTS_UNSEEN:-$ROOT/.deps/receipts-unseen}
REPO=zzzDavid/ICDAR-2019-SROIE
COMMIT=27be4271b251c256f695acbade9a801bffe85994
SUMS=$ROOT/bench/ocr/receipts/SHA256SUMS
mkdir -p "$DEST"
for file in $(awk '{print $2}' "$SUMS"); do
  [ -s "$DEST/$file" ] && continue
  case $file in *.jpg) path=data/img/$file ;; *) path=data/key/$file ;; esac
  if [ -n "${SROIE_MIRROR:-}" ]; then
    git -C "$SROIE_MIRROR" cat-file -p "$COMMIT:$path" >"$DEST/$file.part"
  else
    curl -fsSL --retry 3 -o "$DEST/$file.part" "https://raw.githubusercontent.com/$REPO/$COMMIT/$path" ||
      { echo "get_receipts.sh: cannot download $path from $REPO; set SROIE_MIRROR=DIR to a git copy" >&2; exit 1; }
  fi
  mv "$DEST/$file.part" "$DEST/$file"
done
(cd "$DEST" && sha256sum --quiet -c "$SUMS") ||
  { echo "get_receipts.sh: a file in $DEST does not match bench/ocr/receipts/SHA256SUMS" >&2; exit 1; }
echo "receipts in $DEST: $(ls "$DEST"/*.jpg | wc -l) images with labels, checksums match"
