#!/bin/bash
# Downloads the born-digital invoice set of bench/ocr/invoices/truth.csv (19 PDFs, 4 languages, 5
# currencies) from the public repositories it names, at the pinned commits, into
# ${INVOICES:-.deps/invoices}, and checks each file against bench/ocr/invoices/SHA256SUMS. The PDFs
# are not in this repository: SOURCES.md says where each comes from and under which licence.
#   bench/ocr/get_invoices.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${INVOICES:-$ROOT/.deps/invoices}
mkdir -p "$DEST"
python3 - "$ROOT/bench/ocr/invoices/truth.csv" <<'PY' | while read -r file url; do
import csv, sys, urllib.parse
for row in csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")):
    repo, rest = row["source"].split("@", 1)
    commit, path = rest.split(":", 1)
    print(row["file"], f"https://raw.githubusercontent.com/{repo}/{commit}/{urllib.parse.quote(path)}")
PY
  if [ -s "$DEST/$file" ]; then continue; fi
  echo "fetching $file"
  curl -fsSL --retry 3 -o "$DEST/$file.part" "$url" || { echo "get_invoices.sh: cannot download $url" >&2; exit 1; }
  mv "$DEST/$file.part" "$DEST/$file"
done
(cd "$DEST" && sha256sum --quiet -c "$ROOT/bench/ocr/invoices/SHA256SUMS") ||
  { echo "get_invoices.sh: a file in $DEST does not match bench/ocr/invoices/SHA256SUMS" >&2; exit 1; }
echo "invoices in $DEST: $(ls "$DEST"/*.pdf | wc -l) PDFs, checksums match"
