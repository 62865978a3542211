#!/usr/bin/env python3
"""Session 33, runs 3 and 5: the tiny LLaMA of tests/llm/tiny_llama.py on CUDA, greedy on the
device (the default, also with --profile) and on the host (--greedy-on-host), against the numpy
model: each logits row's relative error, and the tokens. (Run 3 ran a first version: one cache
for every run, and an interpreter row.) Usage: tiny_paths.py TK_LLAMA"""
import os, subprocess, sys, tempfile
import numpy as np
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../tests/llm"))
import tiny_llama as t

exe = sys.argv[1]
w = t.weights(np.random.default_rng(0))
prompt, new = [5, 17, 42, 299, 0], 6
with tempfile.TemporaryDirectory() as tmp:
    folder = os.path.join(tmp, "single")
    t.write_folder(folder, w, 1)
    for name, backend, extra in (("cuda device", "cuda", []),
                                 ("cuda host", "cuda", ["--greedy-on-host"]), ("cuda device --profile", "cuda", ["--profile"])):
        path = os.path.join(tmp, "l.npy")
        # (Each with a cache of its own: run 3 shared one, and its later runs found kernels tuned.)
        env = dict(os.environ, TK_CACHE_DIR=tempfile.mkdtemp())
        r = subprocess.run([exe, folder, "--prompt", ",".join(map(str, prompt)), "--max-new-tokens", str(new),
                            "--backend", backend, "--save-logits", path] + extra, capture_output=True, text=True, env=env)
        if r.returncode:
            print(name, "failed", r.stderr[-500:])
            continue
        tokens = [int(x) for x in [l for l in r.stdout.splitlines() if l.startswith("tokens: ")][0][8:].split(",")]
        logits = np.load(path)
        ref = t.reference_logits(w, prompt + tokens[:-1])[len(prompt) - 1:]
        errs = [float(np.linalg.norm(a - b) / np.linalg.norm(b)) for a, b in zip(logits, ref)]
        print("%-24s tokens %s; row errors %s; argmax %s" % (name, tokens, " ".join("%.3g" % e for e in errs),
                                                           [int(np.argmax(x)) for x in logits]), flush=True)
