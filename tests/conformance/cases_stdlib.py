"""Cases of the graph layer's templates (stdlib/std/*.tk: bf16 matmul epilogues, FP8 GEMMs and
GEMVs, norms, quantization, attention, rope, KV caches, activations, sampling) on bf16 data
against numpy in float64, every @autotune config read from the templates themselves."""
import math
import os
import re

import numpy as np

from numerics import bf16_bits, bf16_from_bits, f8_bits, values_of
from registry import BF16_ULP_TOL, FP8_FAST_ACCUM_TOL, KERNELS, ROOT, RNG, case


def add_stdlib_cases():
    """The graph layer's templates (stdlib/std/*.tk) on bf16 data, against numpy in float64."""
    std = lambda name: os.path.join(ROOT, "stdlib", "std", name + ".tk")
    b16 = lambda x: bf16_bits(np.asarray(x, np.float32))
    val = lambda bits: bf16_from_bits(bits).astype(np.float64)
    rnd = lambda *shape, scale=1.0: b16(RNG.uniform(-1, 1, shape) * scale)
    silu = lambda v: v / (1 + np.exp(-v))
    gelu = lambda v: 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))
    # Every epilogue hook at once, ragged on every edge: c = res + gate * act(rstd * (a @ b) * 0.5 + bias).
    M, N_, K = 40, 72, 56
    a, bm, bias, res, gate = rnd(M, K), rnd(K, N_, scale=0.3), rnd(N_), rnd(M, N_), rnd(M, N_)
    rstd = RNG.uniform(0.5, 2, M).astype(np.float32)
    unused = np.zeros(16, np.float32)
    for act, f in ((1, silu), (2, gelu)):
        def ref(out, act=act, f=f):
            acc = (val(a) @ val(bm)) * 0.5 * rstd.astype(np.float64)[:, None] + val(bias)[None, :]
            return {"c": b16(val(res) + val(gate) * f(acc))}
        case("stdlib.bf16.matmul_epilogue.act%d" % act, std("matmul"), "matmul_epilogue", "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.zeros(M * N_, np.uint16), "bias": bias, "residual": res, "mul": gate,
              "row_scale": rstd, "row_shift": unused, "col_shift": unused, "col_bias": unused,
              "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_, "ldr": N_, "ldm": N_},
             ref, tol=(2e-2, 2e-2), defines={"BM": "32", "BN": "32", "BK": "32", "HAS_BIAS": "true", "ACT": str(act),
                                             "HAS_MUL": "true", "HAS_RESIDUAL": "true", "HAS_ROW_SCALE": "true",
                                             "SCALE": "0.5"})
    # Decode: M = 3 rows on the smallest tiles.
    a3 = rnd(3, K)
    case("stdlib.bf16.matmul_epilogue.skinny", std("matmul"), "matmul_epilogue", "cdiv(M, BM) * cdiv(N, BN)",
         {"a": a3, "b": bm, "c": np.zeros(3 * N_, np.uint16), "bias": bias, "residual": res, "mul": gate,
          "row_scale": rstd, "row_shift": unused, "col_shift": unused, "col_bias": unused,
          "M": 3, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_, "ldr": N_, "ldm": N_},
         lambda out: {"c": b16(val(a3) @ val(bm))}, tol=(2e-2, 2e-2),
         defines={"BM": "16", "BN": "64", "BK": "128", "num_stages": "3"})
    # Every autotune config of the stdlib matmul (read from its @autotune list) on decode's
    # shape: three rows, K long enough that every pipeline stage turns over several times (the
    # graph layer's tuner may pick any of them; the interpreter ignores configs, the GPU not),
    # with an RMSNorm's rstd computed in the K loop (RSTD_EPS), as decode steps fold it.
    with open(std("matmul")) as f:
        configs = re.findall(r"\{ *BM: *(\d+), *BN: *(\d+), *BK: *(\d+), *num_warps: *(\d+), *num_stages: *(\d+) *\}",
                             f.read())
    # K = 2000 leaves a partial last tile for every BK; a's rows are 2016 apart (a view).
    Kd, Nd, Md, ldad = 2000, 96, 3, 2016
    a1, bd = rnd(Md, ldad, scale=0.02), rnd(Kd, Nd, scale=0.05)  # rows of small values: the rstd is large
    def decode_ref(out):
        av = val(a1).reshape(Md, ldad)[:, :Kd]
        return {"c": b16(av @ val(bd).reshape(Kd, Nd) / np.sqrt((av * av).mean(1, keepdims=True) + 1e-5))}
    for bm_, bn_, bk_, warps, stages in configs:
        case("stdlib.bf16.matmul_epilogue.decode.bm%s_bn%s_bk%s_w%s_s%s" % (bm_, bn_, bk_, warps, stages), std("matmul"),
             "matmul_epilogue", "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a1, "b": bd, "c": np.zeros(Md * Nd, np.uint16), "bias": bias, "residual": res, "mul": gate,
              "row_scale": unused, "row_shift": unused, "col_shift": unused, "col_bias": unused,
              "M": Md, "N": Nd, "K": Kd, "lda": ldad, "ldb": Nd, "ldc": Nd, "ldr": Nd, "ldm": Nd},
             decode_ref, tol=(2e-2, 2e-2),
             defines={"BM": bm_, "BN": bn_, "BK": bk_, "num_warps": warps, "num_stages": stages,
                      "HAS_ROW_SCALE": "true", "RSTD_EPS": "1e-5"})
    # Scaled FP8 GEMM (stdlib/std/fp8_matmul.tk): a [M, K] and b [N, K] (both K-major), ragged
    # on every edge, K not a multiple of 128 (block-wise scales' last block is partial); every
    # scale mode, e4m3 x e4m3 and e4m3 x e5m2, outputs in bf16, f16 and f32, and the epilogue.
    Mf, Nf, Kf = 40, 72, 300
    fa = f8_bits(RNG.uniform(-2, 2, (Mf, Kf)), 4, 3, False)
    fb = {"f8e4m3": f8_bits(RNG.uniform(-1, 1, (Nf, Kf)), 4, 3, False),
          "f8e5m2": f8_bits(RNG.uniform(-1, 1, (Nf, Kf)), 5, 2, True)}
    kblocks = (Kf + 127) // 128
    scales = {0: (np.array([0.5], np.float32), np.array([0.25], np.float32)),
              1: (RNG.uniform(0.1, 2, Mf).astype(np.float32), RNG.uniform(0.1, 2, Nf).astype(np.float32)),
              2: (RNG.uniform(0.1, 2, (Mf, kblocks)).astype(np.float32),
                  RNG.uniform(0.1, 2, ((Nf + 127) // 128, kblocks)).astype(np.float32))}
    out_of = {"bf16": (np.uint16, b16), "f16": (np.float16, lambda x: np.asarray(x, np.float16)),
              "f32": (np.float32, lambda x: np.asarray(x, np.float32))}
    fbias, fres, fgate = val(rnd(Nf)), val(rnd(Mf, Nf)), val(rnd(Mf, Nf))  # values every output type holds exactly
    def fp8_args(mode, bdtype, tdtype, epilogue, splits=1):
        sa, sb = scales[mode]
        tiles = -(-Mf // 32) * -(-Nf // 32)  # enough counters for every tiling here
        return {"a": fa, "b": fb[bdtype], "c": np.zeros(Mf * Nf, out_of[tdtype][0]), "scale_a": sa.ravel(),
                "scale_b": sb.ravel(), "bias": out_of[tdtype][1](fbias), "residual": out_of[tdtype][1](fres).ravel(),
                "mul": out_of[tdtype][1](fgate).ravel() if epilogue else out_of[tdtype][1](np.zeros(1)),
                "workspace": np.zeros(splits * Mf * Nf, np.float32), "counters": np.zeros(tiles, np.int32), "M": Mf,
                "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf}
    fp8_refs = {}
    for mode, bdtype, tdtype, epilogue in [(0, "f8e4m3", "bf16", False), (1, "f8e4m3", "f16", False),
                                           (2, "f8e4m3", "f32", False), (1, "f8e5m2", "bf16", True),
                                           (2, "f8e5m2", "bf16", True)]:
        sa, sb = scales[mode]
        def fp8_ref(out, mode=mode, bdtype=bdtype, tdtype=tdtype, epilogue=epilogue, sa=sa, sb=sb):
            av = values_of("f8e4m3", fa).reshape(Mf, Kf)
            bv = values_of(bdtype, fb[bdtype]).reshape(Nf, Kf)
            if mode == 2:
                acc = np.zeros((Mf, Nf))
                for kb in range(kblocks):
                    part = av[:, kb * 128:(kb + 1) * 128] @ bv[:, kb * 128:(kb + 1) * 128].T
                    acc += part * sa[:, kb][:, None] * sb[np.arange(Nf) // 128, kb][None, :]
            else:
                acc = av @ bv.T * (sa[0] * sb[0] if mode == 0 else sa[:, None] * sb[None, :])
            if epilogue:
                acc = silu(acc + fbias[None, :]) * fgate.reshape(Mf, Nf) + fres.reshape(Mf, Nf)
            return {"c": out_of[tdtype][1](acc).ravel()}
        fp8_refs[mode, bdtype, tdtype, epilogue] = fp8_ref
        # (BM 64: wgmma's rows; lda 300 is no multiple of 16 bytes, so cp.async fills the stages.)
        defines = {"BM": "64", "BN": "32", "BK": "128", "num_warps": "4", "num_stages": "3", "SCALE_MODE": str(mode),
                   "B": bdtype, "T": tdtype}
        if epilogue:
            defines.update(HAS_BIAS="true", ACT="1", HAS_MUL="true", HAS_RESIDUAL="true")
        case("stdlib.fp8_matmul.mode%d.%s.%s%s" % (mode, bdtype, tdtype, ".epilogue" if epilogue else ""),
             std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN)", fp8_args(mode, bdtype, tdtype, epilogue),
             fp8_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2), defines=defines)
        if mode == 1 and not epilogue:  # the same with each k-step's product promoted to f32
            case("stdlib.fp8_matmul.mode1.f8e4m3.f16.promote", std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN)",
                 fp8_args(mode, bdtype, tdtype, epilogue), fp8_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2), defines=dict(defines, PROMOTE="true"))
    # SWAP_AB (each tile as (b a^T)^T, a's 32 rows the MMA's N): per tensor; per row/column with
    # the epilogue hooks, PROMOTE and split-K (each split's transposed partial through the
    # workspace).
    for mode, bdtype, tdtype, epilogue, promote, splits in [(0, "f8e4m3", "bf16", False, False, 1),
                                                            (1, "f8e5m2", "bf16", True, True, 2)]:
        case("stdlib.fp8_matmul.swap_ab.mode%d.%s.%s%s" % (mode, bdtype, tdtype,
                                                           ".epilogue.promote.split2" if epilogue else ""),
             std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
             fp8_args(mode, bdtype, tdtype, epilogue, splits), fp8_refs[mode, bdtype, tdtype, epilogue], tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
             defines={"BM": "32", "BN": "64", "BK": "128", "SPLIT_K": str(splits), "num_warps": "4", "num_stages": "3",
                      "SCALE_MODE": str(mode), "B": bdtype, "T": tdtype, "SWAP_AB": "true", "PROMOTE": str(promote).lower(),
                      "HAS_BIAS": str(epilogue).lower(), "ACT": "1" if epilogue else "0",
                      "HAS_MUL": str(epilogue).lower(), "HAS_RESIDUAL": str(epilogue).lower()})
    # Every autotune config of fp8_matmul (warp-specialized ones too) with rows 16-byte aligned,
    # so that TMA fills the stages: M and N ragged, K = 544 (a partial last tile for BK 128 and
    # 256), per-row/column scales, e5m2 x e4m3 (mixed formats) into bf16.
    with open(std("fp8_matmul")) as f:
        text = f.read()
        kernel_at = text.index("kernel fp8_matmul(")
        fp8_configs = re.findall(r"\{ *BM: *(\d+), *BN: *(\d+), *BK: *(\d+), *SPLIT_K: *(\d+), *num_warps: *(\d+), "
                                 r"*num_stages: *(\d+)(?:, *warp_specialize: *(\d))?(?:, *SWAP_AB: *(true))?"
                                 r"(?:, *WEIGHTS_ONCE: *(true))? *\}",
                                 text[text.rindex("@autotune", 0, kernel_at):kernel_at])
        assert len(fp8_configs) == text[text.rindex("@autotune", 0, kernel_at):kernel_at].count("{ BM:"), \
            "a config of fp8_matmul the pattern missed"
    Mt, Nt, Kt = 200, 136, 544
    ta = f8_bits(RNG.uniform(-2, 2, (Mt, Kt)), 5, 2, True)
    tb = f8_bits(RNG.uniform(-1, 1, (Nt, Kt)), 4, 3, False)
    tsa, tsb = RNG.uniform(0.1, 2, Mt).astype(np.float32), RNG.uniform(0.1, 2, Nt).astype(np.float32)
    def fp8_tma_scaled(row_scales, col_scales):  # the reference, scaled by row and by column
        acc = values_of("f8e5m2", ta).reshape(Mt, Kt) @ values_of("f8e4m3", tb).reshape(Nt, Kt).T
        return lambda out: {"c": b16(acc * row_scales[:, None] * col_scales[None, :]).ravel()}
    fp8_tma_ref = fp8_tma_scaled(tsa, tsb)
    for bm_, bn_, bk_, splits, warps, stages, ws, swap, once in fp8_configs:
        tiles = -(-Mt // int(bm_)) * -(-Nt // int(bn_))
        case("stdlib.fp8_matmul.tma.bm%s_bn%s_bk%s_k%s_w%s_s%s%s%s%s" % (bm_, bn_, bk_, splits, warps, stages,
                                                                         "_ws" if ws == "1" else "", "_swap" if swap else "",
                                                                         "_once" if once else ""),
             std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
             {"a": ta, "b": tb, "c": np.zeros(Mt * Nt, np.uint16), "scale_a": tsa, "scale_b": tsb,
              "bias": np.zeros(Nt, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "workspace": np.zeros(int(splits) * Mt * Nt, np.float32), "counters": np.zeros(tiles, np.int32),
              "M": Mt, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt},
             fp8_tma_ref, tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": bm_, "BN": bn_, "BK": bk_, "SPLIT_K": splits, "num_warps": warps, "num_stages": stages,
                      "warp_specialize": ws or "0", "SCALE_MODE": "1", "A": "f8e5m2", "B": "f8e4m3",
                      "SWAP_AB": swap or "false", "WEIGHTS_ONCE": once or "false"})
    # The 64- and 32-byte swizzles (BK 64 and 32: rows of 64 and 32 FP8 bytes), by TMA; and rows
    # 546 bytes apart (2 mod 4: the stages filled two bytes at a time).
    ta_wide = np.zeros((Mt, 546), np.uint8)
    ta_wide[:, :Kt] = ta.reshape(Mt, Kt)
    tb_wide = np.zeros((Nt, 546), np.uint8)
    tb_wide[:, :Kt] = tb.reshape(Nt, Kt)
    for bk_, lda_ in (("64", Kt), ("32", Kt), ("128", 546)):
        wa, wb = (ta, tb) if lda_ == Kt else (ta_wide, tb_wide)
        case("stdlib.fp8_matmul.bk%s_lda%d" % (bk_, lda_), std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
             {"a": wa, "b": wb, "c": np.zeros(Mt * Nt, np.uint16), "scale_a": tsa, "scale_b": tsb,
              "bias": np.zeros(Nt, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "workspace": np.zeros(1, np.float32), "counters": np.zeros(1, np.int32),
              "M": Mt, "N": Nt, "K": Kt, "lda": lda_, "ldb": lda_, "ldc": Nt, "ldr": Nt, "ldm": Nt},
             fp8_tma_ref, tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": "64", "BN": "64", "BK": bk_, "num_warps": "4", "num_stages": "4", "SCALE_MODE": "1",
                      "A": "f8e5m2", "B": "f8e4m3"})
    # Split-K with block-wise scales (each split's K blocks scaled as they complete), a split
    # left without K (cdiv(3 tiles, 4 splits): the last one adds zeros), and the epilogue.
    def fp8_split_ref(out):
        av, bv = values_of("f8e4m3", fa).reshape(Mf, Kf), values_of("f8e5m2", fb["f8e5m2"]).reshape(Nf, Kf)
        sa, sb = scales[2]
        acc = np.zeros((Mf, Nf))
        for kb in range(kblocks):
            part = av[:, kb * 128:(kb + 1) * 128] @ bv[:, kb * 128:(kb + 1) * 128].T
            acc += part * sa[:, kb][:, None] * sb[np.arange(Nf) // 128, kb][None, :]
        return {"c": b16(silu(acc + fbias[None, :]) * fgate.reshape(Mf, Nf) + fres.reshape(Mf, Nf)).ravel()}
    ftiles = -(-Mf // 64) * -(-Nf // 32)
    case("stdlib.fp8_matmul.split_k.mode2.epilogue", std("fp8_matmul"), "fp8_matmul", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
         {"a": fa, "b": fb["f8e5m2"], "c": np.zeros(Mf * Nf, np.uint16), "scale_a": scales[2][0].ravel(),
          "scale_b": scales[2][1].ravel(), "bias": b16(fbias), "residual": b16(fres).ravel(), "mul": b16(fgate).ravel(),
          "workspace": np.zeros(4 * Mf * Nf, np.float32), "counters": np.zeros(ftiles, np.int32),
          "M": Mf, "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf},
         fp8_split_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BM": "64", "BN": "32", "BK": "128", "SPLIT_K": "4", "num_warps": "4", "num_stages": "3",
                  "SCALE_MODE": "2", "B": "f8e5m2", "HAS_BIAS": "true", "ACT": "1", "HAS_MUL": "true",
                  "HAS_RESIDUAL": "true"})
    # The persistent FP8 GEMM: every autotune config by TMA on 3 programs (each walks several
    # tiles, the producer across them), and block-wise scales with the epilogue on rows no TMA
    # can read (lda 300: cp.async) on 2 programs.
    with open(std("fp8_matmul")) as f:
        text = f.read()
        persistent_configs = re.findall(r"\{ *BM: *(\d+), *BN: *(\d+), *BK: *(\d+), *num_warps: *(\d+), "
                                        r"*num_stages: *(\d+)(?:, *warp_specialize: *(\d))?(?:, *GROUP_M: *(\d+))?(?:, *TAIL_SPLIT: *(\d+))?"
                                        r"(?:, *STREAM_K: *(true))?(?:, *WEIGHTS_ONCE: *(true))? *\}",
                                        text[text.rindex("@autotune", 0, text.index("kernel fp8_matmul_persistent")):
                                             text.index("kernel fp8_matmul_persistent")])
        space = text[text.rindex("@autotune", 0, text.index("kernel fp8_matmul_persistent")):
                     text.index("kernel fp8_matmul_persistent")]
        assert len(persistent_configs) == space.count("{ BM:"), "a config of fp8_matmul_persistent the pattern missed"
    # STREAM_K's slots (a tile of up to 128x256 for each of up to 8 programs) and its per-tile
    # counts, which every launch leaves zero (the stream-K cases check that); the persistent
    # kernel takes them in every mode.
    stream_k_scratch = {"workspace": np.zeros(8 * 128 * 256, np.float32), "counters": np.zeros(64, np.int32)}
    def persistent_args(scale_a, scale_b):
        return {"a": ta, "b": tb, "c": np.zeros(Mt * Nt, np.uint16), "scale_a": scale_a, "scale_b": scale_b,
                "bias": np.zeros(Nt, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
                "M": Mt, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt, **stream_k_scratch}
    # (With TAIL_SPLIT: 128x128 tiles leave 3 whole and one in parts, the second part's columns
    # all past N; 128x256 tiles are all in the tail, no whole wave.)
    for bm_, bn_, bk_, warps, stages, ws, group_m, tail, stream_k, once in persistent_configs:
        case("stdlib.fp8_matmul_persistent.tma.bm%s_bn%s_bk%s_w%s_s%s%s%s%s%s%s" % (bm_, bn_, bk_, warps, stages,
                                                                                {"1": "_ws", "3": "_ws3"}.get(ws, ""),
                                                                                "_g%s" % group_m if group_m else "",
                                                                                "_tail%s" % tail if tail else "",
                                                                                "_stream_k" if stream_k else "",
                                                                                "_once" if once else ""),
             std("fp8_matmul"), "fp8_matmul_persistent", "3", persistent_args(tsa, tsb), fp8_tma_ref,
             tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": bm_, "BN": bn_, "BK": bk_, "num_warps": warps, "num_stages": stages,
                      "warp_specialize": ws or "0", "SCALE_MODE": "1", "A": "f8e5m2", "B": "f8e4m3",
                      "GROUP_M": group_m or "8", "TAIL_SPLIT": tail or "1", "STREAM_K": stream_k or "false",
                      "WEIGHTS_ONCE": once or "false"})
    # Per tensor (SCALE_MODE 0: one factor, loaded before each tile's K loop) with a producer.
    sa0, sb0 = np.array([0.5], np.float32), np.array([0.25], np.float32)
    case("stdlib.fp8_matmul_persistent.tma.mode0_ws", std("fp8_matmul"), "fp8_matmul_persistent", "3",
         persistent_args(sa0, sb0), fp8_tma_scaled(np.full(Mt, 0.5 * 0.25), np.ones(Nt)), tol=BF16_ULP_TOL,
         gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "5", "warp_specialize": "1",
                  "SCALE_MODE": "0", "A": "f8e5m2", "B": "f8e4m3"})
    # Two programs a CTA on their own tiles (warp_specialize 3): 128x128 and 64x256 tiles per
    # program, per row and column on 3 programs (two CTAs: four programs share the tiles
    # a tile) and per tensor on 2.
    for bm_, bn_, programs_, mode_ in [("128", "128", "3", "1"), ("64", "256", "2", "1"), ("128", "128", "2", "0")]:
        sa_, sb_ = (tsa, tsb) if mode_ == "1" else (sa0, sb0)
        case("stdlib.fp8_matmul_persistent.tma.bm%s_bn%s_p%s_mode%s_tiles_ping_pong" % (bm_, bn_, programs_, mode_),
             std("fp8_matmul"), "fp8_matmul_persistent", programs_, persistent_args(sa_, sb_),
             fp8_tma_ref if mode_ == "1" else fp8_tma_scaled(np.full(Mt, 0.5 * 0.25), np.ones(Nt)),
             tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": bm_, "BN": bn_, "BK": "128", "num_warps": "4", "num_stages": "4", "warp_specialize": "3",
                      "SCALE_MODE": mode_, "A": "f8e5m2", "B": "f8e4m3"})
    # GROUP_M 4's tile order over more than one group of rows: 6 rows of 64-row tiles (the last
    # 8 rows deep), groups of 4 and 2, 3 columns, on 3 programs of two a CTA.
    Mg, Ng, Kg = 5 * 64 + 8, 136, 256
    ga, gb = f8_bits(RNG.uniform(-2, 2, (Mg, Kg)), 4, 3, False), f8_bits(RNG.uniform(-1, 1, (Ng, Kg)), 4, 3, False)
    gsa, gsb = RNG.uniform(0.1, 2, Mg).astype(np.float32), RNG.uniform(0.1, 2, Ng).astype(np.float32)
    gacc = values_of("f8e4m3", ga).reshape(Mg, Kg) @ values_of("f8e4m3", gb).reshape(Ng, Kg).T
    case("stdlib.fp8_matmul_persistent.tma.group_m4_two_groups", std("fp8_matmul"), "fp8_matmul_persistent", "3",
         {"a": ga, "b": gb, "c": np.zeros(Mg * Ng, np.uint16), "scale_a": gsa, "scale_b": gsb,
          "bias": np.zeros(Ng, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
          "M": Mg, "N": Ng, "K": Kg, "lda": Kg, "ldb": Kg, "ldc": Ng, "ldr": Ng, "ldm": Ng, **stream_k_scratch},
         lambda out: {"c": b16(gacc * gsa[:, None] * gsb[None, :]).ravel()}, tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "64", "BN": "64", "BK": "128", "num_warps": "4", "num_stages": "4", "warp_specialize": "3",
                  "GROUP_M": "4", "SCALE_MODE": "1"})
    # The tuned 128x128 ws 3 s6 config with a bias, its tiles stored by TMA (N and ldc multiples
    # of 16; 3 columns of tiles, the last 16 wide): the bias's broadcast takes turns with the
    # scales' (tk-allocate-shared's exchange window; before, the config did not fit on sm_90a).
    Mw, Nw, Kw = 200, 272, 544
    wa, wb = f8_bits(RNG.uniform(-2, 2, (Mw, Kw)), 4, 3, False), f8_bits(RNG.uniform(-1, 1, (Nw, Kw)), 4, 3, False)
    wsa, wsb = RNG.uniform(0.1, 2, Mw).astype(np.float32), RNG.uniform(0.1, 2, Nw).astype(np.float32)
    wbias = values_of("bf16", b16(RNG.uniform(-4, 4, Nw)))
    wacc = values_of("f8e4m3", wa).reshape(Mw, Kw) @ values_of("f8e4m3", wb).reshape(Nw, Kw).T
    # (And with TAIL_SPLIT 2 on 4 programs: one whole wave of 4 tiles, 2 tiles in halves.)
    for tail, programs_ in (("1", "3"), ("2", "4")):
        case("stdlib.fp8_matmul_persistent.tma.bm128_bn128_w4_s6_ws3%s_bias" % ("_tail2" if tail == "2" else ""),
             std("fp8_matmul"), "fp8_matmul_persistent", programs_,
             {"a": wa, "b": wb, "c": np.zeros(Mw * Nw, np.uint16), "scale_a": wsa, "scale_b": wsb, "bias": b16(wbias),
              "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "M": Mw, "N": Nw, "K": Kw, "lda": Kw, "ldb": Kw, "ldc": Nw, "ldr": Nw, "ldm": Nw, **stream_k_scratch},
             lambda out: {"c": b16(wacc * wsa[:, None] * wsb[None, :] + wbias[None, :]).ravel()},
             tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
             defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "6", "warp_specialize": "3",
                      "SCALE_MODE": "1", "HAS_BIAS": "true", "TAIL_SPLIT": tail})
    # On clusters of 2 CTAs (cluster_size 2, sm_90a: a copy both tiles of a step need is made
    # once, each CTA multicasting half of its rows). 3 rows of 128x128 tiles in a group: tiles
    # 2c and 2c + 1 share b's columns or (the group's odd row beside the next column's first)
    # share nothing; 9 tiles on one cluster leave CTA 0 a last tile alone, with more k-steps (7)
    # than stages (4), so that its own consumers stand in for the other CTA's releases; 3
    # programs are rounded up to 4 CTAs (the tiles shared among them all); 128x256 on 8 warps;
    # per tensor.
    Mc, Nc, Kc = 330, 264, 800
    ca, cb = f8_bits(RNG.uniform(-2, 2, (Mc, Kc)), 4, 3, False), f8_bits(RNG.uniform(-1, 1, (Nc, Kc)), 4, 3, False)
    csa, csb = RNG.uniform(0.1, 2, Mc).astype(np.float32), RNG.uniform(0.1, 2, Nc).astype(np.float32)
    cacc = values_of("f8e4m3", ca).reshape(Mc, Kc) @ values_of("f8e4m3", cb).reshape(Nc, Kc).T
    # GROUP_M 1 (tiles along rows): tiles 2c and 2c + 1 share a's rows instead, and the lone last
    # tile's other (past the end) is where the group arithmetic would divide by zero.
    # Two programs a CTA on clusters (warp_specialize 3, program w of CTA c w * C + c: programs
    # 2k, 2k + 1, 2k + C, 2k + 1 + C on cluster k, the other CTA's tile 1 on or back): 2
    # programs (one CTA, rounded up to 2), 5 (3 CTAs, rounded up to 4), 64x256.
    def shape_c_case(name, programs_, mode_, defines):
        """fp8_matmul_persistent on the Mc x Nc x Kc operands, per row/column (mode 1) or per tensor."""
        row_, col_ = (csa, csb) if mode_ == "1" else (np.array([0.5], np.float32), np.array([0.25], np.float32))
        case("stdlib.fp8_matmul_persistent.tma." + name, std("fp8_matmul"), "fp8_matmul_persistent", programs_,
             {"a": ca, "b": cb, "c": np.zeros(Mc * Nc, np.uint16), "scale_a": row_, "scale_b": col_,
              "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "M": Mc, "N": Nc, "K": Kc, "lda": Kc, "ldb": Kc, "ldc": Nc, "ldr": Nc, "ldm": Nc, **stream_k_scratch},
             (lambda r, c: lambda out: {"c": b16(cacc * r * c).ravel(), "counters": np.zeros(64, np.int32)})(
                 csa[:, None] if mode_ == "1" else 0.5, csb[None, :] if mode_ == "1" else 0.25),
             tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL, defines=dict(defines, SCALE_MODE=mode_))
    for bm_, bn_, warps, stages, programs_, mode_, group_, ws_ in [
            ("128", "128", "4", "4", "2", "1", "8", "1"), ("128", "128", "4", "4", "3", "1", "8", "1"),
            ("128", "256", "8", "3", "2", "1", "8", "1"), ("128", "128", "4", "5", "2", "0", "8", "1"),
            ("128", "128", "4", "4", "2", "1", "1", "1"), ("128", "128", "4", "4", "2", "1", "8", "3"),
            ("128", "128", "4", "4", "5", "1", "8", "3"), ("64", "256", "4", "4", "3", "1", "8", "3")]:
        shape_c_case("bm%s_bn%s_p%s_mode%s%s%s_cluster2" % (bm_, bn_, programs_, mode_, "_group1" if group_ == "1" else "",
                                                           "_tiles_ping_pong" if ws_ == "3" else ""),
                     programs_, mode_,
                     {"BM": bm_, "BN": bn_, "BK": "128", "num_warps": warps, "num_stages": stages, "warp_specialize": ws_,
                      "cluster_size": "2", "GROUP_M": group_})
    # Two programs a CTA with the tiles after the last whole wave in parts (TAIL_SPLIT): 9 tiles
    # of 128x128 with 7 k-steps. On 2 programs (one CTA) in 6 stages (both loops' staging in
    # halves): 4 whole tiles each, then one part each; on 3 (rounded up to 4, two CTAs) in 5: 2
    # each, then program 0 of each CTA a part (program w of CTA c is w * C + c) and program 1
    # none; on 5 (6) per tensor in quarters: 1 each, then 2 parts each; on 7 (8, four CTAs): 1
    # each, then CTAs 0 and 1 a part in program 0 and CTAs 2 and 3 none.
    for programs_, mode_, tail_, stages in [("2", "1", "2", "6"), ("3", "1", "2", "5"), ("5", "0", "4", "5"),
                                            ("7", "1", "2", "5")]:
        shape_c_case("bm128_bn128_p%s_mode%s_s%s_tail%s_tiles_ping_pong" % (programs_, mode_, stages, tail_), programs_,
                     mode_, {"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": stages,
                             "warp_specialize": "3", "TAIL_SPLIT": tail_})
    # STREAM_K: the tiles of the last, part-filled wave as one run of k-steps in equal shares.
    # 9 tiles of 128x128 with 7 k-steps: on 2 programs tile 8 in halves (4 and 3 k-steps); on 4
    # tile 8 in shares of 2 (the last 1); on 5 four tiles in shares of 6, most spanning two
    # tiles; on 7 two tiles in shares of 2; 6 tiles of 128x256 on 4 programs (two shared in
    # shares of 4); without a producer; per tensor; warp_specialize 3 (one program a CTA: its
    # programs differ in their k-steps, not only in their tiles). Then Mt x Nt x Kt's 4 tiles of
    # 5 k-steps on 7 programs, all shared, 3 k-steps each: program 2's share inside tile 1,
    # which three programs share.
    for bm_, bn_, warps, stages, programs_, mode_, ws_ in [
            ("128", "128", "4", "5", "2", "1", "1"), ("128", "128", "4", "5", "4", "1", "1"),
            ("128", "128", "4", "5", "5", "1", "1"), ("128", "128", "4", "5", "7", "0", "1"),
            ("128", "256", "8", "3", "4", "1", "1"), ("128", "256", "8", "3", "4", "1", "0"),
            ("128", "128", "4", "5", "4", "1", "3")]:
        shape_c_case("bm%s_bn%s_p%s_mode%s_s%s_ws%s_stream_k" % (bm_, bn_, programs_, mode_, stages, ws_), programs_, mode_,
                     {"BM": bm_, "BN": bn_, "BK": "128", "num_warps": warps, "num_stages": stages, "warp_specialize": ws_,
                      "STREAM_K": "true"})
    # K = 0 (one empty k-step a tile: the shares' arithmetic divided by zero before): 4 tiles of
    # zeros on 3 programs, the fourth shared.
    case("stdlib.fp8_matmul_persistent.tma.bm128_bn128_p3_stream_k_empty_k", std("fp8_matmul"), "fp8_matmul_persistent",
         "3", {"a": np.zeros(16, np.uint8), "b": np.zeros(16, np.uint8), "c": np.full(130 * 136, 0x3f80, np.uint16),
               "scale_a": tsa[:130], "scale_b": tsb[:136], "bias": np.zeros(1, np.uint16),
               "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16), "M": 130, "N": 136, "K": 0, "lda": 16,
               "ldb": 16, "ldc": 136, "ldr": 136, "ldm": 136, **stream_k_scratch},
         lambda out: {"c": np.zeros(130 * 136, np.uint16), "counters": np.zeros(64, np.int32)}, tol=BF16_ULP_TOL,
         gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "5", "warp_specialize": "1",
                  "SCALE_MODE": "1", "A": "f8e5m2", "B": "f8e4m3", "STREAM_K": "true"})
    case("stdlib.fp8_matmul_persistent.tma.bm128_bn128_p7_stream_k_short_shares", std("fp8_matmul"),
         "fp8_matmul_persistent", "7", persistent_args(tsa, tsb),
         lambda out: dict(fp8_tma_ref(out), counters=np.zeros(64, np.int32)), tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "5", "warp_specialize": "1",
                  "SCALE_MODE": "1", "A": "f8e5m2", "B": "f8e4m3", "STREAM_K": "true"})
    # Two programs a CTA on one cluster (4 programs) over 7 tiles of one column: at the second
    # step CTA 0 has both its tiles and CTA 1 only its program 0's (n - t0 = 3), whose copy of
    # b it still shares with CTA 0's program 0 tile.
    M7, N7 = 840, 120
    a7 = f8_bits(RNG.uniform(-2, 2, (M7, Kc)), 4, 3, False)
    acc7 = values_of("f8e4m3", a7).reshape(M7, Kc) @ values_of("f8e4m3", cb[:N7 * Kc]).reshape(N7, Kc).T
    sa7 = RNG.uniform(0.1, 2, M7).astype(np.float32)
    case("stdlib.fp8_matmul_persistent.tma.bm128_bn128_p2_seven_tiles_tiles_ping_pong_cluster2", std("fp8_matmul"),
         "fp8_matmul_persistent", "2",
         {"a": a7, "b": cb[:N7 * Kc], "c": np.zeros(M7 * N7, np.uint16), "scale_a": sa7, "scale_b": csb[:N7],
          "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
          "M": M7, "N": N7, "K": Kc, "lda": Kc, "ldb": Kc, "ldc": N7, "ldr": N7, "ldm": N7, **stream_k_scratch},
         lambda out: {"c": b16(acc7 * sa7[:, None] * csb[None, :N7]).ravel()}, tol=BF16_ULP_TOL, gpu_tol=FP8_FAST_ACCUM_TOL,
         defines={"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "4", "warp_specialize": "3",
                  "cluster_size": "2", "SCALE_MODE": "1"})
    # Block-wise scales with the tiles in parts (TAIL_SPLIT 4 of 128x256 on 3 programs: no whole
    # wave; N = 264, so that the last parts start past the last 128-column block of b, whose one
    # factor a part loads must still be inside scale_b: an out-of-bounds read before).
    Mb, Nb, Kb = 200, 264, 256
    ba, bb = f8_bits(RNG.uniform(-2, 2, (Mb, Kb)), 4, 3, False), f8_bits(RNG.uniform(-1, 1, (Nb, Kb)), 4, 3, False)
    bsa, bsb = RNG.uniform(0.1, 2, (Mb, 2)).astype(np.float32), RNG.uniform(0.1, 2, (3, 2)).astype(np.float32)
    def fp8_block_tail_ref(out):
        av, bv = values_of("f8e4m3", ba).reshape(Mb, Kb), values_of("f8e4m3", bb).reshape(Nb, Kb)
        acc = sum((av[:, kb * 128:(kb + 1) * 128] @ bv[:, kb * 128:(kb + 1) * 128].T) * bsa[:, kb][:, None] *
                  bsb[np.arange(Nb) // 128, kb][None, :] for kb in range(2))
        return {"c": b16(acc).ravel()}
    case("stdlib.fp8_matmul_persistent.mode2_tail4", std("fp8_matmul"), "fp8_matmul_persistent", "3",
         {"a": ba, "b": bb, "c": np.zeros(Mb * Nb, np.uint16), "scale_a": bsa.ravel(), "scale_b": bsb.ravel(),
          "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
          "M": Mb, "N": Nb, "K": Kb, "lda": Kb, "ldb": Kb, "ldc": Nb, "ldr": Nb, "ldm": Nb, **stream_k_scratch},
         fp8_block_tail_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BM": "128", "BN": "256", "BK": "128", "num_warps": "8", "num_stages": "3", "warp_specialize": "1",
                  "TAIL_SPLIT": "4", "SCALE_MODE": "2"})
    case("stdlib.fp8_matmul_persistent.mode2.epilogue", std("fp8_matmul"), "fp8_matmul_persistent", "2",
         {"a": fa, "b": fb["f8e5m2"], "c": np.zeros(Mf * Nf, np.uint16), "scale_a": scales[2][0].ravel(),
          "scale_b": scales[2][1].ravel(), "bias": b16(fbias), "residual": b16(fres).ravel(), "mul": b16(fgate).ravel(),
          "M": Mf, "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf, **stream_k_scratch},
         fp8_split_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BM": "64", "BN": "32", "BK": "128", "num_warps": "4", "num_stages": "3", "SCALE_MODE": "2",
                  "B": "f8e5m2", "HAS_BIAS": "true", "ACT": "1", "HAS_MUL": "true", "HAS_RESIDUAL": "true"})
    # Weight-only FP8 GEMV (fp8_gemv, decode's; loaded fragments on mma.sync): every autotune
    # config on 3 rows of bf16 a, N = 136 (ragged for BN 16 and up), K = 544 (16-byte rows, a
    # partial last k-step) with per-column scales; K = 300 (rows of no 16 bytes: element loads),
    # per-tensor scales, e5m2 weights, f16 in and out (A_SCALE 1), split K, and the epilogue hooks.
    with open(std("fp8_matmul")) as f:
        text = f.read()
        gemv_text = text[text.index("fp8_gemv's configs ->"):text.index("kernel fp8_gemv(")]
        gemv_configs = re.findall(r"\{ *BM: *(\d+), *BN: *(\d+), *BK: *(\d+), *SPLIT_K: *(\d+), *num_warps: *(\d+), *num_stages: *1 *\}",
                                  gemv_text)
        assert 0 < len(gemv_configs) == gemv_text.count("{ BM:"), "an fp8_gemv config the pattern does not read"
    Mg = 3
    ga = {Kt: rnd(Mg, Kt, scale=2.0), Kf: rnd(Mg, Kf, scale=2.0)}
    def gemv_ref(K, bdtype, braw, sb, epilogue, to_out):
        def ref(out):
            acc = val(ga[K]).reshape(Mg, K) @ values_of(bdtype, braw).reshape(-1, K).T * (sb[None, :] if sb.size > 1 else sb[0])
            if epilogue:
                acc = silu(acc + fbias[None, :]) * fgate.reshape(Mf, Nf)[:Mg] + fres.reshape(Mf, Nf)[:Mg]
            return {"c": to_out(acc).ravel()}
        return ref
    gemv_split = lambda M, N: {"workspace": np.zeros(16 * M * N, np.float32),
                               "counters": np.zeros(-(-N // 16) * -(-M // 8), np.int32)}
    for bm_, bn_, bk_, split_, warps in gemv_configs:
        case("stdlib.fp8_gemv.bm%s_bn%s_bk%s_s%s_w%s" % (bm_, bn_, bk_, split_, warps), std("fp8_matmul"), "fp8_gemv",
             "cdiv(N, BN), cdiv(M, BM), SPLIT_K",
             {"a": ga[Kt], "b": tb, "c": np.zeros(Mg * Nt, np.uint16), "scale_b": tsb,
              "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              **gemv_split(Mg, Nt), "M": Mg, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt},
             gemv_ref(Kt, "f8e4m3", tb, tsb, False, b16), tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
             defines={"BM": bm_, "BN": bn_, "BK": bk_, "SPLIT_K": split_, "num_warps": warps, "num_stages": "1",
                      "SCALE_MODE": "1"})
    # fp8_gemv_row (one row a program on the CUDA cores): every config on the same 3 rows, and
    # the f16 / e5m2 / per-tensor / epilogue case on rows of no 16 bytes.
    with open(std("fp8_matmul")) as f:
        text = f.read()
        row_text = text[text.index("fp8_gemv_row's configs ->"):text.index("kernel fp8_gemv_row(")]
        row_configs = re.findall(r"\{ *BN: *(\d+), *BK: *(\d+), *num_warps: *(\d+) *\}", row_text)
        assert 0 < len(row_configs) == row_text.count("{ BN:"), "an fp8_gemv_row config the pattern does not read"
    no_norm = {"norm_x": np.zeros(1, np.uint16), "norm_w": np.zeros(1, np.uint16), "norm_out": np.zeros(1, np.uint16)}
    for bn_, bk_, warps in row_configs:
        case("stdlib.fp8_gemv_row.bn%s_bk%s_w%s" % (bn_, bk_, warps), std("fp8_matmul"), "fp8_gemv_row", "cdiv(N, BN), M",
             {"a": ga[Kt], "b": tb, "c": np.zeros(Mg * Nt, np.uint16), "scale_b": tsb,
              "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
              "M": Mg, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt, **no_norm},
             gemv_ref(Kt, "f8e4m3", tb, tsb, False, b16), tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
             defines={"BN": bn_, "BK": bk_, "num_warps": warps, "SCALE_MODE": "1"})
    # An RMSNorm between two of them: this one's rows are x * w (the norm's weight), its sums
    # scaled by the rstd it computes from x (RSTD_EPS), and its output times the next norm's
    # weight written beside it (NORM_OUT).
    nx, nwt, nw2 = rnd(Mg, Kt, scale=2.0), rnd(Kt), rnd(Nt)
    xw = b16(val(nx).reshape(Mg, Kt) * val(nwt)[None, :])
    def gemv_norm_ref(out):
        x_ = val(nx).reshape(Mg, Kt)
        rstd = 1 / np.sqrt((x_ * x_).mean(1) + 1e-5)
        c_ = b16(val(xw).reshape(Mg, Kt) @ values_of("f8e4m3", tb).reshape(-1, Kt).T * tsb[None, :] * rstd[:, None])
        return {"c": c_.ravel(), "norm_out": b16(val(c_).reshape(Mg, Nt) * val(nw2)[None, :]).ravel()}
    case("stdlib.fp8_gemv_row.rstd.norm_out", std("fp8_matmul"), "fp8_gemv_row", "cdiv(N, BN), M",
         {"a": xw, "b": tb, "c": np.zeros(Mg * Nt, np.uint16), "scale_b": tsb,
          "bias": np.zeros(1, np.uint16), "residual": np.zeros(1, np.uint16), "mul": np.zeros(1, np.uint16),
          "M": Mg, "N": Nt, "K": Kt, "lda": Kt, "ldb": Kt, "ldc": Nt, "ldr": Nt, "ldm": Nt,
          "norm_x": nx, "norm_w": nw2, "norm_out": np.zeros(Mg * Nt, np.uint16)},
         gemv_norm_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BN": "8", "BK": "256", "num_warps": "4", "SCALE_MODE": "1", "RSTD_EPS": "1e-5", "NORM_OUT": "true"})
    # A GEMV chain (kernels/work_queue.tk, the form graph/lib/GemvChain.cpp generates): three
    # dependent FP8 GEMVs in one persistent launch; grids of fewer programs than blocks of rows
    # and of more (most of them taking none), the work queue zero again afterwards.
    Nc0, Kc0, Nc1, Nc2 = 200, 96, 136, 200
    cw = [f8_bits(RNG.uniform(-1, 1, shape), 4, 3, False) for shape in ((Nc0, Kc0), (Nc1, Nc0), (Nc2, Nc1))]
    cs = [RNG.uniform(0.1, 2, n).astype(np.float32) for n in (Nc0, Nc1, Nc2)]
    ca, cr, cnw = rnd(Kc0, scale=2.0), rnd(Nc0), rnd(Nc0)
    def chain_ref(out):
        weights = [values_of("f8e4m3", w).reshape(n, -1) for w, n in zip(cw, (Nc0, Nc1, Nc2))]
        c0 = b16(weights[0] @ val(ca) * cs[0] + val(cr))
        n0 = b16(val(c0) * val(cnw))
        rstd = 1 / np.sqrt((val(c0) ** 2).mean() + 1e-5)
        c1 = b16(silu(weights[1] @ val(n0) * rstd * cs[1]))
        c2 = b16(weights[2] @ val(c1) * cs[2] + val(c0))
        return {"c0": c0, "norm_out0": n0, "c1": c1, "c2": c2, "queue": np.zeros(32 * 4, np.int32)}
    for grid, bn_, bk_, warps in (("5", "8", "64", "4"), ("264", "8", "64", "4"), ("40", "16", "128", "8")):
        case("stdlib.gemv_chain.grid%s_bn%s_bk%s_w%s" % (grid, bn_, bk_, warps), os.path.join(KERNELS, "work_queue.tk"),
             "gemv_chain", grid,
             {"queue": np.zeros(32 * 4, np.int32), "a0": ca, "b0": cw[0], "c0": np.zeros(Nc0, np.uint16), "scale_b0": cs[0],
              "residual0": cr, "norm_w0": cnw, "norm_out0": np.zeros(Nc0, np.uint16), "b1": cw[1],
              "c1": np.zeros(Nc1, np.uint16), "scale_b1": cs[1], "b2": cw[2], "c2": np.zeros(Nc2, np.uint16),
              "scale_b2": cs[2], "N0": Nc0, "K0": Kc0, "N1": Nc1, "N2": Nc2},
             chain_ref, tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2), defines={"BN": bn_, "BK": bk_, "num_warps": warps, "PREFETCH_STEPS": "1"})
    ga16 = np.asarray(val(ga[Kf]), np.float16)
    f16 = lambda x: np.asarray(x, np.float16)
    case("stdlib.fp8_gemv.mode0.f8e5m2.f16.split.epilogue", std("fp8_matmul"), "fp8_gemv",
         "cdiv(N, BN), cdiv(M, BM), SPLIT_K",
         {"a": ga16, "b": fb["f8e5m2"], "c": np.zeros(Mg * Nf, np.float16), "scale_b": np.array([0.25], np.float32),
          "bias": f16(fbias), "residual": f16(fres).ravel(), "mul": f16(fgate).ravel(), **gemv_split(Mg, Nf),
          "M": Mg, "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf},
         gemv_ref(Kf, "f8e5m2", fb["f8e5m2"], np.array([0.25]), True, f16), tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BM": "8", "BN": "16", "BK": "64", "SPLIT_K": "2", "num_warps": "1", "num_stages": "1",
                  "SCALE_MODE": "0", "A_SCALE": "1.0", "B": "f8e5m2", "T": "f16", "HAS_BIAS": "true", "ACT": "1",
                  "HAS_MUL": "true", "HAS_RESIDUAL": "true"})
    case("stdlib.fp8_gemv_row.mode0.f8e5m2.f16.epilogue", std("fp8_matmul"), "fp8_gemv_row", "cdiv(N, BN), M",
         {"a": ga16, "b": fb["f8e5m2"], "c": np.zeros(Mg * Nf, np.float16), "scale_b": np.array([0.25], np.float32),
          "bias": f16(fbias), "residual": f16(fres).ravel(), "mul": f16(fgate).ravel(),
          "M": Mg, "N": Nf, "K": Kf, "lda": Kf, "ldb": Kf, "ldc": Nf, "ldr": Nf, "ldm": Nf,
          **{k: v.astype(np.float16) for k, v in no_norm.items()}},
         gemv_ref(Kf, "f8e5m2", fb["f8e5m2"], np.array([0.25]), True, f16), tol=BF16_ULP_TOL, gpu_tol=(2e-2, 2e-2),
         defines={"BN": "8", "BK": "256", "num_warps": "4", "SCALE_MODE": "0", "B": "f8e5m2", "T": "f16",
                  "HAS_BIAS": "true", "ACT": "1", "HAS_MUL": "true", "HAS_RESIDUAL": "true"})
    # Row-wise dynamic FP8 quantization (std/quantize.tk): scales exactly max|x| / 448 and codes
    # of x / s rounded to nearest even, exact in f32 on both backends; with an RMSNorm folded in
    # the rstd's reduction order may move a code by one step (compared with atol 1 on the codes).
    Mq, Kq = 5, 300
    qx = rnd(Mq, Kq, scale=3.0)
    qx[2] = 0  # an all-zero row
    qw = rnd(Kq)
    def quant_ref(norm):
        def ref(out):
            x = val(qx).reshape(Mq, Kq).astype(np.float32)
            if norm:
                x = x / np.sqrt((x.astype(np.float64) ** 2).mean(1, keepdims=True) + 1e-5) * val(qw)[None, :]
                x = x.astype(np.float32)
            s = (np.maximum(np.abs(x).max(1), np.float32(1e-30)) / np.float32(448)).astype(np.float32)
            codes = f8_bits(np.clip(x / s[:, None], -448, 448), 4, 3, False)
            return {"q": codes.ravel()} if norm else {"q": codes.ravel(), "scale": s}
        return ref
    for norm in (False, True):
        case("stdlib.quantize_rows%s" % (".rmsnorm" if norm else ""), std("quantize"), "quantize_rows", str(Mq),
             {"x": qx, "w": qw, "q": np.zeros(Mq * Kq, np.uint8), "scale": np.zeros(Mq, np.float32),
              "n_cols": Kq, "stride": Kq, "eps": 1e-5},
             quant_ref(norm), tol=(0, 1.01) if norm else None, defines={"NORM": "true" if norm else "false", "BLOCK": "512"})
    # A LayerNorm's centering: rstd * (a @ b - mean * col_shift) + col_bias.
    mean = RNG.uniform(-1, 1, M).astype(np.float32)
    col_shift, col_bias = RNG.uniform(-2, 2, N_).astype(np.float32), RNG.uniform(-1, 1, N_).astype(np.float32)
    case("stdlib.bf16.matmul_epilogue.center", std("matmul"), "matmul_epilogue", "cdiv(M, BM) * cdiv(N, BN)",
         {"a": a, "b": bm, "c": np.zeros(M * N_, np.uint16), "bias": bias, "residual": res, "mul": gate,
          "row_scale": rstd, "row_shift": mean, "col_shift": col_shift, "col_bias": col_bias,
          "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_, "ldr": N_, "ldm": N_},
         lambda out: {"c": b16(rstd.astype(np.float64)[:, None] * (val(a) @ val(bm) - mean.astype(np.float64)[:, None]
                                                                    * col_shift[None, :]) + col_bias[None, :])},
         tol=(2e-2, 2e-2), defines={"BM": "32", "BN": "32", "BK": "32", "HAS_ROW_SCALE": "true", "HAS_CENTER": "true"})
    rows, cols = 12, 300
    x, w, bvec = rnd(rows, cols, scale=3), b16(RNG.uniform(0.5, 1.5, cols)), rnd(cols)
    xv = val(x).reshape(rows, cols)
    rms = 1 / np.sqrt((xv * xv).mean(1, keepdims=True) + 1e-5)
    case("stdlib.bf16.rmsnorm", std("norm"), "rmsnorm", str(rows),
         {"x": x, "y": np.zeros(rows * cols, np.uint16), "w": w, "n_cols": cols, "stride": cols, "eps": 1e-5},
         lambda out: {"y": b16(xv * rms * val(w))}, tol=(1e-2, 1e-2), defines={"BLOCK": "512"})
    mean_ = xv.mean(1, keepdims=True)
    inv = 1 / np.sqrt(((xv - mean_) ** 2).mean(1, keepdims=True) + 1e-5)
    case("stdlib.bf16.layernorm", std("norm"), "layernorm", str(rows),
         {"x": x, "y": np.zeros(rows * cols, np.uint16), "w": w, "b": bvec, "n_cols": cols, "stride": cols, "eps": 1e-5},
         lambda out: {"y": b16((xv - mean_) * inv * val(w) + val(bvec))}, tol=(1e-2, 1e-2), defines={"BLOCK": "512"})
    case("stdlib.bf16.row_rstd", std("norm"), "row_rstd", str(rows),
         {"x": x, "rstd": np.zeros(rows, np.float32), "n_cols": cols, "stride": cols, "eps": 1e-5},
         lambda out: {"rstd": rms.ravel().astype(np.float32)}, tol=(1e-5, 1e-6), defines={"BLOCK": "512"})
    case("stdlib.bf16.row_moments", std("norm"), "row_moments", str(rows),
         {"x": x, "mean": np.zeros(rows, np.float32), "rstd": np.zeros(rows, np.float32), "n_cols": cols,
          "stride": cols, "eps": 1e-5},
         lambda out: {"mean": mean_.ravel().astype(np.float32), "rstd": inv.ravel().astype(np.float32)},
         tol=(1e-5, 1e-6), defines={"BLOCK": "512"})
    wsum = rnd(rows)
    case("stdlib.bf16.weighted_col_sums", std("norm"), "weighted_col_sums", "cdiv(cols, BC)",
         {"src": x, "weights": wsum, "out": np.zeros(cols, np.float32), "rows": rows, "cols": cols},
         lambda out: {"out": (val(wsum)[:, None] * xv).sum(0).astype(np.float32)}, tol=(1e-5, 1e-5),
         defines={"BR": "8", "BC": "128"})
    case("stdlib.bf16.scale_rows", std("norm"), "scale_rows", "%d, 1" % rows,
         {"src": x, "dst": np.zeros(rows * cols, np.uint16), "w": w[:rows].copy(), "n_cols": cols},
         lambda out: {"dst": b16(xv * val(w[:rows])[:, None])}, tol=(8e-3, 1e-3), defines={"BLOCK": "512"})
    e = np.exp(xv - xv.max(1, keepdims=True))
    case("stdlib.bf16.softmax", std("norm"), "softmax", str(rows),
         {"x": x, "y": np.zeros(rows * cols, np.uint16), "n_cols": cols, "stride": cols},
         lambda out: {"y": b16(e / e.sum(1, keepdims=True))}, tol=(1e-2, 1e-3), defines={"BLOCK": "512"})
    # Token embedding: ids in range, the last and first rows, and two outside (-1 and vocab)
    # that give zero rows; a width that is no multiple of the block; rows 320 apart (a gather of
    # the first 300 columns of a wider matrix).
    vocab, dim, stride = 37, 300, 320
    table = rnd(vocab, stride)
    ids = np.array([3, 0, 36, -1, 37, 12], np.int32)
    def embedding_ref(out):
        rows = table.reshape(vocab, stride)[np.clip(ids, 0, vocab - 1), :dim]
        rows = np.where(((ids >= 0) & (ids < vocab))[:, None], rows, 0)
        return {"out": rows.astype(np.uint16).ravel()}
    case("stdlib.bf16.embedding", std("embedding"), "embedding", "%d, cdiv(dim, BLOCK)" % len(ids),
         {"ids": ids, "table": table, "out": np.full(len(ids) * dim, 0x3f80, np.uint16), "vocab": vocab, "dim": dim,
          "stride": stride, "first": 0},
         embedding_ref, tol=(0, 0), defines={"BLOCK": "256"})
    # The same table as rows 1000.. of a vocabulary-parallel embedding's larger one: the same ids
    # shifted by its first row read the same rows, and -1 + 1000 (before it) a row of zeros.
    case("stdlib.bf16.embedding_shard", std("embedding"), "embedding", "%d, cdiv(dim, BLOCK)" % len(ids),
         {"ids": ids + 1000, "table": table, "out": np.full(len(ids) * dim, 0x3f80, np.uint16), "vocab": vocab,
          "dim": dim, "stride": stride, "first": 1000},
         embedding_ref, tol=(0, 0), defines={"BLOCK": "256"})
    # Flash-decoding: one query per sequence over its cache's first lengths[b] positions, in 4
    # splits of whole blocks of 16 (the later splits empty), grouped-query heads; then the
    # combine, from the split kernel's numpy partials. In one split too (up to 3 blocks a
    # program: the loop over a split's blocks).
    Bd, Hd, KVd, Dd, ctx, block_d = 3, 4, 2, 32, 48, 16
    lengths = np.array([1, 37, 48], np.int32)
    qd, kc, vc = rnd(Bd, Hd * Dd), rnd(Bd, ctx, KVd * Dd), rnd(Bd, ctx, KVd * Dd)
    scale_d = 1 / math.sqrt(Dd)
    def decode_partials(splits):
        q_ = val(qd).reshape(Bd, Hd, Dd) * scale_d * math.log2(math.e)
        k_, v_ = val(kc).reshape(Bd, ctx, KVd, Dd), val(vc).reshape(Bd, ctx, KVd, Dd)
        po, pml = np.zeros((Bd, Hd, splits, Dd)), np.zeros((Bd, Hd, splits, 2))
        for b in range(Bd):
            per = -(-(-(-lengths[b] // splits)) // block_d) * block_d
            for h in range(Hd):
                for sp in range(splits):
                    lo, hi = sp * per, min(sp * per + per, lengths[b])
                    if lo >= hi:
                        pml[b, h, sp] = (-np.inf, 0)
                        continue
                    sc = k_[b, lo:hi, h // (Hd // KVd)] @ q_[b, h]
                    m = sc.max()
                    pr = np.exp2(sc - m)
                    po[b, h, sp] = pr @ v_[b, lo:hi, h // (Hd // KVd)]
                    pml[b, h, sp] = (m, pr.sum())
        return po, pml
    for splits in (1, 4):  # (4 last: the combine's case below merges those partials)
        po_ref, pml_ref = decode_partials(splits)
        case("stdlib.bf16.decode_attention_split" + ("_one_split" if splits == 1 else ""), std("decode_attention"),
             "decode_attention_split", "%d, %d" % (Bd * Hd, splits),
             {"q": qd, "k_cache": kc, "v_cache": vc, "lengths": lengths,
              "partial_o": np.zeros(Bd * Hd * splits * Dd, np.float32), "partial_ml": np.zeros(Bd * Hd * splits * 2, np.float32),
              "n_heads": Hd, "n_kv_heads": KVd, "max_context": ctx, "n_splits": splits, "scale": scale_d,
              "q_stride": Hd * Dd, "q_col": 0},
             lambda out, po_ref=po_ref, pml_ref=pml_ref: {"partial_o": po_ref.astype(np.float32).ravel(),
                                                          "partial_ml": pml_ref.astype(np.float32).ravel()},
             tol=(2e-3, 2e-3), defines={"HEAD_DIM": str(Dd), "BLOCK_N": str(block_d)})
    def decode_combine_ref(out):
        w = np.where(np.isfinite(pml_ref[..., 0]), np.exp2(pml_ref[..., 0] - pml_ref[..., 0].max(-1, keepdims=True)), 0)
        o = (w[..., None] * po_ref).sum(2) / (w * pml_ref[..., 1]).sum(-1)[..., None]
        # Against softmax attention itself, too: the partials are what they claim to be.
        q_, k_, v_ = val(qd).reshape(Bd, Hd, Dd), val(kc).reshape(Bd, ctx, KVd, Dd), val(vc).reshape(Bd, ctx, KVd, Dd)
        for b in range(Bd):
            for h in range(Hd):
                sc = k_[b, :lengths[b], h // (Hd // KVd)] @ q_[b, h] * scale_d
                pr = np.exp(sc - sc.max())
                assert np.allclose(o[b, h], pr @ v_[b, :lengths[b], h // (Hd // KVd)] / pr.sum(), atol=1e-6)
        return {"o": b16(o.reshape(Bd, Hd * Dd))}
    case("stdlib.bf16.decode_attention_combine", std("decode_attention"), "decode_attention_combine", "%d" % (Bd * Hd),
         {"partial_o": po_ref.astype(np.float32).ravel(), "partial_ml": pml_ref.astype(np.float32).ravel(),
          "o": np.zeros(Bd * Hd * Dd, np.uint16), "n_splits": splits},
         decode_combine_ref, tol=(1e-2, 1e-2), defines={"HEAD_DIM": str(Dd), "SPLITS": "4"})
    # Rope of a column view: tokens 0..T-1 at positions t % S, from column 16 of rows of 80.
    # With POSITIONS: each sequence's tokens start at positions[b] (a KV cache's length).
    T, S, heads, half = 6, 4, 2, 16
    src = rnd(T, 80)
    starts = np.array([5, 1000], np.int32)
    for with_positions in (False, True):
        def rope_ref(out, with_positions=with_positions):
            v = val(src).reshape(T, 80)[:, 16:16 + heads * 2 * half].reshape(T, heads, 2 * half)
            pos = (np.arange(T) % S + (starts[np.arange(T) // S] if with_positions else 0))[:, None]
            theta = pos * 10000.0 ** (-np.arange(half) / half)
            c, s_ = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
            x1, x2 = v[..., :half], v[..., half:]
            return {"y": b16(np.concatenate([x1 * c - x2 * s_, x2 * c + x1 * s_], -1).reshape(T, -1))}
        # BT tokens a program: 1 (the first config) and, with positions, 4 (the last block
        # partly past the tokens).
        case("stdlib.bf16.rope" + (".positions" if with_positions else ""), std("rope"), "rope", "cdiv(tokens, BT), %d" % heads,
             {"x": src, "y": np.zeros(T * heads * 2 * half, np.uint16), "tokens": T, "seq_len": S, "in_stride": 80, "in_col": 16,
              "out_stride": heads * 2 * half, "log2_base": math.log2(10000.0), "positions": starts, "rope_heads": heads,
              "k_cache": np.zeros(1, np.uint16), "v_cache": np.zeros(1, np.uint16), "max_context": 0, "first_key_head": heads},
             rope_ref, tol=(1e-2, 1e-2), defines={"HALF": str(half), "POSITIONS": "true" if with_positions else "false",
                                                  "BT": "4" if with_positions else "1"})
    # APPEND: a fused QKV's rows (2 query heads, 1 key/value head of 32), two sequences of 2
    # tokens at 3 and 7 of caches of 8 (the last token past the end: nothing written there);
    # the queries and keys rotated into y, the rotated keys and the values into the caches.
    TA, SA, HQ, halfA = 4, 2, 2, 16
    hdA = 2 * halfA
    srcA = rnd(TA, (HQ + 2) * hdA)
    atA = np.array([3, 7], np.int32)
    kc0, vc0 = rnd(2, 8, hdA), rnd(2, 8, hdA)
    def rope_append_ref(out):
        v = val(srcA).reshape(TA, HQ + 2, hdA)[:, :HQ + 1]
        pos = (np.arange(TA) % SA + atA[np.arange(TA) // SA])[:, None]
        theta = pos * 10000.0 ** (-np.arange(halfA) / halfA)
        c, s_ = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
        x1, x2 = v[..., :halfA], v[..., halfA:]
        y = b16(np.concatenate([x1 * c - x2 * s_, x2 * c + x1 * s_], -1).reshape(TA, -1))
        kc, vc = kc0.reshape(2, 8, hdA).copy(), vc0.reshape(2, 8, hdA).copy()
        for t in range(TA):
            p_ = pos[t, 0]
            if p_ < 8:
                kc[t // SA, p_] = y.reshape(TA, HQ + 1, hdA)[t, HQ]
                vc[t // SA, p_] = srcA.reshape(TA, HQ + 2, hdA)[t, HQ + 1]
        return {"y": y, "k_cache": kc.ravel(), "v_cache": vc.ravel()}
    case("stdlib.bf16.rope.append", std("rope"), "rope", "cdiv(tokens, BT), %d" % (HQ + 2),
         {"x": srcA, "y": np.zeros(TA * (HQ + 1) * hdA, np.uint16), "tokens": TA, "seq_len": SA, "in_stride": (HQ + 2) * hdA,
          "in_col": 0, "out_stride": (HQ + 1) * hdA, "log2_base": math.log2(10000.0), "positions": atA,
          "rope_heads": HQ + 1, "k_cache": kc0, "v_cache": vc0, "max_context": 8, "first_key_head": HQ},
         rope_append_ref, tol=(1e-2, 1e-2), defines={"HALF": str(halfA), "POSITIONS": "true", "APPEND": "true", "BT": "8"})
    # A prefill's rope at length: one sequence of 2048 tokens from position 0, head dim 128, from
    # the columns of a wider matrix (the q block of a fused QKV's output).
    TL, HL, halfL, widthL = 2048, 2, 64, 3 * 2 * 128
    srcL = rnd(TL, widthL)
    def rope_long_ref(out):
        v = val(srcL).reshape(TL, widthL)[:, :HL * 2 * halfL].reshape(TL, HL, 2 * halfL)
        theta = np.arange(TL)[:, None] * 10000.0 ** (-np.arange(halfL) / halfL)
        c, s_ = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
        x1, x2 = v[..., :halfL], v[..., halfL:]
        return {"y": b16(np.concatenate([x1 * c - x2 * s_, x2 * c + x1 * s_], -1).reshape(TL, -1))}
    case("stdlib.bf16.rope.positions_long", std("rope"), "rope", "cdiv(tokens, BT), %d" % HL,
         {"x": srcL, "y": np.zeros(TL * HL * 2 * halfL, np.uint16), "tokens": TL, "seq_len": TL, "in_stride": widthL, "in_col": 0,
          "out_stride": HL * 2 * halfL, "log2_base": math.log2(10000.0), "positions": np.zeros(1, np.int32),
          "rope_heads": HL, "k_cache": np.zeros(1, np.uint16), "v_cache": np.zeros(1, np.uint16), "max_context": 0,
          "first_key_head": HL},
         rope_long_ref, tol=(1e-2, 1e-2), defines={"HALF": str(halfL), "POSITIONS": "true", "BT": "32"})
    # A KV cache's append: 2 sequences of 3 new tokens from a column view, at 4 and at 6 of a
    # cache of 8 (the last token past its end: not written; what was there stays).
    xs, width, ctx_kv = rnd(6, 50), 20, 8
    cache0 = rnd(2, ctx_kv, width)
    at = np.array([4, 6], np.int32)
    def kv_append_ref(out):
        c = cache0.reshape(2, ctx_kv, width).copy()
        for t in range(6):
            b, p_ = t // 3, at[t // 3] + t % 3
            if p_ < ctx_kv:
                c[b, p_] = xs.reshape(6, 50)[t, 10:10 + width]
        return {"cache": c.ravel()}
    case("stdlib.bf16.kv_append", std("kv_cache"), "kv_append", "6, cdiv(width, BLOCK)",
         {"x": xs, "cache": cache0, "positions": at, "seq_len": 3, "max_context": ctx_kv, "width": width,
          "in_stride": 50, "in_col": 10, "x2": np.zeros(1, np.uint16), "cache2": np.zeros(1, np.uint16),
          "in_stride2": 0, "in_col2": 0}, kv_append_ref, tol=(0, 0), defines={"BLOCK": "128"})
    # PAIR: the values (columns 30.. of the same rows) into a second cache in the same launch.
    cache1 = rnd(2, ctx_kv, width)
    def kv_append_pair_ref(out):
        k_ = kv_append_ref(out)["cache"].reshape(2, ctx_kv, width)
        v_ = cache1.reshape(2, ctx_kv, width).copy()
        for t in range(6):
            b, p_ = t // 3, at[t // 3] + t % 3
            if p_ < ctx_kv:
                v_[b, p_] = xs.reshape(6, 50)[t, 30:30 + width]
        return {"cache": k_.ravel(), "cache2": v_.ravel()}
    case("stdlib.bf16.kv_append.pair", std("kv_cache"), "kv_append", "6, cdiv(width, BLOCK)",
         {"x": xs, "cache": cache0, "positions": at, "seq_len": 3, "max_context": ctx_kv, "width": width,
          "in_stride": 50, "in_col": 10, "x2": xs, "cache2": cache1, "in_stride2": 50, "in_col2": 30},
         kv_append_pair_ref, tol=(0, 0), defines={"BLOCK": "128", "PAIR": "true"})
    # Causal attention over column views of one [B*S, 3 * H * D] tensor (as the graph reads QKV).
    B, S2, H, D_ = 2, 40, 2, 32
    qkv = rnd(B * S2, 3 * H * D_)
    def attention_ref(out):
        v = val(qkv).reshape(B, S2, 3, H, D_)
        q, k, vv = v[:, :, 0], v[:, :, 1], v[:, :, 2]
        sc = np.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(D_)
        sc = np.where(np.tril(np.ones((S2, S2), bool)), sc, -np.inf)
        p = np.exp(sc - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return {"o": b16(np.einsum("bhqk,bkhd->bqhd", p, vv).reshape(B * S2, H * D_))}
    case("stdlib.bf16.attention", std("attention"), "attention", "cdiv(seq_len, BLOCK_M), %d" % (B * H),
         {"q": qkv, "k": qkv, "v": qkv, "o": np.zeros(B * S2 * H * D_, np.uint16), "seq_len": S2, "n_heads": H,
          "n_kv_heads": H, "q_stride": 3 * H * D_, "k_stride": 3 * H * D_, "v_stride": 3 * H * D_, "o_stride": H * D_,
          "q_col": 0, "k_col": H * D_, "v_col": 2 * H * D_, "scale": 1 / math.sqrt(D_)},
         attention_ref, tol=(2e-2, 2e-2), defines={"HEAD_DIM": str(D_), "BLOCK_M": "32", "BLOCK_N": "16"})
    # Grouped-query attention: 4 query heads over 2 key/value heads (heads 0-1 read K/V head 0,
    # heads 2-3 head 1), q, k and v in tensors of their own, full (not causal).
    KV = 2
    qg, kg, vg = rnd(B * S2, 2 * KV * D_), rnd(B * S2, KV * D_), rnd(B * S2, KV * D_)
    def gqa_ref(out):
        q = val(qg).reshape(B, S2, 2 * KV, D_)
        k = np.repeat(val(kg).reshape(B, S2, KV, D_), 2, axis=2)
        vv = np.repeat(val(vg).reshape(B, S2, KV, D_), 2, axis=2)
        sc = np.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(D_)
        p = np.exp(sc - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return {"o": b16(np.einsum("bhqk,bkhd->bqhd", p, vv).reshape(B * S2, 2 * KV * D_))}
    case("stdlib.bf16.attention_gqa", std("attention"), "attention", "cdiv(seq_len, BLOCK_M), %d" % (B * 2 * KV),
         {"q": qg, "k": kg, "v": vg, "o": np.zeros(B * S2 * 2 * KV * D_, np.uint16), "seq_len": S2, "n_heads": 2 * KV,
          "n_kv_heads": KV, "q_stride": 2 * KV * D_, "k_stride": KV * D_, "v_stride": KV * D_, "o_stride": 2 * KV * D_,
          "q_col": 0, "k_col": 0, "v_col": 0, "scale": 1 / math.sqrt(D_)},
         gqa_ref, tol=(2e-2, 2e-2), defines={"HEAD_DIM": str(D_), "BLOCK_M": "32", "BLOCK_N": "16", "CAUSAL": "false"})
    # The tuned path at a ragged length: 128-row tiles on two consumer warpgroups that take
    # turns at the tensor cores beside a producer (warp_specialize 2), K and V by TMA over the
    # column views, grouped-query and causal.
    S3, D3 = 200, 64
    q3, k3, v3 = rnd(S3, 2 * KV * D3), rnd(S3, KV * D3), rnd(S3, KV * D3)
    def gqa_causal_ref(out):
        q = val(q3).reshape(S3, 2 * KV, D3)
        k = np.repeat(val(k3).reshape(S3, KV, D3), 2, axis=1)
        vv = np.repeat(val(v3).reshape(S3, KV, D3), 2, axis=1)
        sc = np.einsum("qhd,khd->hqk", q, k) / math.sqrt(D3)
        sc = np.where(np.tril(np.ones((S3, S3), bool)), sc, -np.inf)
        p = np.exp(sc - sc.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return {"o": b16(np.einsum("hqk,khd->qhd", p, vv).reshape(S3, 2 * KV * D3))}
    case("stdlib.bf16.attention_gqa_causal_pingpong", std("attention"), "attention", "cdiv(seq_len, BLOCK_M), %d" % (2 * KV),
         {"q": q3, "k": k3, "v": v3, "o": np.zeros(S3 * 2 * KV * D3, np.uint16), "seq_len": S3, "n_heads": 2 * KV,
          "n_kv_heads": KV, "q_stride": 2 * KV * D3, "k_stride": KV * D3, "v_stride": KV * D3, "o_stride": 2 * KV * D3,
          "q_col": 0, "k_col": 0, "v_col": 0, "scale": 1 / math.sqrt(D3)},
         gqa_causal_ref, tol=(2e-2, 2e-2), defines={"HEAD_DIM": str(D3), "BLOCK_M": "128", "BLOCK_N": "64", "CAUSAL": "true",
                                                    "num_warps": "8", "num_stages": "2", "warp_specialize": "2"})
    n = 5000
    g, u = rnd(n, scale=4), rnd(n, scale=4)
    for kernel, f in (("silu_kernel", silu), ("gelu_kernel", gelu)):
        case("stdlib.bf16." + kernel, std("activation"), kernel, "cdiv(n, BLOCK)",
             {"x": g, "y": np.zeros(n, np.uint16), "n": n}, lambda out, f=f: {"y": b16(f(val(g)))}, tol=(1e-2, 1e-3))
    case("stdlib.bf16.swiglu", std("activation"), "swiglu", "cdiv(n, BLOCK)",
         {"gate": g, "up": u, "out": np.zeros(n, np.uint16), "n": n},
         lambda out: {"out": b16(silu(val(g)) * val(u))}, tol=(1e-2, 1e-3))
    case("stdlib.bf16.row_sum", std("reduce"), "row_sum", str(rows),
         {"x": x, "out": np.zeros(rows, np.float32), "n_cols": cols, "stride": cols},
         lambda out: {"out": xv.sum(1).astype(np.float32)}, tol=(1e-5, 1e-4), defines={"BLOCK": "512"})
    case("stdlib.bf16.row_max", std("reduce"), "row_max", str(rows),
         {"x": x, "out": np.zeros(rows, np.float32), "n_cols": cols, "stride": cols},
         lambda out: {"out": xv.max(1).astype(np.float32)}, defines={"BLOCK": "512"})
    tr = rnd(37, 50)
    case("stdlib.bf16.transpose", std("shape"), "transpose", "cdiv(rows, 32), cdiv(cols, 32)",
         {"x": tr, "y": np.zeros(37 * 40, np.uint16), "rows": 37, "cols": 40, "sx": 50, "cx": 10},
         lambda out: {"y": tr.reshape(37, 50)[:, 10:].T.copy()})
    # Greedy decoding's step on the GPU (sampling.tk): each row's first maximum (a tie across
    # blocks and one inside a block), NaNs kept out of the choice and reported (the first, in a
    # later block; none past V), the masked tail of rows ldl apart, positions and lengths
    # advanced. Kept: the row in the chunk's rows [kept_first, kept_first + kept_rows).
    Bg, Vg, ldg, steps_g = 3, 2500, 2600, 4
    lg = RNG.uniform(-4, 4, (Bg, ldg)).astype(np.float32)
    lg[:, Vg:] = 100.0  # past V: never chosen
    lg[0, 1500] = lg[0, 2100] = 8.0
    lg[0, Vg + 5] = np.nan  # past V: not reported
    lg[1, 50], lg[1, 1700], lg[1, 2200] = 9.0, np.nan, np.nan
    lg[2, :] = -np.inf
    lgb = b16(lg)
    pos_g, len_g = np.array([7, 3, 100], np.int32), np.array([8, 4, 101], np.int32)
    rows_g = val(lgb).reshape(Bg, ldg)[:, :Vg]
    chosen_g = np.array([1500, 50, 0], np.int32)  # (all -inf: the first, as std::max_element)
    assert [int(np.nanargmax(r)) for r in rows_g[:2]] == list(chosen_g[:2])
    for step_g, keep_g, first_g in ((2, True, 1), (7, False, 0)):
        def greedy_ref(out, step_g=step_g, keep_g=keep_g, first_g=first_g):
            recorded = 0 <= step_g < steps_g
            tokens = np.full((Bg, steps_g), -5, np.int32)
            kept = np.zeros((Bg, 2, Vg), np.uint16)
            if recorded:
                tokens[:, step_g] = chosen_g
            if keep_g:
                kept[:, step_g - first_g] = lgb.reshape(Bg, ldg)[:, :Vg]
            nan_at = np.array([-1, -1, step_g, 1700, -1, -1] if recorded else [-1] * 6, np.int32)
            return {"ids": chosen_g, "positions": pos_g + 1, "lengths": len_g + 1, "tokens": tokens.ravel(),
                    "kept": kept.ravel(), "nan_at": nan_at}
        case("stdlib.bf16.greedy_advance.step%d%s" % (step_g, ".kept" if keep_g else ""), std("sampling"), "greedy_advance",
             str(Bg),
             {"logits": lgb.ravel(), "ids": np.zeros(Bg, np.int32), "positions": pos_g, "lengths": len_g,
              "tokens": np.full(Bg * steps_g, -5, np.int32), "kept": np.zeros(Bg * 2 * Vg, np.uint16),
              "nan_at": np.full(2 * Bg, -1, np.int32), "V": Vg, "ldl": ldg, "step": step_g, "steps": steps_g,
              "kept_first": first_g, "kept_rows": 2},
             greedy_ref, defines={"BLOCK": "1024", "KEEP": "true" if keep_g else "false"})
