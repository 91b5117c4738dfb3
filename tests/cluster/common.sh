# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables set here are the sourcing scripts'
# Shared by tests/cluster/*.sh (sourced, not run): the arguments, the study they all run, and the
# comparison of a sharded study with the same study run whole.
#
# Every script takes   [BATCH_EXE [SOURCE_DIR]]   or the environment variables ENDSTOP_BATCH and
# ENDSTOP_SOURCE_DIR (arguments win); SOURCE_DIR defaults to the checkout the script is in.
# Exit status: 0 pass, 1 fail, 77 skip (the reason on standard output).

# the arguments, into $batch (absolute) and $src
cluster_setup() {
  # run inside a Slurm job, its SLURM_* and SBATCH_* variables would steer the tests' own array
  # tasks and submissions (task ids, partition, account)
  local v
  for v in $(compgen -e); do
    case "$v" in SLURM_* | SBATCH_* | SALLOC_* | SRUN_* | SQUEUE_* | SINFO_*) unset "$v" ;; esac
  done
  src=${2:-${ENDSTOP_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}}
  batch=${1:-${ENDSTOP_BATCH:-$src/build/app/endstop-batch}}
  if [ ! -x "$batch" ]; then
    # a name on PATH will do as well as a path
    batch=$(command -v "$batch" || true)
  fi
  if [ -z "$batch" ] || [ ! -x "$batch" ]; then
    echo "FAIL: no endstop-batch executable (give it as the first argument or in ENDSTOP_BATCH)"
    exit 1
  fi
  batch=$(cd "$(dirname "$batch")" && pwd)/$(basename "$batch")
  [ -f "$src/tools/slurm/merge-summaries.sh" ] || { echo "FAIL: $src is not an Endstop checkout"; exit 1; }
  model=$src/resources/examples/rattling_mass.endstop
  merge=$src/tools/slurm/merge-summaries.sh
  study_sbatch=$src/tools/slurm/endstop-study.sbatch
  passed=0
  failed=0
}

# The study every test runs: a 6 x 2 grid, 12 runs of a few milliseconds each; two factors so that
# run ids cross both of them. ENDSTOP_CLUSTER_STUDY (the sweep flags, split on spaces) replaces it.
study_flags() {
  if [ -n "${ENDSTOP_CLUSTER_STUDY:-}" ]; then
    # shellcheck disable=SC2206 # split on purpose: a list of flags
    study=($ENDSTOP_CLUSTER_STUDY)
  else
    # shellcheck disable=SC2054 # the commas are the grid's values
    study=(--vary slider.mass=0.5:1.5:6 --vary drive.frequency=4,6 --stop-time 0.5)
  fi
}

pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# The closing line, and the exit status from the counts.
finish() {
  echo "$1: $passed passed, $failed failed"
  [ "$failed" -eq 0 ] || exit 1
  exit 0
}

# endstop-batch with the sharded studies (--shard K/N): a two-run study cut in two
has_shard_support() {
  local d
  d=$(mktemp -d "${TMPDIR:-/tmp}/endstop-probe.XXXXXX")
  if "$batch" sweep "$model" --vary slider.mass=1,2 --stop-time 0.01 --shard 0/2 --out "$d" > /dev/null 2>&1 &&
     [ -f "$d/summary.0-of-2.csv" ]; then
    rm -rf "$d"
    return 0
  fi
  rm -rf "$d"
  return 1
}

# A summary in the form two runs of one study can be compared in: header and rows without the
# wall_s column (the one thing that differs from run to run), rows sorted by run id.
# Removing field w with cut leaves every other field's text as it was, even a quoted message with
# commas in it after wall_s: cut splits it and joins it again with the same commas. The fields
# before wall_s (run, status, the varied values) hold no commas.
canonical_summary() {
  local file=$1 w
  w=$(head -n 1 "$file" | tr ',' '\n' | grep -nxF wall_s | cut -d: -f1)
  if [ -z "$w" ]; then
    echo "(no wall_s column)"
    cat "$file"
    return
  fi
  head -n 1 "$file" | cut -d, --complement -f "$w"
  tail -n +2 "$file" | LC_ALL=C sort -t, -k1,1n | cut -d, --complement -f "$w"
}

# Compares the study in directory $2 (summary file $3) with the reference in $4 (summary $5):
# the summaries up to row order and wall_s, the units sidecars, and every run's files (results,
# events and their sidecars) byte for byte, since a run's output depends only on its values.
# $1 names the check. Counts a pass or a fail.
compare_studies() {
  local what=$1 dir=$2 sum=$3 ref=$4 refsum=$5 diffs
  diffs=$(mktemp "${TMPDIR:-/tmp}/endstop-diff.XXXXXX")
  : > "$diffs"
  if [ ! -f "$dir/$sum" ]; then
    echo "no $dir/$sum" >> "$diffs"
  else
    diff <(canonical_summary "$ref/$refsum") <(canonical_summary "$dir/$sum") >> "$diffs" 2>&1 ||
      echo "(the summaries differ: < whole study, > $what)" >> "$diffs"
    if [ -f "$ref/$refsum.units.json" ] && ! cmp -s "$ref/$refsum.units.json" "$dir/$sum.units.json"; then
      echo "$dir/$sum.units.json differs from $ref/$refsum.units.json (or is missing)" >> "$diffs"
    fi
  fi
  diff <(cd "$ref" && find . -maxdepth 1 -name 'run_*' | sort) <(cd "$dir" && find . -maxdepth 1 -name 'run_*' | sort) >> "$diffs" 2>&1 ||
    echo "(the run files differ: < whole study, > $what)" >> "$diffs"
  local f
  for f in "$ref"/run_*; do
    [ -f "$dir/$(basename "$f")" ] || continue
    cmp -s "$f" "$dir/$(basename "$f")" || echo "$(basename "$f") differs" >> "$diffs"
  done
  if [ -s "$diffs" ]; then
    fail "$what: differs from the study run whole"
    head -n 40 "$diffs" | sed 's/^/    /'
  else
    pass "$what: equals the study run whole ($(($(wc -l < "$dir/$sum") - 1)) runs)"
  fi
  rm -f "$diffs"
}
