"""The case registry: Case, the one list CASES that every family appends to (case()), the one
RNG every family draws its inputs from (in the order run.py adds the families), the paths of the
kernels, and small helpers the families share (generated kernels, -k selection, tolerances)."""
import os
import tempfile
import warnings

import numpy as np

# References deliberately overflow (f16 inf, integer wraparound); numpy need not warn about it.
warnings.filterwarnings("ignore", category=RuntimeWarning)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KERNELS = os.path.join(HERE, "kernels")
EXAMPLES = os.path.join(ROOT, "examples")
RNG = np.random.default_rng(1234)

CASES = []


class NpyV2:
    """An input written as a .npy format 2.0 file."""
    def __init__(self, array):
        self.array = array


class Case:
    def __init__(self, name, file, kernel, grid, args, check, defines=None, tol=None, expect_status=0,
                 expect_message=None, stdout=None, example=False, interp_only=False, debug=False, gpu_message=None,
                 gpu_tol=None, racy=()):
        self.name, self.file, self.kernel, self.grid = name, file, kernel, grid
        self.args, self.check, self.defines = args, check, defines or {}
        self.tol, self.expect_status, self.expect_message = tol, expect_status, expect_message
        self.stdout, self.example, self.debug, self.gpu_message = stdout, example, debug, gpu_message
        self.gpu_tol = gpu_tol  # the GPU's tolerance where its order of operations differs
        self.racy = racy  # outputs that depend on which program wins a race (not compared across backends)
        # Bounds and division faults are the interpreter's checks (undefined on the GPU);
        # asserts run on both with --debug, the GPU reporting them as CUDA does.
        self.interp_only = interp_only or (expect_status == 2 and gpu_message is None)

    def holds_bf16(self, array):
        """Whether an output holds raw bf16 bits, to compare as values: every uint16 output of the
        stdlib's cases (the graph's bf16 templates) and of a case whose name says bf16. (As
        integers, bits are too loose a test where signs agree, 2% of the bits being a factor of
        4 in value, and too strict across zero.)"""
        return array.dtype == np.uint16 and ("bf16" in self.name or self.name.startswith("stdlib."))


def case(*a, **k):
    CASES.append(Case(*a, **k))


def generated(name, source):
    path = os.path.join(tempfile.gettempdir(), "tk-conformance-%d" % os.getpid(), name + ".tk")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(source)
    return path


def chosen(args, name):
    """Whether -k selects the case `name`: it contains one of the filter's comma-separated texts."""
    texts = [text.strip() for text in args.filter.split(",") if text.strip()] or [""]
    return any(text in name for text in texts)


# The tensor cores sum FP8 products with ~14 bits (as cuBLASLt's fast accumulation, DeepSeek-V3
# measured the same): on the H200 an output of the stdlib's fp8_matmul.tma inputs' partial sums
# (|c| 13.5 on average, up to 167) came out 0.022 from float64's, the same in every tiling and split.
FP8_FAST_ACCUM_TOL = (2e-2, 0.15)
# The interpreter's f32 sum against float64's, both rounded to bf16: f32's error, far below a
# bf16 ulp, can tip a rounding by one ulp (2^-7 of the value at most), and a little more near zero.
BF16_ULP_TOL = (2.0 ** -7, 1e-4)

N = 1000  # not a multiple of the block: every elementwise case has a masked tail
