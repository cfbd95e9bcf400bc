#!/bin/sh
# clockload.sh - the SM clock while a campaign program keeps the whole GPU busy.
#
# The campaign compares SM cycles (clock64), so a kernel that runs the SMs at a
# lower clock sees more DRAM bytes a cycle: docs/validation.md found the real
# kernels' whole-GPU points at about 1,780 cycles a microsecond of wall time
# against 1,935 for the others (microbench/mmaclock_h100.txt: while MMAs run;
# nvidia-smi does not see it at this sampling).  This samples nvidia-smi's clocks.sm and
# power.draw every 20 ms while one point of an emitted folder runs back to back
# (--point K --repeats N, L2 not flushed) and prints the samples taken while
# the power was above idle.  Never changes a GPU setting.
# Usage (on the GPU machine): sh scripts/calib/clockload.sh NAME FOLDER POINT REPEATS
#   FOLDER: an emitted campaign folder (scripts/campaign/emit.sh), built here.
set -eu
name=$1; dir=$2; point=$3; repeats=$4
prog=$(ls "$dir"/*.cu | head -n 1); prog=${prog%.cu}
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' .')
[ -x "$prog" ] || nvcc -O3 -std=c++17 -arch=sm_"$cc" -o "$prog" "$prog.cu"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader,nounits -lms 20 > "$name.samples" &
smi=$!
sleep 1
"$prog" --no-flush-l2 --point "$point" --repeats "$repeats" --warmup 2 > "$name.json"
sleep 0.5
kill "$smi"
# The busy samples: power above the idle level of the first second plus 100 W.
awk -F', ' 'NR <= 25 { if ($3 + 0 > idle) idle = $3 + 0; next }
            $3 + 0 > idle + 100 { n++; c[n] = $2 + 0; p += $3 }
            END { if (n == 0) { print "no busy samples"; exit 1 }
                  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t }
                  printf "%s: %d busy samples, SM clock median %d MHz (min %d, max %d), mean power %.0f W\n",
                         FILENAME, n, c[int((n + 1) / 2)], c[1], c[n], p / n }' "$name.samples"
