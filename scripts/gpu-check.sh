#!/usr/bin/env bash
# Runs every example's tests and benches on a GPU machine, in one go, with the tests of
# tests/miscompiles, tests/control and tests/hopper (every file there with a `test` block), and prints
# a summary table. Each file's tests also run on the CPU emulator (`--emulate`); the
# `agree` column says whether the GPU and the emulator gave the same verdict, and for the
# files that print from kernels, whether their printed lines are the same once sorted. It is how
# the device machine is used (see README, "On a GPU").
#
#   scripts/gpu-check.sh [CUKC] [OUT]
#
# CUKC is a cukc built elsewhere (default target/release/cukc); OUT is a folder for
# the logs (default $OUT, else ./gpu-check-out). The benches end with PyTorch's
# scaled_dot_product_attention per backend at head_dim 64, 128 and 256
# (scripts/sdpa-baseline.py), the attention example's baseline (and its backward at 64 and
# 128, attention_bwd_sm90's), and PyTorch's RMSNorm,
# LayerNorm, softmax and cross-entropy (scripts/norm-baselines.py), cuBLAS's FP8 GEMM
# (scripts/fp8-baseline.py) and the grouped GEMM (torch._grouped_mm,
# scripts/grouped-baseline.py), when torch is installed. The Python package's tests and launch
# benchmark run last, from a wheel in target/wheels (scripts/gpu-check-python.sh; skipped
# without one), then the differential tester: 20,000 generated scalar programs run on the
# GPU against the C reference (`cuk-difftest --gpu`, built here with
# `cargo build --release -p difftest`; DIFFTEST names another; skipped without one), and the
# watchdog: a kernel that never finishes, under `--kernel-timeout 2` and under Ctrl-C. Needs an NVIDIA driver; compute-sanitizer
# (from the CUDA toolkit) is used when present. ptxas comes from the toolkit or, failing
# that, cukc's usual search.
set -uo pipefail
cd "$(dirname "$0")/.."
CUKC=${1:-target/release/cukc}
LOGS=${2:-${OUT:-gpu-check-out}}
mkdir -p "$LOGS"
export PATH="$PATH:/usr/local/cuda/bin"
SANITIZER=$(command -v compute-sanitizer || true)

"$CUKC" doctor 2>&1 | tee "$LOGS/doctor.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | tee -a "$LOGS/doctor.txt"

summary="$LOGS/summary.txt"
printf '%-28s %-10s %-10s %-6s %-12s %s\n' example tests emulated agree memcheck "build ms (front end + PTX)" >"$summary"
for file in cuk-examples/*.cuk tests/miscompiles/*.cuk tests/control/*.cuk tests/hopper/*.cuk; do
    grep -q '^test ' "$file" || continue
    name=$(basename "$file" .cuk)
    log="$LOGS/$name.txt"
    build=$("$CUKC" build "$file" --emit ptx -o /dev/null --timings 2>&1 | grep -o 'front end [0-9.]* ms, PTX [0-9.]* ms' || echo "not built")
    if "$CUKC" test "$file" >"$log" 2>&1; then tests=pass; else tests=FAIL; fi
    if "$CUKC" test --emulate "$file" >"$LOGS/$name.emulated.txt" 2>&1; then emulated=pass; else emulated=FAIL; fi
    if [ "$tests" = "$emulated" ]; then agree=yes; else agree=NO; fi
    memcheck=skipped
    if [ -n "$SANITIZER" ] && [ "$tests" = pass ]; then
        if "$SANITIZER" --tool memcheck --error-exitcode 3 "$CUKC" test "$file" >"$LOGS/$name.memcheck.txt" 2>&1; then
            memcheck=clean
        else
            memcheck=ERRORS
        fi
    fi
    printf '%-28s %-10s %-10s %-6s %-12s %s\n' "$name" "$tests" "$emulated" "$agree" "$memcheck" "$build" >>"$summary"
done
# Printing from kernels: the lines the GPU's vprintf writes are the emulator's, once
# sorted (the GPU interleaves threads; the emulator writes block by block, thread by
# thread). Each print is one line; the block result lines are left out.
for file in tests/control/print.cuk cuk-examples/print_tile.cuk; do
    name=$(basename "$file" .cuk)
    for where in gpu emulated; do
        flag=$([ "$where" = emulated ] && echo --emulate || echo --gpu)
        "$CUKC" test $flag "$file" 2>/dev/null \
            | grep -v -E '^(test |[0-9]+ passed|emulator: )' | LC_ALL=C sort >"$LOGS/$name.printed.$where.txt"
    done
    if [ -s "$LOGS/$name.printed.gpu.txt" ] \
        && diff "$LOGS/$name.printed.gpu.txt" "$LOGS/$name.printed.emulated.txt" >"$LOGS/$name.printed.diff"; then
        printed=same
    else
        printed=DIFFERENT
    fi
    printf '%-28s printed lines: %s (%s)\n' "$name" "$printed" "$LOGS/$name.printed.diff" >>"$summary"
done
for file in cuk-examples/*.cuk; do
    "$CUKC" bench "$file" 2>&1
done | tee "$LOGS/bench.txt"
# The attention example's baseline, in the same run: PyTorch's SDPA per backend, at each
# head_dim the example benches.
if python3 -c "import torch" 2>/dev/null; then
    for head_dim in 64 128 256; do
        echo "head_dim $head_dim:"
        python3 scripts/sdpa-baseline.py --head-dim "$head_dim" 2>&1
    done | tee -a "$LOGS/bench.txt"
    # The backward example's: the same backends' backward, at its head_dims.
    for head_dim in 64 128; do
        echo "head_dim $head_dim, backward:"
        python3 scripts/sdpa-baseline.py --head-dim "$head_dim" --backward 2>&1
    done | tee -a "$LOGS/bench.txt"
    # The memory-bound training kernels' baseline: torch eager and torch.compile.
    python3 scripts/norm-baselines.py 2>&1 | tee -a "$LOGS/bench.txt"
    # The FP8 GEMM's baseline: cuBLAS FP8 through torch._scaled_mm, and bf16 torch.mm.
    python3 scripts/fp8-baseline.py 2>&1 | tee -a "$LOGS/bench.txt"
    # The grouped GEMM's baseline: torch._grouped_mm in both MoE layouts.
    python3 scripts/grouped-baseline.py 2>&1 | tee -a "$LOGS/bench.txt"
fi
echo
cat "$summary"
echo
if ! ls target/wheels/cuk-*.whl >/dev/null 2>&1; then
    python="skipped (no wheel in target/wheels)"
elif CUKC="$CUKC" scripts/gpu-check-python.sh "$LOGS"; then
    python=pass
else
    python=FAIL
fi
echo "python package: $python (python.txt, python-bench.txt)" | tee -a "$summary"
# The differential tester (difftest/): the programs CI runs on the emulator, and many more,
# on the GPU through PTX; a disagreement CI's emulator run does not have is a PTX-emission
# bug. Minimised disagreements land in difftest/ under the logs.
DIFFTEST=${DIFFTEST:-target/release/cuk-difftest}
if [ ! -x "$DIFFTEST" ]; then
    difftest="skipped (no $DIFFTEST)"
elif "$DIFFTEST" --gpu --seed 33 --count 20000 --out "$LOGS/difftest" >"$LOGS/difftest.txt" 2>&1; then
    difftest=pass
else
    difftest=FAIL
fi
echo "difftest, 20,000 programs on the GPU: $difftest ($(grep '^cuk-difftest: seed' "$LOGS/difftest.txt" 2>/dev/null); difftest.txt)" | tee -a "$summary"
# The watchdog (issue 34): a kernel that never finishes is reported within
# --kernel-timeout, naming the test and the kernel, and the run stops; Ctrl-C ends a run
# waiting for one within a second. Last, since the hung kernels occupy the GPU until
# their processes are gone.
HANG=tests/emulator/spin_on_a_global_flag.cuk
started=$(date +%s%N)
timeout 60 "$CUKC" test "$HANG" --kernel-timeout 2 >"$LOGS/watchdog.txt" 2>&1
code=$?
millis=$(( ($(date +%s%N) - started) / 1000000 ))
if [ "$code" = 1 ] && grep -q 'the_flag_is_never_set .*kernel `waits_for_a_flag` did not finish within 2 s' "$LOGS/watchdog.txt"; then
    watchdog=pass
else
    watchdog="FAIL (exit $code)"
fi
echo "watchdog, --kernel-timeout 2: $watchdog, exited after $millis ms (watchdog.txt)" | tee -a "$summary"
"$CUKC" test "$HANG" --kernel-timeout 60 >"$LOGS/interrupt.txt" 2>&1 &
pid=$!
sleep 5
started=$(date +%s%N)
kill -INT "$pid"
wait "$pid"
code=$?
millis=$(( ($(date +%s%N) - started) / 1000000 ))
if [ "$code" = 130 ] && [ "$millis" -lt 1000 ]; then interrupt=pass; else interrupt="FAIL (exit $code)"; fi
echo "Ctrl-C during a hung kernel: $interrupt, exited $millis ms after SIGINT (interrupt.txt)" | tee -a "$summary"

# Autotuning (issue 41): the GEMM's small space tuned, then `cukc bench` must use the winner
# it stored; then the full space (1,116 points at 4096³ and two LLM shapes), timed whole.
"$CUKC" tune cuk-examples/gemm_sm90.cuk --tune gemm_tn_quick --report "$LOGS/tune-quick.txt" >"$LOGS/tune-quick.log" 2>&1
"$CUKC" bench cuk-examples/gemm_sm90.cuk --filter gemm_tn_4096 >"$LOGS/tune-bench.txt" 2>&1
if grep -q 'bench gemm_tn_4096: using .* stored by `cukc tune`' "$LOGS/tune-bench.txt"; then tuned=pass; else tuned=FAIL; fi
echo "cukc tune gemm_tn_quick (8 points), then cukc bench uses its winner: $tuned (tune-quick.txt, tune-bench.txt)" | tee -a "$summary"
started=$(date +%s%N)
"$CUKC" tune cuk-examples/gemm_sm90.cuk --tune gemm_tn_tiles --report "$LOGS/tune-full.txt" >"$LOGS/tune-full.log" 2>&1
code=$?
millis=$(( ($(date +%s%N) - started) / 1000000 ))
echo "cukc tune gemm_tn_tiles (1,116 points, 3 shapes): exit $code after $millis ms (tune-full.txt, tune-full.log)" | tee -a "$summary"

# Per-line profiles (issue 41): the attention example's bench and the GEMM's under Nsight
# Compute; the tables must name lines of the file.
for target in "cuk-examples/attention_fwd_sm90.cuk attention_hd128_2x16_heads_8192" "cuk-examples/gemm_sm90.cuk gemm_tn_4096"; do
    set -- $target
    name=$(basename "$1" .cuk)
    "$CUKC" profile "$1" "$2" --top 15 >"$LOGS/profile-$name.txt" 2>"$LOGS/profile-$name.log"
    code=$?
    if [ "$code" = 0 ] && grep -q '^kernel ' "$LOGS/profile-$name.txt" && grep -q 'warp-stall samples in all' "$LOGS/profile-$name.txt"; then profiled=pass; else profiled=FAIL; fi
    echo "cukc profile $1 $2 under ncu: $profiled (exit $code; profile-$name.txt)" | tee -a "$summary"
done
