#!/bin/sh
# test_errors.sh: every example of the error catalogue (docs/errors.md),
# run through the smpipe command as a user would.  Each file under
# tests/errors states in comment lines what must happen:
#   # expect-exit: N          the exit status
#   # expect: TEXT            standard error contains TEXT (each line)
#   # expect-warning: TEXT    standard output (the report) contains TEXT
#   # set: NAME=VALUE         passed as --set NAME=VALUE
#   # args: ARGS              more arguments after the file
#   # argv: ARGS              the whole command line instead of
#                             'run FILE' (.trace) or 'arch show FILE' (.ini)
#   # stdout: FILE            standard output goes to FILE (/dev/full)
#   # env: NAME=VALUE         an environment variable for smpipe (PATH=...)
# In ARGS and env values, @FILE@ is the example, @DIR@ tests/errors, @SRC@
# the source tree, @TMP@ an empty scratch directory.  Helper files that
# examples read lie under tests/errors/inputs/ (not examples themselves).
# The catalogue must name every example, and contain its first 'expect'.
# Usage: test_errors.sh SMPIPE SRCDIR
set -u
. "$2/tests/lib.sh"
dir=$src/tests/errors
doc=$src/docs/errors.md

field() { # field NAME FILE: the values of '# NAME:' lines, one a line
    grep -a "^# $1:" "$2" | sed "s/^# $1: *//"
}
subst() {
    sed -e "s|@FILE@|$1|g" -e "s|@DIR@|$dir|g" -e "s|@SRC@|$src|g" -e "s|@TMP@|$tmp/scratch|g"
}

for f in "$dir"/*.trace "$dir"/*.ini; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    want=$(field expect-exit "$f")
    if [ -z "$want" ]; then
        fail "$name: no '# expect-exit:' line"; continue
    fi
    argv=$(field argv "$f" | subst "$f")
    if ! grep -aq "^# argv:" "$f"; then
        case "$f" in
        *.ini) argv="arch show $f" ;;
        *) argv="run $f" ;;
        esac
    fi
    args=$(field args "$f" | subst "$f")
    sets=$(field set "$f" | sed 's/^/--set /' | tr '\n' ' ')
    envs=$(field env "$f" | subst "$f")
    out=$(field stdout "$f")
    [ -n "$out" ] || out=$tmp/out
    rm -rf "$tmp/scratch" && mkdir "$tmp/scratch"
    # Word splitting of the arguments is intended: examples hold no spaces.
    # shellcheck disable=SC2086
    env $envs "$smpipe" $argv $args $sets >"$out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name: exit $got, expected $want"; cat "$tmp/err"; continue
    fi
    ok=1
    while IFS= read -r text; do
        [ -n "$text" ] || continue
        grep -qF -- "$text" "$tmp/err" || { fail "$name: '$text' not in:"; cat "$tmp/err"; ok=0; }
    done <<EOT
$(field expect "$f")
EOT
    while IFS= read -r text; do
        [ -n "$text" ] || continue
        grep -qF -- "$text" "$tmp/out" || { fail "$name: warning '$text' not in the report"; ok=0; }
    done <<EOT
$(field expect-warning "$f")
EOT
    grep -qF "tests/errors/$name" "$doc" || { fail "$name: not named in docs/errors.md"; ok=0; }
    first=$(field expect "$f" | head -n 1)
    [ -z "$first" ] && first=$(field expect-warning "$f" | head -n 1)
    grep -qF -- "$first" "$doc" || { fail "$name: docs/errors.md lacks its message '$first'"; ok=0; }
    [ "$ok" -eq 1 ] && pass=$((pass + 1))
done
echo "errors: $pass examples behave as catalogued, $fails failures"
[ "$fails" -eq 0 ] && [ "$pass" -gt 0 ]
