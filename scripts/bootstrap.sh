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

# The browser tests drive Debian's Chromium (never a browser downloaded by Playwright).
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
elif [ ! -x /usr/bin/chromium ]; then
  echo "note: /usr/bin/chromium is missing (apt-get install chromium as root);" \
       "the browser tests will be skipped" >&2
fi
