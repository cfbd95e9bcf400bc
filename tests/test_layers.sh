#!/bin/sh
# test_layers.sh: includes only look down the layers (docs/architecture.md):
# sim/core, sim/lang, sim/out, models, sim/drivers, sim/cli, in that order;
# a file may include from its own layer and the ones before it.  The
# headers of the units of models/ (all but sm.h, sm_internal.h, warp.h and
# the interpreter's family headers) include only sim/core from sim/.
# Usage: test_layers.sh SRCDIR
set -u
src=$1
rank() {
    case $1 in
    sim/core) echo 0 ;; sim/lang) echo 1 ;; sim/out) echo 2 ;; models) echo 3 ;;
    sim/drivers) echo 4 ;; sim/cli) echo 5 ;; *) echo 99 ;;
    esac
}
bad=0
n=0
for dir in sim/core sim/lang sim/out models sim/drivers sim/cli; do
    [ -d "$src/$dir" ] || { echo "FAIL: no $src/$dir"; exit 1; }
    mine=$(rank $dir)
    for f in "$src/$dir"/*.c "$src/$dir"/*.h; do
        [ -f "$f" ] || continue
        for inc in $(sed -n 's/^#include "\(sim\/[a-z]*\|models\)\/.*/\1/p' "$f"); do
            n=$((n + 1))
            if [ "$(rank "$inc")" -gt "$mine" ]; then
                echo "FAIL: $dir/$(basename "$f") includes from $inc, a layer above it"
                bad=1
            fi
        done
    done
done
for f in "$src"/sim/*.c "$src"/sim/*.h; do
    [ -f "$f" ] && { echo "FAIL: $f is outside the layer folders"; bad=1; }
done
units="arch.h arch_features.h barrier.h bulk_copy.h cl_pipe.h copy_engine.h mem_path.h pipeline.h race.h scheduler.h smem.h"
for h in $units; do
    [ -f "$src/models/$h" ] || { echo "FAIL: no models/$h"; bad=1; continue; }
    if sed -n 's/^#include "\(sim\/[a-z]*\)\/.*/\1/p' "$src/models/$h" | grep -v '^sim/core$' >/dev/null; then
        echo "FAIL: models/$h includes from sim/ beyond sim/core"
        bad=1
    fi
done
[ $n -gt 0 ] || { echo "FAIL: no includes found"; exit 1; }
[ $bad -eq 0 ] && echo "layers: $n includes, none upward"
exit $bad
