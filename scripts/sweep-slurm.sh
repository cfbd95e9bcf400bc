#!/bin/sh
# sweep-slurm.sh: one smpipe sweep as a Slurm job array, one shard per task,
# then a job that merges the shards into OUT.csv (byte-identical to the
# same sweep run unsharded on one machine).
#
#   sh scripts/sweep-slurm.sh SHARDS OUT.csv TRACE --vary stages=1..64 [sweep options]
#
# Before submitting, `smpipe sweep ... --dry-run` checks the whole sweep
# (options, lists, every point's program); bad input submits nothing
# (exit 2).  Each task runs `smpipe sweep ... --shard I/SHARDS --resume
# OUT.csv.partI`, so a requeued or preempted task picks up where it
# stopped; its messages, errors included, go to OUT.csv.partI.log.  The
# merge job writes the summary and the recommendation to OUT.csv.txt and
# its errors to OUT.csv.merge.log.  Environment:
#   SMPIPE       the smpipe binary [smpipe in PATH, else build/smpipe]
#   SBATCH_ARGS  extra sbatch options for every job (--partition, --time...)
#   CPUS         cores per task [4, or the CPUs of the smallest node (sinfo)
#                if fewer]; the task runs that many points at once.  More
#                than the largest node has is refused: such a job would
#                pend forever.
# Submit from a directory the compute nodes share, with the trace in it.
set -eu

case "${1:-}" in
task)
    shift
    part="$SWEEP_OUT.part$SLURM_ARRAY_TASK_ID"
    # Exit 4: the shard's CSV is complete but some points did not run
    # (their rows say why): a success for Slurm, or the merge would wait
    # forever.
    "${SMPIPE:-smpipe}" sweep "$@" --shard "$SLURM_ARRAY_TASK_ID/$SWEEP_SHARDS" \
        --jobs "${SLURM_CPUS_PER_TASK:-1}" --resume "$part" >"$part.log" 2>&1 || [ $? -eq 4 ]
    exit 0
    ;;
merge)
    shift
    parts=""
    i=1
    while [ "$i" -le "$SWEEP_SHARDS" ]; do
        parts="$parts $SWEEP_OUT.part$i"
        i=$((i + 1))
    done
    exec 2>"$SWEEP_OUT.merge.log"
    # shellcheck disable=SC2086 # parts is a list of file names
    "${SMPIPE:-smpipe}" merge -o "$SWEEP_OUT" $parts || [ $? -eq 4 ]
    # The whole sweep, resumed from the merged CSV: nothing runs again,
    # the summary and the recommendation go to OUT.csv.txt (exit 4, points
    # that did not run, is noted in OUT.csv.merge.log; the job succeeded).
    "${SMPIPE:-smpipe}" sweep "$@" --resume "$SWEEP_OUT" >"$SWEEP_OUT.txt" || [ $? -eq 4 ]
    exit 0
    ;;
esac

if [ $# -lt 3 ]; then
    echo "usage: sh scripts/sweep-slurm.sh SHARDS OUT.csv TRACE --vary NAME=LIST [sweep options]" >&2
    exit 2
fi
shards=$1
out=$2
shift 2
case "$shards" in
'' | *[!0-9]* | 0)
    echo "sweep-slurm.sh: SHARDS must be a positive integer, not '$shards'" >&2
    exit 2
    ;;
esac
case "$out" in
*[[:space:]]*)
    echo "sweep-slurm.sh: OUT.csv must not contain spaces" >&2
    exit 2
    ;;
esac
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
# The jobs get the binary found here (exported: Slurm runs a copy of this
# script elsewhere): $SMPIPE, else smpipe in PATH, else build/smpipe.
if [ -z "${SMPIPE:-}" ]; then
    SMPIPE=smpipe
    command -v smpipe >/dev/null 2>&1 || SMPIPE=$(cd "$(dirname "$0")/.." && pwd)/build/smpipe
fi
# Check the sweep here, before anything is submitted: a shard that fails
# on bad input would leave the merge job waiting forever.
if ! "$SMPIPE" sweep "$@" --dry-run >/dev/null; then
    echo "sweep-slurm.sh: the sweep does not start (see above): nothing submitted" >&2
    exit 2
fi
# Cores per task: a job asking for more CPUs than any node has pends
# forever, so CPUS is checked against the nodes sinfo reports ("4+" means
# 4 or more: nodes differ).
cpus_min=$(sinfo -h -o %c 2>/dev/null | tr -d '+' | sort -n | head -n 1) || cpus_min=""
cpus_max=$(sinfo -h -o %c 2>/dev/null | tr -d '+' | sort -n | tail -n 1) || cpus_max=""
if [ -z "${CPUS:-}" ]; then
    CPUS=4
    case "$cpus_min" in
    '' | *[!0-9]*) ;;
    *) [ "$cpus_min" -lt "$CPUS" ] && CPUS=$cpus_min ;;
    esac
fi
case "$CPUS" in
'' | *[!0-9]* | 0)
    echo "sweep-slurm.sh: CPUS must be a positive integer, not '$CPUS'" >&2
    exit 2
    ;;
esac
case "$cpus_max" in
'' | *[!0-9]*) ;;
*)
    if [ "$CPUS" -gt "$cpus_max" ]; then
        echo "sweep-slurm.sh: CPUS=$CPUS but the largest node has $cpus_max CPUs: the jobs would pend forever" >&2
        exit 2
    fi
    ;;
esac
export SMPIPE SWEEP_SHARDS="$shards" SWEEP_OUT="$out"
# shellcheck disable=SC2086 # SBATCH_ARGS is a list of options
array=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=smpipe-sweep --array="1-$shards" \
    --cpus-per-task="$CPUS" --export=ALL "$self" task "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=smpipe-merge --dependency="afterok:$array" \
    --export=ALL "$self" merge "$@")
echo "submitted shards as job $array and the merge as job ${merge%%;*}: $out and $out.txt when both finish"
