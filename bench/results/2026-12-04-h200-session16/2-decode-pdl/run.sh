#!/usr/bin/env bash
# Session 16 run 2: where programmatic dependent launch pays in a batch-1 FP8 decode step.
# Variants (stdlib copies in .pack/, made from 1c636ee's by moving or removing lines):
#   cur        the committed stdlib: every decode kernel a dependent, gdc_launch_dependents at its start
#   late       every decode kernel's gdc_launch_dependents moved to its end (after its stores)
#   lategemv   only fp8_gemv_row's moved to its end
#   plaingemv  fp8_gemv_row launched plainly (no gdc_wait, no prefetch); the others dependents
#   plain      the committed stdlib under TK_DEPENDENT_LAUNCH=0 (no kernel a dependent)
out=$OUT
mkdir -p /tmp/tkgpu && tar -xJf .pack/tk-gpu.tar.xz -C /tmp/tkgpu
{ date -u; cat /tmp/tkgpu/tk/commit; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } | tee $out/machine.txt
for v in late lategemv plaingemv; do cp -r .pack/stdlib_$v $out/; done
x=/tmp/tkgpu/tk/bin/tk-llama
timeout 570 python3 bench/llm_ab.py 2 fp8b1 cur=$x:stdlib late=$x:.pack/stdlib_late lategemv=$x:.pack/stdlib_lategemv \
  plaingemv=$x:.pack/stdlib_plaingemv plain=$x:stdlib:TK_DEPENDENT_LAUNCH=0 2>&1 | grep -v "Writing model" | tee $out/ab.txt
