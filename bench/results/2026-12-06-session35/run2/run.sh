#!/usr/bin/env bash
# Session 35, run 2 (pack of the commit "Decode attention in one launch"; .pack/base-b99dd6f.tar.xz
# and .pack/stdlib-base: session 34's last commit, `git archive b99dd6f stdlib`): decode
# attention merged by each head's last split on the GPU: its conformance cases on CUDA against
# the interpreter, the tiny LLaMA on CUDA, then tk-llama's decode A/B against b99dd6f (two
# separate combine launches), rounds interleaved. (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
mkdir -p /tmp/tkbase && tar -xJf .pack/base-b99dd6f.tar.xz -C /tmp/tkbase
timeout 90 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 8 -k decode_attention > $out/conformance.txt 2>&1
tail -2 $out/conformance.txt; grep -v "^ok" $out/conformance.txt | head -5
TK_CACHE_DIR=$(mktemp -d) timeout 150 python3 tests/llm/tiny_llama.py --tk-llama /tmp/tkgpu/tk/bin/tk-llama --backend cuda \
  --skip-tokenizer > $out/llm-tiny.txt 2>&1; echo "tiny llama exit $?"; tail -2 $out/llm-tiny.txt | cut -c1-200
PROFILE=1 timeout 400 python3 bench/llm_ab.py 3 fp8b1 base=/tmp/tkbase/tk/bin/tk-llama:.pack/stdlib-base \
  merged=/tmp/tkgpu/tk/bin/tk-llama:stdlib 2>&1 | grep -v "Writing model" | tee $out/ab.txt
