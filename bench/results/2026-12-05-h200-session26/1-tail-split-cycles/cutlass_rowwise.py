# torch._scaled_mm per row/column at one shape, e4m3 -> bf16 (on sm_90 torch's CUTLASS
# RowwiseScaledMM kernel), as bench/run_all.py calls it; for Nsight Compute (-k regex:cutlass|gemm).
import sys, torch
M, N, K = (int(x) for x in sys.argv[1].split("x"))
a = torch.randn(M, K, device="cuda").to(torch.float8_e4m3fn)
b = torch.randn(N, K, device="cuda").to(torch.float8_e4m3fn)
sa = torch.rand(M, 1, device="cuda") + 0.5
sb = torch.rand(1, N, device="cuda") + 0.5
for fast in (True,):
    for _ in range(3):
        c = torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=fast)
torch.cuda.synchronize()
