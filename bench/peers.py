"""The peers every benchmark measures tk against, each at its strongest and written as its users
write it, and the one timing method used for tk and for them.

Timing (tk's kernels run in the benchmark's process through the tkc package and this Timer
times them as it times the peers; tk::Context::time in C++, which `tkc run --time` and
`llama_layer --time` print and `report.parse_tk_timing` reads, has the same definitions, its
spin a sleeping kernel of 200 us after the flush, Context::kRestMicroseconds):
  per call      each of N runs between two CUDA events, synchronized after each, preceded (for
                kernels) by a write of twice the L2 size so that it starts with a cold L2 and a
                200 us spin of the GPU that hides the host's launch cost and lets the GPU's
                clocks recover from the run before; the median (Triton's do_bench method,
                plus the spin)
  back to back  N runs enqueued between two events with one synchronization and no flush; the
                mean per run, median of three such batches (a model's steady state: launch gaps
                hide behind the GPU, and L2 stays as the previous run left it)
Ratios are always computed within one method: peer time / tk time, against the best peer of
the row (> 1: tk is faster).

Peers:
  matmul     cuBLAS and cuBLASLt through torch (`a @ b` with each preferred BLAS library), and
             Triton's default Hopper path with @triton.autotune over a standard config list
             (triton_kernels.matmul)
  attention  torch SDPA on cuDNN and on FlashAttention-2, and Triton's tutorial-style fused
             attention with its autotuning (triton_kernels.attention)
  memory     Triton kernels tuned over num_warps, and torch's own ops
  LLaMA      llama_torch: an nn.Module with registered parameters under eager and each
             torch.compile mode, and Hugging Face's LlamaDecoderLayer
"""
import contextlib

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

class Timer:
    """Both timing methods on torch's current stream (see the module's docstring)."""

    # After the flush the GPU spins this long before the call's start event, so that the host's
    # launch (20-50 us from Python: Triton's autotuner, tk's package, torch's dispatch) is
    # enqueued before the GPU gets there: per call is then the GPU's time for a cold-L2 call by
    # every contender, whatever its host cost (which bench/python_launch.py reports apart).
    SPIN_US = 200

    def __init__(self):
        l2 = torch.cuda.get_device_properties(0).L2_cache_size
        self.flush = torch.empty(max(l2, 1 << 20) * 2, dtype=torch.uint8, device="cuda")
        # (At the H200's top clock, 1.98 GHz; a throttled GPU spins longer, which is harmless.)
        self.spin_cycles = self.SPIN_US * 2000 if hasattr(torch.cuda, "_sleep") else 0

    def per_call(self, fn, reps, flush=True, warmup=1):
        return self.per_call_interleaved({"": fn}, reps, flush, warmup)[""]

    def per_call_interleaved(self, fns, reps, flush=True, warmup=1):
        """per_call of several contenders at once: each round times one single run of every
        contender (each after the flush and the spin), the order rotated from round to round, so
        that a GPU whose clocks drift (at its power cap, as on the large FP8 rows) drifts under
        all of them alike rather than under whichever ran in the cooler moment. Name -> median."""
        names = list(fns)
        for name in names:
            for _ in range(warmup):
                fns[name]()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = {name: [] for name in names}
        for r in range(reps):
            for i in range(len(names)):
                name = names[(r + i) % len(names)]
                if flush:
                    self.flush.fill_(r % 256)
                    if self.spin_cycles:
                        torch.cuda._sleep(self.spin_cycles)
                start.record()
                fns[name]()
                stop.record()
                stop.synchronize()
                times[name].append(start.elapsed_time(stop))
        return {name: sorted(t)[len(t) // 2] for name, t in times.items()}

    def back_to_back(self, fn, reps, graph=False):
        """With graph, the N runs are captured once in a CUDA graph and each batch replays it:
        Python's launch cost (10-30 us a call, more than a small kernel's GPU time) then stays
        out of a kernel's steady-state rate, as tk's C++ launches (about 3 us) stay out of its."""
        def launches():
            for _ in range(reps):
                fn()
        return self._batch_means({"": self._captured(fn, reps) if graph else launches}, reps)[""]

    def back_to_back_interleaved(self, fns, reps):
        """back_to_back (from a CUDA graph of the N runs) of several contenders at once, their
        batches taking turns. Name -> time per run; a contender whose graph cannot be captured
        is left out (its own back_to_back stands)."""
        batches = {}
        for name, fn in fns.items():
            try:
                batches[name] = self._captured(fn, reps)
            except Exception:  # not capturable: the caller keeps its launches' timing
                torch.cuda.synchronize()
        return self._batch_means(batches, reps)

    @staticmethod
    def _batch_means(batches, reps):
        """Three rounds, each one batch (of `reps` runs) of every contender between two events,
        the order rotated from round to round. Name -> the median of its batches' means."""
        names = list(batches)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        means = {name: [] for name in names}
        for r in range(3):
            for i in range(len(names)):
                name = names[(r + i) % len(names)]
                start.record()
                batches[name]()
                stop.record()
                stop.synchronize()
                means[name].append(start.elapsed_time(stop) / reps)
        return {name: sorted(m)[1] for name, m in means.items()}

    @staticmethod
    def _captured(fn, reps):
        """The replay of a CUDA graph of `reps` calls of fn (one call first, on a side stream)."""
        captured = torch.cuda.CUDAGraph()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            fn()
        torch.cuda.current_stream().wait_stream(side)
        with torch.cuda.graph(captured):
            for _ in range(reps):
                fn()
        return captured.replay

    def time(self, fn, reps, flush=True, warmup=1, graph=True):
        """Both methods; back to back from a CUDA graph of the N runs where it captures (graph:
        kernel rows), else (or for models, graph=False) as N launches from Python."""
        timing = dict(per_call_ms=self.per_call(fn, reps, flush, warmup), reps=reps, flushed=flush,
                      back_to_back="loop")
        if graph:
            try:
                timing["back_to_back_ms"] = self.back_to_back(fn, reps, graph=True)
                timing["back_to_back"] = "graph"
            except Exception as e:  # not capturable: fall back to launches, and say so
                timing["graph_error"] = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
                torch.cuda.synchronize()
        if "back_to_back_ms" not in timing:
            timing["back_to_back_ms"] = self.back_to_back(fn, reps)
        return timing


def reps_for(estimate_ms, budget_ms=150, least=10, most=200):
    """Repetitions so that one method's timing takes about budget_ms."""
    return int(max(least, min(most, budget_ms / max(estimate_ms, 1e-3))))


def estimate_ms(fn, runs=3):
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(runs):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / runs


def rel_error(got, want):
    got, want = got.float().reshape(want.shape), want.float()
    err = ((got - want).norm() / want.norm()).item()
    return err if err == err else float("inf")  # NaN never passes


def check(what, got, want, tolerance):
    err = rel_error(got, want)
    if not err <= tolerance:
        raise RuntimeError("%s: output differs from the reference (relative error %.3g > %.3g)" % (what, err, tolerance))
    return err


# ---- hardware ceilings, measured in the run -------------------------------------------------

def copy_bandwidth(timer, gib=1):
    """TB/s of a device-to-device copy, counting bytes read plus bytes written."""
    n = (gib << 30) // 4
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    ms = timer.per_call(lambda: dst.copy_(src), 20, flush=False)
    return 2 * n * 4 / ms / 1e9


def gemm_peak(timer, dtype, n=8192):
    """TFLOP/s cuBLAS reaches at n^3 on random data (the dense peak the roofline uses)."""
    a, b = (torch.randn(n, n, device="cuda", dtype=dtype) for _ in range(2))
    c = torch.empty(n, n, device="cuda", dtype=dtype)
    ms = min(timer.per_call(lambda: torch.matmul(a, b, out=c), 20), timer.back_to_back(lambda: torch.matmul(a, b, out=c), 20))
    return 2 * n ** 3 / ms / 1e9


# ---- matmul -----------------------------------------------------------------------------------

@contextlib.contextmanager
def blas_library(name):
    """torch's matmul through cuBLAS ("cublas") or cuBLASLt ("cublaslt")."""
    previous = torch.backends.cuda.preferred_blas_library()
    torch.backends.cuda.preferred_blas_library(name)
    try:
        yield
    finally:
        torch.backends.cuda.preferred_blas_library(previous)


def matmul_peers(a, b):
    """(name, context, fn, output) for each matmul peer; each fn computes a @ b into its output."""
    import triton_kernels
    c_blas, c_lt, c_tri = (torch.empty(a.shape[0], b.shape[1], device="cuda", dtype=a.dtype) for _ in range(3))
    return [("cuBLAS", lambda: blas_library("cublas"), lambda: torch.matmul(a, b, out=c_blas), c_blas),
            ("cuBLASLt", lambda: blas_library("cublaslt"), lambda: torch.matmul(a, b, out=c_lt), c_lt),
            ("Triton", contextlib.nullcontext, lambda: triton_kernels.matmul(a, b, c_tri), c_tri)]


# ---- attention ----------------------------------------------------------------------------------

def attention_peers(q, k, v, causal, scale):
    """(name, context, fn) for each attention peer on [B, H, S, D] tensors."""
    import triton_kernels

    def sdpa():
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
    o = torch.empty_like(q)
    return [("cuDNN", lambda: sdpa_kernel(SDPBackend.CUDNN_ATTENTION), sdpa),
            ("FA2", lambda: sdpa_kernel(SDPBackend.FLASH_ATTENTION), sdpa),
            ("Triton", contextlib.nullcontext, lambda: triton_kernels.attention(q, k, v, o, causal, scale))]


def sample_heads(q):
    """Four (batch, head) pairs spread over the tensor: the f32 reference covers these (a full
    f32 reference of B4 H32 S16384 would take 9 s and 137 GB of scores)."""
    b, h = q.shape[0], q.shape[1]
    return sorted({(0, 0), (b - 1, h - 1), (b // 2, h // 3), ((b - 1) // 3, (2 * h) // 3)})


def attention_reference(q, k, v, causal, scale, pairs):
    """The f32 math attention of the sampled heads, stacked as [len(pairs), S, D]."""
    pick = lambda t: torch.stack([t[b, h] for b, h in pairs]).float()[None]
    with sdpa_kernel(SDPBackend.MATH):
        return F.scaled_dot_product_attention(pick(q), pick(k), pick(v), is_causal=causal, scale=scale)[0]


def pick_heads(o, pairs):
    return torch.stack([o[b, h] for b, h in pairs])

