#!/usr/bin/env python3
"""The baselines of cuk-examples/allreduce.cuk's benches on the same GPUs: NCCL's
all-reduce (torch.distributed) and, where this torch has it, symmetric memory's one-shot
all-reduce (torch.ops.symm_mem.one_shot_all_reduce), of the same half megabyte of bf16,
one process per GPU. Each is timed with CUDA events, 5 warm-up launches then the median
of 20, and the slowest rank's median is printed, as cukc's bench reports it.

    python3 scripts/nccl-allreduce-baseline.py RANKS [ELEMENTS]

NVLink multicast stays off (NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1,
NVSHMEM_DISABLE_NVLS=1 are set here before torch starts, as on every machine we use).
"""

import os
import sys

for variable, value in (
    ("NCCL_NVLS_ENABLE", "0"),
    ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
    ("NVSHMEM_DISABLE_NVLS", "1"),
):
    os.environ[variable] = value

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

from cuda_timing import median_ms  # noqa: E402

# Timed runs of each all-reduce, after cuda_timing's warm-up runs.
RUNS = 20


def slowest(ms, world):
    """The slowest rank's median."""
    gathered = [None] * world
    dist.all_gather_object(gathered, ms)
    return max(gathered)


def rank_main(rank, world, elements, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world)
    x = torch.randn(elements, dtype=torch.bfloat16, device="cuda")
    results = [("NCCL all_reduce", slowest(median_ms(lambda: dist.all_reduce(x), runs=RUNS), world))]
    try:
        import torch.distributed._symmetric_memory as symm_mem

        buffer = symm_mem.empty(elements, dtype=torch.bfloat16, device="cuda")
        symm_mem.rendezvous(buffer, dist.group.WORLD.group_name)
        buffer.copy_(x)
        group = dist.group.WORLD.group_name
        one_shot = lambda: torch.ops.symm_mem.one_shot_all_reduce(buffer, "sum", group)  # noqa: E731
        results.append(("torch symm_mem one_shot_all_reduce", slowest(median_ms(one_shot, runs=RUNS), world)))
    except Exception as error:  # not every torch has it; the NCCL figure stands alone
        results.append((f"torch symm_mem one-shot unavailable ({type(error).__name__}: {error})", None))
    if rank == 0:
        megabytes = elements * 2 / 1e6
        for name, ms in results:
            figure = f"{ms * 1000:.1f} us" if ms is not None else "-"
            print(f"{name}: {figure} ({megabytes:.2f} MB bf16 on {world} GPUs, slowest rank's median)")
    dist.barrier()
    dist.destroy_process_group()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    world = int(sys.argv[1])
    elements = int(sys.argv[2]) if len(sys.argv) > 2 else 262144
    if torch.cuda.device_count() < world:
        print(f"skipped: {world} ranks need {world} GPUs, this machine has {torch.cuda.device_count()}")
        return
    port = 29500 + os.getpid() % 1000
    mp.spawn(rank_main, args=(world, elements, port), nprocs=world, join=True)


if __name__ == "__main__":
    main()
