#!/usr/bin/env bash
# Multi-rank blocks on real GPUs (issue 42): `cukc test` and `cukc bench` of
# cuk-examples/allreduce.cuk with one GPU per rank, in one process (runtime/src/gpu_ranks.rs).
# Run it on a machine with 2 or more NVLink-connected GPUs:
#
#   scripts/gpu-check-ranks.sh CUKC [OUT]
#
# CUKC is the cukc binary to check (e.g. target/release/cukc); OUT the folder for the
# logs (default $OUT, else ./gpu-check-out). Steps, each printed PASS or FAIL:
#   1. the GPUs and their links (nvidia-smi topo -m), for the record;
#   2. the all-reduce's tests: the 2-rank ones pass; the 4-rank ones pass on 4 or more
#      GPUs and are skipped, saying they need 4 GPUs, on fewer;
#   3. tests/ranks/harness.cuk: prints rank by rank, a failure names rank 1, a rank that
#      never launches fails the other instead of hanging, ranks passing different shapes
#      for a symmetric tensor fail before the launch;
#   4. a planted missing signal (tests/emulator/allreduce_without_signal.cuk) hangs on the
#      GPUs and the watchdog stops it after CUKC_KERNEL_TIMEOUT (10 s here), naming the
#      test and the kernel;
#   5. the all-reduce's benches (the slowest rank's median), beside NCCL's all-reduce and
#      torch's symmetric-memory one-shot all-reduce when python3 has torch
#      (scripts/nccl-allreduce-baseline.py).
# The exit status is 1 when a step failed. No compute-sanitizer. NVLink multicast stays
# off, as on every machine we use: the three variables below are exported for every
# process this starts, and nothing in cukc creates a multicast object.
set -uo pipefail
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PATH="$PATH:/usr/local/cuda/bin"
CUKC=${1:?usage: scripts/gpu-check-ranks.sh CUKC [OUT]}
case "$CUKC" in /*) ;; *) CUKC="$PWD/$CUKC" ;; esac
LOGS=${2:-${OUT:-gpu-check-out}}
mkdir -p "$LOGS"
FAILED=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; FAILED=1; }
# `line NAME LOG`: the line cukc printed for block NAME.
line() { grep -E "^(test|bench) $1 \.\.\." "$2" | head -1; }

GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
echo "GPUs: $GPUS"
nvidia-smi topo -m >"$LOGS/ranks-topology.txt" 2>&1 && cat "$LOGS/ranks-topology.txt"
if [ "$GPUS" -lt 2 ]; then
    fail "this check needs 2 or more GPUs; nvidia-smi lists $GPUS"
    exit 1
fi

# 2. The all-reduce's tests.
LOG="$LOGS/ranks-allreduce-test.txt"
timeout 600 "$CUKC" test cuk-examples/allreduce.cuk >"$LOG" 2>&1
echo "cukc test cuk-examples/allreduce.cuk: exit $?"
cat "$LOG"
for name in allreduce_f32_two_ranks allreduce_bf16_two_ranks; do
    case "$(line "$name" "$LOG")" in
        *"... ok"*) pass "$name" ;;
        *) fail "$name: $(line "$name" "$LOG")" ;;
    esac
done
for name in allreduce_f32_four_ranks allreduce_bf16_four_ranks_twice; do
    result=$(line "$name" "$LOG")
    if [ "$GPUS" -ge 4 ]; then
        case "$result" in *"... ok"*) pass "$name" ;; *) fail "$name: $result" ;; esac
    else
        case "$result" in
            *"skipped: a block on 4 ranks needs 4 GPUs"*) pass "$name skipped on $GPUS GPUs" ;;
            *) fail "$name should be skipped on $GPUS GPUs: $result" ;;
        esac
    fi
done

# 3. The harness's own multi-rank behaviour.
LOG="$LOGS/ranks-harness-test.txt"
timeout 600 "$CUKC" test tests/ranks/harness.cuk >"$LOG" 2>&1
echo "cukc test tests/ranks/harness.cuk: exit $? (1 expected: three tests fail on purpose)"
cat "$LOG"
case "$(line prints "$LOG")" in *"... ok"*) pass "prints" ;; *) fail "prints: $(line prints "$LOG")" ;; esac
case "$(line fails_on_rank_one "$LOG")" in
    *FAILED*"rank 1 of 2: assert_close"*) pass "fails_on_rank_one names rank 1" ;;
    *) fail "fails_on_rank_one: $(line fails_on_rank_one "$LOG")" ;;
esac
case "$(line rank_one_never_launches "$LOG")" in
    *"waits for rank 1, whose test body ended without launching it"*) pass "rank_one_never_launches fails rank 0" ;;
    *) fail "rank_one_never_launches: $(line rank_one_never_launches "$LOG")" ;;
esac
case "$(line shapes_disagree "$LOG")" in
    *"the symmetric tensor \`a\` of \`fill_first\` is i32[32] on rank 0 but i32[64] on rank 1"*) pass "shapes_disagree names the parameter" ;;
    *) fail "shapes_disagree: $(line shapes_disagree "$LOG")" ;;
esac

# 4. A planted hang, stopped by the watchdog.
LOG="$LOGS/ranks-hang-test.txt"
started=$(date +%s)
CUKC_KERNEL_TIMEOUT=10 timeout 300 "$CUKC" test tests/emulator/allreduce_without_signal.cuk >"$LOG" 2>&1
status=$?
echo "cukc test tests/emulator/allreduce_without_signal.cuk: exit $status after $(($(date +%s) - started)) s"
cat "$LOG"
result=$(line the_handshake_orders_the_reads "$LOG")
if [ "$status" = 124 ]; then
    fail "the planted hang was not stopped by the watchdog within 300 s"
else
    case "$result" in
        *FAILED*"kernel \`allreduce\` did not finish within 10 s"*) pass "the planted hang is stopped, naming the test and the kernel" ;;
        *) fail "planted hang: $result" ;;
    esac
fi

# 5. Benches, and the baselines.
LOG="$LOGS/ranks-allreduce-bench.txt"
timeout 600 "$CUKC" bench cuk-examples/allreduce.cuk >"$LOG" 2>&1
echo "cukc bench cuk-examples/allreduce.cuk: exit $?"
cat "$LOG"
case "$(line allreduce_bf16_half_megabyte_two_ranks "$LOG")" in
    *"ms"*"GB/s"*) pass "the 2-rank bench measured" ;;
    *) fail "the 2-rank bench: $(line allreduce_bf16_half_megabyte_two_ranks "$LOG")" ;;
esac
if python3 -c "import torch" 2>/dev/null; then
    for ranks in 2 4; do
        timeout 300 python3 scripts/nccl-allreduce-baseline.py "$ranks" 2>&1 | tee "$LOGS/ranks-baseline-$ranks.txt"
    done
else
    echo "baselines: skipped (python3 has no torch)"
fi

if [ "$FAILED" = 0 ]; then echo "gpu-check-ranks: PASS"; else echo "gpu-check-ranks: FAIL"; fi
exit "$FAILED"
