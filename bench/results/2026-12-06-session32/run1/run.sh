#!/usr/bin/env bash
# Session 32, run 1: session 31's next/run.sh unchanged (the clustered FP8 kernels with the wgmma
# wait on both paths, 3792b87, and each program its own copy on clusters, bc315cc: conformance
# -k cluster on CUDA, synccheck/racecheck of ws 3 on clusters, ws 1 s5 / ws 3 s6 with and without
# clusters at three shapes, two rounds). (run from the repository root with $OUT)
exec bash bench/results/2026-12-06-session31/next/run.sh
