"""Nsight Compute's view of one scaled FP8 GEMM at M=32 (32x4096x4096 per tensor): tk's
fp8_matmul at the config the fp8 section tuned, then torch._scaled_mm (cuBLASLt), each launched
5 times (ncu profiles them all: GPU time alone, no launch cost)."""
import os, sys, torch
import tkc
m, n, k = 32, 4096, 4096
e4m3 = torch.float8_e4m3fn
a = (torch.randn(m, k, device="cuda") * 0.5).to(e4m3)
b = (torch.randn(n, k, device="cuda") * 0.5).to(e4m3)
sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([0.25], device="cuda")
c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
one = torch.zeros(1, device="cuda", dtype=torch.bfloat16)
cfg = dict(BM=64, BN=int(sys.argv[1]), BK=256, SPLIT_K=int(sys.argv[2]), num_stages=4, num_warps=4, warp_specialize=1)
kern = tkc.load(os.path.join(os.environ["TK_STDLIB_DIR"], "std", "fp8_matmul.tk")).kernel("fp8_matmul")
grid = (tkc.cdiv(m, cfg["BM"]) * tkc.cdiv(n, cfg["BN"]), cfg["SPLIT_K"])
ws = torch.zeros(8 * m * n, device="cuda"); cnt = torch.zeros(4096, device="cuda", dtype=torch.int32)
for _ in range(5):
    kern[grid](a, b, c, sa, sb, one, one, one, ws, cnt, m, n, k, k, k, n, n, n, SCALE_MODE=0, **cfg)
want = (a.float() @ b.float().t()) * 0.125
print("tk err", ((c.float() - want).norm() / want.norm()).item())
for _ in range(5):
    torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=True)
torch.cuda.synchronize()
