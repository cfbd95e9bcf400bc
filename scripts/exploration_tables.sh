#!/bin/sh
# exploration_tables.sh: prints the measured tables of docs/exploration.md
# (markdown), so that they can be regenerated whenever the timing model
# changes: sh scripts/exploration_tables.sh [--check] [SMPIPE]  (default
# build/smpipe).  Every table comes from the smpipe command shown above it.
# --check prints nothing but the lines of the tables that docs/exploration.md
# lacks (then exits 1): run it after a change to the timing model.
set -eu
cd "$(dirname "$0")/.."
check=0
if [ "${1:-}" = "--check" ]; then
    check=1
    shift
fi
smpipe=${1:-build/smpipe}
trace=traces/with_staging_unified.trace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $check = 1 ]; then
    sh "$0" "$smpipe" > "$tmp/tables.md"
    stale=0
    while IFS= read -r line; do
        if [ -n "$line" ] && ! grep -qxF -- "$line" docs/exploration.md; then
            printf 'not in docs/exploration.md: %s\n' "$line"
            stale=1
        fi
    done < "$tmp/tables.md"
    exit $stale
fi

# sens_table STAGES: the top 8 keys of the guide kernel at STAGES stages.
sens_table() {
    cmd="smpipe sensitivity $trace --set stages=$1 --csv FILE.csv"
    "$smpipe" sensitivity "$trace" --set stages="$1" --csv "$tmp/s.csv" > "$tmp/s.txt"
    echo "\`$cmd\`: $(head -n 1 "$tmp/s.txt" | sed 's/^[^:]*: //'); $(sed -n 2p "$tmp/s.txt" | sed 's/;.*//')."
    echo
    echo "| rank | key | value | -10%: value | cycles | elasticity | stages | +10%: value | cycles | elasticity | stages |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    awk -F, -v base="$(awk -F, 'NR == 2 { print $7 }' "$tmp/s.csv")" '
        function st(s) { return s == "" ? "none" : (s == base ? "=" : s) }
        # An end the architecture refuses (quantiles out of order) ran nothing.
        function end(v, pct, el, s, status) {
            if (status != "ok") {
                return sprintf("%s | %s | |", v, status)
            }
            return sprintf("%s | %+.1f%% | %.3f | %s", v, pct, el, st(s))
        }
        NR > 1 && $1 != "" && $1 <= 8 {
            printf "| %s | `%s` | %s | %s | %s |\n", $1, $2, $3, end($8, $11, $12, $13, $14), end($18, $21, $22, $23, $24)
        }' "$tmp/s.csv"
    echo
    echo "Keys that change no statistic: $(awk -F, 'NR > 1 && $1 != "" && $15 != "yes" && $25 != "yes" { printf "%s`%s`", n++ ? ", " : "", $2 }' "$tmp/s.csv")."
    echo
}

echo "### The guide kernel at 1 stage"
echo
sens_table 1
echo "### The guide kernel at 4 stages"
echo
sens_table 4

echo "### An H100 with twice the L2 bandwidth"
echo
echo "\`smpipe arch diff h100 docs/examples/h100-2xl2.ini\`:"
echo
echo '```'
"$smpipe" arch diff h100 docs/examples/h100-2xl2.ini | sed "s|$PWD/||g"
echo '```'
echo
echo "\`smpipe sweep $trace --vary stages=1..8 [--arch ARCH]\`, the cycles on each:"
echo
echo "| stages | h100 | h100-2xl2 | h100, \`--set dram.latency=x0.5\` |"
echo "|---:|---:|---:|---:|"
"$smpipe" sweep "$trace" --vary stages=1..8 --csv "$tmp/a.csv" > "$tmp/a.txt"
"$smpipe" sweep "$trace" --vary stages=1..8 --arch docs/examples/h100-2xl2.ini --csv "$tmp/b.csv" > "$tmp/b.txt"
"$smpipe" sweep "$trace" --vary stages=1..8 --set dram.latency=x0.5 --csv "$tmp/c.csv" > "$tmp/c.txt"
# The sweep CSVs start with provenance lines ('# KEY: VALUE'): rows only.
for f in a b c; do
    grep -v '^#' "$tmp/$f.csv" > "$tmp/$f.rows"
done
paste -d, "$tmp/a.rows" "$tmp/b.rows" "$tmp/c.rows" | awk -F, -v n="$(head -n 1 "$tmp/a.rows" | awk -F, '{ print NF }')" '
    NR > 1 { printf "| %s | %s | %s | %s |\n", $2, $4, $(n + 4), $(2 * n + 4) }'
echo
for f in a b c; do
    grep '^recommended stages' "$tmp/$f.txt" | sed "s/^/- $(case $f in a) echo h100 ;; b) echo h100-2xl2 ;; c) echo 'h100, dram.latency=x0.5' ;; esac): /"
done
