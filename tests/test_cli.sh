#!/bin/sh
# test_cli.sh: the smpipe command as a user meets it: verbs, help, exit
# statuses, error messages, outputs.  Usage: test_cli.sh SMPIPE SRCDIR
set -u
smpipe=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Under `meson test --setup valgrind`, smpipe itself runs under valgrind.
if [ -n "${SMPIPE_WRAPPER:-}" ]; then
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$SMPIPE_WRAPPER" "$smpipe" >"$tmp/smpipe-wrapped"
    chmod +x "$tmp/smpipe-wrapped"
    smpipe=$tmp/smpipe-wrapped
fi
fails=0
pass=0

check() { # check NAME EXPECTED_STATUS COMMAND...
    name=$1; want=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: exit $got, expected $want"; cat "$tmp/err"; fails=$((fails + 1))
    else
        pass=$((pass + 1))
    fi
}
contains() { # contains NAME FILE TEXT
    if grep -qF -- "$3" "$2"; then pass=$((pass + 1)); else echo "FAIL $1: '$3' not in $2:"; cat "$2"; fails=$((fails + 1)); fi
}

check no-args 2 "$smpipe"
check version 0 "$smpipe" --version
contains version "$tmp/out" "smpipe "
check help 0 "$smpipe" --help
for verb in run check arch; do
    check "help-$verb" 0 "$smpipe" $verb --help
done
check unknown-verb 2 "$smpipe" frobnicate
check bad-option 2 "$smpipe" run --no-such-option "$src/traces/with_staging.trace"
check missing-file 2 "$smpipe" run "$tmp/nope.trace"
contains missing-file "$tmp/err" "nope.trace"

# run prints the cycle count first.
check run 0 "$smpipe" run "$src/traces/with_staging_unified.trace" --set stages=4
head -n 3 "$tmp/out" | grep -q "cycles" && pass=$((pass + 1)) || { echo "FAIL run: no cycles line first"; fails=$((fails + 1)); }
check run-quiet 0 "$smpipe" run -q "$src/traces/with_staging_unified.trace"
grep -qE '^[0-9]+$' "$tmp/out" && pass=$((pass + 1)) || { echo "FAIL run-quiet"; fails=$((fails + 1)); }
check run-json 0 "$smpipe" run "$src/traces/with_staging.trace" --json -
contains run-json "$tmp/out" '"cycles": '
contains run-json "$tmp/out" '"params": {'
check run-json-file 0 "$smpipe" run "$src/traces/with_staging.trace" --json "$tmp/s.json" --csv "$tmp/s.csv" --by role
contains run-json-file "$tmp/s.json" '"by_role"'
contains run-csv "$tmp/s.csv" 'cycles,warps'
check run-arch 0 "$smpipe" run -q "$src/traces/with_staging.trace" --arch a100 --set mem.source=l2 --set sm.blocks=2
check run-bad-set 2 "$smpipe" run "$src/traces/with_staging.trace" --set nosuch=1
contains run-bad-set "$tmp/err" "has no parameter 'nosuch'"
check run-bad-arch-key 2 "$smpipe" run "$src/traces/with_staging.trace" --set dram.nosuch=1
check run-too-many-blocks 2 "$smpipe" run "$src/traces/with_staging.trace" --set threads=1024 --set sm.blocks=3
contains run-too-many-blocks "$tmp/err" "the SM of h100 holds 2048"

# check points at file:line:col with a caret.
printf 'smpipe 1\nblock 32\nvar a = (1 +\n' > "$tmp/broken.trace"
check check-broken 2 "$smpipe" check "$tmp/broken.trace"
contains check-broken "$tmp/err" "broken.trace:3:13:"
printf 'smpipe 1\nblock 32\nvar a = 1 +* 2\n' > "$tmp/broken2.trace"
check check-broken2 2 "$smpipe" check "$tmp/broken2.trace"
contains check-broken2 "$tmp/err" "broken2.trace:3:12:"
contains check-caret "$tmp/err" "^"
check check-ok 0 "$smpipe" check -v "$src/traces/with_specialized_staging_unified.trace"
contains check-ok "$tmp/out" "make_pipeline(block)"

# misuse exits 1
printf 'smpipe 1\nblock 32\nshared pipeline_shared_state<block, 2> st\nvar p = make_pipeline(block, st)\np.consumer_release()\n' > "$tmp/misuse.trace"
check misuse 1 "$smpipe" run "$tmp/misuse.trace"
contains misuse "$tmp/err" "misuse.trace:5:"

# arch
check arch-list 0 "$smpipe" arch list
contains arch-list "$tmp/out" "h200"
check arch-show 0 "$smpipe" arch show h100 --set dram.latency=700
contains arch-show "$tmp/out" "latency = 700"
"$smpipe" arch show a100 > "$tmp/a.ini" && check arch-reload 0 "$smpipe" run -q "$src/traces/with_staging.trace" --arch "$tmp/a.ini"

# engines agree
"$smpipe" run "$src/traces/with_staging_scope_thread.trace" --json "$tmp/e.json" >/dev/null
"$smpipe" run "$src/traces/with_staging_scope_thread.trace" --engine stepped --json "$tmp/s2.json" >/dev/null
sed 's/"stepped"/"event"/' "$tmp/s2.json" | cmp -s - "$tmp/e.json" && pass=$((pass + 1)) || { echo "FAIL engines differ"; fails=$((fails + 1)); }

echo "cli: $pass passed, $fails failed"
[ "$fails" -eq 0 ]
