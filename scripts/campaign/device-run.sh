#!/bin/sh
# Runs the campaign's emitted programs on the GPU machine (never changes GPU
# settings): builds every program in parallel, then runs each cold folder's
# program with the L2 flushed and its warm twin without, into results.json.
# Results and the environment go to $OUT/NAME.tgz.
# Usage (on the GPU machine, from the repository root):
#   sh scripts/campaign/device-run.sh NAME CAMPAIGN_DIR/REGIME...
set -u
name=$1; shift
jobs=$(nproc)
{
    echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate,power.limit,temperature.gpu,persistence_mode --format=csv
    nvcc --version 2>&1 | tail -2
} > "env_$name.txt" 2>&1
cat "env_$name.txt"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
t0=$(date +%s)
for r in "$@"; do
    for d in "$r"/*_cold; do
        ls "$d"/*.cu
    done
done | xargs -P "$jobs" -I{} sh -c 'f={}; nvcc -O3 -std=c++17 -arch=sm_'"$cc"' -o "${f%.cu}" "$f" > "$f.build.log" 2>&1 || echo "build failed: $f"'
echo "built in $(( $(date +%s) - t0 ))s"
for r in "$@"; do
    for d in "$r"/*_cold; do
        prog=$(ls "$d"/*.cu | head -n 1); prog=${prog%.cu}
        [ -x "$prog" ] || { echo "no program in $d"; continue; }
        for mode in cold warm; do
            dir=${d%_cold}_$mode
            [ -f "$dir/manifest.json" ] || continue
            flag=--flush-l2; [ $mode = warm ] && flag=--no-flush-l2
            s=$(date +%s)
            timeout 120 "$prog" $flag --repeats 7 --warmup 2 --timeout 20 > "$dir/results.json" 2> "$dir/results.err"
            echo "$dir rc=$? $(( $(date +%s) - s ))s"
        done
    done
done
echo "total $(( $(date +%s) - t0 ))s"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,pstate,power.draw,temperature.gpu --format=csv >> "env_$name.txt" 2>&1
tar czf "$OUT/$name.tgz" "env_$name.txt" $(for r in "$@"; do find "$r" -name 'results.json' -o -name 'results.err' -o -name '*.build.log' -size +0; done)
