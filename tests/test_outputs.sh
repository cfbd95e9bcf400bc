#!/bin/sh
# test_outputs.sh: what smpipe writes is deterministic and never partial.
#  - The same inputs give byte-identical standard output, JSON, CSV and
#    timeline files, run after run and on both engines (the JSON names the
#    engine; nothing else may differ).
#  - A run that fails, or is interrupted by a signal, leaves no output file
#    and no temporary file, and an existing output keeps its old contents.
#  - An output that is a device (/dev/null) is written in place, never
#    replaced by a regular file.
# Usage: test_outputs.sh SMPIPE SRCDIR
set -u
. "$2/tests/lib.sh"

# run TAG ENGINE TRACE [ARGS...]: every output of one run under $tmp/TAG.*
run() {
    tag=$1; engine=$2; trace=$3; shift 3
    "$smpipe" run "$trace" --engine "$engine" --by role --json "$tmp/$tag.json" --csv "$tmp/$tag.csv" \
        --timeline "$tmp/$tag.timeline.json" "$@" >"$tmp/$tag.out" 2>"$tmp/$tag.err"
    echo $? >"$tmp/$tag.rc"
}

for trace in "$src"/traces/*.trace "$src"/tests/programs/race_read_before_wait.trace \
             "$src"/tests/programs/wait_for_times_out.trace; do
    name=$(basename "$trace" .trace)
    run "$name.a" event "$trace"
    run "$name.b" event "$trace"
    run "$name.s" stepped "$trace"
    [ "$(cat "$tmp/$name.a.rc")" -eq 0 ] && ok || { fail "$name: exit $(cat "$tmp/$name.a.rc")"; cat "$tmp/$name.a.err"; }
    for ext in out json csv timeline.json; do
        same "$name" "$tmp/$name.a.$ext" "$tmp/$name.b.$ext"
    done
    sed 's/"engine": "stepped"/"engine": "event"/' "$tmp/$name.s.json" >"$tmp/$name.s.norm.json"
    same "$name" "$tmp/$name.a.json" "$tmp/$name.s.norm.json"
    for ext in out csv timeline.json; do
        same "$name" "$tmp/$name.a.$ext" "$tmp/$name.s.$ext"
    done
done
# A failed run, on both engines, prints the same message.
"$smpipe" run "$src/tests/programs/deadlock_barrier_cycle.trace" 2>"$tmp/d.event"
"$smpipe" run "$src/tests/programs/deadlock_barrier_cycle.trace" --engine stepped 2>"$tmp/d.stepped"
same failed-run "$tmp/d.event" "$tmp/d.stepped"

# A run that fails (the watchdog) writes nothing and keeps what was there.
echo old >"$tmp/keep.json"
"$smpipe" run "$src/traces/with_staging.trace" --max-cycles 100 --json "$tmp/keep.json" --csv "$tmp/f.csv" \
    --timeline "$tmp/f.timeline.json" >/dev/null 2>"$tmp/f.err"
rc=$?
[ "$rc" -eq 1 ] && ok || fail "failed run: exit $rc"
[ "$(cat "$tmp/keep.json")" = old ] && ok || fail "a failed run changed an existing output"
[ ! -e "$tmp/f.csv" ] && [ ! -e "$tmp/f.timeline.json" ] && ok || fail "a failed run left an output"
ls "$tmp" | grep -q '\.tmp' && fail "a failed run left a temporary file: $(ls "$tmp" | grep '\.tmp')" || ok

# An interrupted run (SIGTERM, SIGHUP; SIGINT likewise, but a background
# job of a script ignores it) removes its temporary timeline file.  The run
# has no limits: it is killed after 60 s whatever happens.
printf 'smpipe 1\nblock 256\nvar i = 0\nwhile true\n    compute(imad, 4)\n    i += 1\nend\n' >"$tmp/forever.trace"
# A signal this script inherited as ignored (nohup: SIGHUP) stays ignored
# in smpipe, as it should; the run gets the default action back through
# env --default-signal (coreutils 8.31 and later) where it exists.
reset=
env --default-signal=HUP true 2>/dev/null && reset="env --default-signal=TERM,HUP"
for sig in TERM HUP; do
    $reset "$smpipe" run "$tmp/forever.trace" --max-cycles 0 --max-ops 0 --json "$tmp/i.json" \
        --timeline "$tmp/i.timeline.json" >/dev/null 2>"$tmp/i.err" &
    pid=$!
    (sleep 60; kill -s KILL "$pid") >/dev/null 2>&1 &
    guard=$!
    # Non-empty: the start-up check of the outputs creates the same name
    # empty and removes it at once (cli_common.c), which a poll on a loaded
    # machine can catch before the real timeline opens.
    n=0
    while [ "$n" -lt 300 ] && [ -z "$(find "$tmp" -name 'i.timeline.json.tmp*' -size +0)" ]; do
        sleep 0.1; n=$((n + 1))
    done
    if [ -n "$(find "$tmp" -name 'i.timeline.json.tmp*' -size +0)" ]; then
        ok
    else
        alive=exited; kill -0 "$pid" 2>/dev/null && alive=running
        fail "SIG$sig: the run never opened its timeline ($alive after $n polls; stderr: $(cat "$tmp/i.err"))"
    fi
    kill -s "$sig" "$pid"
    wait "$pid"
    rc=$?
    kill "$guard" 2>/dev/null
    [ "$rc" -gt 128 ] && ok || fail "SIG$sig: exit $rc, expected death by the signal"
    [ ! -e "$tmp/i.json" ] && [ ! -e "$tmp/i.timeline.json" ] && ok || fail "SIG$sig: an output was left"
    ls "$tmp" | grep -q '\.tmp' && fail "SIG$sig: a temporary file was left: $(ls "$tmp" | grep '\.tmp')" || ok
done

# Outputs to a device are written in place (as root, a rename would
# replace /dev/null itself).
"$smpipe" run "$src/traces/with_staging.trace" --json /dev/null --csv /dev/null --timeline /dev/null >/dev/null
[ $? -eq 0 ] && [ -c /dev/null ] && ok || fail "writing to /dev/null"
"$smpipe" run -q "$src/traces/with_staging.trace" --json /dev/stdout >"$tmp/stdout.json"
grep -q '"cycles"' "$tmp/stdout.json" && ok || fail "writing to /dev/stdout"
# A symbolic link is followed: the file it names is replaced, the link stays.
echo old >"$tmp/target.json"
ln -s target.json "$tmp/link.json"
"$smpipe" run -q "$src/traces/with_staging.trace" --json "$tmp/link.json" >/dev/null
[ -L "$tmp/link.json" ] && grep -q '"cycles"' "$tmp/target.json" && ok || fail "writing through a symbolic link"

finish outputs
