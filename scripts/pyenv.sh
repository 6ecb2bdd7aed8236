#!/usr/bin/env bash
# The Python used by the fixture and reference scripts (never by docsift itself):
# .deps/venv, the venv scripts/setup.sh made for the torch wheel, plus pinned reference
# packages. Idempotent and quiet when everything is present.
#   scripts/pyenv.sh                      make sure the packages are there
#   scripts/pyenv.sh python3 SCRIPT ...   run a command with the venv first on PATH
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.deps/venv"
# transformers and tokenizers versions the vectors and fixtures were made with; torch itself is
# pinned (and installed without its CUDA wheels) by setup.sh, so it is never reinstalled here.
PACKAGES=(tokenizers==0.23.3 transformers==5.23.0 safetensors==0.8.0 pillow==13.0.0 numpy==2.4.6
          typing_extensions==4.16.0 sympy==1.14.0 networkx==3.6.1 Jinja2==3.1.6 fsspec==2026.9.0 filelock==4.2.11
          pypdf==5.4.0)

[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
# Fast path (~0.1 s): every pinned package (and torchvision) is there at its version.
if ! "$VENV/bin/python" - "${PACKAGES[@]}" torchvision==0.26.0 <<'PY' >/dev/null 2>&1
import importlib.metadata as m, sys
sys.exit(any(m.version(n) != v for n, v in (a.split("==") for a in sys.argv[1:])))
PY
then
  echo "==> installing Python reference packages into $VENV" >&2
  # torch is already there (setup.sh); pip warns that its CUDA wheels are absent, which is intended.
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PACKAGES[@]}" >&2
  # torchvision runs the -hf image processor; like torch it must not pull CUDA wheels.
  "$VENV/bin/pip" install -q --disable-pip-version-check --no-deps torchvision==0.26.0 >&2
fi
if [ "$#" -gt 0 ]; then
  PATH="$VENV/bin:$PATH" exec "$@"
fi
