#!/usr/bin/env bash
# Session 38, run 2: run 1 put 0.43 ms of the batch-1 FP8 step in decode attention (1.09 GB of
# cache at about 2.5 TB/s) and nothing in rope's or the combine's launches. Can the attention's
# cache reads start earlier? tk-llama --fp8 batch 1 (bench/llm_ab.py as in run 1), stdlib variants:
#  - attn_pf: decode_attention_split sends its split's cached rows (up to 128) to L2 before its
#    gdc_wait (a hint: L2 is coherent, so even the newest row, which rope writes, reads right);
#  - both: attn_pf, and rope calls gdc_launch_dependents before its gdc_wait, so that the attention's
#    programs may start while the QKV GEMV (rope's own wait) still runs; the attention's wait
#    still waits for rope's completion, which follows the GEMV's;
#    (the prefetch then overlapping the QKV GEMV's tail; rope so alone is not timed).
# Then decode_attention_split alone at the step's shape (32 heads, 2113 cached rows, 64 splits)
# in each config of its space but 1 warp (tkc run --time: per call with L2 flushed, and back to
# back), and the variants' decode attention and rope cases on CUDA against the interpreter.
# (run from the repository root with $OUT; carry .pack: tools/gpu-check --bench)
set -u
out=$OUT
. bench/gpu-env.sh
mk() { rm -rf /tmp/sl-$1 && cp -r stdlib /tmp/sl-$1; }
attn_pf() { perl -0pi -e 's/(const HEAD_DIM: i32 = 128, const BLOCK_N: i32, const T: dtype = bf16\) \{\n)(    gdc_wait\(\);)/$1    let pre_b = program_id(0) \/ n_heads;\n    let pre_kv = (program_id(0) % n_heads) \/ (n_heads \/ n_kv_heads);\n    let pre_len = minimum(load(lengths + pre_b), max_context);\n    let pre_per = cdiv(cdiv(pre_len, n_splits), BLOCK_N) * BLOCK_N;\n    let pre_first = program_id(1) * pre_per;\n    let pre_pos = pre_first + arange(0, 128);\n    let pre_ok = pre_pos < minimum(pre_first + pre_per, pre_len);\n    let pre_at = pre_b as i64 * max_context as i64 * (n_kv_heads * HEAD_DIM) + pre_kv * HEAD_DIM + pre_pos * (n_kv_heads * HEAD_DIM);\n    prefetch_l2(k_cache + pre_at, HEAD_DIM, mask = pre_ok);\n    prefetch_l2(v_cache + pre_at, HEAD_DIM, mask = pre_ok);\n$2/' $1/std/decode_attention.tk; }
rope_early() { perl -0pi -e 's/(    gdc_wait\(\); \/\/ [^\n]*\n)(    gdc_launch_dependents\(\);\n)/$2$1/' $1/std/rope.tk; }
mk attn_pf; attn_pf /tmp/sl-attn_pf
mk both; attn_pf /tmp/sl-both; rope_early /tmp/sl-both
for v in attn_pf both; do echo "== $v"; diff -r stdlib /tmp/sl-$v; done | tee $out/variants.txt
L=/tmp/tkgpu/tk/bin/tk-llama
timeout 190 python3 bench/llm_ab.py 2 fp8b1 base=$L:stdlib attn_pf=$L:/tmp/sl-attn_pf both=$L:/tmp/sl-both 2>&1 | grep -v "Writing model" | tee $out/ab-b1.txt
python3 -c "import numpy as np; np.save('/tmp/lengths.npy', np.array([2113], np.int32))"
for bn in 32 64 128; do for w in 2 4 8; do
  timeout 20 $tkc run stdlib/std/decode_attention.tk --kernel decode_attention_split --backend=cuda -D BLOCK_N=$bn -D num_warps=$w \
    --grid 32,64 --time 100 q=rand:bf16:1x4096 k_cache=rand:bf16:2113x4096 v_cache=rand:bf16:2113x4096 lengths=@/tmp/lengths.npy \
    partial_o=zeros:f32:2048x128 partial_ml=zeros:f32:2048x2 n_heads=32 n_kv_heads=32 max_context=2113 n_splits=64 \
    scale=0.0884 q_stride=4096 q_col=0 2>&1 | tail -1 | sed "s/^/BLOCK_N $bn warps $w: /"
done; done | tee $out/split-alone.txt
# (the conformance suite reads stdlib/ of the tree)
cp -r stdlib /tmp/stdlib-orig && rm -rf stdlib && cp -r /tmp/sl-both stdlib
timeout 45 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k decode_attention,rope > $out/conformance.txt 2>&1
rm -rf stdlib && cp -r /tmp/stdlib-orig stdlib
grep "conformance cases" $out/conformance.txt; grep -v "^ok" $out/conformance.txt | grep -v "conformance cases" | head -5
