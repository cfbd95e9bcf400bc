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

# The catalogue, read once; each example's fields are read with one sed
# and matched with `case`, so an example costs a few processes, not dozens
# (the suite runs on 2 cores, and again under the sanitizers).
doc_text=$(cat "$doc")
nl='
'

for f in "$dir"/*.trace "$dir"/*.ini; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    want= argv= has_argv=0 args= sets= envs= out= expects= warnings=
    # One line per field, "NAME VALUE", with @FILE@ and the others replaced.
    sed -n -e 's/^# \(expect-exit\|expect\|expect-warning\|set\|args\|argv\|stdout\|env\): */\1 /p' "$f" |
        sed -e "s|@FILE@|$f|g" -e "s|@DIR@|$dir|g" -e "s|@SRC@|$src|g" -e "s|@TMP@|$tmp/scratch|g" >"$tmp/fields"
    while IFS= read -r line; do
        value=${line#* }
        case $line in
        "expect-exit "*) want=$value ;;
        "expect "*) expects=$expects$value$nl ;;
        "expect-warning "*) warnings=$warnings$value$nl ;;
        "set "*) sets="$sets --set $value" ;;
        "args "*) args="$args $value" ;;
        "argv "*) argv="$argv $value"; has_argv=1 ;;
        "stdout "*) out=$value ;;
        "env "*) envs="$envs $value" ;;
        esac
    done <"$tmp/fields"
    if [ -z "$want" ]; then
        fail "$name: no '# expect-exit:' line"; continue
    fi
    if [ "$has_argv" -eq 0 ]; then
        case "$f" in
        *.ini) argv="arch show $f" ;;
        *) argv="run $f" ;;
        esac
    fi
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
    err_text=$(cat "$tmp/err")
    out_text=
    [ -z "$warnings" ] || out_text=$(cat "$tmp/out")
    first=
    while IFS= read -r text; do
        [ -n "$text" ] || continue
        [ -n "$first" ] || first=$text
        case $err_text in
        *"$text"*) ;;
        *) fail "$name: '$text' not in:"; cat "$tmp/err"; ok=0 ;;
        esac
    done <<EOT
$expects
EOT
    while IFS= read -r text; do
        [ -n "$text" ] || continue
        [ -n "$first" ] || first=$text
        case $out_text in
        *"$text"*) ;;
        *) fail "$name: warning '$text' not in the report"; ok=0 ;;
        esac
    done <<EOT
$warnings
EOT
    case $doc_text in
    *"tests/errors/$name"*) ;;
    *) fail "$name: not named in docs/errors.md"; ok=0 ;;
    esac
    case $doc_text in
    *"$first"*) ;;
    *) fail "$name: docs/errors.md lacks its message '$first'"; ok=0 ;;
    esac
    [ "$ok" -eq 1 ] && pass=$((pass + 1))
done
echo "errors: $pass examples behave as catalogued, $fails failures"
[ "$fails" -eq 0 ] && [ "$pass" -gt 0 ]
