#!/usr/bin/env bash
# Fails, naming them, when a test case's name holds a semicolon: ctest splits a discovered name
# there into entries that match no case, so the case never runs (tests/CMakeLists.txt).
set -euo pipefail
tests=${1:?usage: test_names_test.sh PATH_TO_docsift_tests}
names=$("$tests" --list-test-cases --no-version)
[ -n "$names" ] || { echo "test_names_test.sh: $tests listed no test case" >&2; exit 1; }
if bad=$(grep -F ';' <<<"$names"); then
  echo "test_names_test.sh: test case names with a semicolon (ctest splits them there):" >&2
  echo "$bad" >&2
  exit 1
fi
echo "test_names_test.sh: $(grep -c . <<<"$names") lines listed, no semicolon"
