#!/bin/bash
# scripts/check_sizes.sh finds what it says it finds: a file over the line limit, a function over
# the length limit at column 0, one whose signature is broken over lines, and a member defined in
# its class body; it passes over control statements, lambdas and short functions; --strict fails
# only when there is an offender.
#   tests/sizes_test.sh SOURCE_DIR
set -euo pipefail
check=$1/scripts/check_sizes.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
body() { for ((i = 0; i < $1; ++i)); do echo "  x += $i;"; done; }
{
  echo "int long_one(int x) {"; body 12; echo "  return x;"; echo "}"
  echo "int short_one(int x) {"; body 3; echo "  return x;"; echo "}"
  echo "std::vector<int> broken_signature(int x,"; echo "                                 int y) {"; body 11; echo "  return {};"; echo "}"
  echo "class Finder {"; echo " public:"; echo "  void member(int x) {"; body 11
  echo "    if (x > 0) {"; echo "      x = 1;"; echo "    }"; echo "  }"; echo "};"
  echo "void with_lambda() {"; echo "  const auto f = [&](int v) {"; body 20; echo "  };"; echo "}"
  echo "Scratch::Scratch(int a,"; echo "                 int b)"; echo "    : a_(a), b_(b) {}"
  echo "int after_constructor(int x,"; echo "                      int y) {"; body 10; echo "  return x;"; echo "}"
} >"$tmp/a.cpp"
out=$("$check" --max-function-lines 10 --max-file-lines 40 "$tmp")
echo "$out"
grep -q "a.cpp:1: long_one is 13 lines, over 10" <<<"$out"
grep -q "broken_signature is 13 lines, over 10" <<<"$out"
grep -q "member is 14 lines, over 10" <<<"$out"
grep -q "with_lambda is 22 lines, over 10" <<<"$out"   # the lambda is part of its function
grep -q "after_constructor is 12 lines, over 10" <<<"$out"  # measured from its own signature
! grep -q "short_one\|f is\| if \|Scratch" <<<"$out"  # a one-line body closes its signature
grep -q "a.cpp:1: [0-9]* lines, over 40" <<<"$out"
grep -q "check_sizes: 6 over the limits" <<<"$out"
if "$check" --strict --max-function-lines 10 "$tmp" >/dev/null; then echo "FAIL: --strict passed with offenders" >&2; exit 1; fi
"$check" --strict --max-function-lines 1000 --max-file-lines 1000 "$tmp" >/dev/null
echo "sizes_test: ok"
