#!/usr/bin/env bash
# Session 34, run 6 (pack of the commit in machine.txt): fp8_gemv_row's PRELOAD (each k-step
# loads the next one's weights before its products): its conformance cases on CUDA against the
# interpreter, `tkc run --time` of configs with and without it at the LLaMA-7B decode shapes
# (M = 1), and tk-llama --fp8 batch 1 with the tuning space that has the PRELOAD configs
# against the one without them (bench/llm_ab.py, rounds interleaved). (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
timeout 90 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 -k fp8_gemv_row > $out/conformance.txt 2>&1
tail -1 $out/conformance.txt
gemv_time() { # N K BN BK WARPS PRELOAD
  local N=$1 K=$2
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_gemv_row --backend=cuda -D BN=$3 -D BK=$4 -D num_warps=$5 -D PRELOAD=$6 \
    -D HAS_RESIDUAL=true --grid "cdiv($N, $3),1" --time 200 a=rand:bf16:1x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:1x$N \
    scale_b=rand:f32:$N bias=zeros:bf16:1 residual=zeros:bf16:$N mul=zeros:bf16:1 M=1 N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N \
    ldm=$N norm_x=zeros:bf16:1 norm_w=zeros:bf16:1 norm_out=zeros:bf16:1 2>&1 | tail -1 | sed "s/^kernel 'fp8_gemv_row'/${N}x$K BN$3 BK$4 w$5 preload=$6/"
}
for shape in "12288 4096" "4096 4096" "11008 4096" "4096 11008"; do
  for cfg in "8 1024 4 false" "4 2048 4 false" "16 1024 8 false" "8 2048 4 false" "8 512 4 false" \
             "8 1024 4 true" "4 2048 4 true" "16 1024 8 true" "4 1024 4 true"; do
    gemv_time $shape $cfg
  done
done 2>&1 | tee $out/gemv_times.txt
mkdir -p /tmp/stdlib-base && cp -r stdlib/. /tmp/stdlib-base/ && sed -i '/PRELOAD: true }/d' /tmp/stdlib-base/std/fp8_matmul.tk
grep -c "PRELOAD: true }" stdlib/std/fp8_matmul.tk /tmp/stdlib-base/std/fp8_matmul.tk
tkl=/tmp/tkgpu/tk/bin/tk-llama
timeout 330 python3 bench/llm_ab.py 3 fp8b1 base=$tkl:/tmp/stdlib-base preload=$tkl:stdlib 2>&1 | grep -v "Writing model" | tee $out/ab.txt
