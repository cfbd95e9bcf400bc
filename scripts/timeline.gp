# timeline.gp: draws smpipe's overlap timeline (docs/timelines.md) from the
# data files a run streams into a directory: layout.gp (rows, styles, range),
# slices-STATE.dat ("x0 x1 row f0 f1": a box from cycle x0 to x1 on row
# `row`, covering fractions f0..f1 of its height) and
# counter-stages_occupied.dat ("x0 x1 value").
#
# smpipe runs it as
#   gnuplot -e "datadir='DIR'; outfile='OUT'; fmt='png'; plot_title='...'" timeline.gp
# fmt is png, svg or pdf; plot_title may be left out.

if (!exists("datadir")) { print "timeline.gp: set datadir, e.g. -e \"datadir='DIR'; outfile='x.png'; fmt='png'\""; exit status 2 }
if (!exists("fmt")) { fmt = 'png' }
if (!exists("outfile")) { outfile = 'timeline.' . fmt }
if (!exists("plot_title")) { plot_title = '' }

load datadir . '/layout.gp'

# One unit of y is one warp row; the canvas grows with the rows.
width = 1400
height = int(170 + 24 * y_max)
if (height < 320) { height = 320 }
if (fmt eq 'svg') {
    set terminal svg size width, height dynamic font 'sans,11' noenhanced background '#ffffff'
} else {
    if (fmt eq 'pdf') {
        set terminal pdfcairo size (width / 100.0), (height / 100.0) font 'sans,8' noenhanced
    } else {
        set terminal pngcairo size width, height font 'sans,10' noenhanced background '#ffffff'
    }
}
set output outfile

set title plot_title
set xrange [t_from:t_to]
set yrange [y_max:0]
set xlabel sprintf('cycle (SM clock %.0f MHz)', clock_mhz)
set x2range [t_from / clock_mhz:t_to / clock_mhz]
set x2tics
set x2label 'microseconds'
set xtics nomirror
set mxtics 5
set format x '%.0f'
set ytics nomirror scale 0
set grid xtics mxtics lc rgb '#e4e4e4' lw 1 back
set border 3 back
set tmargin 6
key_title = binned ? sprintf("share of each %d-cycle bin", bin_cycles) : ''
set key outside right top vertical Left reverse samplen 1.5 spacing 1.2 width 2 title key_title left
set style fill solid 1.0 border

# Boxes on rows: the row's top and height come from layout.gp's arrays.
y0(row, f) = RowY[int(row)] + RowH[int(row)] * f

# The stage strip exists only for block-scope pipelines.
if (n_occ > 0) {
    plot for [i=1:n_styles] datadir . '/' . StyleFile[i] \
             using (($1 + $2) / 2):(y0($3, ($4 + $5) / 2)):1:2:(y0($3, $4)):(y0($3, $5)) \
             with boxxyerror lc rgb StyleColor[i] title StyleName[i], \
         datadir . '/' . occ_file \
             using (($1 + $2) / 2):(occ_y0 - occ_h * $3 / occ_max / 2):1:2:(occ_y0):(occ_y0 - occ_h * $3 / occ_max) \
             with boxxyerror lc rgb '#807dba' title 'stages occupied'
} else {
    plot for [i=1:n_styles] datadir . '/' . StyleFile[i] \
             using (($1 + $2) / 2):(y0($3, ($4 + $5) / 2)):1:2:(y0($3, $4)):(y0($3, $5)) \
             with boxxyerror lc rgb StyleColor[i] title StyleName[i]
}
