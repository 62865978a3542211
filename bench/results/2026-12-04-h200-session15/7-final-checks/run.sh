#!/usr/bin/env bash
# Session 15 run 7: after the review's fixes (PTX 8.4 only for FP8 mma.sync modules, N % 16 for
# a 1-byte B as K rows of N), the tensor-core and FP8 cases on CUDA against the interpreter:
# the device's sm_90a, and every FP8 dot on mma.sync (--arch sm_90).
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin:${LD_LIBRARY_PATH:-} TK_STDLIB_DIR=$PWD/stdlib
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
conf() { python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda --compare-interp -j 12 "$@" 2>&1 | grep -v "^ok \|^not on\|^interpreter-only"; }
{ conf -k tensor_cores; conf -k fp8; conf -k decode; conf --arch sm_90 -k fp8; conf --arch sm_89 -k tensor_cores.f8; } | tee $out/conformance.txt
