#!/usr/bin/env bash
# Session 27, run 2: where the per-row/column FP8 GEMM's cycles go at 8192x8192x4096, tk against
# the peer. Nsight Compute (--set full, its default base clocks) on one launch each of tk's
# 128x128 with a producer (ws 1, 5 stages), two programs a CTA (ws 3), ws 1 on clusters of 2 and cuBLASLt's kernel
# behind torch._scaled_mm(use_fast_accum=True); each report's details and its SASS with warp
# stall samples. Then timings of knobs that need no new code: 6 stages, GROUP_M 16 and 4.
# (pack eda5bbd; run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
args() { M=$1 N=$2 K=$3; echo "a=rand:f8e4m3:${M}x$K b=rand:f8e4m3:${N}x$K c=zeros:bf16:${M}x$N scale_a=rand:f32:$M scale_b=rand:f32:$N
  bias=zeros:bf16:1 residual=zeros:bf16:1 mul=zeros:bf16:1 M=$M N=$N K=$K lda=$K ldb=$K ldc=$N ldr=$N ldm=$N"; }
rep=/tmp/reps; mkdir -p $rep
for v in "1 1" "3 1" "1 2"; do
  set -- $v; ws=$1 cl=$2
  progs=$([ $ws = 1 ] && echo 132 || echo 264)
  TK_CACHE_DIR=$(mktemp -d) timeout 120 ncu --set full --import-source no -k regex:fp8_matmul --launch-count 1 -o $rep/ws$ws-cl$cl -f \
    $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent -D BM=128 -D BN=128 -D BK=128 -D num_stages=5 \
    -D num_warps=4 -D warp_specialize=$ws -D cluster_size=$cl -D SCALE_MODE=1 --grid $progs $(args 8192 8192 4096) > /dev/null 2>&1
done
cat > /tmp/peer.py <<'PY'
import torch
m = n = 8192; k = 4096
a = (torch.randn(m, k, device="cuda") * 0.5).to(torch.float8_e4m3fn)
b = (torch.randn(n, k, device="cuda") * 0.5).to(torch.float8_e4m3fn)
sa = (torch.rand(m, device="cuda") + 0.5)[:, None].contiguous(); sb = (torch.rand(n, device="cuda") + 0.5)[None, :].contiguous()
for _ in range(3):
    torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=True)
torch.cuda.synchronize()
PY
timeout 120 ncu --set full --import-source no -k regex:nvjet --launch-count 1 -o $rep/nvjet -f python3 /tmp/peer.py > /dev/null 2>&1
for r in ws1-cl1 ws3-cl1 ws1-cl2 nvjet; do
  ncu --import $rep/$r.ncu-rep --page details --print-details all > $out/$r-details.txt 2>&1
  ncu --import $rep/$r.ncu-rep --page source --csv --print-source sass > $rep/$r-sass.csv 2>&1
done
tar -C $rep -cJf $out/sass.tar.xz $(cd $rep && ls *-sass.csv)
grep -E "^  [a-z_0-9]+|Duration|Elapsed Cycles|SM Frequency|Registers Per|Compute \(SM\) Throughput|Memory Throughput|L2 Hit|Stall|Issue Slots Busy|Executed Ipc A|Dynamic Shared|Block Size|Grid Size|Cluster" $out/ws1-cl1-details.txt | head -30
for r in ws3-cl1 ws1-cl2 nvjet; do echo "== $r"; grep -E "Duration|Elapsed Cycles|Compute \(SM\) Throughput|L2 Hit|Issue Slots Busy|Grid Size|Cluster Size" $out/$r-details.txt | head -12; done
for cfg in "128 128 6 4 1 8" "128 128 5 4 1 16" "128 128 5 4 1 4" "128 128 5 4 1 8"; do
  set -- $cfg
  echo "-- 8192 BM=$1 BN=$2 stages=$3 ws=$5 GROUP_M=$6"
  timeout 30 $tkc run stdlib/std/fp8_matmul.tk --kernel fp8_matmul_persistent --backend=cuda -D BM=$1 -D BN=$2 -D BK=128 \
    -D num_stages=$3 -D num_warps=$4 -D warp_specialize=$5 -D GROUP_M=$6 -D SCALE_MODE=1 --grid 132 --time 200 \
    $(args 8192 8192 4096) 2>&1 | tail -1
done 2>&1 | tee $out/timing.txt
