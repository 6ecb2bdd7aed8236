#!/bin/bash
# Lays out every C++ and CUDA file under lib/, apps/, tests/ and bench/ with clang-format in the
# repository's style (.clang-format), or with --check lists those it would change and exits 1.
#   scripts/format.sh [--check]
# The tree is formatted with Debian's clang-format 14 (scripts/test.sh installs it); another major
# version lays some lines out differently, so --check with one exits 77 (the test reports itself
# skipped) rather than fail a tree that is formatted. CLANG_FORMAT names another binary.
set -euo pipefail
check=0
case ${1:-} in
  --check) check=1 ;;
  "") ;;
  -h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "format: unknown option $1 (--check)" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
tool=${CLANG_FORMAT:-clang-format}
if ! command -v "$tool" >/dev/null; then
  echo "format: no $tool (apt-get install clang-format; scripts/test.sh installs it)" >&2
  exit 77
fi
version=$("$tool" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if ((check)) && [[ $version != 14 ]]; then
  echo "format: $tool is version ${version:-unknown}; the tree is laid out by version 14, so the check is skipped" >&2
  exit 77
fi
mapfile -d '' files < <(find lib apps tests bench -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print0 | sort -z)
if ((!check)); then
  "$tool" -i "${files[@]}"
  echo "format: ${#files[@]} files laid out"
  exit 0
fi
changed=0
for file in "${files[@]}"; do
  if ! "$tool" "$file" | cmp -s - "$file"; then
    echo "$file: not as clang-format lays it out (scripts/format.sh fixes it)"
    changed=$((changed + 1))
  fi
done
echo "format: $changed of ${#files[@]} files would change"
((changed == 0))
