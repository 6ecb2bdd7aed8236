#!/bin/bash
# Names the files over a line limit and the functions over a length limit (the project's house
# rules, docs/development.md: a file a newcomer can read, a function that fits on a screen).
#   scripts/check_sizes.sh [--max-file-lines N] [--max-function-lines N] [--strict] [DIR...]
# Defaults: 400 and 80, DIRs lib/docsift and apps/docsift. The code is measured as clang-format
# lays it out (scripts/format.sh --check keeps the tree so). A function is found as the project's clang-format lays it
# out: a signature at column 0 (or at 2, a member defined in its class body) ending in "{", to the
# "}" at the same column that closes it; its length counts the lines between them. Prints one line per
# offender ("path:line: what"), then a count. Exits 0, or 1 with --strict when any is found (CI runs
# it so, as a test: tests/CMakeLists.txt).
set -euo pipefail
max_file=400 max_function=80 strict=0 dirs=()
while (($#)); do
  case $1 in
    --max-file-lines) max_file=$2; shift 2 ;;
    --max-function-lines) max_function=$2; shift 2 ;;
    --strict) strict=1; shift ;;
    -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check_sizes: unknown option $1 (--max-file-lines N, --max-function-lines N, --strict)" >&2; exit 2 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
((${#dirs[@]})) || dirs=("$root/lib/docsift" "$root/apps/docsift")
for dir in "${dirs[@]}"; do
  [[ -d $dir ]] || { echo "check_sizes: no folder $dir" >&2; exit 2; }
done

offenders=0
while IFS= read -r -d '' file; do
  rel=${file#"$root"/}
  lines=$(wc -l <"$file")
  if ((lines > max_file)); then
    echo "$rel:1: $lines lines, over $max_file"
    offenders=$((offenders + 1))
  fi
  # Functions: awk prints "line name length" for each over the limit.
  while read -r at name length; do
    echo "$rel:$at: $name is $length lines, over $max_function"
    offenders=$((offenders + 1))
  done < <(awk -v max="$max_function" '
    function head_name(s,   n) {
      sub(/\(.*/, "", s); sub(/^[ \t]+/, "", s); n = split(s, parts, /[ \t*&]+/); return parts[n]
    }
    # A definition starts at column 0 (a function) or 2 (a member defined in its class body): a line
    # with "(" and ending in "{" that is not a statement, a lambda or a type.
    function starts(line) {
      if (line !~ /^(  )?[A-Za-z_~][^;]*\(.*\{[ \t]*$/) return 0
      if (line ~ /^(  )?(namespace|struct|class|enum|union|extern|template|typedef|using|if|for|while|switch|else|do|try|catch|return|case)[ \t({]/) return 0
      if (line ~ /=[ \t]*\[/ || line ~ /^  [^(]*=/) return 0  # a lambda or a variable
      return 1
    }
    start == 0 && starts($0) {
      start = NR; name = head_name($0); indent = ($0 ~ /^  /) ? "  " : ""; next
    }
    # A signature broken over lines: its first line with "(", the "{" on a later one.
    start == 0 && pending == 0 && /^(  )?[A-Za-z_~][^;{}=]*\([^;{}]*$/ && !/^(  )?(namespace|struct|class|enum|union|extern|template|typedef|using|return|if|for|while|switch|case)[ \t(]/ {
      pending = NR; pname = head_name($0); pindent = ($0 ~ /^  /) ? "  " : ""; next
    }
    pending != 0 && start == 0 {
      # A declaration, or a definition whose body opens and closes on one line (a constructor with
      # an initialiser list ending in "{}").
      if (/;[ \t]*$/ || /^\}/ || /\}[ \t]*$/) { pending = 0; next }
      if (/\{[ \t]*$/) { start = pending; name = pname; indent = pindent; pending = 0 }
      next
    }
    start != 0 && $0 == indent "}" {
      length_ = NR - start - 1
      if (length_ > max) print start, name, length_
      start = 0
    }
  ' "$file")
done < <(find "${dirs[@]}" -type f \( -name '*.cpp' -o -name '*.h' -o -name '*.cu' \) -print0 | sort -z)

echo "check_sizes: $offenders over the limits (files $max_file lines, functions $max_function lines) in ${dirs[*]#"$root"/}"
((strict && offenders > 0)) && exit 1
exit 0
