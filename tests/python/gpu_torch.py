#!/usr/bin/env python3
"""The Python package on the GPU with torch (tools/gpu-check --remote python): kernels on torch
tensors on a stream of torch's, tuning, errors naming the parameter, and a tk kernel as a
torch custom op inside torch.compile(fullgraph=True), which fails on any graph break.
Usage: gpu_torch.py SOURCE_DIR (tkc importable, TKC_LIBRARY or the staged package's library)"""
import os
import sys

import torch

import tkc
import tkc.torch_ops

examples = os.path.join(sys.argv[1], "examples")


def check(what, ok, detail=""):
    if not ok:
        sys.exit("FAIL %s %s" % (what, detail))
    print("ok  %s" % what)


softmax = tkc.load(os.path.join(examples, "softmax.tk")).softmax
check("the GPU context", softmax.module.context.backend == "cuda", softmax.module.context.device_name)
x = torch.randn(512, 700, device="cuda")
y = torch.empty_like(x)
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    softmax[(512,)](x, y, 700, x.stride(0))  # on torch's current stream: `side`
    z = y * 1  # ordered after the kernel on the same stream
side.synchronize()
check("softmax on a stream of torch's", torch.allclose(z, torch.softmax(x, 1), atol=1e-6))

x2 = torch.randn(256, 1000, device="cuda")
y2 = torch.empty_like(x2)
report = softmax.tune((256,), x2, y2, 1000, 1000)
timed = [c for c in report.configs if c["ms"] is not None]
finalists = [c["final_ms"] for c in timed if c["final_ms"] is not None]  # those within 5% of the best, run in turn
check("tune times the configs that fit (%s)" % report, len(timed) >= 3 and len(finalists) != 1 and
      report.best_ms == (min(finalists) if finalists else min(c["ms"] for c in timed)), report.table())
y2.fill_(float("nan"))
softmax[(256,)](x2, y2, 1000, 1000)  # the winner, from the tuning
check("the tuned key's launch", torch.allclose(y2, torch.softmax(x2, 1), atol=1e-6))

add = tkc.load(os.path.join(examples, "vector_add.tk")).vector_add
for bad, kind in ((torch.zeros(16, device="cuda", dtype=torch.float16), TypeError), (torch.zeros(16), ValueError)):
    try:
        add[(1,)](torch.zeros(16, device="cuda"), bad, torch.zeros(16, device="cuda"), 16)
        check("a wrong tensor is refused", False)
    except kind as e:
        check("refused: %s" % e, "parameter 'y'" in str(e))


@tkc.torch_ops.custom_op("tkc_test::softmax")
def tk_softmax(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    softmax[(x.shape[0],)](x, out, x.shape[1], x.stride(0))
    return out


@torch.compile(fullgraph=True)
def model(x):
    return tk_softmax(torch.relu(x)) * 2 + 1


got = model(x)
check("a tk kernel as a custom op in torch.compile(fullgraph=True)",
      torch.allclose(got, torch.softmax(torch.relu(x), 1) * 2 + 1, atol=1e-6))
print("tkc on torch: every check passed")
