#!/usr/bin/env bash
# The benchmark suite: builds, generates the models a, b10..b10000, c, d, e as project files and
# runs a, c, b10..b10000 and e (a spring's law as a polynomial and as a 40,000-point table, its
# breakpoints located or stepped through) each
# through `endstop-batch run --stats`, printing medians (REPS runs, default 5; 3 for b10000).
# Then bench/yardsticks.sh: the hand-written IDA program built from YARDSTICKS (default
# ../shared/yardsticks) and SciPy's LSODA (python3-scipy, installed if missing) in the same run,
# and the table of ratios to them.
# Also: build/bench/bench_eval (Qt benchmark of residual and Jacobian evaluation alone).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh python3-scipy
tools/build.sh >/dev/null
build/bench/endstop-bench-models build/bench/models
build/bench/endstop-bench-run build/app/endstop-batch build/bench/models "${REPS:-5}"
bench/yardsticks.sh
