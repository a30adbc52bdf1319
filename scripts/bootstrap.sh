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
# llama-cpp-python has no wheel for this platform: it is built from source for the machine's
# CPU (-march=native), without its AMX kernels. A CPU can advertise AMX where the kernel or the
# hypervisor does not let a process use it; the model server then dies of a protection fault on
# its first matrix product (ggml_backend_amx_mul_mat, seen on our CI machine). The wheel is
# built once into a cache of our own: pip's wheel cache keys a build by its source, not by its
# flags, so it would hand back a wheel built with AMX.
LLAMA=$(grep -o 'llama-cpp-python\[server\]==[0-9.]*' pyproject.toml | sed 's/\[server\]//')
WHEELS=${REGINTEL_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/regintel/wheels}
if ! ls "$WHEELS"/llama_cpp_python-"${LLAMA#*==}"-*.whl >/dev/null 2>&1; then
  mkdir -p "$WHEELS"
  NO_AMX="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
  echo "building $LLAMA for this CPU (a few minutes, once)" >&2
  CMAKE_ARGS="-DGGML_NATIVE=ON \"-DCMAKE_C_FLAGS=$NO_AMX\" \"-DCMAKE_CXX_FLAGS=$NO_AMX\"" \
    .venv/bin/python -m pip wheel --quiet --disable-pip-version-check --no-deps \
    --no-cache-dir -w "$WHEELS" "$LLAMA"
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --find-links "$WHEELS" \
  "${LLAMA/==/[server]==}"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[all,dev]"

# The browser tests drive Debian's Chromium (never a browser downloaded by Playwright).
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
elif [ ! -x /usr/bin/chromium ]; then
  echo "note: /usr/bin/chromium is missing (apt-get install chromium as root);" \
       "the browser tests will be skipped" >&2
fi
