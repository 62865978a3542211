"""Energy of one FP8 GEMM at MxNxK (argv[1], default 8192x8192x4096) per tensor (e4m3 -> bf16, the bench's randn * 0.5
operands): each contender back to back for 3 s, its window's start and end printed (UTC
seconds) for the power and clock samples that run.sh takes beside it; ms per GEMM as the mean
over the window. Contenders: tk's fp8_matmul_persistent at three fixed configs (launched by
the Python package as bench/run-all launches it), Triton's persistent kernel (its own
autotuning), cuBLASLt (torch._scaled_mm, fast accumulation)."""
import os, sys, time, torch
root = os.getcwd()
sys.path.insert(0, os.path.join(root, "bench"))
import tkc
import triton_kernels as tk_triton

m, n, k = (int(x) for x in (sys.argv[1] if len(sys.argv) > 1 else "8192x8192x4096").split("x"))
print("SHAPE %dx%dx%d" % (m, n, k), flush=True)
torch.manual_seed(0)
e4m3 = torch.float8_e4m3fn
a = (torch.randn(m, k, device="cuda") * 0.5).to(e4m3)
b = (torch.randn(n, k, device="cuda") * 0.5).to(e4m3)
sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([0.25], device="cuda")
want = (a.float() @ b.float().t()) * 0.125
one = torch.zeros(1, device="cuda", dtype=torch.bfloat16)
sms = torch.cuda.get_device_properties(0).multi_processor_count


def window(name, launch, out):
    out.fill_(float("nan"))
    launch()
    torch.cuda.synchronize()
    err = ((out.float() - want).abs().max() / want.abs().max()).item()
    for _ in range(20):
        launch()
    torch.cuda.synchronize()
    start = time.time()
    count = 0
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    while time.time() - start < 3.0:
        for _ in range(20):
            launch()
        count += 20
        torch.cuda.synchronize()
    e1.record()
    torch.cuda.synchronize()
    end = time.time()
    print("WINDOW %s %.3f %.3f %.4f ms err %.2e" % (name, start, end, e0.elapsed_time(e1) / count, err), flush=True)
    time.sleep(1.0)  # the next window starts from a cooler GPU's power state


module = tkc.load(os.path.join(root, "stdlib", "std", "fp8_matmul.tk"))
kernel = module.kernel("fp8_matmul_persistent")
c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
args = [a, b, c, sa, sb, one, one, one, m, n, k, k, k, n, n, n]
for name, cfg in [("tk 128x256 s3 producer", dict(BM=128, BN=256, BK=128, num_warps=8, num_stages=3, warp_specialize=1)),
                  ("tk 128x256 s4", dict(BM=128, BN=256, BK=128, num_warps=8, num_stages=4, warp_specialize=0)),
                  ("tk 128x128 s5 producer", dict(BM=128, BN=128, BK=128, num_warps=4, num_stages=5, warp_specialize=1))]
                 + ([("tk 128x256 BK64 s6", dict(BM=128, BN=256, BK=64, num_warps=8, num_stages=6, warp_specialize=0))]
                    if len(sys.argv) > 1 else []):
    grid = (min(sms, -(-m // cfg["BM"]) * -(-n // cfg["BN"])),)
    window(name, lambda: kernel[grid](*args, SCALE_MODE=0, **cfg), c)
c_triton = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
triton = tk_triton.fp8_matmul(a, b, c_triton, sa, sb)
triton()
print("Triton config:", tk_triton.fp8_matmul_kernel.best_config, flush=True)
window("Triton", triton, c_triton)
c_blas = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
window("cuBLASLt fast accum", lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16,
                                                       out=c_blas, use_fast_accum=True), c_blas)
window("tk 128x256 s3 producer (again)", lambda: kernel[(min(sms, -(-m // 128) * -(-n // 256)),)](*args, SCALE_MODE=0, BM=128, BN=256, BK=128, num_warps=8,
                                                                 num_stages=3, warp_specialize=1), c)
