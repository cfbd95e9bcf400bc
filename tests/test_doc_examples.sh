#!/bin/sh
# test_doc_examples.sh: every ```trace example of the given documents is a
# complete trace that parses and runs.  Lines of a block may say what must
# happen, as in tests/programs:
#   # expect-exit: N        exit status of `smpipe run` (default 0)
#   # expect: TEXT          the error message contains TEXT
#   # set: NAME=VALUE       a --set assignment
# A fence written "```trace file=PATH" also requires the block to be
# identical to PATH (a bundled trace shown in full).
# Usage: test_doc_examples.sh SMPIPE SRCDIR DOC.md...
set -u
smpipe=$1
src=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
total=0
for doc in "$@"; do
    dir="$tmp/$(echo "$doc" | tr '/.' '__')"
    mkdir -p "$dir"
    # Split the ```trace blocks into dir/N.trace; dir/N.meta holds
    # "LINE FILE" (FILE is - when the fence names none).
    awk -v dir="$dir" '
        !inblock && /^```trace/ {
            n++; inblock = 1; file = "-"
            if (match($0, /file=[^ ]+/)) file = substr($0, RSTART + 5, RLENGTH - 5)
            print NR, file > (dir "/" n ".meta"); close(dir "/" n ".meta")
            printf "" > (dir "/" n ".trace")
            next
        }
        inblock && /^```[ \t]*$/ { inblock = 0; close(dir "/" n ".trace"); next }
        inblock { print >> (dir "/" n ".trace") }
    ' "$src/$doc"
    count=0
    for meta in "$dir"/*.meta; do
        [ -e "$meta" ] || continue
        count=$((count + 1))
        total=$((total + 1))
        block=${meta%.meta}.trace
        read -r line file < "$meta"
        where="$doc:$line"
        want=$(sed -n 's/^# expect-exit: *//p' "$block" | head -n 1)
        [ -n "$want" ] || want=0
        sets=$(sed -n 's/^# set: *\(.*\)$/--set \1/p' "$block" | tr '\n' ' ')
        # shellcheck disable=SC2086
        "$smpipe" run -q $sets "$block" > "$tmp/out" 2> "$tmp/err"
        got=$?
        if [ "$got" -ne "$want" ]; then
            echo "FAIL $where: exit $got, expected $want"
            sed 's/^/    /' "$tmp/err"
            fails=$((fails + 1))
            continue
        fi
        sed -n 's/^# expect: *//p' "$block" > "$tmp/expects"
        while IFS= read -r text; do
            if ! grep -qF -- "$text" "$tmp/err"; then
                echo "FAIL $where: the message lacks '$text':"
                sed 's/^/    /' "$tmp/err"
                fails=$((fails + 1))
            fi
        done < "$tmp/expects"
        if [ "$file" != "-" ] && ! cmp -s "$block" "$src/$file"; then
            echo "FAIL $where: the example differs from $file:"
            diff "$src/$file" "$block" | head -n 20
            fails=$((fails + 1))
        fi
    done
    if [ "$count" -eq 0 ]; then
        echo "FAIL $doc: no \`\`\`trace examples found"
        fails=$((fails + 1))
    fi
done
echo "doc examples: $total examples, $fails problems"
[ "$fails" -eq 0 ]
