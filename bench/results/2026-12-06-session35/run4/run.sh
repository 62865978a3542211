#!/usr/bin/env bash
# Session 35, run 4 (pack of d3998a3): `bench/run-all --llm-without-peers llm` with session 34's
# bench/llm_generate.py (every row timed in a run of its own; never run on a GPU before).
# (run from the repository root with $OUT)
set -u
out=$OUT
. bench/gpu-env.sh
OUT=$out/llm timeout 370 bench/run-all --llm-without-peers llm > $out/log.txt 2>&1
echo "run-all exit $?"
grep "llm:\|took" $out/log.txt | cut -c1-240
rm -f $out/llm/log.txt
