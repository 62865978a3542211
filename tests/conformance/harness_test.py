#!/usr/bin/env python3
"""The conformance runner's own checks, with a stand-in for tkc (no GPU needed): at
`--backend cuda --arch sm_80` an FP8 case that the compiler refuses for that target ("needs
tensor cores that take FP8") is listed as for later targets, not failed (the H100 run of session
25 had reported five such cases as failures)."""
import os
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_TKC = """#!/bin/sh
echo "fp8_matmul.tk:59:17: error: an FP8 'tk.dot' needs tensor cores that take FP8: --arch=sm_89 or later" >&2
exit 1
"""


def main():
    with tempfile.TemporaryDirectory(prefix="tk-harness-") as tmp:
        tkc = os.path.join(tmp, "tkc")
        with open(tkc, "w") as f:
            f.write(FAKE_TKC)
        os.chmod(tkc, stat.S_IRWXU)
        cmd = [sys.executable, os.path.join(HERE, "run.py"), "--tkc", tkc, "--backend", "cuda", "--arch", "sm_80",
               "-k", "stdlib.fp8_matmul.mode0.f8e4m3.bf16"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    expected = "for targets after sm_80, not run (1): stdlib.fp8_matmul.mode0.f8e4m3.bf16"
    if proc.returncode != 0 or expected not in proc.stdout or "FAIL" in proc.stdout:
        print("expected exit 0 and %r, got exit %d:\n%s%s" % (expected, proc.returncode, proc.stdout, proc.stderr))
        return 1
    print("ok: an FP8 case below sm_89 is for later targets, not a failure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
