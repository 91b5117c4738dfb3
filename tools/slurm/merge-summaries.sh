#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Merges the per-shard summaries of one sharded study into OUTDIR/summary.csv.
#
#   tools/slurm/merge-summaries.sh [--no-sort] [--partial] [--runs R] OUTDIR [N]
#
# A study run as N shards (`endstop-batch sweep ... --shard K/N --out OUTDIR`, K = 0..N-1, for
# instance by tools/slurm/endstop-study.sbatch) leaves OUTDIR/summary.K-of-N.csv, one per shard,
# each with the same header line. This concatenates them under one header and, unless --no-sort,
# sorts the rows by run id (numerically, on the first column), so the merged file equals the
# summary.csv of the same study run unsharded up to its row order (which is completion order
# there too), apart from the wall_s column.
#
# N defaults to the one shard count found in OUTDIR (an error if files of two counts are there).
#
# Checks, each an error with exit status 2 that names the file:
#   - every summary.K-of-N.csv for K = 0..N-1 exists and has a header line;
#   - all of them have the same header (and the same units sidecar, summary.K-of-N.csv.units.json,
#     which is copied to summary.csv.units.json);
#   - every row of shard K has a run id r with (r - 1) mod N == K (a misnamed or mixed-up file);
#   - no run id appears twice (two studies written into one OUTDIR);
#   - no row has fewer or more fields than the header (a row cut short when a shard was killed);
#   - the run ids have no gap below the largest one, i.e. no shard stopped before finishing
#     (--partial merges anyway, warning about the missing runs);
#   - with --runs R, the study's number of runs, every run 1..R is there and none above: without
#     it, runs missing after the largest id present (a shard stopped before its last runs) cannot
#     be seen from the summaries alone. R is the number of rows of the study's design:
#       R=$(endstop-batch sweep MODEL <sweep flags> --list-points | tail -n +2 | wc -l)
# Exit status: 0 merged, 2 bad or incomplete input (OUTDIR/summary.csv is then left untouched),
# 1 anything else (a file could not be written).
#
# The merged file is written to a temporary file in OUTDIR and renamed over summary.csv, so a
# reader never sees half a file and a failed merge leaves an earlier summary.csv as it was.
#
# As a dependent Slurm job, after an array submitted with tools/slurm/endstop-study.sbatch
# (the script needs nothing from its own directory, so sbatch's copy of it runs as well):
#
#   jobid=$(sbatch --parsable --array=0-99 tools/slurm/endstop-study.sbatch MODEL OUTDIR ...)
#   sbatch --dependency=afterok:$jobid tools/slurm/merge-summaries.sh --runs R OUTDIR 100
#
# afterok merges only when every array task exited 0 (add --kill-on-invalid-dep=yes to sbatch so
# that the merge job is cancelled, not left pending, when one did not). endstop-batch exits 1
# when any run of a shard failed to simulate, so a study that expects failed runs (they are rows
# with their status in the summary) should use --dependency=afterany:$jobid instead: the checks
# above still refuse a shard file that is missing or short of runs (with --runs, any run).
#
# Rows are handled as lines: a summary row never spans lines (endstop-batch writes no newline
# inside a field).
#
#SBATCH --job-name=endstop-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output=endstop-merge-%j.out
set -euo pipefail

usage() {
  echo "usage: merge-summaries.sh [--no-sort] [--partial] [--runs R] OUTDIR [N]" >&2
  exit 2
}

sort_rows=1
partial=0
runs=0
while [ $# -gt 0 ]; do
  case "$1" in
    --no-sort) sort_rows=0; shift ;;
    --partial) partial=1; shift ;;
    --runs)
      if [ $# -lt 2 ] || ! [[ "$2" =~ ^[0-9]+$ ]]; then
        echo "merge-summaries.sh: --runs needs the study's number of runs" >&2
        exit 2
      fi
      runs=$((10#$2)); shift 2 ;;
    -h|--help) awk 'NR > 2 && /^#SBATCH/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    --) shift; break ;;
    -*) echo "merge-summaries.sh: unknown option '$1'" >&2; usage ;;
    *) break ;;
  esac
done
if [ $# -lt 1 ] || [ $# -gt 2 ]; then usage; fi
outdir=${1%/}
[ -n "$outdir" ] || outdir=/
[ -d "$outdir" ] || { echo "merge-summaries.sh: $outdir is not a directory" >&2; exit 2; }

# C collation so that sort and the byte comparisons below do not depend on the user's locale
export LC_ALL=C

if [ $# -eq 2 ]; then
  n=$2
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "merge-summaries.sh: N must be a positive integer, not '$n'" >&2; exit 2; }
else
  # the shard count from the file names; two counts mean two studies (or a re-sharded one) in
  # one directory, and guessing which one is wanted would merge the wrong rows
  counts=$(find "$outdir" -maxdepth 1 -name 'summary.*-of-*.csv' -printf '%f\n' |
           sed -n 's/^summary\.[0-9]\{1,\}-of-\([0-9]\{1,\}\)\.csv$/\1/p' | sort -un)
  if [ -z "$counts" ]; then
    echo "merge-summaries.sh: no summary.K-of-N.csv in $outdir" >&2
    exit 2
  fi
  if [ "$(printf '%s\n' "$counts" | wc -l)" -ne 1 ]; then
    echo "merge-summaries.sh: shard files of several counts in $outdir (N = ${counts//$'\n'/, }); give N" >&2
    exit 2
  fi
  n=$counts
fi

# every shard present, each with a header, all headers alike
files=()
header=""
for ((k = 0; k < n; k++)); do
  f="$outdir/summary.$k-of-$n.csv"
  if [ ! -f "$f" ]; then
    echo "merge-summaries.sh: missing $f (shard $k of $n did not run, or has not started)" >&2
    exit 2
  fi
  if [ ! -s "$f" ]; then
    echo "merge-summaries.sh: $f is empty (no header line)" >&2
    exit 2
  fi
  h=$(head -n 1 "$f")
  case "$h" in
    run,*) ;;
    *) echo "merge-summaries.sh: $f does not start with a summary header (run,...)" >&2; exit 2 ;;
  esac
  if [ -z "$header" ]; then
    header=$h
  elif [ "$h" != "$header" ]; then
    echo "merge-summaries.sh: $f has a different header from $outdir/summary.0-of-$n.csv" >&2
    echo "  summary.0-of-$n.csv: $header" >&2
    echo "  $(basename "$f"): $h" >&2
    exit 2
  fi
  files+=("$f")
done

tmp=$(mktemp "$outdir/.summary.csv.XXXXXX")
trap 'rm -f "$tmp" "$tmp.rows" "$tmp.units"' EXIT

# the rows, each checked against its shard; awk reads every file once, so a shard that is still
# being appended to (a merge run too early) at worst misses its newest rows
printf '%s\n' "$header" > "$tmp"
awk -F, -v n="$n" -v partial="$partial" -v runs="$runs" '
  FNR == 1 {
    file = FILENAME
    nh = NF
    k = file; sub(/.*summary\./, "", k); sub(/-of-.*/, "", k); k += 0
    next
  }
  $0 == "" { next }
  {
    r = $0; sub(/,.*/, "", r)
    if (r !~ /^[0-9]+$/ || r + 0 < 1) {
      printf "merge-summaries.sh: %s line %d: run id \"%s\" is not a positive integer\n", file, FNR, r > "/dev/stderr"
      bad = 1; exit 2
    }
    r += 0
    if ((r - 1) % n != k) {
      printf "merge-summaries.sh: %s line %d: run %d belongs to shard %d of %d, not %d\n", file, FNR, r, (r - 1) % n, n, k > "/dev/stderr"
      bad = 1; exit 2
    }
    if (r in seen) {
      printf "merge-summaries.sh: run %d appears twice (%s and %s line %d)\n", r, seen[r], file, FNR > "/dev/stderr"
      bad = 1; exit 2
    }
    # a row cut short (a shard killed while writing it) has fewer fields; a quoted message may
    # hold commas, so only rows without quotes can be counted this simply
    if (index($0, "\"") == 0 && NF != nh) {
      printf "merge-summaries.sh: %s line %d: %d fields, the header has %d (a row cut short?)\n", file, FNR, NF, nh > "/dev/stderr"
      bad = 1; exit 2
    }
    seen[r] = file
    if (runs > 0 && r > runs) {
      printf "merge-summaries.sh: %s line %d: run %d, but the study has %d runs (--runs)\n", file, FNR, r, runs > "/dev/stderr"
      bad = 1; exit 2
    }
    if (r > maxr) maxr = r
    print
  }
  END {
    if (bad) exit 2
    missing = 0; list = ""
    last = runs > 0 ? runs : maxr
    below = runs > 0 ? sprintf("of the %d runs", runs) : sprintf("below run %d", maxr)
    for (r = 1; r <= last; r++) {
      if (!(r in seen)) {
        if (missing < 10) list = list sprintf(" %d (summary.%d-of-%d.csv)", r, (r - 1) % n, n)
        missing++
      }
    }
    if (missing > 0) {
      more = missing > 10 ? sprintf(" and %d more", missing - 10) : ""
      if (partial) {
        printf "merge-summaries.sh: warning: %d run%s missing %s:%s%s\n", missing, missing == 1 ? "" : "s", below, list, more > "/dev/stderr"
      } else {
        printf "merge-summaries.sh: %d run%s missing %s:%s%s; a shard is unfinished (--partial merges anyway)\n", missing, missing == 1 ? "" : "s", below, list, more > "/dev/stderr"
        exit 2
      }
    }
  }' "${files[@]}" > "$tmp.rows" || { rc=$?; [ "$rc" -eq 2 ] && exit 2; exit 1; }

if [ "$sort_rows" -eq 1 ]; then
  # -s keeps ties (there are none once duplicates are refused) in input order
  sort -t, -k1,1n -s "$tmp.rows" >> "$tmp"
else
  cat "$tmp.rows" >> "$tmp"
fi
rm -f "$tmp.rows"

# the units sidecar (summary.K-of-N.csv.units.json, docs/batch.md "Units") is the same for
# every shard of one study, so the merged summary gets a copy of it
units=""
for f in "${files[@]}"; do
  [ -f "$f.units.json" ] || continue
  if [ -z "$units" ]; then
    units=$f.units.json
  elif ! cmp -s "$units" "$f.units.json"; then
    echo "merge-summaries.sh: $f.units.json differs from $units" >&2
    exit 2
  fi
done
if [ -n "$units" ]; then
  cp "$units" "$tmp.units"
  chmod --reference="$units" "$tmp.units"
  mv -f "$tmp.units" "$outdir/summary.csv.units.json"
fi

# mktemp made it 0600; a summary is as readable as the files it was merged from
chmod --reference="${files[0]}" "$tmp"
mv -f "$tmp" "$outdir/summary.csv"
trap - EXIT
rows=$(($(wc -l < "$outdir/summary.csv") - 1))
echo "merged $n shards, $rows runs, into $outdir/summary.csv"
