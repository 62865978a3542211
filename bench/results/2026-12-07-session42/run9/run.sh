#!/usr/bin/env bash
# Session 42, run 9: the whole conformance suite on CUDA against the interpreter after the
# tk-tma-stores change of run 8 (any kernel with a plain store after a loop of TMA copies to
# the same matrix now keeps the copies). (repository root, $OUT; carry .pack)
set -u
. bench/gpu-env.sh
timeout 200 python3 -u tests/conformance/run.py --tkc $tkc --backend cuda --compare-interp -j 14 > $OUT/conformance.txt 2>&1
grep -E "conformance cases passed" $OUT/conformance.txt; grep "^FAIL" $OUT/conformance.txt | head
