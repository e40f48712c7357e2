#!/usr/bin/env bash
# A sharded campaign on a real scheduler (docs/fuzzing.md, "Sharding on a cluster"): this script starts a
# single-node Slurm of its own (Debian's slurm-wlm: slurmctld and slurmd in the background, a generated slurm.conf,
# AuthType=auth/none, every state and spool directory in WORKDIR, no systemd, no munge, no cgroups), submits
# `tilesim fuzz --shard $SLURM_ARRAY_TASK_ID/4` as a job array of 4 tasks, waits for it, merges the 4 summaries
# with `tilesim fuzz --merge` and checks that the merge is the unsharded campaign (programs, results, digest, op
# and feature counts), then stops the daemons it started. Exit 77 (ctest: skipped) when slurmctld, slurmd or
# sbatch is not installed (tools/setup installs slurm-wlm).
#   slurm_cli.sh TILESIM WORKDIR
set -uo pipefail
tilesim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
for tool in slurmctld slurmd sbatch scontrol; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] ||
    { echo "skipped: $tool is not installed (apt-get install slurm-wlm; tools/setup does)"; exit 77; }
done
PATH=$PATH:/usr/sbin
rm -rf "$work" && mkdir -p "$work"/{state,spool,out}
work=$(cd "$work" && pwd)
count=400
shards=4

fail() {
  echo "FAIL: $*"
  for log in slurmctld slurmd; do echo "--- $log.log (last lines)"; tail -n 15 "$work/$log.log" 2>/dev/null; done
  exit 1
}
# A TCP port nobody listens on (bash's /dev/tcp: a refused connection means free).
free_port() {
  local port
  for _ in $(seq 50); do
    port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
  done
  echo 0
}
node=$(hostname -s)
cpus=$(nproc)
ctld_port=$(free_port)
slurmd_port=$(free_port)
export SLURM_CONF=$work/slurm.conf
# Why each line: auth/none and cred/none (no munge daemon, one machine, root only); proctrack/linuxproc and
# task/none (no cgroup file system in a container); cons_tres with CR_CPU (the 4 array tasks share the CPUs, one
# each); every path in $work (no /var state, nothing left behind); SlurmdUser root (slurmd starts the tasks).
cat >"$SLURM_CONF" <<EOF
ClusterName=tilesim-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=10 State=UP
EOF

pids=()
stop_daemons() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
}
trap stop_daemons EXIT
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$work/slurmd.out" 2>&1 &
pids+=($!)
ready=""
for _ in $(seq 100); do  # up to 20 s for the controller to answer and the node to be idle
  if scontrol show node "$node" 2>/dev/null | grep -q "State=IDLE"; then ready=yes; break; fi
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || fail "a daemon exited at start-up (pid $pid)"; done
  sleep 0.2
done
[ -n "$ready" ] || fail "the node did not become idle in 20 s: $(scontrol show node "$node" 2>&1 | grep -o 'State=[^ ]*')"
echo "slurm $(slurmctld -V | cut -d' ' -f2): controller and node up ($node, $cpus CPUs)"

# The job array (the recipe of docs/fuzzing.md): task I runs shard I/4 and writes its summary.
cat >"$work/shard.sbatch" <<EOF
#!/bin/bash
#SBATCH --array=0-$((shards - 1)) --ntasks=1 --cpus-per-task=1 --output=$work/out/shard-%a.log
exec "$tilesim" fuzz --count $count --seed 7 --shard "\$SLURM_ARRAY_TASK_ID/$shards" --quiet \\
  --regressions "$work/out/r" --json "$work/out/shard-\$SLURM_ARRAY_TASK_ID.json"
EOF
started=$(date +%s)
timeout 120 sbatch --wait --chdir="$work/out" "$work/shard.sbatch" >"$work/sbatch.out" 2>&1
status=$?
array_seconds=$(($(date +%s) - started))
cat "$work/sbatch.out"
[ $status -eq 0 ] || { tail -n 5 "$work"/out/shard-*.log; fail "sbatch --wait exited $status"; }
for i in $(seq 0 $((shards - 1))); do
  [ -s "$work/out/shard-$i.json" ] || fail "array task $i wrote no summary ($(cat "$work/out/shard-$i.log"))"
done
"$tilesim" fuzz --merge "$work"/out/shard-{0,1,2,3}.json --json "$work/merged.json" >/dev/null ||
  fail "tilesim fuzz --merge failed"
"$tilesim" fuzz --count $count --seed 7 --jobs 2 --quiet --regressions "$work/r" --json "$work/whole.json" >/dev/null ||
  fail "the unsharded campaign failed"

field() { sed -n "s/^ \"$2\": \(.*\),\$/\1/p" "$1"; }
for key in programs passed failed skipped digest; do
  a=$(field "$work/whole.json" $key) b=$(field "$work/merged.json" $key)
  [ "$a" = "$b" ] || fail "$key: unsharded $a, $shards Slurm array tasks merged $b"
done
extract() { sed -n '/^ "ops": {/,/^ "skips"/p' "$1"; }
diff <(extract "$work/whole.json") <(extract "$work/merged.json") >/dev/null || fail "op/feature counts differ"
grep -q '"0/4"' "$work/merged.json" && grep -q '"3/4"' "$work/merged.json" || fail "the merge does not list shards 0/4..3/4"
echo "ok: a $shards-task Slurm job array of $count programs (${array_seconds} s) merged = the unsharded campaign" \
     "(digest $(field "$work/whole.json" digest))"
