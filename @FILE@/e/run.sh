#!/bin/sh
# run.sh: written by `smpipe validate --emit`.  Builds the measurement program for
# this machine's GPU (unless it is built already) and runs it: results.json.
# Then, where smpipe is: smpipe validate TRACE --results THIS_DIRECTORY
set -u
cd "$(dirname "$0")"
prog=validate_emit_dir
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
if [ ! -x "./$prog" ]; then
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
    if [ -z "$cc" ]; then
        echo "run.sh: nvidia-smi finds no GPU" >&2
        exit 2
    fi
    "$NVCC" -O3 -std=c++17 -arch=sm_$cc -o "$prog" "$prog.cu" || exit 2
fi
status=0
"./$prog" --flush-l2 --repeats 9 > results.json.tmp || status=$?
mv results.json.tmp results.json
exit $status
