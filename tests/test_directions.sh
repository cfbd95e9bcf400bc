#!/bin/sh
# test_directions.sh: memcpy_async in each of the four directions (issue 20:
# `smpipe cuda` crashed on every copy that is not global to shared) goes
# through every verb without a crash: check, run on both engines (the same
# bytes), run --json, cuda, sweep and validate --emit.  Each direction is
# written three ways (a pipeline, a barrier, cooperative_groups).  The four
# pipeline forms take four different cycle counts (each direction has its
# own path).  test_async_copy checks the bytes per level.
# Usage: test_directions.sh SMPIPE SRCDIR
set -u
. "$2/tests/lib.sh"

# direction DST SRC WAY: a program copying 4096 bytes from SRC to DST.
direction() {
    printf 'smpipe 1\nparam n = 256 in 64..256\nblock 64\nshared int4 s[256]\nshared int4 s2[256]\n'
    printf 'global int4 g[256]\nglobal int4 g2[256]\n'
    case $3 in
    pipe)
        printf 'shared pipeline_shared_state<block, 1> st\nvar p = make_pipeline(block, &st)\n'
        printf 'p.producer_acquire()\nmemcpy_async(block, %s, %s, sizeof(int4) * n, p)\n' "$1" "$2"
        printf 'p.producer_commit()\np.consumer_wait()\np.consumer_release()\n' ;;
    bar)
        printf 'barrier bar\nif (threadIdx.x == 0)\n    init(&bar, block.size())\nend\n__syncthreads()\n'
        printf 'memcpy_async(block, %s, %s, sizeof(int4) * n, bar)\nbar.arrive_and_wait()\n' "$1" "$2" ;;
    cg)
        printf 'cooperative_groups::memcpy_async(block, %s, %s, sizeof(int4) * n)\n' "$1" "$2"
        printf 'cooperative_groups::wait(block)\n' ;;
    esac
}

cycles=""
for d in s:g s2:s g2:s g2:g; do
    dst=${d%%:*}
    srcbuf=${d#*:}
    for way in pipe bar cg; do
        nm=$srcbuf-to-$dst-$way
        t=$tmp/$nm.trace
        direction "$dst" "$srcbuf" "$way" >"$t"
        check "$nm-check" 0 "$smpipe" check "$t"
        check "$nm-run" 0 "$smpipe" run "$t" --json "$tmp/event.json"
        cp "$tmp/out" "$tmp/event.txt"
        check "$nm-stepped" 0 "$smpipe" run "$t" --engine stepped --json "$tmp/stepped.json"
        same "$nm-engines" "$tmp/event.txt" "$tmp/out"
        # The JSON names its engine; everything else is the same.
        grep -v '"engine": ' "$tmp/event.json" >"$tmp/event.j"
        grep -v '"engine": ' "$tmp/stepped.json" >"$tmp/stepped.j"
        same "$nm-engines-json" "$tmp/event.j" "$tmp/stepped.j"
        if [ "$d" != s:g ]; then
            contains "$nm-by-direction" "$tmp/event.json" '"by_direction"'
        fi
        check "$nm-cuda" 0 "$smpipe" cuda "$t" -o "$tmp/$nm.cu"
        contains "$nm-cuda" "$tmp/$nm.cu" "memcpy_async("
        [ -s "$tmp/$nm.cu.ref" ] && ok || fail "$nm-cuda: no reference"
        check "$nm-sweep" 0 "$smpipe" sweep "$t" --vary n=64,256 --vary mem.source=dram,l2 --csv "$tmp/sweep.csv"
        [ "$(grep -vc "^#" "$tmp/sweep.csv")" -eq 5 ] && ok || fail "$nm-sweep: $(cat "$tmp/sweep.csv")"
        rm -rf "$tmp/emit"
        check "$nm-validate" 0 "$smpipe" validate "$t" --vary n=64,256 --emit "$tmp/emit"
        [ -s "$tmp/emit/manifest.json" ] && [ -s "$tmp/emit/run.sh" ] && ok || fail "$nm-validate: $(ls "$tmp/emit")"
        if [ "$way" = pipe ]; then
            check "$nm-quiet" 0 "$smpipe" run -q "$t"
            cycles="$cycles $(cat "$tmp/out")"
        fi
    done
done
# Four different cycle counts for the four directions.
n=$(echo $cycles | tr ' ' '\n' | sort -u | wc -l)
[ "$n" -eq 4 ] && ok || fail "four directions, $n different cycle counts:$cycles"
echo "cycles (g->s, s->s2, s->g2, g->g2):$cycles"
finish directions
