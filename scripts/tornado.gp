# tornado.gp: draws `smpipe sensitivity`'s tornado chart: for each of the
# top keys (ranked, the first at the top), the percent change in cycles when
# the key moves down by the step (one colour) and up by it (the other).
#
# `smpipe sensitivity TRACE --plot FILE.png` writes FILE.dat and runs
#   gnuplot -e "datafile='FILE.dat'; outfile='FILE.png'; term='pngcairo'; \
#               nkeys=15; step=10; title='...'" tornado.gp
# which you can also run by hand after editing this file.
#
# FILE.dat: a comment line, then one line per key "rank key down_pct up_pct".

if (!exists("term")) term = 'pngcairo'
if (!exists("step")) step = 10
if (!exists("title")) title = 'smpipe sensitivity'
n = nkeys > 0 ? nkeys : 1
h = 160 + 28 * n
if (term eq 'svg') {
    eval sprintf('set terminal svg size 900,%d dynamic font "sans,11"', h)
} else {
    if (term eq 'pdfcairo') {
        set terminal pdfcairo size 6.5in,4in font "sans,9"
    } else {
        eval sprintf('set terminal pngcairo size 900,%d font "sans,10"', h)
    }
}
set termoption noenhanced
set output outfile

set title title
set xlabel sprintf("change in cycles (%%) with the key %g%% lower (blue) and %g%% higher (orange)", step, step)
set yrange [0.4:n + 0.6]
set ytics nomirror
set grid xtics
set xzeroaxis lt -1
set key off
set style fill solid 0.8 noborder
set lmargin 26
# The first-ranked key at the top: y = n + 1 - rank.
if (nkeys > 0) {
    # Down in the upper half of the key's row, up in the lower half, so
    # both show when they lie on the same side.
    plot datafile using (0):(n + 1 - $1):(0):($3):(n + 1 - $1):(n + 1 - $1 + 0.38):ytic(2) \
             with boxxyerror lc rgb '#1f77b4', \
         '' using (0):(n + 1 - $1):(0):($4):(n + 1 - $1 - 0.38):(n + 1 - $1) \
             with boxxyerror lc rgb '#ff7f0e'
} else {
    set label 1 "no key changes the cycles" at graph 0.5, 0.5 center
    plot 1/0
}
