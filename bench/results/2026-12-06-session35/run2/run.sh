#!/usr/bin/env bash
# Session 35, run 2: decode attention merged by each head's last split (63aeff6) and the
# batch-1 gate/up projections paired in one fp8_gemv_row launch (bb8cb2b, mended in 301054c) on the GPU: their
# conformance cases on CUDA against the interpreter, then tk-llama's decode A/B, rounds
# interleaved: base b99dd6f (.pack/base-b99dd6f.tar.xz, .pack/stdlib-base by `git archive
# b99dd6f stdlib`) and both changes at 301054c (.pack/tk-gpu.tar.xz, the tree's stdlib). (A third
# variant, 63aeff6 alone, did not fit the 64 MiB a call ships.) (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
mkdir -p /tmp/tk-base && tar -xJf .pack/base-b99dd6f.tar.xz -C /tmp/tk-base
timeout 60 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 8 -k decode_attention > $out/conformance.txt 2>&1
timeout 60 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 8 -k fp8_gemv_row >> $out/conformance.txt 2>&1
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
timeout 330 python3 bench/llm_ab.py 2 fp8b1,fp8b8 base=/tmp/tk-base/tk/bin/tk-llama:.pack/stdlib-base \
  both=/tmp/tkgpu/tk/bin/tk-llama:stdlib 2>&1 \
  | grep -v "Writing model" | tee $out/ab.txt
