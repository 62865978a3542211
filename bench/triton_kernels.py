"""The Triton peers, written as Triton's users write them: the tutorials' kernels on Triton's
default path (on Hopper: wgmma, and TMA through tensor descriptors for attention) with
@triton.autotune over a standard config list, and the memory-bound kernels tuned over num_warps.
"""
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

# ---- matmul: the tutorial's grouped-order kernel, autotuned over a standard list -------------

MATMUL_CONFIGS = [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8}, num_warps=w, num_stages=s)
                  for bm, bn, bk, w, s in [(128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3),
                                           (128, 128, 64, 4, 4), (128, 128, 64, 8, 3), (64, 256, 32, 4, 4),
                                           (128, 128, 32, 4, 4), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4),
                                           (64, 64, 64, 4, 4)]]


@triton.jit
def matmul_kernel(a, b, c, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    group_size = GROUP_M * num_pid_n
    first_m = (pid // group_size) * GROUP_M
    group_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_size) % group_m
    pid_n = (pid % group_size) // group_m
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * stride_am + rk[None, :] * stride_ak
    pb = b + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        ta = tl.load(pa, mask=rk[None, :] < K - k * BK, other=0.0)
        tb = tl.load(pb, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(ta, tb, acc)
        pa += BK * stride_ak
        pb += BK * stride_bk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c + cm[:, None] * stride_cm + cn[None, :] * stride_cn, acc.to(c.dtype.element_ty),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


matmul_autotuned = triton.autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])(matmul_kernel)


def matmul(a, b, c):
    m, k = a.shape
    n = b.shape[1]
    grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
    matmul_autotuned[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    return c


# ---- scaled FP8 matmul: tutorial 09's persistent kernel on TMA descriptors (Triton's fastest
# FP8 GEMM on Hopper), c = (a @ b^T) * scale_a * scale_b in bf16, the scales applied in the
# epilogue as FP8 users of Triton write them (FBGEMM's row-wise kernels); its config list plus
# BM=64, 32 and 16 for the 32-row shapes (below 64 rows Triton runs mma.sync) ----------------

def _set_fp8_blocks(nargs):
    bm, bn, bk = nargs["BM"], nargs["BN"], nargs["BK"]
    nargs["desc_a"].block_shape = [bm, bk]
    nargs["desc_b"].block_shape = [bn, bk]
    nargs["desc_c"].block_shape = [bm, bn // 2 if nargs["EPILOGUE_SUBTILE"] else bn]


FP8_MATMUL_CONFIGS = [
    triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_M": 8, "EPILOGUE_SUBTILE": sub}, num_warps=w, num_stages=s,
                  pre_hook=_set_fp8_blocks)
    for bm, bn, bk, s, w, sub in
    [(128, bn, bk, s, w, sub) for bn in (128, 256) for bk in (64, 128) for s in (2, 3, 4) for w in (4, 8)
     for sub in (True, False)] + [(64, bn, 128, s, 4, False) for bn in (128, 256) for s in (3, 4)]
    + [(bm, bn, bk, s, 4, False) for bm in (16, 32) for bn in (64, 128) for bk in (128, 256) for s in (4, 6)]]


@triton.jit
def _fp8_tile(tile, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    group_size = GROUP_M * num_pid_n
    first_m = (tile // group_size) * GROUP_M
    group_m = min(num_pid_m - first_m, GROUP_M)
    return first_m + (tile % group_size) % group_m, (tile % group_size) // group_m


@triton.autotune(configs=FP8_MATMUL_CONFIGS, key=["M", "N", "K"])
@triton.jit
def fp8_matmul_kernel(desc_a, desc_b, desc_c, scale_a, scale_b, M, N, K, stride_sa, stride_sb, NUM_SMS: tl.constexpr,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
                      EPILOGUE_SUBTILE: tl.constexpr):
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    tile_c = tl.program_id(0) - NUM_SMS
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True):
        pid_m, pid_n = _fp8_tile(tile, num_pid_m, num_pid_n, GROUP_M)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            a = desc_a.load([pid_m * BM, ki * BK])
            b = desc_b.load([pid_n * BN, ki * BK])
            acc = tl.dot(a, b.T, acc)
        tile_c += NUM_SMS
        pid_m, pid_n = _fp8_tile(tile_c, num_pid_m, num_pid_n, GROUP_M)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        # Per tensor: stride 0, every row reading the one scale.
        sa = tl.load(scale_a + rm * stride_sa, mask=rm < M, other=0.0)
        sb = tl.load(scale_b + rn * stride_sb, mask=rn < N, other=0.0)
        acc = acc * sa[:, None] * sb[None, :]
        if EPILOGUE_SUBTILE:
            acc0, acc1 = tl.split(tl.permute(tl.reshape(acc, (BM, 2, BN // 2)), (0, 2, 1)))
            desc_c.store([pid_m * BM, pid_n * BN], acc0.to(tl.bfloat16))
            desc_c.store([pid_m * BM, pid_n * BN + BN // 2], acc1.to(tl.bfloat16))
        else:
            desc_c.store([pid_m * BM, pid_n * BN], acc.to(tl.bfloat16))


def fp8_matmul(a, b, c, scale_a, scale_b):
    """A launcher of c = (a @ b^T) * scale_a * scale_b: a [M, K] and b [N, K] e4m3, c [M, N] bf16;
    the scales one f32 each (per tensor) or one a row of c and one a column (per row/column).
    The descriptors are made once, as a user keeps them across calls."""
    m, k = a.shape
    n = b.shape[0]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    desc_a = TensorDescriptor(a, [m, k], [k, 1], [128, 128])
    desc_b = TensorDescriptor(b, [n, k], [k, 1], [128, 128])
    desc_c = TensorDescriptor(c, [m, n], [n, 1], [128, 128])
    grid = lambda meta: (min(sms, triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"])),)
    strides = (0 if scale_a.numel() == 1 else 1, 0 if scale_b.numel() == 1 else 1)
    return lambda: fp8_matmul_kernel[grid](desc_a, desc_b, desc_c, scale_a, scale_b, m, n, k, *strides, NUM_SMS=sms)


# ---- attention: the tutorial's design (TMA descriptors, exp2 online softmax, causal blocks
# split into the unmasked part and the diagonal) ----------------------------------------------

def _set_blocks(nargs):
    bm, bn, d = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["HEAD_DIM"]
    nargs["desc_q"].block_shape = [bm, d]
    nargs["desc_o"].block_shape = [bm, d]
    nargs["desc_k"].block_shape = [bn, d]
    nargs["desc_v"].block_shape = [bn, d]


ATTENTION_CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_warps=w, num_stages=s, pre_hook=_set_blocks)
                     for bm, bn, w, s in [(128, 64, 4, 3), (128, 64, 4, 4), (128, 128, 8, 3), (128, 128, 8, 2),
                                          (64, 64, 4, 3), (128, 32, 4, 3)]]


@triton.jit
def _attention_blocks(acc, l_i, m_i, q, desc_k, desc_v, row0, lo, hi, offs_m, qk_scale,
                      BLOCK_N: tl.constexpr, DIAGONAL: tl.constexpr):
    offs_n = tl.arange(0, BLOCK_N)
    for start_n in tl.range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = desc_k.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T)
        if DIAGONAL:
            qk = qk * qk_scale + tl.where(offs_m[:, None] >= start_n + offs_n[None, :], 0.0, -1.0e6)
            m_new = tl.maximum(m_i, tl.max(qk, 1))
            qk = qk - m_new[:, None]
        else:
            m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_new[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = desc_v.load([row0 + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    return acc, l_i, m_i


@triton.autotune(configs=ATTENTION_CONFIGS, key=["N_CTX", "HEAD_DIM", "CAUSAL"])
@triton.jit
def attention_kernel(desc_q, desc_k, desc_v, desc_o, sm_scale, N_CTX, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    row0 = tl.program_id(1) * N_CTX
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = desc_q.load([row0 + start_m * BLOCK_M, 0])
    if CAUSAL:
        acc, l_i, m_i = _attention_blocks(acc, l_i, m_i, q, desc_k, desc_v, row0, 0, start_m * BLOCK_M, offs_m, qk_scale,
                                          BLOCK_N, False)
        acc, l_i, m_i = _attention_blocks(acc, l_i, m_i, q, desc_k, desc_v, row0, start_m * BLOCK_M,
                                          (start_m + 1) * BLOCK_M, offs_m, qk_scale, BLOCK_N, True)
    else:
        acc, l_i, m_i = _attention_blocks(acc, l_i, m_i, q, desc_k, desc_v, row0, 0, N_CTX, offs_m, qk_scale, BLOCK_N,
                                          False)
    acc = acc / l_i[:, None]
    desc_o.store([row0 + start_m * BLOCK_M, 0], acc.to(q.dtype))


def attention(q, k, v, o, causal, scale):
    """o = softmax(q k^T * scale) v for contiguous [B, H, S, D] tensors (S a multiple of 128)."""
    b, h, s, d = q.shape
    descs = [TensorDescriptor(t.view(b * h * s, d), [b * h * s, d], [d, 1], [64, d]) for t in (q, k, v, o)]
    grid = lambda meta: (triton.cdiv(s, meta["BLOCK_M"]), b * h)
    attention_kernel[grid](*descs, scale, s, HEAD_DIM=d, CAUSAL=causal)
    return o


# ---- memory-bound kernels ----------------------------------------------------------------------

@triton.jit
def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


@triton.jit
def softmax_kernel(x, y, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    v = tl.load(x + row * stride + cols, mask=m, other=-float("inf"))
    e = tl.exp(v - tl.max(v, 0))
    tl.store(y + row * stride + cols, e / tl.sum(e, 0), mask=m)


@triton.jit
def layernorm_kernel(x, y, w, b, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    xv = tl.load(x + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(xv, 0) / n_cols
    diff = tl.where(m, xv - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(diff * diff, 0) / n_cols + eps)
    wv = tl.load(w + cols, mask=m, other=0.0).to(tl.float32)
    bv = tl.load(b + cols, mask=m, other=0.0).to(tl.float32)
    tl.store(y + row * stride + cols, (diff * rstd * wv + bv).to(y.dtype.element_ty), mask=m)


@triton.jit
def rmsnorm_kernel(x, y, w, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    xv = tl.load(x + row * stride + cols, mask=m, other=0.0).to(tl.float32)
    rstd = 1 / tl.sqrt(tl.sum(xv * xv, 0) / n_cols + eps)
    wv = tl.load(w + cols, mask=m, other=0.0).to(tl.float32)
    tl.store(y + row * stride + cols, (xv * rstd * wv).to(y.dtype.element_ty), mask=m)
