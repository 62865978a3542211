#!/usr/bin/env bash
# Nsight Compute on tk's matmul, one launch per config (M = N = K = 4096, f16): the sections
# that explain a gap to Triton (throughput, warp stalls, shared-memory bank conflicts).
#   bench/profile_matmul.sh TKC OUTDIR "BM BN BK WARPS STAGES" ...     (GPU machine)
set -euo pipefail
tkc=$1 out=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
python3 -c "import numpy as np; r=np.random.default_rng(0); [np.save('$out/%s.npy' % n, r.standard_normal((4096, 4096)).astype(np.float16)) for n in 'ab']"
for config in "$@"; do
  set -- $config
  name="bm$1-bn$2-bk$3-w$4-s$5"
  ncu --set full --launch-count 1 -k matmul --print-details all "$tkc" run "$root/examples/matmul.tk" --kernel matmul \
    --grid "cdiv(M, BM) * cdiv(N, BN)" --backend=cuda -D BM=$1 -D BN=$2 -D BK=$3 -D num_warps=$4 -D num_stages=$5 \
    a=@"$out/a.npy" b=@"$out/b.npy" c=zeros:f16:4096x4096 M=4096 N=4096 K=4096 lda=4096 ldb=4096 ldc=4096 \
    > "$out/$name.txt" 2>&1 || true
  echo "== $name"
  grep -E "Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|Bank Conflicts|Stall|Issue Slots Busy|Executed Ipc A|Shared Memory Configuration Size|Dynamic Shared" "$out/$name.txt" | head -40 || true
done
