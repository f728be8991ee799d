"""Timing with CUDA events, for the baseline scripts beside it (norm-baselines.py,
fp8-baseline.py, nccl-allreduce-baseline.py): the median of several runs, after
untimed warm-up runs."""

import torch


def median_ms(fn, warmup=5, runs=30):
    """The median time of `fn` in milliseconds, each run between CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]
