#!/bin/sh
# test_catalogue.sh: docs/errors.md lists every message smpipe can print.
# Takes the format string of every error call in sim/*/*.c and models/*.c
# (g_set_error, trace_set_error, fail, failf, comp_failf, warp_fail, RULE, gen_fail,
# sm_warn, and fprintf(stderr, "smpipe ...")): its string literals joined,
# a macro between them (G_GINT64_FORMAT) or a printf conversion standing for
# any text, cut at its first newline.  Each must match one line of the
# catalogue; "internal error:" messages are left out (no input reaches them).
# Usage: test_catalogue.sh SRCDIR [--list]   (--list prints what it checks)
set -u
src=$1
list=${2:-}
doc=$src/docs/errors.md
[ -f "$doc" ] || { echo "FAIL: no $doc"; exit 1; }
formats=$(awk '
# The format argument of each call, as FILE:LINE<TAB>FORMAT.
BEGIN {
    argn["g_set_error"] = 4; argn["trace_set_error"] = 5; argn["fail"] = 3
    argn["failf"] = 3; argn["comp_failf"] = 3; argn["warp_fail"] = 6; argn["RULE"] = 5; argn["gen_fail"] = 3
    argn["sm_warn"] = 3; argn["fprintf"] = 2
}
FNR == 1 { if (NR > 1) scan(); text = ""; nlines = 0; file = FILENAME }
{ text = text $0 "\n"; start[++nlines] = length(text) - length($0) }
END { if (NR > 0) scan() }

function lineof(pos,   lo, hi, mid) {
    lo = 1; hi = nlines
    while (lo < hi) { mid = int((lo + hi + 1) / 2); if (start[mid] <= pos) lo = mid; else hi = mid - 1 }
    return lo
}
# Skips a string or character literal starting at i; returns the index after it.
function skiplit(i,   q, c) {
    q = substr(text, i, 1)
    for (i++; i <= n; i++) {
        c = substr(text, i, 1)
        if (c == "\\") i++
        else if (c == q) return i + 1
    }
    return i
}
function scan(   i, c, j, name, prev) {
    n = length(text)
    for (i = 1; i <= n; i++) {
        c = substr(text, i, 1)
        if (c == "\"" || c == "'\''") { i = skiplit(i) - 1; continue }
        if (c == "/" && substr(text, i + 1, 1) == "*") { j = index(substr(text, i + 2), "*/"); i += j + 2; continue }
        if (c == "/" && substr(text, i + 1, 1) == "/") { j = index(substr(text, i), "\n"); i += j - 1; continue }
        if (c !~ /[A-Za-z_]/) continue
        prev = i > 1 ? substr(text, i - 1, 1) : ""
        for (j = i; substr(text, j, 1) ~ /[A-Za-z0-9_]/; j++) ;
        name = substr(text, i, j - i)
        i = j - 1
        if (prev ~ /[A-Za-z0-9_.>]/ || !(name in argn)) continue
        while (substr(text, j, 1) ~ /[ \t\n]/) j++
        if (substr(text, j, 1) != "(") continue
        call(name, j + 1)
    }
}
# The call whose arguments start at i: prints its format argument.
function call(name, i,   depth, arg, c, fmt, got, line, nalt, alt, k) {
    depth = 0; arg = 1; fmt = ""; got = 0; nalt = 0
    for (; i <= n; i++) {
        c = substr(text, i, 1)
        if (c == "(" || c == "[" || c == "{") depth++
        else if (c == ")" || c == "]" || c == "}") { if (depth-- == 0) break }
        else if (c == "," && depth == 0) { if (arg++ == argn[name]) break }
        else if (c == "\"" && depth == 0 && arg == argn[name]) {
            if (!got) line = lineof(i)
            got = 1
            j = skiplit(i)
            fmt = fmt substr(text, i + 1, j - i - 2)
            i = j - 1
        } else if (c == ":" && depth == 0 && arg == argn[name] && got) {
            alt[++nalt] = fmt; fmt = ""   # cond ? "format" : "another"
        } else if (c == "\"" || c == "'\''") i = skiplit(i) - 1
        else if (c ~ /[A-Z]/ && depth == 0 && arg == argn[name] && got) {
            for (j = i; substr(text, j, 1) ~ /[A-Z0-9_]/; j++) ;
            fmt = fmt (fmt ~ /%[-+ #0-9.]*$/ ? "d" : "%s"); i = j - 1
        }
    }
    if (!got) return
    alt[++nalt] = fmt
    f = file; if (match(file, /(sim|models)\/.*$/)) f = substr(file, RSTART)
    for (k = 1; k <= nalt; k++) {
        fmt = alt[k]
        if (name == "fprintf" && fmt !~ /^smpipe/) continue
        sub(/\\n.*/, "", fmt)
        gsub(/\\"/, "\"", fmt); gsub(/\\\\/, "\\", fmt)
        # Where the message comes from: smpipe VERB:, FILE:LINE:, line N:
        sub(/^smpipe( [a-z]+)?: /, "", fmt)
        while (sub(/^(%s:|%s:%[du]:|line %u:) /, "", fmt)) ;
        if (fmt ~ /^internal error:/) continue
        printf "%s:%d\t%s\n", f, line, fmt
    }
}
' "$src"/sim/*/*.c "$src"/models/*.c)
if [ -z "$formats" ]; then
    echo "FAIL: no error calls found in $src/sim and $src/models"
    exit 1
fi
if [ "$list" = --list ]; then
    printf '%s\n' "$formats"
    exit 0
fi
# Each format, its conversions as wildcards: the pieces between them must
# occur in order on one line of the catalogue.
printf '%s\n' "$formats" | awk -F '\t' -v doc="$doc" '
BEGIN { while ((getline l < doc) > 0) lines[++nd] = l }
{
    f = $2
    gsub(/%[-+ #0]*[0-9*]*(\.[0-9*]+)?(hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcsp%]/, "\001", f)
    np = split(f, piece, "\001")
    found = 0
    for (k = 1; k <= nd && !found; k++) {
        pos = 1; ok = 1
        for (m = 1; m <= np && ok; m++) {
            if (piece[m] == "") continue
            at = index(substr(lines[k], pos), piece[m])
            if (at == 0) ok = 0; else pos += at - 1 + length(piece[m])
        }
        found = ok
    }
    total++
    if (!found) { printf "FAIL %s: not in docs/errors.md: %s\n", $1, $2; missing++ }
}
END {
    printf "catalogue: %d messages, %d missing from docs/errors.md\n", total, missing
    exit missing > 0
}'
