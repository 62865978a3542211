#!/usr/bin/env bash
# Session 37, run 2: the GEMVs' weights evicted from L2 first, as committed (fp8_gemv_row's and
# fp8_gemv's weight loads `evict = "first"`), on CUDA against the interpreter, then in the step:
#   base   the committed stdlib without the two hints (sed)
#   ef     the committed stdlib
#   ef_p0  ef without the weight prefetch before gdc_wait (PREFETCH_STEPS 0)
# tk-llama --fp8 decode A/B, two rounds interleaved: batch 1 all three, batch 8 base and ef.
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 60 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 12 -k fp8_gemv > $out/conformance.txt 2>&1
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
mk() { rm -rf /tmp/sl-$1 && cp -r stdlib /tmp/sl-$1; }
mk base; perl -0pi -e 's/other = 0\.0,\n\s*evict = "first"\) as f32;/other = 0.0) as f32;/; s/other = 0\.0,\n\s*evict = "first"\); \/\/ \(read once[^\n]*/other = 0.0);/' /tmp/sl-base/std/fp8_matmul.tk
mk ef_p0; sed -i 's|const PREFETCH_STEPS: i32 = 1|const PREFETCH_STEPS: i32 = 0|' /tmp/sl-ef_p0/std/fp8_matmul.tk
{ diff stdlib/std/fp8_matmul.tk /tmp/sl-base/std/fp8_matmul.tk; diff stdlib/std/fp8_matmul.tk /tmp/sl-ef_p0/std/fp8_matmul.tk; } > $out/variants.txt
$tkc check /tmp/sl-base/std/fp8_matmul.tk && $tkc check /tmp/sl-ef_p0/std/fp8_matmul.tk && echo "variants check"
L=/tmp/tkgpu/tk/bin/tk-llama
timeout 260 python3 bench/llm_ab.py 2 fp8b1 base=$L:/tmp/sl-base ef=$L:stdlib ef_p0=$L:/tmp/sl-ef_p0 2>&1 | grep -v "Writing model" | tee $out/ab-b1.txt
timeout 220 python3 bench/llm_ab.py 2 fp8b8 base=$L:/tmp/sl-base ef=$L:stdlib 2>&1 | grep -v "Writing model" | tee $out/ab-b8.txt
