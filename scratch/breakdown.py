import os, sys, time
import torch, cuk
N = 10000
mod = cuk.load(os.path.join(sys.argv[1], "cuk-examples", "copy_vectorized.cuk"))
kernel = mod.copy_vectorized
a = torch.randn(128, 64, dtype=torch.bfloat16, device="cuda")
out = torch.empty_like(a)
def per_call(f):
    for _ in range(200): f()
    torch.cuda.synchronize()
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(N): f()
        best = min(best, time.perf_counter() - t)
        torch.cuda.synchronize()
    return best / N * 1e6
print(f"cuk call        {per_call(lambda: kernel(a, out)):.2f} us")
print(f"cuk check only  {per_call(lambda: kernel.check(a, out)):.2f} us")
s = torch.cuda.current_stream()
print(f"cuk call stream={per_call(lambda: kernel(a, out, stream=0)):.2f} us (legacy stream, no torch stream lookup)")
print(f"torch copy_     {per_call(lambda: out.copy_(a)):.2f} us")
print(f"python noop     {per_call(lambda: None):.2f} us")
print(f"torch raw stream {per_call(lambda: torch._C._cuda_getCurrentRawStream(0)):.2f} us")
