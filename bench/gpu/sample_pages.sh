#!/usr/bin/env bash
# Sourced by bench/gpu/pages.sh and isolation.sh: sample_pages DIR N fills DIR with N page images,
# copies of samples/*.png in turn (page_0000.png ...), so a run has as many pages as it asks for.
sample_pages() {
  local dir="$1" n="$2" i=0 f root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  mkdir -p "$dir"
  while [ "$i" -lt "$n" ]; do
    for f in "$root"/samples/*.png; do
      [ "$i" -lt "$n" ] || break
      cp "$f" "$dir/$(printf 'page_%04d.png' "$i")"; i=$((i + 1))
    done
  done
}
