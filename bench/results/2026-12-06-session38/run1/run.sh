#!/usr/bin/env bash
# Session 38, run 1: where a batch-1 FP8 decode step's time goes beyond its GEMVs, and a try.
# tk-llama --fp8 batch 1 (bench/llm_ab.py, LLaMA-7B-shaped random model, 2048-token prompt, 65
# new tokens), one build, rounds interleaved:
#  - base: the pack (d1112d3);
#  - no_rope / no_combine / no_attn: an experiment build of libtkc-graph (experiment.patch, not
#    committed: the environment's TK_ABLATE names step kinds that are not launched) without the
#    rope launches, the combine launches, or both decode attention launches: what each costs in
#    the step, its launch and its wait included (the outputs are wrong; only the time counts);
#  - pf_o: the same build with TK_PF_OPROJ=1, which passes decode_attention_split the next
#    batch-1 GEMV's weight (the O projection's, 16.8 MB), and a stdlib variant (pf_o.pl) whose
#    programs each send a share of it to L2 first: the GEMV after the attention reads it from L2,
#    the attention's DRAM reads (about 2 TB/s) leaving room; pf_o_ef also reads K and V
#    evict = "first", so that they do not push the weight out of L2.
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench, then
# .pack/ablate/libtkc-graph.so.0.1 built with experiment.patch applied)
set -u
out=$OUT
. bench/gpu-env.sh
mk() { rm -rf /tmp/sl-$1 && cp -r stdlib /tmp/sl-$1; }
mk pf_o
perl -0pi bench/results/2026-12-06-session38/run1/pf_o.pl /tmp/sl-pf_o/std/decode_attention.tk
mk pf_o_ef
cp /tmp/sl-pf_o/std/decode_attention.tk /tmp/sl-pf_o_ef/std/
perl -0pi -e 's/(let kt = load\(k_cache [^;]*other = 0\.0)\)/$1, evict = "first")/; s/(let vt = load\(v_cache [^;]*other = 0\.0)\)/$1, evict = "first")/' /tmp/sl-pf_o_ef/std/decode_attention.tk
for v in pf_o pf_o_ef; do echo "== $v"; diff stdlib/std/decode_attention.tk /tmp/sl-$v/std/decode_attention.tk; done | tee $out/variants.txt
# Session 37's run 4's check: the committed L2 policy (one a hinted op, hoisted) on CUDA against
# the interpreter.
timeout 40 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_gemv_row,cache,rope > $out/conformance.txt 2>&1
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
L=/tmp/tkgpu/tk/bin/tk-llama
mkdir -p /tmp/abl && cp -a /tmp/tkgpu/tk/bin/. /tmp/abl/ && cp .pack/ablate/libtkc-graph.so.0.1 /tmp/abl/
A=/tmp/abl/tk-llama
timeout 525 python3 bench/llm_ab.py 2 fp8b1 base=$L:stdlib pf_o=$A:/tmp/sl-pf_o:TK_PF_OPROJ=1 \
  pf_o_ef=$A:/tmp/sl-pf_o_ef:TK_PF_OPROJ=1 no_rope=$A:stdlib:TK_ABLATE=rope no_combine=$A:stdlib:TK_ABLATE=combine \
  no_attn=$A:stdlib:TK_ABLATE=split,combine 2>&1 | grep -v "Writing model" | tee $out/ab-b1.txt
