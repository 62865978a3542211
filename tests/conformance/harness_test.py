#!/usr/bin/env python3
"""The conformance runner's own checks, with a stand-in for tkc (no GPU needed): at
`--backend cuda --arch sm_80` an FP8 case that the compiler refuses for that target ("needs
tensor cores that take FP8") is listed as for later targets, not failed (the H100 run of session
25 had reported five such cases as failures); at a target that has them, the same refusal fails."""
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


def run(tkc, arch):
    cmd = [sys.executable, os.path.join(HERE, "run.py"), "--tkc", tkc, "--backend", "cuda", "--arch", arch,
           "-k", "stdlib.fp8_matmul.mode0.f8e4m3.bf16"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def main():
    with tempfile.TemporaryDirectory(prefix="tk-harness-") as tmp:
        tkc = os.path.join(tmp, "tkc")
        with open(tkc, "w") as f:
            f.write(FAKE_TKC)
        os.chmod(tkc, stat.S_IRWXU)
        old, later = run(tkc, "sm_80"), run(tkc, "sm_90a")
    expected = "for targets after sm_80, not run (1): stdlib.fp8_matmul.mode0.f8e4m3.bf16"
    if old.returncode != 0 or expected not in old.stdout or "FAIL" in old.stdout:
        print("expected exit 0 and %r, got exit %d:\n%s%s" % (expected, old.returncode, old.stdout, old.stderr))
        return 1
    # The same refusal at a target that has FP8 tensor cores is the compiler's failure.
    if later.returncode == 0 or "FAIL stdlib.fp8_matmul.mode0.f8e4m3.bf16" not in later.stdout:
        print("expected the refusal at sm_90a to fail the case, got exit %d:\n%s%s" % (later.returncode, later.stdout,
                                                                                       later.stderr))
        return 1
    print("ok: an FP8 case below sm_89 is for later targets, not a failure; at sm_90a its refusal fails")
    return 0


if __name__ == "__main__":
    sys.exit(main())
