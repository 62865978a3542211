"""Triton's FP8 persistent kernel (bench/triton_kernels.py) at one shape: autotune it, write its
chosen config, PTX and TTGIR to OUTDIR, then launch it once between cudaProfilerStart/Stop (for
`ncu --profile-from-start off`) and time it per call (L2 flushed) as a cross-check."""
import sys, os, torch
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../.."))
sys.path.insert(0, "bench")
import triton_kernels as tk_triton

m, n, k = (int(x) for x in sys.argv[1].split("x"))
out = sys.argv[2]
torch.manual_seed(0)
e4m3 = torch.float8_e4m3fn
a = (torch.randn(m, k, device="cuda") * 0.5).to(e4m3)
b = (torch.randn(n, k, device="cuda") * 0.5).to(e4m3)
c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
sa = torch.ones(1, device="cuda")
sb = torch.ones(1, device="cuda")
launch = tk_triton.fp8_matmul(a, b, c, sa, sb)
compiled = None
for _ in range(3):
    compiled = launch()
torch.cuda.synchronize()
want = (a.float() @ b.float().T).to(torch.bfloat16)
print("max |triton - ref| =", (c.float() - want.float()).abs().max().item())
kern = tk_triton.fp8_matmul_kernel
print("best config:", kern.best_config)
if compiled is not None and hasattr(compiled, "asm"):
    for kind in ("ptx", "ttgir"):
        if kind in compiled.asm:
            open(os.path.join(out, "triton.%s" % kind), "w").write(compiled.asm[kind])
    print("registers:", getattr(compiled, "n_regs", "?"), "spills:", getattr(compiled, "n_spills", "?"),
          "shared:", compiled.metadata.shared if hasattr(compiled, "metadata") else "?")
flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
times = []
for _ in range(50):
    flush.zero_()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); launch(); e.record(); torch.cuda.synchronize()
    times.append(s.elapsed_time(e))
times.sort()
print("Triton per call median %.4f ms" % times[len(times) // 2])
torch.cuda.cudart().cudaProfilerStart()
launch()
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
