#!/bin/sh
# test_conformance.sh: tests/conformance (NVIDIA's libcudacxx pipeline and
# memcpy_async tests ported as traces, tests/conformance/README.md) through
# the smpipe command: for every '# sets:' line of a trace, `smpipe check`,
# `smpipe run` on the event engine and on the stepped one (exit 0, the same
# report byte for byte, no race warning) and `smpipe cuda` (a program and
# its reference); a trace whose '# expect-exit:' is not 0 (a precondition
# broken on purpose) fails with its '# expect:' messages on both engines.
# `run` checks each trace's expect statements (the upstream test's
# assertions); test_conformance.c also shows that a wrong one fails; the
# cuda suite compiles each program, which checks them on a GPU, with nvcc.
# Usage: test_conformance.sh SMPIPE SRCDIR
set -u
. "$2/tests/lib.sh"

n=0
for t in "$src"/tests/conformance/*.trace; do
    base=$(basename "$t" .trace)
    n=$((n + 1))
    expect_exit=$(grep -a "^# expect-exit:" "$t" | sed 's/^# expect-exit: *//')
    [ -n "$expect_exit" ] || { fail "$base: no '# expect-exit:' line"; continue; }
    check "$base-check" 0 "$smpipe" check "$t"
    grep -a "^# sets:" "$t" | sed 's/^# sets: *//' >"$tmp/configs"
    [ -s "$tmp/configs" ] || echo "" >"$tmp/configs"
    while IFS= read -r cfg; do
        sets=$(echo "$cfg" | tr ' ' '\n' | sed '/^$/d; s/^/--set /' | tr '\n' ' ')
        label="$base ($cfg)"
        # shellcheck disable=SC2086
        check "$label event" "$expect_exit" "$smpipe" run "$t" $sets
        if [ "$expect_exit" -ne 0 ]; then
            # A precondition the port breaks on purpose: the message, the
            # same from both engines.
            grep -a "^# expect:" "$t" | sed 's/^# expect: *//' | while IFS= read -r text; do
                grep -qF -- "$text" "$tmp/err" || echo "FAIL $label: '$text' not in: $(cat "$tmp/err")"
            done >"$tmp/missing"
            [ -s "$tmp/missing" ] && { cat "$tmp/missing"; fail "$label: message"; } || ok
            cp "$tmp/err" "$tmp/event-err"
            # shellcheck disable=SC2086
            check "$label stepped" "$expect_exit" "$smpipe" run "$t" $sets --engine stepped
            same "$label engines" "$tmp/event-err" "$tmp/err"
            continue
        fi
        cp "$tmp/out" "$tmp/event"
        if grep -q " race: " "$tmp/event"; then
            fail "$label: a race warning"; grep " race: " "$tmp/event"
        fi
        # shellcheck disable=SC2086
        check "$label stepped" 0 "$smpipe" run "$t" $sets --engine stepped
        same "$label engines" "$tmp/event" "$tmp/out"
        rm -f "$tmp/c.cu" "$tmp/c.cu.ref"
        # shellcheck disable=SC2086
        check "$label cuda" 0 "$smpipe" cuda "$t" $sets -o "$tmp/c.cu"
        [ -s "$tmp/c.cu" ] && [ -s "$tmp/c.cu.ref" ] && ok || fail "$label cuda: no program or reference"
    done <"$tmp/configs"
done
[ "$n" -gt 0 ] && ok || fail "no trace under tests/conformance"
echo "conformance: $n traces"
finish conformance
