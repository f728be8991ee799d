#!/usr/bin/env bash
# The Python package on a GPU machine: installs the wheel built elsewhere (a machine
# with Rust runs `maturin build --release -m python/Cargo.toml`, which writes
# target/wheels/cuk-*.whl, and `python3 -m pip download --dest target/wheels pytest`
# for a machine without network), then runs python/tests with pytest: the GPU tests
# (results against torch, streams, CUDA-graph capture and replay, torch.compile) and
# the host time per launch of the vectorized copy beside torch.Tensor.copy_. Needs
# python3 with torch (CUDA), numpy and an NVIDIA driver; ptxas as cukc finds it (the CUDA
# toolkit's, or CUKC_PTXAS). Called by
# scripts/gpu-check.sh; skipped (exit 0) when there is no wheel.
#
#   scripts/gpu-check-python.sh [OUT]
#
# OUT is the folder for the logs (default $OUT, else ./gpu-check-out): python.txt (pytest's
# report) and python-bench.txt (the launch times). With CUKC naming a cukc binary, the
# driver's own floor for the same launch (scripts/launch-floor.c, built with gcc against
# the toolkit's cuda.h) is timed too and added to python-bench.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
LOGS=${1:-${OUT:-gpu-check-out}}
mkdir -p "$LOGS"
export PATH="$PATH:/usr/local/cuda/bin"
# A GPU machine is often without network: fail fast, naming the ways to get ptxas, rather
# than wait for pip (set CUKC_OFFLINE=0 to let cuk install it).
export CUKC_OFFLINE=${CUKC_OFFLINE:-1}
WHEEL=$(ls -t target/wheels/cuk-*.whl 2>/dev/null | head -1)  # the newest
if [ -z "$WHEEL" ]; then
    echo "python: skipped (no target/wheels/cuk-*.whl; build one with maturin)" | tee "$LOGS/python.txt"
    exit 0
fi
if ! python3 -c "import numpy, torch" 2>/dev/null; then
    echo "python: FAIL (python3 needs numpy and torch for python/tests)" | tee "$LOGS/python.txt"
    exit 1
fi
ENV_DIR=$(mktemp -d)
trap 'rm -rf "$ENV_DIR"' EXIT
PACKAGES="$WHEEL"
python3 -c "import pytest" 2>/dev/null || PACKAGES="$PACKAGES pytest"
# shellcheck disable=SC2086
if ! python3 -m pip install --quiet --no-index --find-links target/wheels --target "$ENV_DIR" $PACKAGES >"$LOGS/python-install.txt" 2>&1; then
    echo "python: FAIL (pip could not install $PACKAGES; see python-install.txt)" | tee "$LOGS/python.txt"
    exit 1
fi
rm -f "$LOGS/python-bench.txt"
CUK_BENCH_REPORT="$LOGS/python-bench.txt" PYTHONPATH="$ENV_DIR" \
    python3 -m pytest -v -s -p no:cacheprovider python/tests >"$LOGS/python.txt" 2>&1
status=$?
if [ -n "${CUKC:-}" ] && [ -f /usr/local/cuda/include/cuda.h ]; then
    FLOOR_DIR=$(mktemp -d)
    if gcc -O2 -o "$FLOOR_DIR/floor" scripts/launch-floor.c -I/usr/local/cuda/include \
        -L/usr/local/cuda/lib64/stubs -lcuda >"$FLOOR_DIR/gcc.txt" 2>&1 &&
        "$CUKC" build cuk-examples/copy_vectorized.cuk --emit manifest -o "$FLOOR_DIR/copy.cubin" >/dev/null 2>&1; then
        shared=$(grep -o '"shared_bytes": *[0-9]*' "$FLOOR_DIR/copy.manifest.json" | grep -o '[0-9]*$')
        "$FLOOR_DIR/floor" "$FLOOR_DIR/copy.cubin" copy_vectorized "$shared" >>"$LOGS/python-bench.txt" 2>&1
    else
        echo "driver floor: not measured (gcc or cukc failed)" >>"$LOGS/python-bench.txt"
    fi
    rm -rf "$FLOOR_DIR"
fi
tail -n 1 "$LOGS/python.txt"
cat "$LOGS/python-bench.txt" 2>/dev/null
exit $status
