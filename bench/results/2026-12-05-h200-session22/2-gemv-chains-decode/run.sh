#!/usr/bin/env bash
# Session 22 run 2: session 21's prepared decode A/B, plain against --gemv-chains (its run.sh, as it is).
bash bench/results/2026-12-04-h200-session21/3-gemv-chains-decode/run.sh
