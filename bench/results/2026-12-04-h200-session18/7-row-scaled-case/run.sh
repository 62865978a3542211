#!/usr/bin/env bash
# Session 18 run 7: the tensor-core conformance cases on CUDA against the interpreter, with the
# new tensor_cores.row_scaled_loop (row factors reread by each thread every k-step).
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu && export LD_LIBRARY_PATH=/tmp/tkgpu/tk/bin && TK_STDLIB_DIR=$PWD/stdlib python3 tests/conformance/run.py --tkc /tmp/tkgpu/tk/bin/tkc --backend cuda --compare-interp -j 14 -k tensor_cores 2>&1 | tail -4 | tee $OUT/conformance-tensor-cores.txt
