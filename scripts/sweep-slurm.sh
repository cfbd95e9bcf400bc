#!/bin/sh
# sweep-slurm.sh: one smpipe sweep as a Slurm job array, one shard per task,
# then a job that merges the shards into OUT.csv (byte-identical to the
# same sweep run unsharded on one machine).
#
#   sh scripts/sweep-slurm.sh SHARDS OUT.csv TRACE --vary stages=1..64 [sweep options]
#
# Each task runs `smpipe sweep ... --shard I/SHARDS --resume OUT.csv.partI`,
# so a requeued or preempted task picks up where it stopped; the merge job
# writes the summary and the recommendation to OUT.csv.txt.  Environment:
#   SMPIPE       the smpipe binary [smpipe in PATH, else build/smpipe]
#   SBATCH_ARGS  extra sbatch options for every job (--partition, --time...)
#   CPUS         cores per task [4]; the task runs that many points at once
# Submit from a directory the compute nodes share, with the trace in it.
set -eu

case "${1:-}" in
task)
    shift
    part="$SWEEP_OUT.part$SLURM_ARRAY_TASK_ID"
    exec "${SMPIPE:-smpipe}" sweep "$@" --shard "$SLURM_ARRAY_TASK_ID/$SWEEP_SHARDS" \
        --jobs "${SLURM_CPUS_PER_TASK:-1}" --resume "$part" >"$part.log"
    ;;
merge)
    shift
    parts=""
    i=1
    while [ "$i" -le "$SWEEP_SHARDS" ]; do
        parts="$parts $SWEEP_OUT.part$i"
        i=$((i + 1))
    done
    # shellcheck disable=SC2086 # parts is a list of file names
    "${SMPIPE:-smpipe}" merge -o "$SWEEP_OUT" $parts
    # The whole sweep, resumed from the merged CSV: nothing runs again,
    # the summary and the recommendation go to OUT.csv.txt.
    exec "${SMPIPE:-smpipe}" sweep "$@" --resume "$SWEEP_OUT" >"$SWEEP_OUT.txt"
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
export SMPIPE SWEEP_SHARDS="$shards" SWEEP_OUT="$out"
# shellcheck disable=SC2086 # SBATCH_ARGS is a list of options
array=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=smpipe-sweep --array="1-$shards" \
    --cpus-per-task="${CPUS:-4}" --export=ALL "$self" task "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --job-name=smpipe-merge --dependency="afterok:$array" \
    --export=ALL "$self" merge "$@")
echo "submitted shards as job $array and the merge as job ${merge%%;*}: $out and $out.txt when both finish"
