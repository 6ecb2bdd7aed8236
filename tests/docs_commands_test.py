#!/usr/bin/env python3
"""The README's and docs' example commands still run as shown.

    tests/docs_commands_test.py SOURCE_DIR BINARY_DIR

Every line of a code block that starts with "$ " is a command a reader would type at the
repository's root. Each Markdown file's commands run in order, in a scratch folder of their own
that holds samples/, configs/ and tests/ (links to the source tree) and build/ (a link to the binary
folder), so a file's later commands see what its earlier ones wrote and nothing lands in the tree.

- A command whose block shows "exit N" after it (the docs write `...; echo "exit $?"`) must exit
  N, and each line it shows with "docsift: " must be printed as shown (the time stamp aside).
- Any other command must exit 0; the lines it shows are left alone (times and sizes vary).
- A command that names an absolute path (/models/..., /path/to/...) and shows no exit stands for
  the reader's own files: it is listed as not run, never counted as passed.

Exits 0 when every command that ran did as shown, 1 otherwise, 77 (skipped) when none could run.
"""
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ")
EXIT = re.compile(r"^exit (\d+)$")


def examples(markdown):
    """(line number, command, shown lines) for each "$ " line inside a code block."""
    out, fenced, current = [], False, None
    for number, line in enumerate(markdown.splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            current = None
            continue
        if not fenced:
            continue
        if line.startswith("$ "):
            current = (number, line[2:], [])
            out.append(current)
        elif current is not None:
            current[2].append(line)
    return out


def expected_exit(shown):
    for line in shown:
        m = EXIT.match(line.strip())
        if m:
            return int(m.group(1))
    return None


def names_own_files(command):
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        return True
    return any(w.startswith("/") and not w.startswith("/dev/") for w in words)


def workspace(source, binary):
    root = pathlib.Path(tempfile.mkdtemp(prefix="docsift-docs-"))
    for name in ("samples", "configs", "tests"):
        (root / name).symlink_to(source / name)
    (root / "build").symlink_to(binary)
    return root


def run_cases(path, source, where, cases, not_run, ran, failed):
    """Runs one file's examples in `where`; the counts so far, added to."""
    for number, command, shown in cases:
        label = f"{path.relative_to(source)}:{number}"
        code = expected_exit(shown)
        if code is None and names_own_files(command):
            not_run.append(label)
            continue
        done = subprocess.run(["bash", "-c", command], cwd=where, capture_output=True,
                              text=True, timeout=600)
        ran += 1
        printed = [STAMP.sub("", l) for l in (done.stdout + done.stderr).splitlines()]
        problems = []
        got = done.returncode
        if code is not None:
            # `...; echo "exit $?"` prints the code itself and exits 0.
            m = [EXIT.match(l.strip()) for l in printed]
            got = next((int(x.group(1)) for x in m if x), done.returncode)
            for line in shown:
                line = STAMP.sub("", line)
                if "docsift: " in line and line not in printed:
                    problems.append(f"shows the line {line!r}, which it does not print")
        if got != (code if code is not None else 0):
            problems.append(f"exits {got}, the docs show {code if code is not None else 0}")
        if problems:
            failed += 1
            print(f"FAIL {label}: $ {command}")
            for p in problems:
                print(f"     {p}")
            for line in printed[-5:]:
                print(f"     | {line}")
        else:
            print(f"ok   {label}: $ {command}")
    return ran, failed


def main():
    source, binary = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    files = [source / "README.md"] + sorted((source / "docs").glob("*.md"))
    ran = failed = 0
    not_run = []
    for path in files:
        cases = examples(path.read_text(encoding="utf-8"))
        if not cases:
            continue
        where = workspace(source, binary)
        try:
            ran, failed = run_cases(path, source, where, cases, not_run, ran, failed)
        finally:
            # The links only: rmtree unlinks a link, never what it points to.
            shutil.rmtree(where)
    for label in not_run:
        print(f"not run {label}: names the reader's own files")
    print(f"docs commands: {ran} run, {failed} failed, {len(not_run)} not run")
    if ran == 0:
        return 77
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
