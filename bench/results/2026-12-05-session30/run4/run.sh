#!/usr/bin/env bash
# Session 30, run 4: run 2 again (bench/run-all fp8 with clocks sampled) with the stdlib of
# 01f46bf, on whichever GPU comes. (run from the repository root with $OUT)
exec bash bench/results/2026-12-05-session30/run2/run.sh
