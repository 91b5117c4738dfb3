#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs per second for a small model (resources/examples/mass_spring_damper.endstop, 2 s, about 500
# steps), the same N runs four ways on this machine, in one go so that the numbers compare:
#   1. endstop-batch sweep --summary-only --jobs 1 (in process, one thread)
#   2. a shell loop of separate `endstop-batch run` processes (each starts, loads, runs)
#   3. the Python module, a loop of m.run() (one thread)
#   4. the Python module, m.sweep(jobs=2) (two threads, the GIL released)
# and, for scale, endstop-batch sweep --jobs 2. Usage: bench/study_rate.sh [N] (default 400).
# Needs the build (tools/build.sh) and Debian's python3 with numpy (tools/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-400}
batch=build/app/endstop-batch
model=resources/examples/mass_spring_damper.endstop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
rate() { awk -v n="$n" -v a="$1" -v b="$2" 'BEGIN { printf "%10.1f", n / (b - a) }'; }

row() { printf '%-46s %s runs/s\n' "$1" "$2"; }
t0=$(now); "$batch" sweep "$model" --vary mass1.mass=1:3:"$n" --summary-only --jobs 1 --out "$tmp/s1" >/dev/null; t1=$(now)
sweep1=$(rate "$t0" "$t1")
t0=$(now); "$batch" sweep "$model" --vary mass1.mass=1:3:"$n" --summary-only --jobs 2 --out "$tmp/s2" >/dev/null; t1=$(now)
sweep2=$(rate "$t0" "$t1")
t0=$(now)
for i in $(seq 1 "$n"); do "$batch" run "$model" --set "mass1.mass=$(awk -v i="$i" -v n="$n" 'BEGIN { print 1 + 2 * (i - 1) / (n - 1) }')" >/dev/null; done
t1=$(now)
procs=$(rate "$t0" "$t1")
read -r py1 py2 < <(PYTHONPATH=build/python /usr/bin/python3 - "$model" "$n" <<'PY'
import sys, time
import endstop
path, n = sys.argv[1], int(sys.argv[2])
m = endstop.load(path)
sets = [{"mass1.mass": 1 + 2 * i / (n - 1)} for i in range(n)]
t = time.perf_counter()
for s in sets:
    m.run(set=s)
serial = n / (time.perf_counter() - t)
t = time.perf_counter()
m.sweep(sets, jobs=2)
threads = n / (time.perf_counter() - t)
print(f"{serial:.1f} {threads:.1f}")
PY
)
echo "runs per second, $n runs of $model ($(nproc) cores)"
row "endstop-batch sweep --jobs 1 (in process)" "$sweep1"
row "separate endstop-batch run processes" "$procs"
row "Python module, m.run() in a loop" "$(printf '%10.1f' "$py1")"
row "Python module, m.sweep(jobs=2)" "$(printf '%10.1f' "$py2")"
row "endstop-batch sweep --jobs 2" "$sweep2"
awk -v a="$sweep1" -v b="$procs" -v c="$py1" 'BEGIN { printf "in-process sweep / separate processes: %.1fx; Python loop / separate processes: %.1fx\n", a / b, c / b }'
