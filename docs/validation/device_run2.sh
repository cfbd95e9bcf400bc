#!/bin/sh
# smpipe validation run 2 (feat/cuda): repeats run 1 (noise), adds batch sweeps,
# tests an emitted run.sh (nvcc on this machine), and dumps the SASS of one
# GEMM kernel.  Never touches GPU settings.
set -u
cd "$(dirname "$0")"
W=/tmp/smpres2
rm -rf "$W"; mkdir -p "$W"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate,power.draw,power.limit,temperature.gpu,persistence_mode --format=csv
  nvcc --version 2>&1 | tail -2
} > "$W/env_before.txt" 2>&1
cat "$W/env_before.txt"
t_all=$(date +%s)
for p in progs/*; do
  case "$p" in *.*) continue;; esac
  name=$(basename "$p")
  modes="cold warm"; case "$name" in cov|*_batches) modes="cold";; esac
  for mode in $modes; do
    flag=--flush-l2; [ $mode = warm ] && flag=--no-flush-l2
    s=$(date +%s)
    timeout 300 "$p" $flag --repeats 9 --timeout 20 > "$W/${name}_$mode.json" 2> "$W/${name}_$mode.err"
    rc=$?
    echo "$name $mode rc=$rc $(( $(date +%s) - s ))s $(grep -o '"status": "[a-z-]*"' "$W/${name}_$mode.json" | sort | uniq -c | tr '\n' ' ')" | tee -a "$W/log.txt"
  done
done
echo "programs: $(( $(date +%s) - t_all ))s"
s=$(date +%s)
sh runsh/run.sh > "$W/runsh.out" 2>&1
echo "runsh rc=$? $(( $(date +%s) - s ))s" | tee -a "$W/log.txt"
cp runsh/results.json "$W/runsh_results.json" 2>/dev/null
command -v cuobjdump >/dev/null && cuobjdump -sass progs/gemm_tiles_t128 2>&1 | awk '/Function : .*smp_p19/{f=1} f&&/Function : /&&!/smp_p19/{exit} f' > "$W/sass_gemm_tiles_t128_p19.txt"
wc -l "$W/sass_gemm_tiles_t128_p19.txt"
grep -cE "IMAD " "$W/sass_gemm_tiles_t128_p19.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,pstate,power.draw,temperature.gpu --format=csv > "$W/env_after.txt" 2>&1
tar czf "$OUT/results2.tgz" -C "$W" .
cp "$W/log.txt" "$OUT/log2.txt"
echo "total $(( $(date +%s) - t_all ))s"
