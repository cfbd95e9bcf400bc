#!/bin/sh
# The measurement campaign's programs (docs/validation/campaign/README.md):
# one `smpipe validate --emit` folder per regime, kernel and block size,
# under OUTDIR/REGIME/KERNEL_tTHREADS_MODE.  A warm twin of a cold folder
# runs the same program without the L2 flush (its manifest says "warm").
# The element-wise reference files (.cu.ref) are removed: the programs check
# their outputs by hash, and the files would not fit the device transfer.
#
# Regimes:
#   alone  one block on one SM, the rest of the GPU idle (sm.blocks=1)
#   gpu1   one block on every SM (launch.grid = gpu.sms)
#   occ2   two blocks on every SM (sm.blocks=2, launch.grid = 2 x gpu.sms)
#   occ4   four blocks on every SM
# Usage: [KERNELS="..."] [THREADS="..."] [ARCH=h200] sh scripts/campaign/emit.sh OUTDIR REGIME [SMPIPE]
set -eu
out=$1
regime=$2
smpipe=${3:-build/smpipe}
sms=132
gemm_stages=
kernels=${KERNELS:-"with_staging with_staging_unified with_specialized_staging_unified with_staging_scope_thread gemm_tiles gemm_tiles_bulk"}
case $regime in
alone) threads="64 128 256 512 1024"; stages=1,2,3,4,6,8,12; blocks=1; grid=0; modes="cold warm" ;;
gpu1) threads="128 256 512"; stages=1,2,3,4,6,8,12; blocks=1; grid=$sms; modes="cold warm" ;;
occ2) threads="128 256"; stages=1,2,3,4,6,8; blocks=2; grid=$((2 * sms)); modes="cold warm" ;;
occ4) threads="128 256"; stages=1,2,3,4,6,8; blocks=4; grid=$((4 * sms)); modes="cold warm"
      gemm_stages=1,2,3,4,6 ;;  # 8 KiB a stage: four blocks of 8 stages exceed 228 KiB
*) echo "emit.sh: unknown regime $regime" >&2; exit 2 ;;
esac
threads=${THREADS:-$threads}  # THREADS="1024" emits one block size only
mkdir -p "$out/$regime"
for k in $kernels; do
    for t in $threads; do
        case $k in cutlass_multistage | flash_attention) [ "$t" = 128 ] || continue ;; esac
        d=$out/$regime/${k}_t${t}_cold
        [ -f "$d/manifest.json" ] && continue
        case $k in
        with_staging) vary="--vary elem_bytes=4,16 --vary compute_iters=0,16,64" ;;
        gemm_tiles_bulk) vary="--vary stages=${gemm_stages:-$(echo $stages | sed 's/,12$//')} --vary elem_bytes=4,16 --vary compute_iters=0,16,64" ;;
        # 16 KiB a stage: two blocks hold at most 6 stages, four at most 3.
        cutlass_multistage) case $blocks in 1) cs=2,3,4,6,8 ;; 2) cs=2,3,4,6 ;; *) cs=2,3 ;; esac
            vary="--vary stages=$cs --vary mma=16,64" ;;
        flash_attention) case $blocks in 4) fs=1,2,3 ;; *) fs=1,2,3,4 ;; esac
            vary="--vary stages=$fs --vary mma=8,32 --vary softmax=8,32" ;;
        gemm_tiles) gs=${gemm_stages:-$stages}
            # 1024 threads of 16-byte elements tile 32 KiB a stage: 8 stages exceed 227 KiB.
            [ "$t" = 1024 ] && gs=1,2,3,4,6
            vary="--vary stages=$gs --vary elem_bytes=4,16 --vary compute_iters=0,16,64" ;;
        *) vary="--vary stages=$stages --vary elem_bytes=4,16 --vary compute_iters=0,16,64" ;;
        esac
        rm -rf "$d.tmp"
        # shellcheck disable=SC2086
        "$smpipe" validate traces/$k.trace $vary --set threads=$t --set batches=512 \
            --set sm.blocks=$blocks --set launch.grid=$grid --arch "${ARCH:-h100}" --emit "$d.tmp" > "$d.log" 2>&1 \
            || { echo "emit failed: $d (see $d.log)"; continue; }
        rm -f "$d.tmp"/*.cu.ref "$d.log"
        mv "$d.tmp" "$d"
        for m in $modes; do
            [ "$m" = cold ] && continue
            w=$out/$regime/${k}_t${t}_$m
            rm -rf "$w"; mkdir -p "$w"
            sed "s/\"mode\": \"cold\"/\"mode\": \"$m\"/" "$d/manifest.json" > "$w/manifest.json"
        done
        echo "emitted $d"
    done
done
