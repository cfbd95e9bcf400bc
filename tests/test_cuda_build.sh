#!/bin/sh
# test_cuda_build.sh: the `cuda` suite.  Writes one CUDA program holding a
# kernel for every bundled trace (OpenCL ones excepted) and every
# tests/cuda/*.trace (constructs the bundled traces do not use), and
# compiles it with nvcc for sm_80 and sm_90 in one call, warnings as
# errors.  Runs nothing: CI has no GPU.
# Usage: test_cuda_build.sh SMPIPE NVCC SRCDIR
set -u
smpipe=$1
nvcc=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
traces=""
for t in "$src"/traces/*.trace "$src"/tests/cuda/*.trace; do
    if "$smpipe" cuda "$t" -o "$tmp/probe.cu" >/dev/null 2>"$tmp/err"; then
        traces="$traces $t"
    elif grep -q "OpenCL" "$tmp/err"; then
        echo "skipped $t: OpenCL"
    else
        echo "FAIL: smpipe cuda $t"
        cat "$tmp/err"
        exit 1
    fi
done
# shellcheck disable=SC2086
"$smpipe" cuda $traces -o "$tmp/all.cu" || exit 1
start=$(date +%s)
"$nvcc" -O3 -std=c++17 -c -t 2 --Werror all-warnings \
    -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
    -o "$tmp/all.o" "$tmp/all.cu" || { echo "FAIL: nvcc"; exit 1; }
echo "nvcc: $(echo $traces | wc -w) kernels for sm_80 and sm_90 in $(( $(date +%s) - start )) s"
