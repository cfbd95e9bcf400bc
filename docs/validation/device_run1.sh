#!/bin/sh
# smpipe validation run (feat/cuda): runs the measurement programs built on the
# dev machine (nvcc 13.0, -O3 -arch=sm_90), each cold (L2 flushed) and warm.
# Writes $OUT/results.tgz (one JSON per program and mode, stderr, env) and
# prints a summary.  Never touches GPU settings.
set -u
cd "$(dirname "$0")"
W=/tmp/smpres
rm -rf "$W"; mkdir -p "$W"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"; uname -a
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate,power.draw,power.limit,temperature.gpu,persistence_mode --format=csv
  nvidia-smi -q -d CLOCK,PERFORMANCE
} > "$W/env_before.txt" 2>&1
head -3 "$W/env_before.txt" | tail -2
t_all=$(date +%s)
for p in progs/*; do
  case "$p" in *.*) continue;; esac
  name=$(basename "$p")
  modes="cold warm"; [ "$name" = cov ] && modes="cold"
  for mode in $modes; do
    flag=--flush-l2; [ $mode = warm ] && flag=--no-flush-l2
    s=$(date +%s)
    timeout 300 "$p" $flag --repeats 9 --timeout 20 > "$W/${name}_$mode.json" 2> "$W/${name}_$mode.err"
    rc=$?
    echo "$name $mode rc=$rc $(( $(date +%s) - s ))s status=$(grep -o '"status": "[a-z-]*"' "$W/${name}_$mode.json" | sort | uniq -c | tr '\n' ' ')" | tee -a "$W/log.txt"
  done
done
echo "total $(( $(date +%s) - t_all ))s"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,pstate,power.draw,temperature.gpu --format=csv > "$W/env_after.txt" 2>&1
tar czf "$OUT/results.tgz" -C "$W" .
cp "$W/log.txt" "$OUT/log.txt"
# A few numbers: with_staging_unified t128 cold, elem 4, iters 16 (the calibration's guide.cu config).
python3 - "$W/with_staging_unified_t128_cold.json" <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
print("gpu:", d["gpu"])
for p in d["points"]:
    pr = p["params"]
    if pr["elem_bytes"] == 4 and pr["compute_iters"] == 16:
        print("stages", pr["stages"], "cycles", p.get("cycles"), "min", p.get("cycles_min"), "ms", p.get("kernel_ms"), p["status"])
PY
