#!/usr/bin/env bash
# Session 15 run 1: FP8 dots on mma.sync (sm_90a where wgmma does not fit; every FP8 dot with
# --arch sm_90 and sm_89) against the interpreter, fp8_matmul's SWAP_AB configs checked, then
# the fp8 section at M=32 with them.
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-} TK_STDLIB_DIR=$PWD/stdlib
tkc=/tmp/tkgpu/tk/bin/tkc
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
conf() { python3 tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 8 "$@"; }
{
  echo "== sm_90a (the device's): tensor_cores and fp8_matmul's TMA configs"
  conf -k tensor_cores; conf -k stdlib.fp8_matmul.tma
  echo "== --arch sm_90: every FP8 dot on mma.sync"
  conf --arch sm_90 -k fp8; conf --arch sm_90 -k tensor_cores.f8
  echo "== --arch sm_89"
  conf --arch sm_89 -k tensor_cores.f8; conf --arch sm_89 -k stdlib.fp8_matmul.mode
} 2>&1 | tee $out/conformance.txt | grep -v "^ok "
OUT=$out/bench timeout 400 bench/run-all --fp8-shapes 32x12288x4096,32x4096x4096,32x11008x4096,32x4096x11008 fp8 > /dev/null 2>&1
grep "^fp8\|Worst" $out/bench/log.txt
