"""Session 44, run 5: run 4's form over the tile order (GROUP_M) and both methods: fp8_matmul_persistent's variants per call (L2 flushed, 200 us spin, the
contenders interleaved round by round: bench/peers.py's Timer, as bench/run-all fp8 times),
against cuBLASLt's fast accumulation (torch._scaled_mm), where runs 2 and 3 timed them by the
tuner (back to back, at the power cap). Shapes: argv "MxNxK" ...; per row/column and per tensor."""
import os, sys
import torch
ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "bench"))
import peers  # noqa: E402
import tkc  # noqa: E402

BASE = dict(BM=128, BN=128, BK=128, num_warps=4, num_stages=6, warp_specialize=3)
VARIANTS = {"ws3 G%d" % g: dict(GROUP_M=g) for g in (2, 3, 4, 6, 8)}
VARIANTS["ws3 G4 cluster 2"] = dict(GROUP_M=4, cluster_size=2)  # (run 4: clusters 2% faster than without at G8)
VARIANTS.update({"128x256 ws1 s4 G%d" % g: dict(BN=256, num_warps=8, num_stages=4, warp_specialize=1, GROUP_M=g)
                 for g in (4, 8)})
kernel = tkc.load(os.path.join(ROOT, "stdlib/std/fp8_matmul.tk"), context=tkc.default_context("cuda")).kernel(
    "fp8_matmul_persistent")
sms = torch.cuda.get_device_properties(0).multi_processor_count
timer = peers.Timer()
e4m3 = torch.float8_e4m3fn
for shape in sys.argv[1:]:
    m, n, k = map(int, shape.split("x"))
    a = (torch.randn(m, k, device="cuda") * 0.5).to(e4m3)
    b = (torch.randn(n, k, device="cuda") * 0.5).to(e4m3)
    for mode in (1,):
        if mode == 0:
            sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([0.25], device="cuda")
            want = (a.float() @ b.float().t()) * 0.125
            peer_sa, peer_sb = sa, sb
        else:
            sa, sb = torch.rand(m, device="cuda") + 0.5, torch.rand(n, device="cuda") + 0.5
            want = (a.float() @ b.float().t()) * sa[:, None] * sb[None, :]
            peer_sa, peer_sb = sa[:, None].contiguous(), sb[None, :].contiguous()
        c_peer = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        one = torch.zeros(1, device="cuda", dtype=torch.bfloat16)
        args = [a, b, c, sa, sb, one, one, one, torch.zeros(2 * sms * 128 * 256, device="cuda"),
                torch.zeros((m // 64 + 1) * (n // 64 + 1), device="cuda", dtype=torch.int32),
                m, n, k, k, k, n, n, n]
        launches = {"cuBLASLt fast accum": lambda: torch._scaled_mm(
            a, b.t(), scale_a=peer_sa, scale_b=peer_sb, out_dtype=torch.bfloat16, out=c_peer, use_fast_accum=True)}
        for name, extra in VARIANTS.items():
            constants = dict(BASE, SCALE_MODE=mode, **extra)
            grid = (min((2 if constants["warp_specialize"] == 3 else 1) * sms, -(-m // 128) * -(-n // constants["BN"])),)
            c.fill_(float("nan"))
            kernel[grid](*args, **constants)
            torch.cuda.synchronize()
            peers.check("tk %s" % name, c, want, 1e-2)
            launches["tk " + name] = (lambda g=grid, cs=constants: kernel[g](*args, **cs))
        unrested = peers.Timer()
        unrested.spin_cycles = 0  # the flush alone before each run, as tk's tuner and Context::time
        for method, times in (("per call", timer.per_call_interleaved(launches, 200)),
                              ("per call without the spin", unrested.per_call_interleaved(launches, 200)),
                              ("back to back", timer.back_to_back_interleaved(launches, 100))):
            best_peer = times["cuBLASLt fast accum"]
            print("%s %s, %s:" % (shape, "per row/col" if mode else "per tensor", method), ", ".join(
                "%s %.4f (%.3fx)" % (name, ms, best_peer / ms) for name, ms in times.items()), flush=True)
