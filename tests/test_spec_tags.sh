#!/bin/sh
# test_spec_tags.sh: every requirement tag in the C code ("SPEC name-N" in
# sim/ and models/) is documented in docs/semantics.md and cited by at
# least one file under tests/ (a Check suite or a tests/programs trace).
# Usage: test_spec_tags.sh SRCDIR
set -u
src=$1
tags=$(grep -rhoE --include='*.c' --include='*.h' 'SPEC [a-z][a-z0-9]*(-[a-z0-9]+)*-[0-9]+' "$src/sim" "$src/models" |
       sed 's/^SPEC //' | sort -u)
if [ -z "$tags" ]; then
    echo "FAIL: no SPEC tags found in $src/sim and $src/models"
    exit 1
fi
fails=0
n=0
for t in $tags; do
    n=$((n + 1))
    # The tag as a whole word: memcpy-1 must not match memcpy-10.
    re="(^|[^a-z0-9-])$t([^a-z0-9-]|\$)"
    if ! grep -qE "$re" "$src/docs/semantics.md"; then
        echo "FAIL: SPEC $t is in the code but not in docs/semantics.md"
        fails=$((fails + 1))
    fi
    if ! grep -rqE "$re" "$src/tests" --include='*.c' --include='*.trace' --include='*.sh'; then
        echo "FAIL: SPEC $t is in the code but no test under tests/ cites it"
        fails=$((fails + 1))
    fi
done
echo "spec tags: $n tags, $fails problems"
[ "$fails" -eq 0 ]
