#!/usr/bin/env bash
# Session 41, run 2. Run 1 found the committed split kernel (2048 programs, one block each) ahead
# of every pipelined form in the FP8 batch-1 step. Its 13.5 us a layer against 8 us of bytes is
# then fixed cost: can the cache's reads start before the kernel's wait? Session 38's run 2,
# with the split count besides (bench/llm_ab.py, two rounds interleaved, tk-llama --fp8 batch 1):
#  - attn_pf: decode_attention_split sends its split's cached rows to L2 before its gdc_wait;
#  - both: attn_pf, and rope calls gdc_launch_dependents before its own gdc_wait, so that the
#    attention's programs (and their prefetches) may start while the QKV GEMV still runs;
#  - splits34: the committed stdlib at 34 splits (at 2113 rows none without rows; 64 asks for 2048
#    programs of which 960 end at once).
# Then the decode step's table inside its CUDA graph (--profile: each kernel's cost, the step
# captured without it), and the `both` variant on CUDA against the interpreter.
# (run from the repository root with $OUT; carry .pack)
set -u
out=$OUT
. bench/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $out/machine.txt
eval "$(sed -n '/^attn_pf()/p;/^rope_early()/p' bench/results/2026-12-06-session38/run2/run.sh)"
mk() { rm -rf /tmp/sl-$1 && cp -r stdlib /tmp/sl-$1; }
mk attn_pf; attn_pf /tmp/sl-attn_pf
mk both; attn_pf /tmp/sl-both; rope_early /tmp/sl-both
for v in attn_pf both; do echo "== $v"; diff -r stdlib /tmp/sl-$v; done > $out/variants.txt
L=/tmp/tkgpu/tk/bin/tk-llama
timeout 240 python3 bench/llm_ab.py 2 fp8b1 base=$L:stdlib attn_pf=$L:/tmp/sl-attn_pf both=$L:/tmp/sl-both \
  "splits34=$L:stdlib:ARGS=--decode-splits 34" 2>&1 | grep -v "Writing model" > $out/ab-b1.txt
tail -3 $out/ab-b1.txt
PROFILE=1 timeout 120 python3 bench/llm_ab.py 1 "" base=$L:stdlib 2>&1 | grep -v "Writing model" > $out/profile-b1.txt
head -60 $out/profile-b1.txt
cp -r stdlib /tmp/stdlib-orig && rm -rf stdlib && cp -r /tmp/sl-both stdlib
timeout 45 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k decode_attention,rope > $out/conformance.txt 2>&1
rm -rf stdlib && cp -r /tmp/stdlib-orig stdlib
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
