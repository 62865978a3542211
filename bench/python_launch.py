#!/usr/bin/env python3
"""Host cost of one launch of a cached kernel from Python, on torch tensors, in one process: tk
(the `tkc` package) against Triton and torch, and where tk's time goes.

Every contender launches a vector add of 1024 f32 elements on torch's current stream. A batch is
256 launches timed by the host's clock; the queue is drained between batches, outside the
timing, so the GPU never holds the host back (as tk-jit-bench's C++ launch is timed). Contenders
take turns batch by batch (drift in the host's clock speed reaches all of them alike); each
reports the median of its batches, per launch.

  tk                     add[(1,)](x, y, out, n): the kernel's default BLOCK
  tk, constant           the same with BLOCK=1024 given (a launch's constants)
  tk, grid function      add[lambda meta: (cdiv(n, meta["BLOCK"]),)](...)
  tk, Python's part      the first, with the C call replaced by a C function that does nothing:
                         the package's own cost (argument checks, ctypes)
  tk, C call alone       the C API's tk_kernel_launch through ctypes with arguments built once:
                         C API + JIT + cuLaunchKernel
  Triton                 the same kernel in Triton, BLOCK=1024 (its launcher's cached path)
  Triton, grid function  with a grid lambda of the meta-parameters
  torch.add              torch.add(x, y, out=out)

    python_launch.py [--rounds N] [--json OUT.json]
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = 256


def contenders(n, x, y, out):
    import tkc
    add = tkc.load(os.path.join(ROOT, "examples", "vector_add.tk")).vector_add
    grid_fn = lambda meta: (tkc.cdiv(n, meta["BLOCK"]),)  # noqa: E731
    runs = {
        "tk": lambda: add[(1,)](x, y, out, n),
        "tk, constant": lambda: add[(1,)](x, y, out, n, BLOCK=1024),
        "tk, grid function": lambda: add[grid_fn](x, y, out, n),
    }

    def python_part():
        # The package with its C entry swapped for libtkc's cheapest function (it returns 1,
        # which the swapped status check ignores): what the package itself costs.
        real_lib, real_check = tkc._lib, tkc._check
        stub = ctypes.CDLL(real_lib._name).tk_c_api_version
        stub.argtypes, stub.restype = real_lib.tk_kernel_launch.argtypes, ctypes.c_int

        class Stubbed:
            tk_kernel_launch = stub

            def __getattr__(self, name):
                return getattr(real_lib, name)
        tkc._lib, tkc._check = Stubbed(), lambda status: None
        try:
            for _ in range(BATCH):
                add[(1,)](x, y, out, n)
        finally:
            tkc._lib, tkc._check = real_lib, real_check

    # The C call as the package makes it, its arguments built once.
    args = (tkc._Arg * 4)()
    for i, t in enumerate((x, y, out)):
        args[i].kind, args[i].address = tkc._ARG_DEVICE, t.data_ptr()
    args[3].kind, args[3].integer = tkc._ARG_INT, n
    grid = (ctypes.c_int64 * 3)(1, 1, 1)
    stream = torch.cuda.current_stream().cuda_stream
    launch = tkc._lib.tk_kernel_launch
    handle, no_grid_fn = add._handle, tkc._NO_GRID_FN

    def c_call():
        if launch(handle, grid, no_grid_fn, None, args, 4, None, 0, stream) != 0:
            raise RuntimeError(tkc._lib.tk_last_error().decode())
    batches = {name: (lambda f: lambda: [f() for _ in range(BATCH)])(f) for name, f in runs.items()}
    batches["tk, Python's part"] = python_part
    batches["tk, C call alone"] = lambda: [c_call() for _ in range(BATCH)]
    try:
        import triton
        import triton.language as tl

        @triton.jit
        def triton_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
        triton_grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)  # noqa: E731
        batches["Triton"] = lambda: [triton_add[(1,)](x, y, out, n, BLOCK=1024) for _ in range(BATCH)]
        batches["Triton, grid function"] = lambda: [triton_add[triton_grid](x, y, out, n, BLOCK=1024)
                                                    for _ in range(BATCH)]
        versions = dict(triton=triton.__version__)
    except ImportError:
        versions = {}
    batches["torch.add"] = lambda: [torch.add(x, y, out=out) for _ in range(BATCH)]
    return batches, versions


def measure(rounds=100):
    """{"us": {contender: median host microseconds per launch}, ...} (see the module's docstring)."""
    n = 1024
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    batches, versions = contenders(n, x, y, out)
    # Each contender's output is checked before it is timed.
    for name, batch in batches.items():
        out.fill_(float("nan"))
        batch()
        torch.cuda.synchronize()
        if name != "tk, Python's part" and not torch.equal(out, x + y):
            raise RuntimeError("%s computed a wrong sum" % name)
    samples = {name: [] for name in batches}
    for _ in range(rounds):
        for name, batch in batches.items():
            torch.cuda.synchronize()
            start = time.perf_counter()
            batch()
            samples[name].append((time.perf_counter() - start) / BATCH * 1e6)
    torch.cuda.synchronize()
    return dict(us={name: statistics.median(s) for name, s in samples.items()}, batch=BATCH, rounds=rounds,
                torch=torch.__version__, **versions)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--json")
    args = parser.parse_args()
    result = measure(args.rounds)
    for name, us in result["us"].items():
        print("%-24s %7.2f us" % (name, us))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
