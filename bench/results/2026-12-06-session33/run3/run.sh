#!/usr/bin/env bash
# Session 33, run 3: why run 2's tiny LLaMA on CUDA failed (logits 0.969 from the numpy model):
# each path's logits rows against the numpy model (tiny_paths.py), and the greedy_advance
# conformance case on CUDA (run 2's timed out before it printed). (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
TK_CACHE_DIR=$(mktemp -d) timeout 200 python3 bench/results/2026-12-06-session33/run3/tiny_paths.py /tmp/tkgpu/tk/bin/tk-llama 2>&1 | tee $out/tiny-paths.txt
timeout 200 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k greedy > $out/conformance.txt 2>&1
echo "conformance exit $?"; tail -4 $out/conformance.txt
