#!/usr/bin/env bash
# Compares `cukc layout --batch` with C++ CuTe on a seeded random corpus (README.md).
#
# Usage: run.sh [SEED...]   (default seeds 1 2 3, 6200 queries each)
# Environment: CUTLASS (a CUTLASS checkout; default /work/cutlass), CUDA_INCLUDES (the
# CCCL and CUDA header directories, colon-separated), CUKC (default target/release/cukc),
# COUNT (queries per seed), JOBS (parallel compilers), WORK (default target/cpp-corpus).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cutlass=${CUTLASS:-/work/cutlass}
cukc=${CUKC:-$root/target/release/cukc}
work=${WORK:-$root/target/cpp-corpus}
count=${COUNT:-6200}
seeds=("${@:-1 2 3}")
mkdir -p "$work"

includes=()
IFS=: read -r -a directories <<< "${CUDA_INCLUDES:?set CUDA_INCLUDES (README.md says how)}"
for directory in "${directories[@]}"; do includes+=(--cuda-include "$directory"); done

for seed in ${seeds[@]}; do
  python3 "$here/../gen_queries.py" --seed "$seed" --count "$count"
done > "$work/queries.jsonl"
"$cukc" layout --batch < "$work/queries.jsonl" > "$work/cukc.jsonl"
python3 "$here/cpp_answer.py" --cutlass "$cutlass" "${includes[@]}" --jobs "${JOBS:-$(nproc)}" \
  < "$work/queries.jsonl" > "$work/cpp.jsonl"
python3 "$here/compare.py" "$work/queries.jsonl" "$work/cukc.jsonl" "$work/cpp.jsonl"
