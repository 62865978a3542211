"""Cases of tensor descriptors (ragged, negative and clipped blocks) and of the kernels in
examples/ (vector add, softmax, norms, every matmul and flash-attention variant), with the
attention reference they share."""
import os

import numpy as np

from registry import EXAMPLES, KERNELS, RNG, case


def add_descriptor_cases():
    """Tensor descriptors: zeros outside the described tensor (ragged edges, negative and wholly
    outside offsets), clipped stores (padding beyond the shape keeps its canary), ranks 1-3."""
    desc = os.path.join(KERNELS, "descriptors.tk")

    def block_of(t, offsets, block):
        """The block of t at offsets, zeros outside t (numpy's independent reading)."""
        out = np.zeros(block, t.dtype)
        src = tuple(slice(max(o, 0), min(o + b, n)) for o, b, n in zip(offsets, block, t.shape))
        dst = tuple(slice(s.start - o, s.stop - o) for s, o in zip(src, offsets))
        if all(s.stop > s.start for s in src):
            out[dst] = t[src]
        return out

    M, N, ldx, ldy, dr, dc, BM, BN = 37, 70, 75, 72, 5, 7, 16, 32
    gm, gn = -(-(M + dr) // BM) + 1, -(-(N + dc) // BN)  # one more row of blocks, wholly outside x
    x = RNG.standard_normal((M, ldx)).astype(np.float32)  # columns past N are padding, never read
    y = np.full((M + 2, ldy), 7.0, np.float32)

    def copy2d_ref(out):
        tiles = np.zeros((gm * BM, gn * BN), np.float32)
        for i in range(gm):
            for j in range(gn):
                tiles[i * BM:(i + 1) * BM, j * BN:(j + 1) * BN] = block_of(x[:, :N], (i * BM - dr, j * BN - dc), (BM, BN))
        expected = y.copy()
        expected[:M, :N] = x[:, :N] + 1
        return {"tiles": tiles, "y": expected}
    case("descriptors.rank2_ragged_negative_clipped", desc, "copy2d", "cdiv(M + dr, BM) + 1, cdiv(N + dc, BN)",
         {"x": x, "y": y, "tiles": np.full(gm * BM * gn * BN, 3.0, np.float32), "M": M, "N": N, "ldx": ldx, "ldy": ldy,
          "dr": dr, "dc": dc}, copy2d_ref)
    case("descriptors.rank2_in_bounds", desc, "copy2d", "cdiv(M, BM), cdiv(N, BN)",
         {"x": x[:32, :64].copy(), "y": np.zeros((32, 64), np.float32), "tiles": np.zeros(32 * 64, np.float32),
          "M": 32, "N": 64, "ldx": 64, "ldy": 64, "dr": 0, "dc": 0},
         lambda out: {"tiles": x[:32, :64], "y": x[:32, :64] + 1})

    Mt, Nt, ld = 45, 29, 50
    xt = RNG.standard_normal((Mt, ld)).astype(np.float16)
    canary = np.full(Nt * Mt + 16, -3.0, np.float32)

    def transpose_ref(out):
        expected = canary.copy()
        expected[:Nt * Mt] = xt[:, :Nt].T.astype(np.float32).ravel()
        return {"out": expected}
    case("descriptors.rank2_strided_transpose_f16_to_f32", desc, "transpose", "cdiv(N, BM), cdiv(M, BN)",
         {"x": xt, "out": canary, "M": Mt, "N": Nt, "ld": ld}, transpose_ref)

    n, m, start, block = 50, 40, -10, 16
    xg = RNG.integers(-1000, 1000, 3 * n).astype(np.int32)
    programs = -(-(n - start) // block)
    yg = np.full(m + 8, -1, np.int32)

    def gather_ref(out):
        view = xg[::3][:n]
        expected = yg.copy()
        expected[:m] = view[:m]
        return {"gathered": block_of(view, (start,), (programs * block,)), "y": expected}
    case("descriptors.rank1_strided_negative_clipped", desc, "gather1d", "cdiv(n - start, BLOCK)",
         {"x": xg, "gathered": np.full(programs * block, 5, np.int32), "y": yg, "n": n, "m": m, "start": start},
         gather_ref, defines={"BLOCK": str(block)})

    D0, D1, D2 = 5, 6, 13
    s1, s0 = D2 + 3, 6 * (D2 + 3) + 5
    o0, o1, o2 = -1, -1, -2
    flat = RNG.standard_normal(D0 * s0).astype(np.float32)
    x3 = np.lib.stride_tricks.as_strided(flat, (D0, D1, D2), (s0 * 4, s1 * 4, 4)).copy()
    p3 = -(-(D0 - o0) // 2)
    y3 = np.full(D0 * D1 * D2 + 10, 9.0, np.float32)

    def block3d_ref(out):
        tiles = np.concatenate([block_of(x3, (o0 + p * 2, o1, o2), (2, 8, 16)) for p in range(p3)])
        expected = y3.copy()
        expected[:D0 * D1 * D2] = (x3 * 2).ravel()
        return {"tiles": tiles, "y": expected}
    case("descriptors.rank3_padded_strides_negative_clipped", desc, "block3d", "cdiv(D0 - o0, 2)",
         {"x": flat, "y": y3, "tiles": np.full(p3 * 256, 4.0, np.float32), "D0": D0, "D1": D1, "D2": D2,
          "s0": s0, "s1": s1, "o0": o0, "o1": o1, "o2": o2}, block3d_ref)


def add_example_cases():
    ex = lambda name: os.path.join(EXAMPLES, name + ".tk")
    n = 5000
    x, y = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    case("example.vector_add", ex("vector_add"), "vector_add", "cdiv(n, BLOCK)",
         {"x": x, "y": y, "out": np.zeros(n, np.float32), "n": n}, lambda out: {"out": x + y}, example=True)
    g, u = RNG.standard_normal(n).astype(np.float16), RNG.standard_normal(n).astype(np.float16)
    case("example.swiglu", ex("vector_add"), "swiglu", "cdiv(n, BLOCK)",
         {"gate": g, "up": u, "out": np.zeros(n, np.float16), "n": n},
         lambda out: {"out": (g.astype(np.float32) / (1 + np.exp(-g.astype(np.float32))) * u.astype(np.float32)).astype(np.float16)},
         tol=(2e-3, 1e-3), example=True)
    rows, cols = 64, 1000
    xs = (RNG.standard_normal((rows, cols)) * 3).astype(np.float32)

    def softmax_ref(out):
        e = np.exp(xs - xs.max(1, keepdims=True))
        return {"y": (e / e.sum(1, keepdims=True)).ravel()}
    case("example.softmax", ex("softmax"), "softmax", str(rows),
         {"x": xs, "y": np.zeros(rows * cols, np.float32), "n_cols": cols, "stride": cols}, softmax_ref, tol=(1e-5, 1e-7),
         defines={"BLOCK": "1024"}, example=True)
    xl = RNG.standard_normal((32, 1000)).astype(np.float16)
    w = RNG.standard_normal(1000).astype(np.float16)
    b = RNG.standard_normal(1000).astype(np.float16)

    def layernorm_ref(out):
        v = xl.astype(np.float32)
        mean = v.mean(1, keepdims=True)
        var = ((v - mean) ** 2).mean(1, keepdims=True)
        return {"y": ((v - mean) / np.sqrt(var + 1e-5) * w.astype(np.float32) + b.astype(np.float32)).astype(np.float16).ravel()}
    case("example.layernorm", ex("layernorm"), "layernorm", "32",
         {"x": xl, "y": np.zeros(32000, np.float16), "w": w, "b": b, "n_cols": 1000, "stride": 1000, "eps": 1e-5},
         layernorm_ref, tol=(4e-3, 4e-3), defines={"BLOCK": "1024"}, example=True)

    def rmsnorm_ref(out):
        v = xl.astype(np.float32)
        return {"y": (v / np.sqrt((v * v).mean(1, keepdims=True) + 1e-6) * w.astype(np.float32)).astype(np.float16).ravel()}
    case("example.rmsnorm", ex("rmsnorm"), "rmsnorm", "32",
         {"x": xl, "y": np.zeros(32000, np.float16), "w": w, "n_cols": 1000, "stride": 1000, "eps": 1e-6},
         rmsnorm_ref, tol=(4e-3, 4e-3), defines={"BLOCK": "1024"}, example=True)
    for (M, N_, K) in [(256, 192, 128), (200, 136, 72)]:  # the second is ragged on every edge
        a = RNG.standard_normal((M, K)).astype(np.float16)
        bm = RNG.standard_normal((K, N_)).astype(np.float16)
        case("example.matmul.%dx%dx%d" % (M, N_, K), ex("matmul"), "matmul", "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.zeros(M * N_, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), defines={"BM": "64", "BN": "64", "BK": "32"}, example=True)
    # The same with tensor descriptors (examples/matmul_desc.tk): ragged, benchmark tiles, no k-steps.
    for (M, N_, K, defines) in [(200, 136, 72, {"BM": "64", "BN": "64", "BK": "32"}),
                                (200, 264, 264, {"BM": "128", "BN": "256", "BK": "64", "num_warps": "8", "num_stages": "3"}),
                                (64, 64, 0, {"BM": "64", "BN": "64", "BK": "32"})]:
        a = RNG.standard_normal((M, max(K, 1))).astype(np.float16)[:, :K].copy()
        bm = RNG.standard_normal((max(K, 1), N_)).astype(np.float16)[:K].copy()
        case("example.matmul_desc.%dx%dx%d_bm%s" % (M, N_, K, defines["BM"]), ex("matmul_desc"), "matmul_desc",
             "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.full(M * N_, 7.0, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), defines=defines, example=True)
    # The benchmark's tiles (on Hopper: wgmma with two 64-row tiles per warpgroup, two
    # warpgroups over rows, two over columns), ragged on every edge.
    # (8 warps, 3 stages: the epilogue's exchange reuses the stage ring, so both warpgroups'
    # last MMAs must be done before it.)
    # With warp_specialize (ws): on sm_90a a producer warpgroup issues the TMA copies.
    for (bm_, bn_, bk_, warps, stages, ws) in [(128, 128, 64, 4, 3, 0), (128, 256, 64, 8, 3, 0), (128, 128, 64, 8, 3, 0),
                                               (64, 256, 32, 8, 4, 0), (128, 256, 64, 8, 3, 1), (64, 128, 128, 4, 3, 1),
                                               (64, 32, 128, 4, 6, 1)]:
        M, N_, K = 200, 264, 264
        a = RNG.standard_normal((M, K)).astype(np.float16)
        bm = RNG.standard_normal((K, N_)).astype(np.float16)
        case("example.matmul.tiles_%dx%dx%d_w%d_s%d%s" % (bm_, bn_, bk_, warps, stages, "_ws" if ws else ""), ex("matmul"),
             "matmul", "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.zeros(M * N_, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), example=True, defines={"BM": str(bm_), "BN": str(bn_), "BK": str(bk_),
                                                      "num_warps": str(warps), "num_stages": str(stages),
                                                      "warp_specialize": str(ws)})
    # A row stride of 0 (every row of A the same): no divisibility is claimed for it, so the
    # loads stay cp.async (on sm_90a TMA would need a positive stride; this failed at launch).
    arow = RNG.standard_normal(96).astype(np.float16)
    bz = RNG.standard_normal((96, 64)).astype(np.float16)
    case("example.matmul.zero_row_stride", ex("matmul"), "matmul", "cdiv(M, BM) * cdiv(N, BN)",
         {"a": arow, "b": bz, "c": np.zeros(64 * 64, np.float16), "M": 64, "N": 64, "K": 96, "lda": 0, "ldb": 64, "ldc": 64},
         lambda out, arow=arow, bz=bz: {"c": np.tile(arow.astype(np.float32) @ bz.astype(np.float32), (64, 1)).astype(np.float16).ravel()},
         tol=(2e-3, 2e-2), defines={"BM": "64", "BN": "64", "BK": "32", "num_warps": "4", "num_stages": "3"}, example=True)
    # Split-K: ragged, uneven splits (16 k-steps in 3), splits with no k-step at all, the
    # benchmark's tiles; the counters are left zero for the next launch.
    for (M, N_, K, split, defines) in [(200, 136, 1000, 3, {"BM": "64", "BN": "64", "BK": "64"}),
                                       (40, 72, 96, 4, {"BM": "64", "BN": "32", "BK": "64", "num_stages": "3"}),
                                       (1, 264, 520, 2, {"BM": "64", "BN": "128", "BK": "128", "num_stages": "3"}),
                                       (200, 264, 264, 2, {"BM": "128", "BN": "128", "BK": "64", "num_warps": "8",
                                                           "num_stages": "4"})]:
        a = RNG.standard_normal((M, K)).astype(np.float16)
        bm = RNG.standard_normal((K, N_)).astype(np.float16)
        tiles = -(-M // int(defines["BM"])) * -(-N_ // int(defines["BN"]))
        case("example.matmul_split_k.%dx%dx%d_split%d_bm%s" % (M, N_, K, split, defines["BM"]), ex("matmul"),
             "matmul_split_k", "cdiv(M, BM) * cdiv(N, BN), SPLIT_K",
             {"a": a, "b": bm, "c": np.full(M * N_, 7.0, np.float16), "workspace": np.zeros(split * M * N_, np.float32),
              "counters": np.zeros(tiles, np.int32), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm, tiles=tiles: {
                 "c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel(),
                 "counters": np.zeros(tiles, np.int32)},
             tol=(2e-3, 2e-2), defines=dict(defines, SPLIT_K=str(split)), example=True)
    # Persistent: fewer programs than tiles (each walks several; on sm_90a the rings' position
    # and barrier phases carry from tile to tile, and a producer warpgroup runs ahead across
    # tiles), ragged, short and empty K.
    for (M, N_, K, programs, defines) in [(200, 264, 264, 3, {"BM": "64", "BN": "64", "BK": "32"}),
                                          (200, 264, 264, 2, {"BM": "128", "BN": "128", "BK": "64", "num_warps": "8",
                                                              "num_stages": "3", "warp_specialize": "1"}),
                                          (200, 264, 264, 2, {"BM": "128", "BN": "256", "BK": "64", "num_warps": "8",
                                                              "num_stages": "2"}),
                                          (136, 72, 40, 5, {"BM": "64", "BN": "32", "BK": "32", "num_stages": "4",
                                                            "warp_specialize": "1"}),
                                          (72, 72, 0, 2, {"BM": "64", "BN": "64", "BK": "32", "num_stages": "3",
                                                          "warp_specialize": "1"})] + [
            # Two programs a CTA on their own tiles (warp_specialize 3, sm_90a: each program
            # reads the shared ring from its own positions, the two take turns): odd and even
            # grids (an odd one gets a program more, which shares the tiles), one program (its CTA's
            # second program takes every other tile), more tiles than the ring has stages
            # between turns, a short K (fewer k-steps than stages) and none.
            (M_, N2, K_, p_, {"BM": bm_, "BN": bn_, "BK": "64", "num_warps": "4", "num_stages": "4",
                              "warp_specialize": "3"})
            for (M_, N2, K_, p_, bm_, bn_) in [(200, 264, 264, 1, "128", "128"), (200, 264, 264, 3, "128", "128"),
                                               (520, 264, 136, 4, "128", "128"), (200, 520, 264, 5, "64", "256"),
                                               (136, 72, 40, 2, "128", "128"), (72, 72, 0, 3, "64", "128"),
                                               # KT = 8 = 2S (a program skips a whole lap of
                                               # the ring) and 9 (one more), on odd grids.
                                               (520, 264, 512, 3, "128", "128"),
                                               (520, 264, 576, 5, "128", "128")]] + [
            # On clusters of 2 CTAs (cluster_size 2, sm_90a: B's k-slice copied once for two
            # tiles of one column, each CTA multicasting half its rows): an odd grid (rounded up
            # to whole clusters), 15 tiles on 4 CTAs (the last alone, 9 k-steps on 4 stages), a
            # short K and none.
            (M_, N2, K_, p_, {"BM": bm_, "BN": bn_, "BK": bk_, "num_warps": "4", "num_stages": "4",
                              "warp_specialize": "1", "cluster_size": "2"})
            for (M_, N2, K_, p_, bm_, bn_, bk_) in [(200, 264, 264, 3, "128", "128", "64"),
                                                    (520, 264, 576, 4, "128", "128", "64"),
                                                    (136, 72, 40, 2, "64", "64", "32"), (72, 72, 0, 3, "64", "128", "32")]] + [
            # Two programs a CTA on clusters: 3 programs (2 CTAs), 5 (3 CTAs rounded up to 4,
            # 15 tiles among 8 programs).
            (M_, N2, K_, p_, {"BM": "128", "BN": "128", "BK": "64", "num_warps": "4", "num_stages": "4",
                              "warp_specialize": "3", "cluster_size": "2"})
            for (M_, N2, K_, p_) in [(200, 264, 264, 3), (520, 264, 576, 5)]]:
        a = RNG.standard_normal((M, max(K, 1))).astype(np.float16)[:, :K].copy()
        bm = RNG.standard_normal((max(K, 1), N_)).astype(np.float16)[:K].copy()
        case("example.matmul_persistent.%dx%dx%d_p%d_bm%s%s%s" % (M, N_, K, programs, defines["BM"],
                                                                   {"1": "_ws", "3": "_tiles_ping_pong"}.get(
                                                                       defines.get("warp_specialize"), ""),
                                                                   "_cluster2" if "cluster_size" in defines else ""),
             ex("matmul"), "matmul_persistent", "minimum(%d, cdiv(M, BM) * cdiv(N, BN))" % programs,
             {"a": a, "b": bm, "c": np.full(M * N_, 7.0, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), defines=defines, example=True)
    # Fewer k-steps than the pipeline prefetches (copies past the end are masked off), a single
    # partial k-step, and none at all (the accumulator's zeros).
    for (M, N_, K, stages, ws) in [(64, 64, 40, 4, 0), (96, 64, 8, 3, 0), (64, 64, 0, 2, 0), (64, 64, 40, 4, 1),
                                   (64, 64, 0, 2, 1)]:
        a = RNG.standard_normal((M, max(K, 1))).astype(np.float16)[:, :K].copy()
        bm = RNG.standard_normal((max(K, 1), N_)).astype(np.float16)[:K].copy()
        case("example.matmul.short_k_%d_stages_%d%s" % (K, stages, "_ws" if ws else ""), ex("matmul"), "matmul",
             "cdiv(M, BM) * cdiv(N, BN)",
             {"a": a, "b": bm, "c": np.full(M * N_, 7.0, np.float16), "M": M, "N": N_, "K": K, "lda": K, "ldb": N_, "ldc": N_},
             lambda out, a=a, bm=bm: {"c": (a.astype(np.float32) @ bm.astype(np.float32)).astype(np.float16).ravel()},
             tol=(2e-3, 2e-2), defines={"BM": "64", "BN": "64", "BK": "32", "num_stages": str(stages),
                                        "warp_specialize": str(ws)}, example=True)
    B, S, D = 2, 200, 64
    for causal in (False, True):
        q, k, v = (RNG.standard_normal((B, S, D)).astype(np.float16) for _ in range(3))

        case("example.flash_attention.%s" % ("causal" if causal else "full"), ex("flash_attention"), "flash_attention",
             "cdiv(seq_len, BLOCK_M), %d" % B,
             {"q": q, "k": k, "v": v, "o": np.zeros(B * S * D, np.float16), "seq_len": S, "scale": 1 / np.sqrt(D)},
             lambda out, q=q, k=k, v=v, causal=causal: {"o": attention_reference(q, k, v, causal)},
             tol=(1e-2, 1e-2), defines={"CAUSAL": "true" if causal else "false", "BLOCK_M": "64", "BLOCK_N": "32"},
             example=True)
    # The overlapped kernel (first block's scores peeled off the loop, the last block's PV after
    # it) at ragged sequence lengths: one key, less than one block, one block, several.
    for S_, causal, Dh, tiles in [(1, False, 64, ("64", "32", "4")), (37, True, 64, ("64", "32", "4")),
                                  (64, True, 64, ("64", "64", "4")), (200, False, 64, ("64", "32", "4")),
                                  (200, True, 128, ("128", "64", "8", "1")), (300, False, 128, ("64", "64", "4")),
                                  (37, True, 64, ("128", "64", "8", "2")), (300, False, 128, ("128", "64", "8", "2"))]:
        q, k, v = (RNG.standard_normal((2, S_, Dh)).astype(np.float16) for _ in range(3))

        case("example.flash_attention_overlap.s%d_d%d%s%s" % (S_, Dh, "_causal" if causal else "",
                                                               {"1": "_ws", "2": "_pingpong"}.get(tiles[3], "") if tiles[3:] else ""),
             ex("flash_attention"),
             "flash_attention_overlap", "cdiv(seq_len, BLOCK_M), 2",
             {"q": q, "k": k, "v": v, "o": np.zeros(2 * S_ * Dh, np.float16), "seq_len": S_, "scale": 1 / np.sqrt(Dh)},
             lambda out, q=q, k=k, v=v, causal=causal: {"o": attention_reference(q, k, v, causal)},
             tol=(1e-2, 1e-2), example=True,
             defines={"CAUSAL": "true" if causal else "false", "HEAD_DIM": str(Dh), "BLOCK_M": tiles[0],
                      "BLOCK_N": tiles[1], "num_warps": tiles[2], "num_stages": "2",
                      "warp_specialize": tiles[3] if tiles[3:] else "0"})
    # Head dim 128 with the benchmark's tiles (8 warps, 3 stages of K and V), and 256 (tiles
    # whose stages fit sm_80's shared memory too): ragged sequence, causal.
    for (Dh, tiles) in [(128, {"BLOCK_M": "128", "BLOCK_N": "64", "num_warps": "8", "num_stages": "3"}),
                        (128, {"BLOCK_M": "128", "BLOCK_N": "64", "num_warps": "8", "num_stages": "3", "warp_specialize": "1"}),
                        (128, {"BLOCK_M": "128", "BLOCK_N": "128", "num_warps": "8", "num_stages": "2", "warp_specialize": "2"}),
                        (64, {"BLOCK_M": "128", "BLOCK_N": "64", "num_warps": "8", "num_stages": "3", "warp_specialize": "2"}),
                        (256, {"BLOCK_M": "128", "BLOCK_N": "64", "num_warps": "8", "num_stages": "2", "warp_specialize": "2"}),
                        (256, {"BLOCK_M": "64", "BLOCK_N": "32", "num_warps": "4", "num_stages": "2"})]:
        Sh = 200
        q, k, v = (RNG.standard_normal((1, Sh, Dh)).astype(np.float16) for _ in range(3))

        case("example.flash_attention.d%d_causal%s" % (Dh, {"1": "_ws", "2": "_pingpong"}.get(tiles.get("warp_specialize"), "")),
             ex("flash_attention"), "flash_attention", "cdiv(seq_len, BLOCK_M), 1",
             {"q": q, "k": k, "v": v, "o": np.zeros(Sh * Dh, np.float16), "seq_len": Sh, "scale": 1 / np.sqrt(Dh)},
             lambda out, q=q, k=k, v=v: {"o": attention_reference(q, k, v, causal=True)},
             tol=(1e-2, 1e-2), example=True, defines=dict(tiles, CAUSAL="true", HEAD_DIM=str(Dh)))

    # The persistent kernel: fewer programs than (query block, head) tiles, so each walks several
    # (heads of different lengths of work when causal), at ragged sequence lengths.
    for (S_, causal, Dh, programs, tiles) in [(200, False, 64, 3, ("64", "32", "4", "0")),
                                              (200, True, 64, 2, ("64", "32", "4", "0")),
                                              (37, True, 64, 5, ("128", "64", "8", "1")),
                                              (300, True, 128, 3, ("128", "64", "8", "2")),
                                              (300, False, 128, 2, ("128", "128", "8", "2"))]:
        q, k, v = (RNG.standard_normal((3, S_, Dh)).astype(np.float16) for _ in range(3))

        case("example.flash_attention_persistent.s%d_d%d_p%d%s%s" % (S_, Dh, programs, "_causal" if causal else "",
                                                                       {"1": "_ws", "2": "_pingpong"}.get(tiles[3], "")),
             ex("flash_attention"), "flash_attention_persistent", "minimum(%d, cdiv(seq_len, BLOCK_M) * heads)" % programs,
             {"q": q, "k": k, "v": v, "o": np.full(3 * S_ * Dh, 7.0, np.float16), "seq_len": S_, "heads": 3,
              "scale": 1 / np.sqrt(Dh)},
             lambda out, q=q, k=k, v=v, causal=causal: {"o": attention_reference(q, k, v, causal)},
             tol=(1e-2, 1e-2), example=True,
             defines={"CAUSAL": "true" if causal else "false", "HEAD_DIM": str(Dh), "BLOCK_M": tiles[0],
                      "BLOCK_N": tiles[1], "num_warps": tiles[2], "num_stages": "2", "warp_specialize": tiles[3]})


def attention_reference(q, k, v, causal):
    """Softmax attention of [batch, seq, dim] f16 tensors in f32, as f16, flattened."""
    s = np.einsum("bqd,bkd->bqk", q.astype(np.float32), k.astype(np.float32)) / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones((q.shape[1], k.shape[1]), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bqk,bkd->bqd", p, v.astype(np.float32)).astype(np.float16).ravel()
