# Sourced by a GPU run script on the device machine, from the repository root with $OUT set:
# unpacks .pack/tk-gpu.tar.xz (tools/gpu-check --bench), records the date, the pack's commit and
# the GPU in $OUT/machine.txt, and sets $tkc, LD_LIBRARY_PATH and TK_STDLIB_DIR.
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } | tee $OUT/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
export TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
# The operands of fp8_matmul_persistent per row and column at M N K, for `tkc run` (the
# workspace and counters of STREAM_K for tiles of up to 128x256 on up to 264 programs).
fp8_args() { local M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M
  scale_b=rand:f32:$N bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 workspace=zeros:f32:$((264 * 128 * 256))
  counters=zeros:i32:$(( (M / 64 + 1) * (N / 64 + 1) )) M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
# One timing line of fp8_matmul_persistent per row and column, 128x128x128 tiles of 4 warps,
# by `tkc run --time 200` (fp8_persistent_time, below): fp8_time M N K STAGES WS TAIL. The grid is
# the 132 multiprocessors of the H100 SXM and H200 the device tool lends (two programs each with ws 3).
fp8_time() {
  fp8_persistent_time $1 $2 $3 $(( $5 == 3 ? 264 : 132 )) -D BM=128 -D BN=128 -D num_stages=$4 -D num_warps=4 \
    -D warp_specialize=$5 -D TAIL_SPLIT=$6
}
# One timing line of KERNEL (fp8_matmul or fp8_matmul_persistent) at M N K on GRID programs with
# the -D constants given, by `tkc run --time 200` (of $FP8_SOURCE when set, a copy of the stdlib's
# file), per row and column unless $FP8_SCALE_MODE says otherwise:
# fp8_kernel_time KERNEL M N K GRID -D NAME=VALUE...
fp8_kernel_time() {
  local kernel=$1 M=$2 N=$3 K=$4 grid=$5; shift 5
  timeout 60 $tkc run ${FP8_SOURCE:-stdlib/std/fp8_matmul.tk} --kernel $kernel --backend=cuda \
    -D SCALE_MODE=${FP8_SCALE_MODE:-1} "$@" --grid $grid --time 200 $(fp8_args $M $N $K) 2>&1 | tail -1 \
    | sed "s/^kernel '$kernel'/$kernel ${M}x${N}x$K $* grid $grid/"
}
# fp8_kernel_time of fp8_matmul_persistent with k-steps of 128: fp8_persistent_time M N K GRID -D NAME=VALUE...
fp8_persistent_time() {
  local M=$1 N=$2 K=$3 grid=$4; shift 4
  fp8_kernel_time fp8_matmul_persistent $M $N $K $grid -D BK=128 "$@" | sed 's/^fp8_matmul_persistent \([0-9x]*\) -D BK=128 /\1 /'
}
# compute-sanitizer's summary line for fp8_matmul_persistent per row and column, 128x128x128 tiles of
# 4 warps in 6 stages with two programs a CTA: fp8_sanitize TOOL GRID M N K [-D ...].
fp8_sanitize() {
  local tool=$1 grid=$2 M=$3 N=$4 K=$5; shift 5
  timeout 90 compute-sanitizer --tool $tool $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent \
    --backend=cuda -D BM=128 -D BN=128 -D BK=128 -D num_stages=6 -D num_warps=4 -D warp_specialize=3 -D SCALE_MODE=1 \
    --grid $grid "$@" $(fp8_args $M $N $K) 2>&1 | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | sed "s/^/$tool ${M}x${N}x$K grid $grid $* : /"
}
# bench/run-all SECTION into $OUT/SECTION within LIMIT seconds, the SM clock, power and throttle
# reasons sampled every 100 ms into $OUT/clocks.csv; prints the section's rows and worst ratios:
# bench_with_clocks SECTION LIMIT [run-all OPTION...]
bench_with_clocks() {
  nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv,noheader -lms 100 > $OUT/clocks.csv &
  local sampler=$!
  OUT=$OUT/$1 timeout $2 bench/run-all "${@:3}" $1 > /dev/null 2>&1
  kill $sampler
  rm -f $OUT/$1/summary.md
  grep "^$1\|Worst\|failed\|took" $OUT/$1/log.txt | cut -c1-220
}
