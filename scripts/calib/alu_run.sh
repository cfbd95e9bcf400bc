#!/bin/sh
# alu_run.sh: the fourth round's measurements (docs/validation/campaign/README.md):
# the SASS of the three block-size-256 guide kernels as `smpipe cuda` writes
# them, and scripts/calib/alu.cu's integer-issue and try_wait rates.
#   sh scripts/calib/alu_run.sh emit DIR [SMPIPE]   here: writes the programs to DIR
#   sh scripts/calib/alu_run.sh run DIR             on the device machine (carry DIR):
#                                                   listings, alu_h100.txt, env_alu.txt in $OUT
set -eu
cd "$(dirname "$0")/../.."
mode=$1
dir=$2
case $mode in
emit)
    smpipe=${3:-build/smpipe}
    mkdir -p "$dir"
    for k in with_staging_scope_thread with_specialized_staging_unified with_staging_unified; do
        for s in 3 4; do
            "$smpipe" cuda "traces/$k.trace" --set threads=256 --set batches=512 --set stages=$s \
                --set elem_bytes=4 --set compute_iters=0 -o "$dir/${k}_t256_s${s}_b512.cu" >/dev/null
        done
    done
    ;;
run)
    export PATH=/usr/local/cuda/bin:$PATH
    out=${OUT:?set OUT}
    for f in "$dir"/*.cu; do
        n=$(basename "$f" .cu)
        nvcc -O3 -std=c++17 -arch=sm_90 -cubin -o "$dir/$n.cubin" "$f"
        cuobjdump -sass "$dir/$n.cubin" > "$out/$n.sass"
    done
    nvcc -O3 -std=c++17 -arch=sm_90 -o "$dir/alu" scripts/calib/alu.cu
    cuobjdump -sass "$dir/alu" > "$out/alu.sass"
    { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -2; date -u; } \
        > "$out/env_alu.txt"
    "$dir/alu" > "$out/alu_h100.txt" 2>&1
    cat "$out/alu_h100.txt"
    ;;
*)
    echo "usage: sh scripts/calib/alu_run.sh emit|run DIR [SMPIPE]" >&2
    exit 2
    ;;
esac
