#!/bin/sh
# sweep-parallel.sh: one smpipe sweep split into shards run by GNU parallel
# (on this machine, or on several with PARALLEL_ARGS="-S host1,host2"),
# then merged into OUT.csv, byte-identical to the unsharded sweep; prints
# the sweep's summary and recommendation.
#
#   sh scripts/sweep-parallel.sh SHARDS OUT.csv TRACE --vary stages=1..64 [sweep options]
#
# Each shard runs `smpipe sweep ... --shard I/SHARDS --jobs 1 --resume
# OUT.csv.partI`: run the same command again after an interruption and only
# the missing points are simulated.  Environment:
#   SMPIPE         the smpipe binary [smpipe in PATH, else build/smpipe]
#   PARALLEL_ARGS  extra GNU parallel options, e.g. "-S host1,host2
#                  --workdir . --transferfile TRACE --return {OUT}.part{}"
#                  for other machines (smpipe installed there)
# Without GNU parallel (apt-get install parallel), xargs -P runs the shards
# on this machine.
set -eu
if [ $# -lt 3 ]; then
    echo "usage: sh scripts/sweep-parallel.sh SHARDS OUT.csv TRACE --vary NAME=LIST [sweep options]" >&2
    exit 2
fi
shards=$1
out=$2
shift 2
case "$shards" in
'' | *[!0-9]* | 0)
    echo "sweep-parallel.sh: SHARDS must be a positive integer, not '$shards'" >&2
    exit 2
    ;;
esac
case "$out" in
*[[:space:]]*)
    echo "sweep-parallel.sh: OUT.csv must not contain spaces" >&2
    exit 2
    ;;
esac
# smpipe: $SMPIPE, else smpipe in PATH, else this source tree's build/smpipe.
if [ -z "${SMPIPE:-}" ]; then
    SMPIPE=smpipe
    command -v smpipe >/dev/null 2>&1 || SMPIPE=$(cd "$(dirname "$0")/.." && pwd)/build/smpipe
fi
smpipe=$SMPIPE
# A shard whose points did not all run exits 4 (CLI_EXIT_INCOMPLETE): its
# CSV is complete, its rows say why; only other statuses stop the sweep.
# shellcheck disable=SC2016 # $0, $@ and $s belong to the inner sh
shard='"$0" sweep "$@"; s=$?; if [ "$s" -eq 4 ]; then s=0; fi; exit "$s"'
if command -v parallel >/dev/null 2>&1; then
    # shellcheck disable=SC2086 # PARALLEL_ARGS is a list of options
    seq 1 "$shards" | parallel --will-cite --halt now,fail=1 ${PARALLEL_ARGS:-} -q \
        sh -c "$shard" "$smpipe" "$@" --shard "{}/$shards" --jobs 1 --resume "$out.part{}" >/dev/null
else
    seq 1 "$shards" | xargs -P "$(getconf _NPROCESSORS_ONLN)" -I '{}' \
        sh -c "$shard" "$smpipe" "$@" --shard "{}/$shards" --jobs 1 --resume "$out.part{}" >/dev/null
fi
parts=""
i=1
while [ "$i" -le "$shards" ]; do
    parts="$parts $out.part$i"
    i=$((i + 1))
done
# shellcheck disable=SC2086 # parts is a list of file names
"$smpipe" merge -o "$out" $parts || [ $? -eq 4 ]
# shellcheck disable=SC2086
rm -f $parts
# The whole sweep, resumed from the merged CSV: nothing runs again; it
# prints the summary and the recommendation.
exec "$smpipe" sweep "$@" --resume "$out"
