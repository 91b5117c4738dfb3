#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The sharded study on a real Slurm cluster: a single-node one started in a temporary directory
# (tools/slurm/local-cluster.sh), a job array of tools/slurm/endstop-study.sbatch with
# tools/slurm/merge-summaries.sh as a job depending on it (afterok), then
#   - every array task and the merge job completed, each task ran its own shard;
#   - the merged summary and the run files equal the same study run whole, without Slurm
#     (summary up to row order and wall_s; run files byte for byte);
#   - a finished task requeued (scontrol requeue, as after a node failure or preemption) runs
#     again, resumes its shard and adds nothing: the study merges to the same result.
# The daemons are stopped however the test ends, but for SIGKILL (trap on EXIT, INT and TERM).
#
#   tests/cluster/slurm_study.sh [BATCH_EXE [SOURCE_DIR]]    (or ENDSTOP_BATCH, ENDSTOP_SOURCE_DIR)
#
# Exit status 0 pass, 1 fail, 77 skip: not root, slurm-wlm or munge not installed
# (`apt-get install --no-install-recommends slurm-wlm munge`), or the cluster not up within
# ENDSTOP_SLURM_START_TIMEOUT seconds (default 60). Each wait for jobs gives up after
# ENDSTOP_SLURM_JOB_TIMEOUT seconds (default 120), so that the test ends, and stops its daemons,
# within about 5 minutes whatever happens: give ctest a longer TIMEOUT, since a test that ctest
# kills cannot stop them (they are daemons, outside its process tree). It takes 20-35 s, most of
# it the requeued task's wait for its begin time. tests/cluster/shard_merge.sh tests the same
# contract without Slurm.
set -euo pipefail
# shellcheck source=tests/cluster/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cluster_setup "$@"
study_flags

skip() {
  echo "SKIP: $*"
  exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd starts each job as its user)"
for c in munged munge slurmctld slurmd sbatch squeue scontrol scancel sinfo; do
  command -v "$c" > /dev/null || skip "no '$c': Slurm and munge are not installed (apt-get install --no-install-recommends slurm-wlm munge)"
done
if ! has_shard_support; then
  echo "FAIL: $batch has no sharded studies ('sweep ... --shard 0/2 --out DIR' did not write DIR/summary.0-of-2.csv)"
  exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/endstop-slurm.XXXXXX")
cluster=$work/cluster
# shellcheck disable=SC2317 # run by the trap
cleanup() {
  local rc=$?
  "$src/tools/slurm/local-cluster.sh" stop "$cluster" || true
  if [ "${ENDSTOP_KEEP_TMP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
# a ctest timeout or ^C: the EXIT trap stops the daemons
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- the cluster --------------------------------------------------------------------------------
t0=$SECONDS
rc=0
LOCAL_CLUSTER_TIMEOUT=${ENDSTOP_SLURM_START_TIMEOUT:-60} "$src/tools/slurm/local-cluster.sh" start "$cluster" > "$work/start.log" 2>&1 || rc=$?
case "$rc" in
  0) echo "cluster up in $((SECONDS - t0)) s ($(tail -n 1 "$work/start.log"))" ;;
  3 | 4)
    sed 's/^/    /' "$work/start.log"
    skip "no single-node Slurm cluster here: $(head -n 1 "$work/start.log")"
    ;;
  *)
    sed 's/^/    /' "$work/start.log"
    echo "FAIL: local-cluster.sh start exited $rc"
    exit 1
    ;;
esac
export SLURM_CONF=$cluster/slurm.conf

# waits until none of the jobs $@ is pending or running, at most $limit seconds; every client
# call is bounded too, since one waits out its retries while slurmctld does not answer
limit=${ENDSTOP_SLURM_JOB_TIMEOUT:-120}
wait_jobs() {
  local ids q t=$SECONDS
  ids=$(IFS=,; echo "$*")
  while [ $((SECONDS - t)) -lt "$limit" ]; do
    if q=$(timeout 20 squeue -h -j "$ids" -o %i 2> /dev/null); then
      [ -z "$q" ] && return 0
    fi
    sleep 0.5
  done
  echo "    jobs $ids still queued after $limit s:"
  timeout 20 squeue -j "$ids" 2>&1 | sed 's/^/    /'
  return 1
}

# "ID STATE EXIT" for the job or every task of the array $1 (scontrol keeps finished jobs for
# MinJobAge seconds; there is no accounting database)
job_states() {
  timeout 20 scontrol -o show job "$1" | sed -n 's/^JobId=\([0-9]*\).* ArrayTaskId=\([0-9]*\).* JobState=\([A-Z_]*\).* ExitCode=\([0-9:]*\).*/\2 \3 \4/p;
                                     /ArrayTaskId=/!s/^JobId=\([0-9]*\) .* JobState=\([A-Z_]*\).* ExitCode=\([0-9:]*\).*/\1 \2 \3/p'
}

# the jobs' and daemons' logs, once (the first failure is the one to read them for)
logs_shown=0
show_logs() {
  [ "$logs_shown" -eq 0 ] || return 0
  logs_shown=1
  local f
  for f in "$work"/*.out "$cluster"/log/slurmctld.log "$cluster"/log/slurmd.log; do
    [ -f "$f" ] || continue
    echo "    --- $f"
    grep -vE 'state file|NOTE: Trying backup' "$f" | tail -n 15 | sed 's/^/    /'
  done
}

# ---- the study, whole and on the cluster --------------------------------------------------------
ref=$work/whole
if ! "$batch" sweep "$model" "${study[@]}" --out "$ref" > "$work/whole.log" 2>&1; then
  fail "the whole study: endstop-batch failed"
  sed 's/^/    /' "$work/whole.log"
  finish slurm_study
fi

runs=$(($(wc -l < "$ref/summary.csv") - 1))
out=$work/study
shards=3
# the submitting environment goes to the tasks: ENDSTOP_BATCH and SLURM_CONF reach them that way
if ! array=$(ENDSTOP_BATCH=$batch timeout 60 sbatch --parsable --array=0-$((shards - 1)) --chdir="$work" \
              --output="$work/task-%A_%a.out" "$study_sbatch" "$model" "$out" "${study[@]}" 2>&1); then
  fail "sbatch of the array: $array"
  finish slurm_study
fi
array=${array%%;*}
if ! merge_job=$(timeout 60 sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes --chdir="$work" \
                 --output="$work/merge-%j.out" "$merge" --runs "$runs" "$out" "$shards" 2>&1); then
  fail "sbatch of the merge: $merge_job"
  finish slurm_study
fi
merge_job=${merge_job%%;*}
echo "submitted array $array (0-$((shards - 1))) and merge job $merge_job (afterok:$array)"

t1=$SECONDS
if ! wait_jobs "$array" "$merge_job"; then
  fail "the jobs did not finish within $limit s"
  show_logs
  finish slurm_study
fi
echo "array and merge done in $((SECONDS - t1)) s"

states=$(job_states "$array")
bad=$(awk '$2 != "COMPLETED" || $3 != "0:0"' <<< "$states")
if [ "$(wc -l <<< "$states")" -eq "$shards" ] && [ -z "$bad" ]; then
  pass "the $shards array tasks completed with exit 0"
else
  fail "array tasks (task state exit): $(tr '\n' ';' <<< "$states")"
  show_logs
fi

missing=""
for ((k = 0; k < shards; k++)); do
  [ -f "$out/summary.$k-of-$shards.csv" ] || missing+=" summary.$k-of-$shards.csv"
  grep -q "^endstop-study: shard $k/$shards " "$work/task-${array}_$k.out" 2> /dev/null || missing+=" (task $k's log)"
done
if [ -z "$missing" ]; then pass "each task ran its own shard K/$shards"; else fail "missing:$missing"; fi

mstate=$(job_states "$merge_job")
if [ "$(awk '{ print $2, $3 }' <<< "$mstate")" = "COMPLETED 0:0" ]; then
  pass "the merge ran as a job depending on the array (afterok): $(tail -n 1 "$work/merge-$merge_job.out")"
else
  fail "merge job: $mstate"
  show_logs
fi
compare_studies "the study on Slurm, merged" "$out" summary.csv "$ref" summary.csv

# ---- a task requeued -----------------------------------------------------------------------------
before=$(cat "$out/summary.1-of-$shards.csv" 2> /dev/null || true)
if timeout 20 scontrol requeue "${array}_1" > "$work/requeue.log" 2>&1; then
  # a requeued job waits for its begin time (a few seconds) before it runs again
  if wait_jobs "$array" && [ "$(job_states "${array}_1" | awk '{ print $2, $3 }')" = "COMPLETED 0:0" ] &&
     [ "$(grep -c '^endstop-study: shard 1/' "$work/task-${array}_1.out")" -eq 2 ] &&
     grep -q '^endstop-study: shard 1/.*, start 1,' "$work/task-${array}_1.out" &&
     [ "$(cat "$out/summary.1-of-$shards.csv")" = "$before" ]; then
    pass "task 1 requeued: ran again (SLURM_RESTART_COUNT 1), resumed its shard, added nothing"
  else
    fail "task 1 requeued"
    job_states "$array" | sed 's/^/    /'
    show_logs
  fi
else
  fail "scontrol requeue ${array}_1: $(cat "$work/requeue.log")"
fi
if "$merge" --runs "$runs" "$out" "$shards" > "$work/merge2.log" 2>&1; then
  compare_studies "the study after the requeue, merged again" "$out" summary.csv "$ref" summary.csv
else
  fail "merge after the requeue: $(cat "$work/merge2.log")"
fi

finish slurm_study
