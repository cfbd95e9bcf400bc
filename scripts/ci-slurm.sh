#!/bin/sh
# ci-slurm.sh: brings up a single-node Slurm cluster on this machine
# (Debian's slurm-wlm and munge, no systemd: the daemons run from a
# scratch folder with their own configuration, socket and logs), runs
# scripts/sweep-slurm.sh on it end to end, and compares the merged CSV
# with the same sweep run locally, byte for byte.  Everything it started
# is stopped, and the scratch folder removed, when it exits.
#   sh scripts/ci-slurm.sh [BUILD]     (BUILD: the folder with smpipe [build])
# .ci/run calls it where the packages can be installed (root or sudo).
set -eu
cd "$(dirname "$0")/.."
src=$PWD
smpipe=$src/${1:-build}/smpipe
[ -x "$smpipe" ] || { echo "ci-slurm.sh: no $smpipe (build first)" >&2; exit 2; }
sh scripts/install-missing slurm-wlm munge
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# The scratch folder is where the jobs run: on one node, it is shared.
work=$(mktemp -d "${TMPDIR:-/tmp}/smpipe-slurm.XXXXXX")
chmod 755 "$work"
stop() {
    for pid in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munged.pid; do
        [ -s "$pid" ] && $SUDO kill "$(cat "$pid")" 2>/dev/null || true
    done
    sleep 1
    $SUDO rm -rf "$work"
}
trap stop EXIT
trap 'exit 1' INT TERM

$SUDO munged --force --socket="$work/munge.sock" --pid-file="$work/munged.pid" \
    --log-file="$work/munged.log" --seed-file="$work/munged.seed"
node=$(slurmd -C | sed -n 's/ *$//; /^NodeName=/p')
host=$(echo "$node" | sed 's/^NodeName=\([^ ]*\).*/\1/')
cat >"$work/slurm.conf" <<CONF
ClusterName=smpipe-ci
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.sock
CredType=cred/munge
StateSaveLocation=$work/ctld
SlurmdSpoolDir=$work/slurmd
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
SlurmctldPort=26817
SlurmdPort=26818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
$node State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
mkdir -p "$work/ctld" "$work/slurmd"
export SLURM_CONF="$work/slurm.conf"
$SUDO env SLURM_CONF="$SLURM_CONF" slurmctld
$SUDO env SLURM_CONF="$SLURM_CONF" slurmd
# The node comes up within seconds.
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
    i=$((i + 1))
    if [ "$i" -gt 60 ]; then
        echo "ci-slurm.sh: the node did not come up:" >&2
        sinfo >&2 || true
        tail -n 20 "$work/slurmctld.log" "$work/slurmd.log" >&2 || true
        exit 1
    fi
    sleep 1
done

# The sweep: three shards on the cluster, and the same sweep here.
trace=$work/with_staging_unified.trace
cp "$src/traces/with_staging_unified.trace" "$trace"
vary="--vary stages=1..6 --vary threads=64,128"
cd "$work"
# shellcheck disable=SC2086 # vary is a list of options
SMPIPE=$smpipe sh "$src/scripts/sweep-slurm.sh" 3 "$work/cluster.csv" "$trace" $vary
# shellcheck disable=SC2086
"$smpipe" sweep "$trace" $vary --csv "$work/local.csv" >"$work/local.txt" 2>&1
i=0
until [ -s "$work/cluster.csv.txt" ] && [ -z "$(squeue -h 2>/dev/null)" ]; do
    i=$((i + 1))
    if [ "$i" -gt 300 ]; then
        echo "ci-slurm.sh: the jobs did not finish in 300 s:" >&2
        squeue >&2 || true
        tail -n 20 "$work"/*.log >&2 || true
        exit 1
    fi
    sleep 1
done
status=0
cmp "$work/local.csv" "$work/cluster.csv" || status=1
[ "$status" -eq 0 ] || { echo "ci-slurm.sh: the cluster's CSV differs from the local sweep's" >&2; \
                         diff "$work/local.csv" "$work/cluster.csv" | head -n 10 >&2; }
[ -s "$work/cluster.csv.merge.log" ] && { echo "ci-slurm.sh: the merge job reported:" >&2; \
                                          cat "$work/cluster.csv.merge.log" >&2; status=1; }
[ "$status" -eq 0 ] && echo "ci-slurm.sh: sweep-slurm.sh on a one-node Slurm gives the local sweep's bytes"
exit "$status"
