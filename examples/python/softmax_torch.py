#!/usr/bin/env python3
"""examples/softmax.tk from Python on torch tensors, on torch's current stream, against
torch.softmax. Without a GPU (or torch) it runs the kernel in tk's interpreter on numpy.
(bench/python_launch.py measures the host cost of a launch, tk's against Triton's.)

    PYTHONPATH=build/python python3 examples/python/softmax_torch.py
"""
import os

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
else:
    import numpy as np
    x = np.random.default_rng(0).standard_normal((8, cols)).astype(np.float32)
    y = np.zeros_like(x)
    softmax[(8,)](x, y, cols, cols)
    e = np.exp(x - x.max(1, keepdims=True))
    error = np.abs(y - e / e.sum(1, keepdims=True)).max()
    print("softmax in the interpreter (no GPU): max abs error %.2e against numpy" % error)
    assert error < 1e-6
