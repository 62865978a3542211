#!/usr/bin/env bash
# Session 23 run 6, at 79d4a97: TMA stores staged by stmatrix.x4 (and in parts where a whole
# tile does not fit). First the conformance cases with TMA stores (names with tma_store or
# persistent) on CUDA against the interpreter and racecheck on a warp-specialized TMA-store kernel; then `bench/run-all fp8` with per call
# timed again with the contenders interleaved (76bf1aa: one run of each a round, the order
# rotated; the block medians kept as per_call_block_ms), the clocks sampled beside it as in
# run 3. Pack: tools/gpu-check --bench at 79d4a97; carry .pack.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
tkc=/tmp/tkgpu/tk/bin/tkc
for filter in tma_store persistent; do
  TK_STDLIB_DIR=$PWD/stdlib timeout 60 python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 \
    -k $filter 2>&1 | grep -v "^ok "
done | tee $out/conformance.txt
for tool in racecheck; do
  echo "-- $tool tma_store_waves warp_specialize=1 M=200 N=136 K=96 on 5 programs"
  timeout 25 compute-sanitizer --tool $tool --error-exitcode 9 $tkc run tests/conformance/kernels/tensor_cores.tk \
    --kernel tma_store_waves -D num_warps=4 -D num_stages=4 -D warp_specialize=1 --backend=cuda --grid 5 \
    a=rand:f16:200x96 b=rand:f16:96x136 c=zeros:f16:200x136 M=200 N=136 K=96 2>&1 | tail -1
done 2>&1 | tee $out/sanitizer.txt
date -u
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader -lms 100 > $out/clocks.csv &
sampler=$!
OUT=$out/fp8 timeout 250 bench/run-all fp8 > /dev/null 2>&1
kill $sampler
grep "^fp8\|Worst\|failed\|^==" $out/fp8/log.txt | cut -c1-260
