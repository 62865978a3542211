#!/usr/bin/env bash
# Session 49, run 3 (pack by tools/gpu-check --bench; repository root, $OUT; carry .pack, which
# also holds stories260K.bin: llama2.c's trained 260K-parameter TinyStories model, blob
# 31d7cd1d04377d0f0a60f519aa1effd774c8eb57 of github.com/plctlab/rvspoc-s2311-llama2 at
# 2fa3f650cf1dc5a21e11c00a9c688be86947b061, sha256 9414d5a2...c8d6; about 3 minutes): FP8
# weights' accuracy on that trained model on the CUDA backend (bench/fp8_accuracy.py; its heads
# widened exactly from 8 to 32), beside session 48's interpreter run.
set -u
. bench/gpu-env.sh
export TK_CACHE_DIR=
timeout 400 python3 bench/fp8_accuracy.py --llama2c .pack/stories260K.bin --tk-llama /tmp/tkgpu/tk/bin/tk-llama \
  --backend cuda --new-tokens 100 --out $OUT/accuracy 2>&1 | tee $OUT/accuracy.txt
