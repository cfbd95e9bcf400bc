#!/bin/sh
# test_plot.sh: overlap timelines as a user meets them: `smpipe plot` and
# `smpipe run --plot/--timeline`: picture formats, windows, --by role,
# determinism, bad options, and what happens without gnuplot.
# Usage: test_plot.sh SMPIPE SRCDIR
set -u
. "$2/tests/lib.sh"
# smpipe's temporary data directories go here, so leftovers can be seen.
TMPDIR=$tmp/t
mkdir -p "$TMPDIR"
export TMPDIR
trace=$src/traces/with_staging_unified.trace

magic() { # magic NAME FILE HEX: the file starts with these bytes
    got=$(od -An -tx1 -N $(( ${#3} / 2 )) "$2" 2>/dev/null | tr -d ' \n')
    if [ "$got" = "$3" ]; then ok; else fail "$1: $2 starts with '$got', not '$3'"; fi
}
no_leftovers() { # no_leftovers NAME: no temporary data directory is left
    if ls "$TMPDIR" | grep -q smpipe-plot; then fail "$1: left $(ls "$TMPDIR")"; rm -rf "$TMPDIR"/smpipe-plot-*; else ok; fi
}

check help-plot 0 "$smpipe" plot --help
contains help-plot "$tmp/out" "--by"

# Bad input exits 2 before simulating.
check plot-no-output 2 "$smpipe" plot "$trace"
contains plot-no-output "$tmp/err" "-o FILE.png|svg|pdf"
check plot-bad-format 2 "$smpipe" plot "$trace" -o "$tmp/x.gif"
contains plot-bad-format "$tmp/err" ".png, .svg or .pdf"
check run-plot-bad-format 2 "$smpipe" run "$trace" --plot "$tmp/x.jpeg"
check plot-bad-window 2 "$smpipe" plot "$trace" -o "$tmp/x.png" --from 500 --to 100
contains plot-bad-window "$tmp/err" "must be after --from"
check plot-bad-cycle 2 "$smpipe" plot "$trace" -o "$tmp/x.png" --from abc
check plot-bad-cycle-neg 2 "$smpipe" plot "$trace" -o "$tmp/x.png" --to -5
check plot-bad-by 2 "$smpipe" plot "$trace" -o "$tmp/x.png" --by block
check plot-bad-set 2 "$smpipe" plot "$trace" -o "$tmp/x.png" --set nosuch=1
check plot-missing-trace 2 "$smpipe" plot "$tmp/nope.trace" -o "$tmp/x.png"
[ ! -e "$tmp/x.png" ] && ok || fail "a picture was written after bad input"
no_leftovers bad-input

# Without gnuplot: exit 3, say how to install it, keep the data files.
check no-gnuplot 3 env PATH=/nonexistent "$smpipe" plot "$trace" -o "$tmp/ng.png" --data "$tmp/ngdata"
contains no-gnuplot "$tmp/err" "apt-get install gnuplot-nox"
contains no-gnuplot "$tmp/err" "$tmp/ngdata"
[ -f "$tmp/ngdata/layout.gp" ] && [ -s "$tmp/ngdata/slices-cp.async.dat" ] && ok || fail "no-gnuplot: data files missing"
[ ! -e "$tmp/ng.png" ] && ok || fail "no-gnuplot: a picture was written"
check no-gnuplot-tmp 3 env PATH=/nonexistent "$smpipe" plot "$trace" -o "$tmp/ng.png"
dir=$(sed -n 's/.*the data is in \([^ ]*\) (draw it.*/\1/p' "$tmp/err")
[ -n "$dir" ] && [ -f "$dir/layout.gp" ] && ok || fail "no-gnuplot-tmp: data not where the message says ($dir)"
rm -rf "$TMPDIR"/smpipe-plot-*
check no-gnuplot-run 3 env PATH=/nonexistent "$smpipe" run "$trace" --plot "$tmp/ng.png" --timeline "$tmp/ng.json"
contains no-gnuplot-run "$tmp/out" "cycles"
[ -s "$tmp/ng.json" ] && ok || fail "no-gnuplot-run: no timeline JSON"
rm -rf "$TMPDIR"/smpipe-plot-*

# --timeline alone needs no gnuplot, and a run gives the same bytes twice.
check timeline 0 env PATH=/nonexistent "$smpipe" run "$trace" --set stages=4 --timeline "$tmp/a.json"
check timeline-again 0 "$smpipe" run "$trace" --set stages=4 --timeline "$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" && ok || fail "timeline: two runs differ"
contains timeline "$tmp/a.json" '"clock_mhz":1980.0'
check timeline-bad-dir 2 "$smpipe" run "$trace" --timeline "$tmp/no/such/dir/t.json"
ls "$tmp" | grep -q '\.tmp' && fail "timeline-bad-dir: left a temporary file" || ok

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "SKIP pictures: gnuplot is not installed (apt-get install gnuplot-nox)"
    echo "plot: $pass passed, $fails failed"
    [ "$fails" -eq 0 ]
    exit $?
fi

# Pictures in each format.
check plot-png 0 "$smpipe" plot "$trace" --set stages=2 -o "$tmp/p.png"
magic plot-png "$tmp/p.png" 89504e470d0a1a0a
check plot-svg 0 "$smpipe" plot "$trace" --set stages=2 -o "$tmp/p.svg"
head -c 200 "$tmp/p.svg" | grep -q '<svg' && ok || fail "plot-svg: no <svg header"
magic plot-svg "$tmp/p.svg" 3c3f786d6c
check plot-pdf 0 "$smpipe" plot "$trace" --set stages=2 -o "$tmp/p.pdf"
magic plot-pdf "$tmp/p.pdf" 255044462d
no_leftovers pictures

# Same input, same picture bytes (the PDF's date is fixed).
"$smpipe" plot "$trace" --set stages=2 -o "$tmp/q.png" 2>/dev/null
cmp -s "$tmp/p.png" "$tmp/q.png" && ok || fail "plot-png: two runs differ"
"$smpipe" plot "$trace" --set stages=2 -o "$tmp/q.pdf" 2>/dev/null
cmp -s "$tmp/p.pdf" "$tmp/q.pdf" && ok || fail "plot-pdf: two runs differ"

# A window: the data and the axis cover only --from..--to.
check plot-window 0 "$smpipe" plot "$trace" --set stages=4 -o "$tmp/w.png" --from 1000 --to 3000 --data "$tmp/wdata" \
    --timeline "$tmp/w.json"
magic plot-window "$tmp/w.png" 89504e470d0a1a0a
contains plot-window "$tmp/wdata/layout.gp" "t_from = 1000.0"
contains plot-window "$tmp/wdata/layout.gp" "t_to = 3000.0"
awk '$1 < 1000 || $2 > 3000 { bad = 1 } END { exit bad }' "$tmp"/wdata/slices-*.dat "$tmp"/wdata/counter-*.dat \
    && ok || fail "plot-window: data outside the window"
# Slices say their cycle in args; ts is microseconds at 1980 MHz.
grep -o '"cycle":[0-9]*' "$tmp/w.json" | awk -F: '$2 < 1000 || $2 >= 3000 { bad = 1 } END { exit bad || NR == 0 }' \
    && ok || fail "plot-window: JSON outside the window"
grep -o '"ts":[0-9.]*' "$tmp/w.json" | awk -F: '$2 < 1000 / 1980 - 1e-6 || $2 >= 3000 / 1980 { bad = 1 } END { exit bad || NR == 0 }' \
    && ok || fail "plot-window: JSON time outside the window at 1980 MHz"
cmp -s "$tmp/w.png" "$tmp/p.png" && fail "plot-window: same picture as the whole run" || ok

# Rows per role.
check plot-role 0 "$smpipe" plot "$src/traces/with_specialized_staging_unified.trace" --by role -o "$tmp/r.png" \
    --data "$tmp/rdata"
magic plot-role "$tmp/r.png" 89504e470d0a1a0a
contains plot-role "$tmp/rdata/layout.gp" "'producer'"
contains plot-role "$tmp/rdata/layout.gp" "'consumer'"
grep -q "'warp 0'" "$tmp/rdata/layout.gp" && fail "plot-role: warp rows in a role picture" || ok
[ -f "$tmp/rdata/layout.gp" ] && ok || fail "plot-role: --data not kept"

# run --plot, with the report as usual; --by role applies to the picture.
check run-plot 0 "$smpipe" run "$trace" --set stages=1 --plot "$tmp/s1.svg" --timeline "$tmp/s1.json"
contains run-plot "$tmp/out" "cycles"
magic run-plot "$tmp/s1.svg" 3c3f786d6c
[ -s "$tmp/s1.json" ] && ok || fail "run-plot: no JSON"
check run-plot-role 0 "$smpipe" run "$trace" --by role --plot "$tmp/r2.png"
magic run-plot-role "$tmp/r2.png" 89504e470d0a1a0a
no_leftovers run-plot

# Every bundled trace draws.
for t in "$src"/traces/*.trace; do
    check "plot-$(basename "$t")" 0 "$smpipe" plot "$t" -o "$tmp/all.png"
done
no_leftovers all

finish plot
