#!/usr/bin/env bash
# Create .venv and install regintel with everything it needs, the same way on every machine.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
# The CPU build of torch first: anything that depends on torch would otherwise pull the CUDA
# build and several GB of packages with it.
.venv/bin/python -m pip install --quiet --disable-pip-version-check torch==2.13.0
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[all,dev]"
