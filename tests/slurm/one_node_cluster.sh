# A one-node Slurm cluster on this machine, every file under one folder: sourced by
# run_measure_test.sh. start_cluster DIR writes slurm.conf, cgroup.conf and a munge key under DIR,
# starts munged, slurmctld and slurmd, and waits for the node to be idle; stop_cluster stops each
# daemon it started (by the pid it recorded) and is safe to call twice. Needs root (SlurmUser=root,
# munged and slurmd as root). Client commands find the cluster through SLURM_CONF.
#
# Accounting is off (AccountingStorageType=accounting_storage/none), so sacct has nothing to say;
# `openrecipes measure` then takes the job's times from `scontrol show job`, as it does on a real
# cluster whose sacct is disabled. MinJobAge keeps finished jobs in slurmctld for that.

cluster_pids=()

start_cluster() {
  local dir=$1
  mkdir -p "$dir"/{munge,state,spool,log,run}
  chmod 755 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  local host
  host=$(hostname -s)
  local cpus
  cpus=$(nproc)
  local port_base=$((20000 + RANDOM % 20000))
  cat >"$dir/slurm.conf" <<CONF
ClusterName=openrecipes-test
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=$port_base
SlurmdPort=$((port_base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
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
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
SchedulerType=sched/builtin
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debugq Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  # slurmd loads a cgroup plugin at start even though nothing here uses cgroups
  # (proctrack/linuxproc, task/none): let it pick the host's version, and keep systemd out.
  cat >"$dir/cgroup.conf" <<CONF
CgroupPlugin=autodetect
IgnoreSystemd=yes
CONF
  export SLURM_CONF=$dir/slurm.conf
  /usr/sbin/munged --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed" --force
  wait_for_file "$dir/run/munged.pid" && cluster_pids+=("$(cat "$dir/run/munged.pid")")
  /usr/sbin/slurmctld -f "$dir/slurm.conf" -i
  wait_for_file "$dir/run/slurmctld.pid" && cluster_pids+=("$(cat "$dir/run/slurmctld.pid")")
  /usr/sbin/slurmd -f "$dir/slurm.conf"
  wait_for_file "$dir/run/slurmd.pid" && cluster_pids+=("$(cat "$dir/run/slurmd.pid")")
  local i
  for i in $(seq 1 60); do
    if sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; then return 0; fi
    sleep 1
  done
  echo "one_node_cluster: the node did not become idle in 60 s; logs under $dir/log:" >&2
  tail -n 20 "$dir"/log/*.log >&2 || true
  return 1
}

wait_for_file() {
  local i
  for i in $(seq 1 100); do
    [ -s "$1" ] && return 0
    sleep 0.1
  done
  echo "one_node_cluster: $1 did not appear" >&2
  return 1
}

stop_cluster() {
  local pid i
  # slurmd, slurmctld, then munged: the reverse of the start order.
  for ((i = ${#cluster_pids[@]} - 1; i >= 0; i--)); do
    pid=${cluster_pids[$i]}
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  cluster_pids=()
}

# finish_cluster_test NAME SUMMARY: the end of a cluster test. Stops the cluster, fails (through
# the test's `fail`) for a daemon of started_pids still running, then exits 1 with the cluster's
# logs when the test's $failures is not 0, else prints "NAME: all checks passed (SUMMARY)".
# shellcheck disable=SC2154 # started_pids, failures and work are the sourcing test's
finish_cluster_test() {
  stop_cluster
  local pid
  for pid in "${started_pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then fail "daemon $pid still running after stop_cluster"; fi
  done
  if [ "$failures" -gt 0 ]; then
    echo "$failures check(s) failed; cluster logs were under $work/cluster/log" >&2
    tail -n 30 "$work"/cluster/log/*.log >&2 || true
    exit 1
  fi
  echo "$1: all checks passed ($2)"
}
