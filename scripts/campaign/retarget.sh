#!/bin/sh
# Copies emitted campaign folders for another GPU of the same compute
# capability and SM count (the H200 runs the H100's programs): the kernels
# are generated identically for both architectures (only the names differ,
# `smpipe cuda --arch h200` vs h100), so the copy rewrites the manifest's
# architecture, which `validate --results` simulates, and SMP_ARCH.
# Usage: sh scripts/campaign/retarget.sh ARCH DEST SRC_REGIME_DIR/FOLDER_cold...
set -eu
arch=$1; dest=$2; shift 2
for d in "$@"; do
    regime=$(basename "$(dirname "$d")")
    name=$(basename "$d")
    for m in cold warm; do
        src=$(dirname "$d")/${name%_cold}_$m
        [ -f "$src/manifest.json" ] || continue
        out=$dest/$regime/${name%_cold}_$m
        mkdir -p "$out"
        for f in "$src"/*; do
            case $f in *.json | *.err | *.log) continue ;; esac
            sed "s/^#define SMP_ARCH \"[a-z0-9]*\"/#define SMP_ARCH \"$arch\"/" "$f" > "$out/$(basename "$f")"
        done
        sed "s/\"arch\": \"[a-z0-9]*\"/\"arch\": \"$arch\"/; s/\"arch_name\": \"[a-z0-9]*\"/\"arch_name\": \"$arch\"/" \
            "$src/manifest.json" > "$out/manifest.json"
        [ -x "$src/run.sh" ] && chmod +x "$out/run.sh"
    done
done
