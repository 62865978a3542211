#!/usr/bin/env bash
# Session 37, run 2: the GEMVs' weights evicted from L2 first, as committed (fp8_gemv_row's and
# fp8_gemv's weight loads `evict = "first"`):
#  1. fp8_gemv's and fp8_gemv_row's conformance cases on CUDA against the interpreter;
#  2. tk-llama --fp8 batch 1 decode A/B, two rounds interleaved: base (the committed stdlib
#     without the two hints, by perl) against ef (the committed stdlib);
#  3. bench/run-all --llm-without-peers llm (the decode numbers of record).
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 45 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_gemv > $out/conformance.txt 2>&1
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
rm -rf /tmp/sl-base && cp -r stdlib /tmp/sl-base
perl -0pi -e 's/other = 0\.0,\n\s*evict = "first"\) as f32;/other = 0.0) as f32;/; s/other = 0\.0,\n\s*evict = "first"\); \/\/ \(read once[^\n]*/other = 0.0);/' /tmp/sl-base/std/fp8_matmul.tk
diff stdlib/std/fp8_matmul.tk /tmp/sl-base/std/fp8_matmul.tk > $out/variants.txt
L=/tmp/tkgpu/tk/bin/tk-llama
timeout 150 python3 bench/llm_ab.py 2 fp8b1 base=$L:/tmp/sl-base ef=$L:stdlib 2>&1 | grep -v "Writing model" | tee $out/ab-b1.txt
OUT=$out/llm timeout 380 bench/run-all --llm-without-peers llm > $out/log.txt 2>&1
echo "run-all exit $?"
grep "llm:\|took" $out/log.txt | cut -c1-240
rm -f $out/llm/log.txt
