#!/usr/bin/env python3
"""NVTX ranges as a profiler sees them: tests/tools/nvtx_recorder.cpp, loaded by NVTX from
NVTX_INJECTION64_PATH as Nsight Systems' tool is, records each range tk pushes.
Usage: nvtx_ranges.py TKC LLAMA_LAYER RECORDER EXAMPLES_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

tkc, llama_layer, recorder, examples = sys.argv[1:5]


def ranges(command):
    record = os.path.join(tempfile.mkdtemp(prefix="tk-nvtx-"), "ranges.txt")  # (no name another can plant)
    env = dict(os.environ, NVTX_INJECTION64_PATH=recorder, TK_NVTX_RECORD=record, TK_CACHE_DIR="")
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    lines = open(record).read().splitlines() if os.path.exists(record) else []
    shutil.rmtree(os.path.dirname(record))
    depth = 0
    for line in lines:  # every range is closed, in order, all in tk's domain
        assert line.startswith(("push tk ", "pop tk")), line
        depth += 1 if line.startswith("push") else -1
        assert depth >= 0, lines
    assert depth == 0, lines
    return [line[len("push tk "):] for line in lines if line.startswith("push")]


def check(what, ok, detail):
    if not ok:
        sys.exit("FAIL %s: %s" % (what, detail))
    print("ok  %s" % what)


pushed = ranges([tkc, "run", os.path.join(examples, "vector_add.tk"), "--kernel", "vector_add", "--backend=interp",
                 "--grid", "2", "x=rand:f32:2048", "y=rand:f32:2048", "out=zeros:f32:2048", "n=2048"])
check("tkc run: one range per launch, named by the kernel", pushed == ["vector_add"], pushed)

pushed = ranges([llama_layer, "--backend", "interp", "--dims", "64,2,160,16,2"])
graph_runs = pushed.count("graph")
check("the graph: a range per run", graph_runs >= 1, pushed[:20])
first = pushed.index("graph")
steps = pushed[first + 1:]
check("each step of a run named as its profile names it, each kernel's launch inside",
      any(s.startswith("matmul") for s in steps) and any(s.startswith("attention") for s in steps)
      and "matmul_epilogue" in steps, steps[:20])
check("JIT compiles are ranges of their own", any(s.startswith("compile ") for s in pushed), pushed[:20])
print("NVTX ranges: every check passed")
