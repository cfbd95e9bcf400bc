# sweep.gp: draws a sweep's cycles (left axis) and hidden copy fraction
# (right axis) against the swept parameter, one colour per combination of
# the other varied parameters, with the recommended stage counts marked.
#
# `smpipe plot SWEEP.csv -o FILE.png` writes FILE.dat and runs
#   gnuplot -e "datafile='FILE.dat'; outfile='FILE.png'; term='pngcairo'; \
#               xname='stages'; nseries=1; titles='all'; rec=1; categorical=0; \
#               logx=1; source='traces/t.trace on h100'" sweep.gp
# which you can also run by hand after editing this file.
#
# FILE.dat: one block per series, blocks separated by two blank lines, each
# line "x cycles hidden_fraction label" (label: the x value as written;
# with categorical=1, x is its position and the label names the tick).
# With rec=1, a last block holds the recommended points "x cycles".

if (!exists("term")) term = 'pngcairo'
if (!exists("categorical")) categorical = 0
if (!exists("rec")) rec = 0
if (!exists("logx")) logx = 0
if (!exists("source")) source = ''

# Many series: a taller picture, the key in columns beside the plot.
big = nseries > 6
h = big ? 580 + 16 * ((nseries + 2) / 3 + 1) : 560
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

# The title names what was swept (the CSV's trace and architecture).
set title (strlen(source) > 0 ? source.": " : "")."cycles (solid) and hidden copy fraction (dashed) against ".xname
set xlabel xname
set ylabel "cycles"
set y2label "hidden copy fraction"
set yrange [0:*]
# The fraction on its own scale (its range, not 0..1), so that its changes show.
set autoscale y2
set ytics nomirror
set y2tics
set grid xtics ytics
# The x axis spans the data, not the next round tics; a logarithmic axis
# (base 2) when the values span a factor of 16 or more (1..64).
set autoscale xfix
if (logx) {
    set logscale x 2
    set offsets graph 0.03, graph 0.03, 0, 0
} else {
    if (categorical) {
        set offsets 0.5, 0.5, 0, 0
    } else {
        set offsets graph 0.03, graph 0.03, 0, 0
    }
}
# The key above the plot, below the title: never over the axis labels.
if (big) {
    set key outside top center horizontal font ",8" samplen 2 spacing 0.9 maxrows (nseries + 2) / 3 + 1
} else {
    set key outside top center horizontal
}
# More series than gnuplot's eight line colours: spread them over a palette.
set palette defined (0 '#1f77b4', 1 '#2ca02c', 2 '#bcbd22', 3 '#ff7f0e', 4 '#d62728', 5 '#9467bd', 6 '#17becf')
unset colorbox
colour(i) = nseries > 8 ? sprintf("palette frac %.4f", i / (nseries - 1.0)) : sprintf("%d", i + 1)

xt = categorical ? ':xtic(4)' : ''
cmd = 'plot'
do for [i = 0:nseries - 1] {
    # One key entry per series (its cycles); the dashed line is its hidden fraction.
    name = nseries > 1 ? word(titles, i + 1) : 'cycles'
    cmd = cmd.sprintf(" datafile index %d using 1:2%s with linespoints lw 2 pt 7 lc %s title '%s',", \
                      i, xt, colour(i), name)
    cmd = cmd.sprintf(" datafile index %d using 1:3 axes x1y2 with linespoints lw 1 dt 2 pt 6 lc %s %s,", \
                      i, colour(i), nseries > 1 ? "notitle" : "title 'hidden fraction'")
}
if (rec) {
    cmd = cmd.sprintf(" datafile index %d using 1:2 with points pt 3 ps 3 lw 2 lc rgb 'black' title 'recommended'", \
                      nseries)
} else {
    cmd = cmd[1:strlen(cmd) - 1]
}
eval cmd
set output
