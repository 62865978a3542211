#!/usr/bin/env bash
# Session 18 run 8: the whole conformance suite on CUDA against the interpreter at the final code
# (695e7e5: baseArgument through loop yields, recomputed broadcast elements cached per slot,
# tkg.rereadable).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-}
TK_STDLIB_DIR=$PWD/stdlib timeout 280 python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda --compare-interp -j 14 2>&1 \
  | grep -v "^ok " | tee $out/conformance.txt
