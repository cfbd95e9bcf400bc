# sweep.gp: draws a sweep's cycles (left axis) and hidden copy fraction
# (right axis) against the swept parameter, one colour per combination of
# the other varied parameters, with the recommended stage counts marked.
#
# `smpipe plot SWEEP.csv -o FILE.png` writes FILE.dat and runs
#   gnuplot -e "datafile='FILE.dat'; outfile='FILE.png'; term='pngcairo'; \
#               xname='stages'; nseries=1; titles='all'; rec=1; categorical=0" sweep.gp
# which you can also run by hand after editing this file.
#
# FILE.dat: one block per series, blocks separated by two blank lines, each
# line "x cycles hidden_fraction label" (label: the x value as written;
# with categorical=1, x is its position and the label names the tick).
# With rec=1, a last block holds the recommended points "x cycles".

if (!exists("term")) term = 'pngcairo'
if (!exists("categorical")) categorical = 0
if (!exists("rec")) rec = 0
if (term eq 'svg') {
    set terminal svg size 900,560 dynamic font "sans,11"
} else {
    if (term eq 'pdfcairo') {
        set terminal pdfcairo size 6.5in,4in font "sans,9"
    } else {
        set terminal pngcairo size 900,560 font "sans,10"
    }
}
set termoption noenhanced
set output outfile

set title "smpipe sweep: cycles and hidden copy fraction against ".xname
set xlabel xname
set ylabel "cycles"
set y2label "hidden copy fraction"
set yrange [0:*]
set y2range [0:1.05]
set ytics nomirror
set y2tics 0.2
set grid xtics ytics
set key outside bottom center horizontal
set offsets graph 0.03, graph 0.03, 0, 0

xt = categorical ? ':xtic(4)' : ''
cmd = 'plot'
do for [i = 0:nseries - 1] {
    name = nseries > 1 ? word(titles, i + 1).' ' : ''
    cmd = cmd.sprintf(" datafile index %d using 1:2%s with linespoints lw 2 pt 7 lc %d title '%scycles',", \
                      i, xt, i + 1, name)
    cmd = cmd.sprintf(" datafile index %d using 1:3 axes x1y2 with linespoints lw 1 dt 2 pt 6 lc %d" \
                      ." title '%shidden fraction',", i, i + 1, name)
}
if (rec) {
    cmd = cmd.sprintf(" datafile index %d using 1:2 with points pt 3 ps 3 lw 2 lc rgb 'black' title 'recommended'", \
                      nseries)
} else {
    cmd = cmd[1:strlen(cmd) - 1]
}
eval cmd
set output
