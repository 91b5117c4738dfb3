#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The sharded-study contract without a cluster:
#   1. tools/slurm/merge-summaries.sh on made-up shard files: merging, sorting, the sidecar, and
#      each refusal (exit 2, naming the file, an earlier summary.csv left as it was);
#   2. a study run as N shards one after another (N = 3, 5, and 16 > its 12 runs, so that some
#      shards are empty), merged, against the same study run whole: same summary up to row order
#      and wall_s, same run files;
#   3. --resume: a finished shard run again adds nothing; a shard cut short (rows lost, the last
#      one half written, as a kill leaves it) finishes the rest and merges to the same study;
#   4. tools/slurm/endstop-study.sbatch run as Slurm would run array tasks (the SLURM_ARRAY_*
#      variables set by hand), with its checks of the array and of the flags.
# tests/cluster/slurm_study.sh does 4 on a real (single-node) Slurm cluster.
#
#   tests/cluster/shard_merge.sh [BATCH_EXE [SOURCE_DIR]]     (or ENDSTOP_BATCH, ENDSTOP_SOURCE_DIR)
#
# Exit status 0 pass, 1 fail. Needs nothing but bash, coreutils, awk and the endstop-batch binary;
# about a second.
set -euo pipefail
# shellcheck source=tests/cluster/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cluster_setup "$@"
study_flags

work=$(mktemp -d "${TMPDIR:-/tmp}/endstop-shard-merge.XXXXXX")
# kept when ENDSTOP_KEEP_TMP=1, to look at after a failure
trap '[ "${ENDSTOP_KEEP_TMP:-0}" = 1 ] && echo "kept $work" || rm -rf "$work"' EXIT

# ---- 1. merge-summaries.sh on made-up shards -----------------------------------------------------
H='run,status,p.k,wall_s,steps,events,message,x.final'
row() { echo "$1,ok,$1.5,0.01,10,0,,$1"; }
# 7 runs in 3 shards, each shard's rows in completion order (not sorted), one row with a quoted
# message holding a comma
make_shards() {
  local d=$1
  rm -rf "$d"
  mkdir -p "$d"
  { echo "$H"; row 7; row 1; row 4; } > "$d/summary.0-of-3.csv"
  { echo "$H"; row 5; echo '2,failed,2.5,0.02,3,0,"no convergence, step 1e-12",'; } > "$d/summary.1-of-3.csv"
  { echo "$H"; row 3; row 6; } > "$d/summary.2-of-3.csv"
  local k
  for k in 0 1 2; do echo '{"run": {"unit": ""}}' > "$d/summary.$k-of-3.csv.units.json"; done
}
expected() {
  echo "$H"
  row 1
  echo '2,failed,2.5,0.02,3,0,"no convergence, step 1e-12",'
  row 3; row 4; row 5; row 6; row 7
}

# runs the merge expecting exit status $1; its standard error goes to $work/err
merge_expect() {
  local want=$1 rc=0
  shift
  "$merge" "$@" > "$work/out" 2> "$work/err" || rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "    merge-summaries.sh $* exited $rc, expected $want; stderr:"
    sed 's/^/    /' "$work/err"
    return 1
  fi
}

# $1 the check, $2 the expected file name in the message; after the refusal no temporary file is
# left and the earlier summary.csv is as it was
refused() {
  local what=$1 name=$2 d=$3
  shift 3
  echo "earlier" > "$d/summary.csv"
  if merge_expect 2 "$@" && grep -qF "$name" "$work/err" && [ "$(cat "$d/summary.csv")" = earlier ] &&
     [ -z "$(find "$d" -name '.summary.csv*')" ]; then
    pass "merge refuses $what: $(head -n 1 "$work/err")"
  else
    fail "merge refuses $what (exit 2, naming $name, leaving summary.csv and no temporary file)"
    sed 's/^/    /' "$work/err"
  fi
}

m=$work/made
make_shards "$m"
if merge_expect 0 "$m" 3 && diff <(expected) "$m/summary.csv" > "$work/diff" &&
   cmp -s "$m/summary.0-of-3.csv.units.json" "$m/summary.csv.units.json"; then
  pass "merge: one header, rows sorted by run id, the units sidecar copied"
else
  fail "merge of three shards"
  sed 's/^/    /' "$work/diff"
fi

make_shards "$m"
if merge_expect 0 "$m" && diff <(expected) "$m/summary.csv" > /dev/null; then
  pass "merge without N finds the shard count"
else
  fail "merge without N"
fi

make_shards "$m"
if merge_expect 0 --no-sort "$m" 3 &&
   diff <(echo "$H"; tail -n +2 "$m/summary.0-of-3.csv"; tail -n +2 "$m/summary.1-of-3.csv"; tail -n +2 "$m/summary.2-of-3.csv") "$m/summary.csv" > /dev/null; then
  pass "merge --no-sort concatenates in shard order"
else
  fail "merge --no-sort"
fi

make_shards "$m"
echo "$H" > "$m/summary.2-of-3.csv"
{ echo "$H"; row 3; } > "$m/summary.0-of-1.csv"
refused "shard files of two counts without N" "several counts" "$m" "$m"

make_shards "$m"
rm "$m/summary.1-of-3.csv"
refused "a missing shard" "summary.1-of-3.csv" "$m" "$m" 3

make_shards "$m"
sed -i '1s/x.final/y.final/' "$m/summary.2-of-3.csv"
refused "a different header" "summary.2-of-3.csv" "$m" "$m" 3

make_shards "$m"
: > "$m/summary.0-of-3.csv"
refused "an empty shard file" "summary.0-of-3.csv" "$m" "$m" 3

make_shards "$m"
row 8 >> "$m/summary.2-of-3.csv"
refused "a row in the wrong shard" "summary.2-of-3.csv" "$m" "$m" 3

make_shards "$m"
row 4 >> "$m/summary.0-of-3.csv"
refused "a run listed twice" "run 4 appears twice" "$m" "$m" 3

make_shards "$m"
printf '%s\n%s\n' "$H" "$(row 2)" > "$m/summary.1-of-3.csv"
refused "a gap in the run ids (a shard unfinished)" "5 (summary.1-of-3.csv)" "$m" "$m" 3
if merge_expect 0 --partial "$m" 3 && [ "$(wc -l < "$m/summary.csv")" -eq 7 ] && grep -q warning "$work/err"; then
  pass "merge --partial merges an unfinished study, with a warning"
else
  fail "merge --partial"
fi

make_shards "$m"
if merge_expect 0 --runs 7 "$m" 3 && diff <(expected) "$m/summary.csv" > /dev/null; then
  pass "merge --runs 7 of a complete 7-run study"
else
  fail "merge --runs 7"
fi
refused "a study short of its last run (--runs 8)" "8 (summary.1-of-3.csv)" "$m" --runs 8 "$m" 3
refused "a run above --runs" "the study has 6 runs" "$m" --runs 6 "$m" 3

make_shards "$m"
printf '9,ok,9.5,0.0' >> "$m/summary.2-of-3.csv"
refused "a row cut short" "summary.2-of-3.csv" "$m" "$m" 3

make_shards "$m"
echo '{"run": {"unit": "s"}}' > "$m/summary.1-of-3.csv.units.json"
refused "different units sidecars" "summary.1-of-3.csv.units.json" "$m" "$m" 3

# more shards than runs: the empty ones have their header only
make_shards "$m"
rm -f "$m"/summary.*-of-3.csv*
for k in 0 1 2 3 4 5 6 7 8; do
  { echo "$H"; [ "$k" -lt 7 ] && row $((k + 1)); true; } > "$m/summary.$k-of-9.csv"
done
if merge_expect 0 "$m" 9 && [ "$(wc -l < "$m/summary.csv")" -eq 8 ]; then
  pass "merge takes shards with no rows (more shards than runs)"
else
  fail "merge of empty shards"
fi

# ---- 2. a real study, sharded ------------------------------------------------------------------------
if ! has_shard_support; then
  fail "$batch has no sharded studies ('sweep ... --shard 0/2 --out DIR' did not write DIR/summary.0-of-2.csv)"
  finish shard_merge
fi

ref=$work/whole
"$batch" sweep "$model" "${study[@]}" --out "$ref" > "$work/ref.log" 2>&1 || {
  fail "the whole study: endstop-batch exited $?"
  sed 's/^/    /' "$work/ref.log"
  finish shard_merge
}
runs=$(($(wc -l < "$ref/summary.csv") - 1))

# shards one after another, --jobs 1 and 2 alternating: the threads must not change a result
run_shards() {
  local n=$1 d=$2 k
  for ((k = 0; k < n; k++)); do
    if ! "$batch" sweep "$model" "${study[@]}" --shard "$k/$n" --out "$d" --jobs $((k % 2 + 1)) >> "$work/shards.log" 2>&1; then
      fail "shard $k/$n: endstop-batch failed"
      tail -n 5 "$work/shards.log" | sed 's/^/    /'
      return 1
    fi
  done
}

for n in 3 5 16; do
  d=$work/sharded-$n
  run_shards "$n" "$d" || continue
  # each shard holds exactly its own runs (merge-summaries.sh checks no more than that they fit)
  bad=""
  for ((k = 0; k < n; k++)); do
    want=$(seq 1 "$runs" | awk -v n="$n" -v k="$k" '($1 - 1) % n == k' | sort -n | tr '\n' ' ')
    got=$(tail -n +2 "$d/summary.$k-of-$n.csv" | cut -d, -f1 | sort -n | tr '\n' ' ')
    [ "$want" = "$got" ] || bad+=" shard $k/$n has runs [$got], expected [$want];"
  done
  if [ -z "$bad" ]; then pass "$n shards: each has the runs r with (r - 1) mod $n = K"; else fail "$n shards:$bad"; fi
  if merge_expect 0 --runs "$runs" "$d" "$n"; then
    compare_studies "$n shards merged" "$d" summary.csv "$ref" summary.csv
  else
    fail "merge of $n shards"
  fi
done

# ---- 3. --resume ---------------------------------------------------------------------------------
d=$work/sharded-3
if [ -f "$d/summary.1-of-3.csv" ]; then
  before=$(cat "$d/summary.1-of-3.csv")
  if "$batch" sweep "$model" "${study[@]}" --shard 1/3 --out "$d" --resume > "$work/resume.log" 2>&1 &&
     [ "$(cat "$d/summary.1-of-3.csv")" = "$before" ]; then
    pass "--resume of a finished shard runs nothing again"
  else
    fail "--resume of a finished shard changed summary.1-of-3.csv"
    diff <(echo "$before") "$d/summary.1-of-3.csv" | head -n 10 | sed 's/^/    /'
  fi

  # a shard killed after its first run: later rows and run files gone, a row half written
  f=$d/summary.0-of-3.csv
  head -n 2 "$f" > "$work/cut"
  first=$(sed -n 2p "$f" | cut -d, -f1)
  tail -n +3 "$f" | cut -d, -f1 | while read -r r; do rm -f "$d"/run_"$(printf '%06d' "$r")"*; done
  printf '%s' "$(sed -n 3p "$f" | cut -c1-20)" >> "$work/cut"
  cp "$work/cut" "$f"
  if "$batch" sweep "$model" "${study[@]}" --shard 0/3 --out "$d" --resume > "$work/resume.log" 2>&1 &&
     [ "$(sed -n 2p "$f" | cut -d, -f1)" = "$first" ] && merge_expect 0 --runs "$runs" "$d" 3; then
    compare_studies "a shard cut short, resumed and merged" "$d" summary.csv "$ref" summary.csv
  else
    fail "--resume of a shard cut short"
    sed 's/^/    /' "$work/resume.log" "$work/err" | tail -n 10
  fi
fi

# ---- 4. endstop-study.sbatch as array tasks --------------------------------------------------------
# what Slurm sets for task K of --array=0-(N-1)
array_task() {
  local k=$1 n=$2 min=$3 max=$4
  shift 4
  env -u SLURM_CPUS_PER_TASK -u ENDSTOP_SHARDS SLURM_ARRAY_TASK_ID="$k" SLURM_ARRAY_TASK_COUNT="$n" SLURM_ARRAY_TASK_MIN="$min" \
      SLURM_ARRAY_TASK_MAX="$max" SLURM_ARRAY_JOB_ID=1 ENDSTOP_BATCH="$batch" bash "$study_sbatch" "$@"
}
d=$work/sbatch
ok=1
for k in 0 1 2 3; do
  array_task "$k" 4 0 3 "$model" "$d" "${study[@]}" >> "$work/sbatch.log" 2>&1 || { ok=0; break; }
done
if [ "$ok" -eq 1 ] && merge_expect 0 --runs "$runs" "$d" 4; then
  compare_studies "endstop-study.sbatch as 4 array tasks" "$d" summary.csv "$ref" summary.csv
else
  fail "endstop-study.sbatch as array tasks"
  tail -n 10 "$work/sbatch.log" | sed 's/^/    /'
fi

# a task run again (as a requeued one) resumes: its rows stay as they were
before=$(cat "$d/summary.2-of-4.csv" 2> /dev/null || true)
if array_task 2 4 0 3 "$model" "$d" "${study[@]}" > "$work/sbatch.log" 2>&1 && [ "$(cat "$d/summary.2-of-4.csv")" = "$before" ]; then
  pass "endstop-study.sbatch: a task run again resumes its shard"
else
  fail "endstop-study.sbatch: a task run again"
  tail -n 10 "$work/sbatch.log" | sed 's/^/    /'
fi

# the shard count from ENDSTOP_SHARDS when only some tasks are resubmitted (--array=1 -> one task)
rm -rf "$work/one"
if ENDSTOP_SHARDS=4 SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=1 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=1 \
     ENDSTOP_BATCH="$batch" bash "$study_sbatch" "$model" "$work/one" "${study[@]}" > "$work/sbatch.log" 2>&1 &&
   diff <(canonical_summary "$work/one/summary.1-of-4.csv") <(canonical_summary "$d/summary.1-of-4.csv") > /dev/null 2>&1; then
  pass "endstop-study.sbatch: ENDSTOP_SHARDS gives the shard count of a partial resubmission"
else
  fail "endstop-study.sbatch with ENDSTOP_SHARDS"
  tail -n 10 "$work/sbatch.log" | sed 's/^/    /'
fi

# its refusals: exit 2 and a message, nothing run
sbatch_refuses() {
  local what=$1 expect=$2 rc=0
  shift 2
  "$@" > "$work/sbatch.log" 2>&1 || rc=$?
  if [ "$rc" -eq 2 ] && grep -qF "$expect" "$work/sbatch.log"; then
    pass "endstop-study.sbatch refuses $what"
  else
    fail "endstop-study.sbatch refuses $what (exit $rc, expected 2 and '$expect')"
    sed 's/^/    /' "$work/sbatch.log"
  fi
}
sbatch_refuses "an array not starting at 0" "is not 0-3" array_task 1 4 1 4 "$model" "$work/x" "${study[@]}"
sbatch_refuses "--shard in the flags" "set by this script" array_task 0 2 0 1 "$model" "$work/x" "${study[@]}" --shard 0/2
sbatch_refuses "--out in the flags" "set by this script" array_task 0 2 0 1 "$model" "$work/x" "${study[@]}" --out "$work/y"
sbatch_refuses "a job that is not an array" "not an array task" env -u SLURM_ARRAY_TASK_ID ENDSTOP_BATCH="$batch" bash "$study_sbatch" "$model" "$work/x" "${study[@]}"
sbatch_refuses "a missing endstop-batch" "ENDSTOP_BATCH" env SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=1 ENDSTOP_BATCH="$work/nonexistent" bash "$study_sbatch" "$model" "$work/x" "${study[@]}"
sbatch_refuses "no OUTDIR" "usage" array_task 0 1 0 0 "$model"

finish shard_merge
