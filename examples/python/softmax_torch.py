#!/usr/bin/env python3
"""examples/softmax.tk from Python on torch tensors, on torch's current stream, against
torch.softmax; then the host cost of a launch of a cached kernel, tk's against Triton's, in
the same process. Without a GPU (or torch) it runs the kernel in tk's interpreter on numpy.

    PYTHONPATH=build/python python3 examples/python/softmax_torch.py [--bench]
"""
import os
import sys
import time

import tkc

HERE = os.path.dirname(os.path.abspath(__file__))
softmax = tkc.load(os.path.join(HERE, "..", "softmax.tk")).softmax
rows, cols = 4096, 1000

if softmax.module.context.backend == "cuda":
    import torch
    x = torch.randn(rows, cols, device="cuda")
    y = torch.empty_like(x)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):  # tk launches on torch's current stream
        softmax[(rows,)](x, y, cols, x.stride(0))
    stream.synchronize()
    error = (y - torch.softmax(x, dim=1)).abs().max().item()
    print("softmax on %s: max abs error %.2e against torch.softmax (config tuned by tk)" %
          (softmax.module.context.device_name, error))
    assert error < 1e-5
    if "--bench" in sys.argv:
        add = tkc.load(os.path.join(HERE, "..", "vector_add.tk")).vector_add
        a, b, c = (torch.zeros(1024, device="cuda") for _ in range(3))
        n = 20000

        def host_us(launch):
            for _ in range(100):
                launch()
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(n):
                launch()
            elapsed = time.perf_counter() - start
            torch.cuda.synchronize()
            return elapsed / n * 1e6

        tk_us = host_us(lambda: add[(1,)](a, b, c, 1024))
        line = "host cost of a cached launch from Python: tk %.2f us" % tk_us
        try:
            import triton
            import triton.language as tl

            @triton.jit
            def triton_add(x, y, out, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                mask = offs < n
                tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)

            triton_us = host_us(lambda: triton_add[(1,)](a, b, c, 1024, BLOCK=1024))
            line += ", Triton %.2f us (%s)" % (triton_us, triton.__version__)
        except ImportError:
            pass
        print(line)
else:
    import numpy as np
    x = np.random.default_rng(0).standard_normal((8, cols)).astype(np.float32)
    y = np.zeros_like(x)
    softmax[(8,)](x, y, cols, cols)
    e = np.exp(x - x.max(1, keepdims=True))
    error = np.abs(y - e / e.sum(1, keepdims=True)).max()
    print("softmax in the interpreter (no GPU): max abs error %.2e against numpy" % error)
    assert error < 1e-6
