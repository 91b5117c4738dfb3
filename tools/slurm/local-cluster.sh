#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A throw-away single-node Slurm cluster in one directory, to try endstop-study.sbatch and
# merge-summaries.sh on one machine and to test them (tests/cluster/slurm_study.sh).
#
#   tools/slurm/local-cluster.sh start DIR    # munged, slurmctld, slurmd; waits for the node
#   SLURM_CONF=DIR/slurm.conf sbatch --array=0-3 --wait tools/slurm/endstop-study.sbatch ...
#   tools/slurm/local-cluster.sh stop DIR     # cancels the jobs, stops the daemons
#
# Needs root (slurmd starts every job as its user) and Debian's slurm-wlm and munge packages
# (`apt-get install --no-install-recommends slurm-wlm munge`). Nothing outside DIR is written or
# read: its own munge key and socket, its own slurm.conf (SLURM_CONF, not /etc/slurm), state,
# spool, pid and log files, and ports picked free on 127.0.0.1, so a cluster or munged already
# on the machine is left alone and several of these can run side by side. The packages' own
# services are not used: their postinst does not start them where there is no init system,
# and with one they would want /etc/slurm/slurm.conf.
#
# start exits 0 when the node is idle, 3 when a program is missing or this is not root, 4 when
# the daemons did not come up within LOCAL_CLUSTER_TIMEOUT seconds (default 60; the logs' last
# lines are printed, and the daemons that did start are stopped again).
# stop is safe to call more than once, and on a DIR whose start failed half-way.
#
# The node is the local host with all its CPUs (nproc) and 90 % of its memory; linuxproc process
# tracking and no task plugin, because cgroups are often not writable in a container. A requeued
# job may start again after cred_expire (5 s here, 120 s by default) and the backfill scheduler
# runs every second (bf_interval, default 30 s), so that a test of a requeue takes seconds.
set -euo pipefail

usage() {
  echo "usage: local-cluster.sh start|stop|status DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
dir=$2

log() { echo "local-cluster: $*"; }

# a port nobody listens on: a refused connection to it on 127.0.0.1
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# the process in a pid file runs; a zombie does not count (where no init reaps the daemons, as in
# some containers, a killed one stays a zombie)
alive() {
  local pid state
  [ -f "$1" ] || return 1
  pid=$(cat "$1" 2> /dev/null) || return 1
  state=$(awk '{ print $3 }' "/proc/$pid/stat" 2> /dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

tail_logs() {
  local f
  for f in "$dir"/log/*; do
    [ -f "$f" ] || continue
    echo "--- last lines of $f"
    # less the noise of a first start (no state files to recover yet)
    grep -vE 'state file|NOTE: Trying backup' "$f" | tail -n 20
  done
}

stop_cluster() {
  [ -d "$dir" ] || return 0
  export SLURM_CONF=$dir/slurm.conf
  if [ -f "$SLURM_CONF" ] && alive "$dir/run/slurmctld.pid"; then
    # jobs first: slurmd leaves a running job's slurmstepd behind when it stops
    scancel --full --quiet --partition=debug 2> /dev/null || true
    for _ in $(seq 1 20); do
      [ -z "$(squeue -h -o %i 2> /dev/null)" ] && break
      sleep 0.5
    done
    scontrol shutdown 2> /dev/null || true
  fi
  # scontrol shutdown stops both daemons; without a slurmctld to pass it on, or if it hangs, each
  # gets SIGTERM and then SIGKILL
  local pidfile pid sig
  for pidfile in "$dir/run/slurmctld.pid" "$dir/run/slurmd.pid"; do
    for sig in TERM KILL; do
      for _ in $(seq 1 10); do
        alive "$pidfile" || break
        sleep 0.5
      done
      alive "$pidfile" || break
      pid=$(cat "$pidfile")
      log "$(basename "$pidfile" .pid) $pid still runs, sending SIG$sig"
      kill -"$sig" "$pid" 2> /dev/null || true
    done
  done
  # what outlived the steps above, found by what ties it to this cluster, never by name, so that
  # nothing of another cluster or of the caller is touched: a slurmstepd (slurmd starts it with
  # an environment of its own, but it keeps slurmd's log open) and a job's processes (which have
  # this cluster's SLURM_CONF and a SLURM_JOB_ID)
  local ancestors=" " a=$$ fd
  while [ "$a" -gt 1 ] 2> /dev/null; do
    ancestors+="$a "
    a=$(awk '{ print $4 }' "/proc/$a/stat" 2> /dev/null || echo 0)
  done
  local p
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [[ "$ancestors" == *" $pid "* ]] && continue
    local ours=0
    for fd in /proc/"$pid"/fd/*; do
      if [ "$(readlink "$fd" 2> /dev/null)" = "$dir/log/slurmd.log" ]; then ours=1; break; fi
    done
    if [ "$ours" -eq 0 ] && [ -r "/proc/$pid/environ" ]; then
      local env
      env=$({ tr '\0' '\n' < "/proc/$pid/environ"; } 2> /dev/null || true)
      if grep -qxF "SLURM_CONF=$dir/slurm.conf" <<< "$env" && grep -q '^SLURM_JOB_ID=' <<< "$env"; then ours=1; fi
    fi
    if [ "$ours" -eq 1 ]; then
      log "killing leftover process $pid ($({ tr '\0' ' ' < "/proc/$pid/cmdline"; } 2> /dev/null | cut -c1-80))"
      kill -KILL "$pid" 2> /dev/null || true
    fi
  done
  if alive "$dir/run/munged.pid"; then
    munged --stop --socket="$dir/munge/munge.socket" > /dev/null 2>&1 || kill "$(cat "$dir/run/munged.pid")" 2> /dev/null || true
  fi
  rm -f "$dir"/run/*.pid
}

start_cluster() {
  local p
  for p in munged munge slurmctld slurmd sbatch sinfo squeue scontrol scancel; do
    if ! command -v "$p" > /dev/null; then
      echo "local-cluster: no '$p' (apt-get install --no-install-recommends slurm-wlm munge)"
      exit 3
    fi
  done
  if [ "$(id -u)" -ne 0 ]; then
    echo "local-cluster: needs root (slurmd runs each job as its user)"
    exit 3
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if alive "$dir/run/slurmctld.pid"; then
    log "a cluster is already running in $dir"
    exit 1
  fi
  mkdir -p "$dir"/{munge,state,spool,run,log}
  # munged refuses a key that others can read
  head -c 1024 /dev/urandom > "$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"

  local timeout=${LOCAL_CLUSTER_TIMEOUT:-60}
  local started=$SECONDS
  # --force: munged refuses a socket that users other than root cannot reach (DIR from mktemp -d
  # is 0700, so is /root), but every client here runs as root
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
         --pid-file="$dir/run/munged.pid" --seed-file="$dir/munge/munged.seed" \
         --log-file="$dir/log/munged.log" > "$dir/log/munged.out" 2>&1 || {
    echo "local-cluster: munged did not start"
    tail_logs
    exit 4
  }

  local host ctld_port d_port mem
  host=$(hostname -s)
  ctld_port=$(free_port)
  d_port=$(free_port)
  mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
  cat > "$dir/slurm.conf" << EOF
# written by tools/slurm/local-cluster.sh: a single-node cluster in $dir
ClusterName=endstoplocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket,cred_expire=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
Waittime=0
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/slurm.conf
  # both fork into the background themselves and write their pid files
  slurmctld > "$dir/log/slurmctld.out" 2>&1 || { echo "local-cluster: slurmctld did not start"; tail_logs; stop_cluster; exit 4; }
  slurmd > "$dir/log/slurmd.out" 2>&1 || { echo "local-cluster: slurmd did not start"; tail_logs; stop_cluster; exit 4; }

  local state=""
  while [ $((SECONDS - started)) -lt "$timeout" ]; do
    state=$(sinfo -h -n "$host" -o %T 2> /dev/null || true)
    if [ "$state" = idle ]; then
      log "node $host idle after $((SECONDS - started)) s; export SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 0.5
  done
  echo "local-cluster: node $host not idle within $timeout s (state '${state:-no answer}')"
  tail_logs
  stop_cluster
  exit 4
}

case "$cmd" in
  start) start_cluster ;;
  stop)
    [ -d "$dir" ] && dir=$(cd "$dir" && pwd)
    stop_cluster
    ;;
  status)
    SLURM_CONF=$dir/slurm.conf sinfo
    SLURM_CONF=$dir/slurm.conf squeue
    ;;
  *) usage ;;
esac
