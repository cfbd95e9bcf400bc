#!/bin/sh
# test_cuda_build.sh: the `cuda` suite.  Writes one CUDA program holding a
# kernel for every bundled trace (OpenCL ones excepted) and every
# tests/cuda/*.trace (constructs the bundled traces do not use), and a
# second one for tests/conformance/*.trace (NVIDIA's libcudacxx tests,
# ported; those that break a precondition on purpose are left out, the
# simulator gives them no reference), and compiles each with nvcc for
# sm_80 and sm_90 in one call, warnings as errors.  The second program has
# no compute(x, n): what only such a program holds is compiled too.  Runs
# nothing: CI has no GPU.
# Usage: test_cuda_build.sh SMPIPE NVCC SRCDIR
set -u
smpipe=$1
nvcc=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build NAME TRACE...: generates one program from the traces and compiles it.
build() {
    name=$1
    shift
    traces=""
    for t in "$@"; do
        if grep -q "^# expect-exit: [1-9]" "$t"; then
            echo "skipped $t: the simulator rejects it"
        elif "$smpipe" cuda "$t" -o "$tmp/probe.cu" >/dev/null 2>"$tmp/err"; then
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
    "$smpipe" cuda $traces -o "$tmp/$name.cu" || exit 1
    start=$(date +%s)
    "$nvcc" -O3 -std=c++17 -c -t 2 --Werror all-warnings \
        -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
        -o "$tmp/$name.o" "$tmp/$name.cu" || { echo "FAIL: nvcc ($name)"; exit 1; }
    echo "nvcc: $name: $(echo $traces | wc -w) kernels for sm_80 and sm_90 in $(( $(date +%s) - start )) s"
}

build all "$src"/traces/*.trace "$src"/tests/cuda/*.trace
build conformance "$src"/tests/conformance/*.trace
