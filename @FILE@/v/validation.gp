# validation.gp: written by smpipe validate; run `gnuplot validation.gp` here.
set terminal pngcairo noenhanced size 1400,560 font ',10'
set output 'validation.png'
set datafile separator ','
set multiplot layout 1,2 title '/work/wt-usability2/tests/errors/validate_out_dir.trace: GPU vs smpipe h100, cold DRAM, MAPE 100.0%'
set grid
set key bottom right
set xrange [0:11]
set yrange [0:11]
set size square
set xlabel 'measured cycles (GPU, clock64)'
set ylabel 'simulated cycles'
plot 'validation.csv' skip 1 using 7:11 with points pt 7 ps 0.9 title 'points', \
     x with lines dt 2 lc rgb 'gray40' title 'simulated = measured'
set autoscale
set key top right
set size nosquare
set xlabel 'point (row of validation.csv)'
set ylabel 'cycles'
plot 'validation.csv' skip 1 using 1:7 with linespoints pt 7 ps 0.7 title 'measured', \
     '' skip 1 using 1:11 with linespoints pt 6 ps 0.7 title 'simulated'
unset multiplot
