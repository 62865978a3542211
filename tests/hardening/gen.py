#!/usr/bin/env python3
"""Writes the large hostile inputs of check.sh (too large to keep in the repository; each is a
few lines of this file): gen.py KIND OUT."""
import sys

kind, out = sys.argv[1], sys.argv[2]
# (Each deeper than its limit and under the parser's 2^19 tokens, which refuse longer ones first.)
if kind == "sum":          # 210k terms: once (at 1M) a stack overflow in Sema
    text = "const X: i64 = " + "+".join(["1"] * 210_000) + ";\nkernel k(p: ptr<i64>) { store(p, X); }\n"
elif kind == "casts":      # 210k casts: once (at 300k) a stack overflow in the AST's destructor
    text = "kernel k(p: ptr<f32>) { store(p, 1.0" + " as f32" * 210_000 + "); }\n"
elif kind == "elseif":     # 30k `else if`: the same through statements
    text = "kernel k(p: ptr<i32>, n: i32) {\n if n == 0 { store(p, 0); }" + \
        "".join(" else if n == %d { store(p, %d); }" % (i, i) for i in range(1, 30_000)) + "\n}\n"
elif kind == "angles":     # ptr<ptr<...>> 100k deep: the parser recurses per level
    text = "kernel k(p: " + "ptr<" * 100_000 + "f32" + ">" * 100_000 + ") { }\n"
elif kind == "params":     # N parameters (gen.py params OUT N): 20,000 once took 6.2 GB for --emit=ptx
    n = int(sys.argv[3])
    text = "kernel k(" + ", ".join("p%d: ptr<f32>" % i for i in range(n)) + ") {\n" + \
        " store(p0 + arange(0, 16), load(p%d + arange(0, 16)));\n}\n" % (n - 1)
elif kind == "configs":    # 4096 configs of a body never checked: each config's copy once kept for free (3.4 GB)
    values = "[" + ", ".join(str(i) for i in range(64)) + "]"
    text = "@autotune(key = [], space = { A: %s, B: %s })\nkernel k(p: ptr<f32>, const A: i32, const B: i32) {\n" \
        " if false {\n%s }\n}\n" % (values, values, "  store(p, 1.0);\n" * 1000)
elif kind in ("longname", "longname-checked"):  # 2^20 copies of a long name: a token's text is copied too
    body = "for l in static_range(0, 0) { let %s = 1; }" % ("a" * 100_000) if kind == "longname" else \
        "let %s = i + j;" % ("a" * 10_000)  # (once 5.2 GB, and 812 MB checked)
    text = "kernel k(p: ptr<f32>) {\n    for i in static_range(0, 1024) { for j in static_range(0, 1024) { %s } }\n}\n" % body
elif kind == "commented":  # an unrolled body with 20 KB of comments, which its copies do not hold: it compiles
    text = "kernel k(p: ptr<f32>) {\n    for i in static_range(0, 1024) {\n%s        store(p + i, 1.0);\n    }\n}\n" % \
        ("        // %s\n" % ("c" * 100) * 200)
elif kind == "grid":       # a --grid expression of 10,000 terms
    text = "+".join(["1"] * 10_000)
else:
    sys.exit("unknown kind " + kind)
with open(out, "w") as f:
    f.write(text)
