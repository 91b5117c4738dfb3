#!/usr/bin/env bash
# The engine against the yardsticks, in one run: endstop-batch (as drawn, --reduce off, and reduced,
# the default, written out as --reduce on), the hand-reduced IDA program with fast vector kernels
# (the "floor") and SciPy's LSODA on the benchmark models c, b1000 and b10000: whole-process wall
# time and peak memory (/usr/bin/time), medians of REPS runs (default 3; b10000 once unless
# B10000_REPS is set), ratios to the floor.
# Then the smooth stop law's figures on model d (restarts per event, steps against full_damped).
# YARDSTICKS: the directory holding ida_floor.c and peer_scipy.py (default ../shared/yardsticks).
# Absolute times from different runs mean nothing on a shared machine: read the ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
YS="${YARDSTICKS:-../shared/yardsticks}"
REPS="${REPS:-3}"
if [ ! -f "$YS/ida_floor.c" ]; then
    echo "bench/yardsticks.sh: no ida_floor.c in $YS (set YARDSTICKS)" >&2
    exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$YS"/* "$work/"
make -s -C "$work" ida_floor >/dev/null
tools/build.sh >/dev/null
build/bench/endstop-bench-models "$work/models" >/dev/null
PY="$(command -v /usr/bin/python3 || command -v python3)"
have_scipy=0
"$PY" -c "import scipy" 2>/dev/null && have_scipy=1
[ "$have_scipy" = 1 ] || echo "bench/yardsticks.sh: no SciPy for $PY, the LSODA rows are left out (apt-get install python3-scipy)" >&2

# median "wall_s peak_MB" of a command run n times
measure() {
    local n="$1"; shift
    for _ in $(seq "$n"); do
        local start="$EPOCHREALTIME"   # microseconds: /usr/bin/time's %e has 10 ms steps
        /usr/bin/time -f "%M" -o "$work/t" "$@" >/dev/null 2>&1 || { echo "nan nan"; return; }
        echo "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {print b - a}') $(cat "$work/t")"
    done | sort -n | awk '{w[NR]=$1; m[NR]=$2} END {i=int((NR+1)/2); printf "%.4f %.1f\n", w[i], m[i]/1024}'
}

printf "%-8s %-22s %9s %9s %12s\n" model engine wall_s peak_MB "t/t(floor)"
declare -A reduced   # model -> wall time with --reduce on (the stretch line)
declare -A floor     # model -> the floor's wall time
for spec in "c 1" "b 1000" "b 10000"; do
    set -- $spec
    model="$1"; N="$2"
    name="$model"; [ "$model" = b ] && name="b$N"
    n="$REPS"; [ "$name" = b10000 ] && n="${B10000_REPS:-1}"
    read -r wf mf < <(measure "$n" "$work/ida_floor" --model "$model" --N "$N" --nvec fast)
    rows=("IDA floor (fast)|$wf|$mf")
    read -r w m < <(measure "$n" build/app/endstop-batch run "$work/models/$name.endstop" --reduce off)
    rows+=("endstop, as drawn|$w|$m")
    read -r w m < <(measure "$n" build/app/endstop-batch run "$work/models/$name.endstop" --reduce on)
    rows+=("endstop --reduce on|$w|$m")
    reduced[$name]="$w"
    floor[$name]="$wf"
    if [ "$have_scipy" = 1 ] && [ "$model" = b ]; then
        read -r w m < <(measure "$n" "$PY" "$work/peer_scipy.py" --model b --N "$N" --solver LSODA)
        rows+=("SciPy LSODA|$w|$m")
    fi
    for r in "${rows[@]}"; do
        IFS='|' read -r engine w m <<<"$r"
        printf "%-8s %-22s %9s %9s %12s\n" "$name" "$engine" "$w" "$m" "$(awk -v a="$w" -v b="$wf" 'BEGIN {printf (b > 0 ? "%.2f" : "-"), a / b}')"
    done
done
# b with every block a little different (bench/models.hpp, modelBVaried), as in a real model where
# no two blocks share an object: against the floor's time for b of the same size (its work does
# not follow the values)
for N in 1000 10000; do
    n="$REPS"; [ "$N" = 10000 ] && n="${B10000_REPS:-1}"
    read -r w m < <(measure "$n" build/app/endstop-batch run "$work/models/b${N}_varied.endstop" --reduce on)
    printf "%-8s %-22s %9s %9s %12s\n" "b$N" "varied, --reduce on" "$w" "$m" \
        "$(awk -v a="$w" -v b="${floor[b$N]}" 'BEGIN {printf (b > 0 ? "%.2f" : "-"), a / b}')"
done
echo "(whole process; medians of $REPS runs, b10000 of ${B10000_REPS:-1}; unknowns: endstop-batch run MODEL --stats)"
echo "stretch, --reduce on: t(b10000) / t(b1000) = $(awk -v a="${reduced[b10000]}" -v b="${reduced[b1000]}" 'BEGIN {printf "%.1f", a / b}') (target: at most 5)"

# The smooth stop law's targets on model d (a gear train with ten backlash stops): restarts per
# logged event, and its steps against the same train with full_damped stops.
echo
printf "%-16s %-10s %8s %8s %9s %12s %15s %14s\n" model engine steps events restarts stepped_over restarts/event "steps/full_damped"
for reduce in off on; do
    fd=""
    for law in full_damped smooth; do
        stats="$(build/app/endstop-batch run "$work/models/d_$law.endstop" --reduce "$reduce" --stats 2>/dev/null | tail -1)"
        read -r steps events restarts over < <("$PY" -c 'import json,sys; s=json.loads(sys.argv[1]); print(s["steps"], s["events"], s["restarts"], s["stepped_over"])' "$stats")
        [ "$law" = full_damped ] && fd="$steps"
        printf "%-16s %-10s %8s %8s %9s %12s %15s %14s\n" "d_$law" "reduce $reduce" "$steps" "$events" "$restarts" "$over" \
            "$(awk -v r="$restarts" -v e="$events" 'BEGIN {printf "%.2f", r / e}')" \
            "$(awk -v a="$steps" -v b="$fd" 'BEGIN {printf "%.2f", a / b}')"
    done
done
