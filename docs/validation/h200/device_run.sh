#!/bin/sh
# smpipe validation on an H200: runs the four guide kernels' programs (built
# here with nvcc -O3 -std=c++17 -arch=sm_90 from the emitted .cu files) cold
# (L2 flushed) and warm, 9 timed launches each, as run.sh would.  Never
# touches GPU settings.  Results go to $OUT.
set -u
cd "$(dirname "$0")"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate,power.draw,power.limit,temperature.gpu,persistence_mode --format=csv
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
for d in *_t128_cold; do
  k=${d%_t128_cold}
  for mode in cold warm; do
    flag=--flush-l2; [ $mode = warm ] && flag=--no-flush-l2
    s=$(date +%s)
    timeout 200 "$d/$k" $flag --repeats 9 --timeout 20 > "$OUT/${k}_$mode.json" 2> "$OUT/${k}_$mode.err"
    echo "$k $mode rc=$? $(( $(date +%s) - s ))s $(grep -o '"status": "[a-z-]*"' "$OUT/${k}_$mode.json" | sort | uniq -c | tr '\n' ' ')" | tee -a "$OUT/log.txt"
  done
done
nvidia-smi --query-gpu=clocks.sm,clocks.mem,pstate,power.draw,temperature.gpu --format=csv > "$OUT/env_after.txt" 2>&1
