# tests/lib.sh: what the shell tests share.  A test whose arguments start
# with SMPIPE SRCDIR sources it (`. "$2/tests/lib.sh"`) and gets:
#   smpipe, src   the two arguments, made absolute
#   tmp           a scratch directory, removed at exit
#   pass, fails   counters, reported by `finish NAME`
# Under `meson test --setup valgrind`, smpipe itself runs under valgrind
# (SMPIPE_WRAPPER).
smpipe=$1
src=$2
case $smpipe in /*) ;; *) smpipe=$PWD/$smpipe ;; esac
case $src in /*) ;; *) src=$PWD/$src ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${SMPIPE_WRAPPER:-}" ]; then
    printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$SMPIPE_WRAPPER" "$smpipe" >"$tmp/smpipe-wrapped"
    chmod +x "$tmp/smpipe-wrapped"
    smpipe=$tmp/smpipe-wrapped
fi
pass=0
fails=0

ok() { pass=$((pass + 1)); }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { # check NAME EXPECTED_STATUS COMMAND...: output in $tmp/out and $tmp/err
    name=$1; want=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name: exit $got, expected $want"; cat "$tmp/err"
    else
        ok
    fi
}
contains() { # contains NAME FILE TEXT
    if grep -qF -- "$3" "$2"; then ok; else fail "$1: '$3' not in $2:"; cat "$2"; fi
}
same() { # same NAME FILE1 FILE2: byte-identical
    if cmp -s "$2" "$3"; then ok; else fail "$1: $2 and $3 differ"; diff "$2" "$3" | head -5; fi
}
finish() { # finish NAME: the summary line; the script's exit status
    echo "$1: $pass passed, $fails failed"
    [ "$fails" -eq 0 ]
}
