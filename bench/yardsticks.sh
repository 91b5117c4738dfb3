#!/usr/bin/env bash
# The engine against the yardsticks, in one run: endstop-batch (as drawn, --reduce off, and reduced,
# the default, written out as --reduce on), the hand-reduced IDA program with fast vector kernels
# (the "floor") and SciPy's LSODA on the benchmark models c, b1000 and b10000: whole-process wall
# time and peak memory (/usr/bin/time). A model's commands run in turn, round by round (REPS
# rounds, default 3; C_REPS for c, default 31; b10000 once unless B10000_REPS is set): medians,
# and the median of each round's ratio to the floor. The stretch t(b10000) / t(b1000) alike, from
# STRETCH_REPS rounds of the two (default 9).
# Then the smooth stop law's figures on model d (restarts per event, steps against full_damped),
# beside a hand-written IDA program of the same gear train (bench/gear_floor.c).
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
# model d written by hand, built the way the floor is (its Makefile's libraries)
cc -O2 -Wall -Wextra -o "$work/gear_floor" bench/gear_floor.c -lsundials_ida -lsundials_nvecserial \
    -lsundials_sunlinsoldense -lsundials_sunmatrixdense -lsundials_generic -lm
tools/build.sh >/dev/null
build/bench/endstop-bench-models "$work/models" >/dev/null
PY="$(command -v /usr/bin/python3 || command -v python3)"
have_scipy=0
"$PY" -c "import scipy" 2>/dev/null && have_scipy=1
[ "$have_scipy" = 1 ] || echo "bench/yardsticks.sh: no SciPy for $PY, the LSODA rows are left out (apt-get install python3-scipy)" >&2

# The commands given ("label|command and arguments", split on blanks: no blanks in paths) run
# round by round, n rounds, each command once a round, so that a slow spell of this machine falls
# on all of them alike. Prints per command "label|wall_s|peak_MB|ratio": the median wall time and
# peak memory over the rounds, and the median over the rounds of its time divided by the first
# command's time in the same round (the first is the floor). A command that fails prints nan.
rounds() {
    local n="$1"; shift
    for r in $(seq "$n"); do
        local i=0
        for spec in "$@"; do
            local cmd="${spec#*|}"
            local start="$EPOCHREALTIME"   # microseconds: /usr/bin/time's %e has 10 ms steps
            # shellcheck disable=SC2086   # the command's words
            if /usr/bin/time -f "%M" -o "$work/t" $cmd >/dev/null 2>&1; then
                echo "$i $r $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {print b - a}') $(cat "$work/t")"
            else
                echo "$i $r nan nan"
            fi
            i=$((i + 1))
        done
    done >"$work/rounds"
    local labels=()
    for spec in "$@"; do labels+=("${spec%%|*}"); done
    "$PY" - "$work/rounds" "${labels[@]}" <<'PYEOF'
import math, statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
labels = sys.argv[2:]
wall = {}
peak = {}
for i, r, w, m in rows:
    wall.setdefault(int(i), {})[int(r)] = float(w)
    peak.setdefault(int(i), []).append(float(m))
def median(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.median(xs) if xs else float("nan")
for i, label in enumerate(labels):
    w = wall.get(i, {})
    ws, ms = list(w.values()), peak.get(i, [])
    failed = any(math.isnan(x) for x in ws)
    ratios = [w[r] / wall[0][r] for r in w if r in wall[0] and wall[0][r] > 0]
    fmt = lambda x, f: "nan" if failed or math.isnan(x) else f % x
    print("%s|%s|%s|%s" % (label, fmt(median(ws), "%.4f"), fmt(median(ms) / 1024, "%.1f"),
                           fmt(median(ratios) if ratios else float("nan"), "%.2f")))
PYEOF
}

printf "%-8s %-22s %9s %9s %12s\n" model engine wall_s peak_MB "t/t(floor)"
declare -A reduced   # model -> wall time with --reduce on (the stretch line)
for spec in "c 1" "b 1000" "b 10000"; do
    set -- $spec   # shellcheck disable=SC2086
    model="$1"; N="$2"
    name="$model"; [ "$model" = b ] && name="b$N"
    n="$REPS"; [ "$name" = c ] && n="${C_REPS:-31}"; [ "$name" = b10000 ] && n="${B10000_REPS:-1}"
    cmds=("IDA floor (fast)|$work/ida_floor --model $model --N $N --nvec fast"
          "endstop, as drawn|build/app/endstop-batch run $work/models/$name.endstop --reduce off"
          "endstop --reduce on|build/app/endstop-batch run $work/models/$name.endstop --reduce on")
    [ "$have_scipy" = 1 ] && [ "$model" = b ] && cmds+=("SciPy LSODA|$PY $work/peer_scipy.py --model b --N $N --solver LSODA")
    # b with every block a little different (bench/models.hpp, modelBVaried), as in a real model
    # where no two blocks share an object, beside the floor for b of the same size (its work does
    # not follow the values)
    [ "$model" = b ] && cmds+=("varied, --reduce on|build/app/endstop-batch run $work/models/${name}_varied.endstop --reduce on")
    while IFS='|' read -r engine w m ratio; do
        printf "%-8s %-22s %9s %9s %12s\n" "$name" "$engine" "$w" "$m" "$ratio"
        [ "$engine" = "endstop --reduce on" ] && reduced[$name]="$w"
    done < <(rounds "$n" "${cmds[@]}")
done
echo "(whole process; the commands of a model run in turn, round by round: medians of ${C_REPS:-31} rounds for c, $REPS for b1000, ${B10000_REPS:-1} for b10000;"
echo " t/t(floor) is the median of each round's ratio; unknowns: endstop-batch run MODEL --stats)"
# the stretch from the two in turn, round by round (STRETCH_REPS rounds, default 9): the median of
# each round's ratio, which a slow spell of the machine moves far less than the ratio of the
# medians above, taken minutes apart
stretch="$(rounds "${STRETCH_REPS:-9}" \
    "b1000|build/app/endstop-batch run $work/models/b1000.endstop --reduce on" \
    "b10000|build/app/endstop-batch run $work/models/b10000.endstop --reduce on" | awk -F'|' '$1 == "b10000" {print $4}')"
echo "stretch, --reduce on: t(b10000) / t(b1000) = $stretch, the median of ${STRETCH_REPS:-9} rounds of the two in turn (target: at most 5;"
echo " from the medians above: $(awk -v a="${reduced[b10000]}" -v b="${reduced[b1000]}" 'BEGIN {printf "%.1f", a / b}'))"

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
# the same train written by hand: events restart IDA at every bound and clamp corner (with IDA's
# own first step), through integrates the smooth law without root functions; the last column is
# against the hand-written full_damped
fd=""
for run in "full_damped events" "smooth events" "smooth through"; do
    read -r law handling <<< "$run"
    out="$("$work/gear_floor" --law "$law" --handling "$handling")"
    read -r steps restarts < <("$PY" -c 'import json,sys; s=json.loads(sys.argv[1]); print(s["steps"], s["restarts"])' "$out")
    [ "$law" = full_damped ] && fd="$steps"
    printf "%-16s %-10s %8s %8s %9s %12s %15s %14s\n" "d_$law" "hand:$handling" "$steps" "" "$restarts" "" "" \
        "$(awk -v a="$steps" -v b="$fd" 'BEGIN {printf "%.2f", a / b}')"
done
echo "(hand: bench/gear_floor.c, the gear train written by hand for IDA; its last column is against hand:events full_damped)"
