"""Writes a copy of fp8_matmul.tk whose fp8_gemv_row tunes one config: force.py SRC DST BN BK WARPS."""
import re, sys
src, dst, bn, bk, warps = sys.argv[1:]
text = open(src).read()
head, tail = text.split("kernel fp8_gemv_row(", 1)
at = head.rindex("@autotune(")
one = "@autotune(key = [M, N, K], configs = [\n    { BN: %s, BK: %s, num_warps: %s },\n])\n" % (bn, bk, warps)
open(dst, "w").write(head[:at] + one + "kernel fp8_gemv_row(" + tail)
