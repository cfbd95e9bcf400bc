#!/usr/bin/env bash
# run_all.sh - build and run all smpipe calibration microbenchmarks on the local GPU.
#
# Usage (from the repository root):   bash scripts/calib/run_all.sh
# Environment:
#   OUT         output directory (default: a new temp dir)
#   NVCC        nvcc to use (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
#   CALIB_ARCH  target (default sm_90; bulk copies need sm_90)
#   CALIB_ONLY  space-separated subset of: lat_mem inst cpasync bulk sync guide extra
# Outputs in $OUT:
#   calib_raw.txt      everything: environment, nvidia-smi, build log, full benchmark output
#   calib_results.txt  header (date, GPU, driver) + all RESULT lines
#   calib_sass.txt     SASS of the benchmark binaries (cuobjdump -sass) + opcode counts
# Never changes GPU clocks / power / persistence settings.
set -u
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-$(mktemp -d /tmp/calib_out.XXXXXX)}"
mkdir -p "$OUT"
BUILD="$(mktemp -d /tmp/calib_build.XXXXXX)"
RAW="$OUT/calib_raw.txt"
RES="$OUT/calib_results.txt"
SASS="$OUT/calib_sass.txt"
ARCH="${CALIB_ARCH:-sm_90}"
if [ -z "${NVCC:-}" ]; then
  if command -v nvcc >/dev/null 2>&1; then NVCC=nvcc; else NVCC=/usr/local/cuda/bin/nvcc; fi
fi
BENCHES="${CALIB_ONLY:-lat_mem inst cpasync bulk sync guide extra}"
: >"$RAW"
log() { echo "$@" | tee -a "$RAW"; }

log "=== smpipe calibration run"
log "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "host: $(hostname)  kernel: $(uname -r)  arch: $(uname -m)"
log "out: $OUT  build: $BUILD  target: $ARCH"
log "git: $(cd "$HERE" && git rev-parse --verify -q HEAD 2>/dev/null || echo none)"
log "=== nvidia-smi (before)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv 2>&1 | tee -a "$RAW"
nvidia-smi --query-gpu=clocks.max.mem,power.draw,power.limit,temperature.gpu,pstate,persistence_mode,compute_mode,memory.total --format=csv 2>&1 | tee -a "$RAW"
nvidia-smi -q -d CLOCK,PERFORMANCE >>"$RAW" 2>&1
log "=== nvcc"
"$NVCC" --version 2>&1 | tee -a "$RAW"

# ---- build (parallel)
log "=== build"
pids=()
for b in $BENCHES; do
  ( "$NVCC" -O3 -arch="$ARCH" -std=c++17 -lineinfo -Xcompiler -Wall,-Wextra \
      -o "$BUILD/$b" "$HERE/$b.cu" >"$BUILD/$b.buildlog" 2>&1
    echo $? >"$BUILD/$b.rc" ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
for b in $BENCHES; do
  rc=$(cat "$BUILD/$b.rc" 2>/dev/null || echo 99)
  log "build $b rc=$rc"
  cat "$BUILD/$b.buildlog" >>"$RAW"
done

# ---- SASS (for checking IMAD/FFMA loops, LDGSTS, UBLKCP/SYNCS, etc.)
{
  if command -v cuobjdump >/dev/null 2>&1; then CUOBJ=cuobjdump; else CUOBJ="$(dirname "$(command -v "$NVCC" || echo /usr/local/cuda/bin/nvcc)")/cuobjdump"; fi
  echo "=== opcode counts per kernel (inst)"
  if [ -x "$BUILD/inst" ]; then
    "$CUOBJ" -sass "$BUILD/inst" 2>&1 | awk '
      /Function :/ { fn=$3 }
      /^[ \t]*\/\*[0-9a-f]+\*\// { op=$2; if (op ~ /^@/) op=$3; sub(/\..*/, "", op); if (fn ~ /k_inst/) cnt[fn" "op]++ }
      END { for (k in cnt) if (cnt[k] > 8) print k, cnt[k] }' | sort
  fi
  for b in $BENCHES; do
    [ -x "$BUILD/$b" ] || continue
    echo "=== SASS $b"
    "$CUOBJ" -sass "$BUILD/$b" 2>&1
  done
} >"$SASS" 2>&1

# ---- run
declare -A RCS
for b in $BENCHES; do
  log "=== run $b"
  if [ ! -x "$BUILD/$b" ]; then log "ERROR $b not built"; RCS[$b]=build; continue; fi
  t0=$(date +%s.%N)
  timeout 150 "$BUILD/$b" >"$BUILD/$b.out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  cat "$BUILD/$b.out" >>"$RAW"
  RCS[$b]=$rc
  log "run $b rc=$rc seconds=$(awk "BEGIN{printf \"%.1f\", $t1-$t0}")"
done

log "=== nvidia-smi (after)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,pstate --format=csv 2>&1 | tee -a "$RAW"

# ---- results file
GPU="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
DRV="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
{
  echo "# smpipe calibration results"
  echo "# date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "# gpu: ${GPU:-unknown}"
  echo "# driver: ${DRV:-unknown}"
  echo "# nvcc: $("$NVCC" --version 2>/dev/null | tail -1)"
  echo "# target: $ARCH"
  grep -h '^INFO device' "$RAW" | head -1 | sed 's/^/# /'
  for b in $BENCHES; do echo "# rc $b=${RCS[$b]:-?}"; done
  grep -h -E '^(RESULT|ERROR|SKIP|TRACE)' "$RAW"
} >"$RES"

# ---- summary table
echo
echo "(per-config cp_async.bw_* / bulk.bw_* / *.issue_*.K* lines and TRACE lines: see calib_results.txt / calib_raw.txt)"
echo "==================== SUMMARY (${GPU:-?}, driver ${DRV:-?}) ===================="
awk '/^RESULT key=(cp_async\.bw_|bulk\.bw_|bulk\.issue_(1thr|lanes)\.|cp_async\.issue_[0-9]+B\.K)/ { next }
  /^RESULT/ {
  k=""; v=""; u="";
  for (i=2;i<=4;i++) { split($i, kv, "="); if (kv[1]=="key") k=kv[2]; else if (kv[1]=="value") v=kv[2]; else if (kv[1]=="unit") u=kv[2]; }
  printf "%-42s %10s %s\n", k, v, u }
  /^(ERROR|SKIP)/ { print }' "$RES"
for b in $BENCHES; do printf "rc %s=%s  " "$b" "${RCS[$b]:-?}"; done
echo
echo "outputs in $OUT"
