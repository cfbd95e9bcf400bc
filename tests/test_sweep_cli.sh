#!/bin/sh
# test_sweep_cli.sh: `smpipe sweep`, `merge` and `plot SWEEP.csv` as a user
# meets them: list errors, the same bytes whatever --jobs, shards merged
# back into the unsharded CSV, resume, failing points, the recommendation
# on a trace whose answer is known, the plot, and the cluster scripts.
# Usage: test_sweep_cli.sh SMPIPE SRCDIR
set -u
. "$2/tests/lib.sh"

trace=$src/traces/with_staging_unified.trace
rows() { grep -v '^#' "$1"; }   # a CSV without its provenance lines
for verb in sweep merge; do
    check "help-$verb" 0 "$smpipe" $verb --help
done

# Lists: valid forms run, malformed ones are refused before anything runs.
check list-forms 0 "$smpipe" sweep "$trace" --vary stages=1,2..3,8..12:4 --csv "$tmp/forms.csv"
[ "$(rows "$tmp/forms.csv" | cut -d, -f2 | tr '\n' ' ')" = "stages 1 2 3 8 12 " ] && ok || fail "list-forms: $(cut -d, -f2 "$tmp/forms.csv")"
bad_list() { # bad_list NAME VARY MESSAGE
    check "$1" 2 "$smpipe" sweep "$trace" --vary "$2" --csv "$tmp/bad.csv"
    contains "$1" "$tmp/err" "$3"
}
bad_list empty 'stages=' 'the list is empty'
bad_list empty-item 'stages=1,,2' 'item 2 of the list is empty'
bad_list backwards 'stages=8..1' "range '8..1' is empty"
bad_list zero-step 'stages=1..8:0' 'the step must be positive'
bad_list not-a-range 'stages=1..x' "'1..x' is not a range"
bad_list not-an-integer 'stages=two' "'two' is not an integer"
bad_list repeated 'stages=1,2,2' '2 appears twice'
bad_list no-name '=1,2' 'expected NAME=LIST'
bad_list unknown-param 'nosuch=1,2' "has no parameter 'nosuch'"
bad_list unknown-key 'dram.nosuch=1' 'not an architecture key'
bad_list bad-word 'mem.source=dram,hbm' "--vary mem.source=hbm: mem.source must be dram or l2"
bad_list out-of-range 'stages=0..2' 'out of its range'
[ ! -e "$tmp/bad.csv" ] && ok || fail "a refused sweep wrote its CSV"
check vary-and-set 2 "$smpipe" sweep "$trace" --vary stages=1,2 --set stages=3
contains vary-and-set "$tmp/err" "both varied (--vary) and set"
check no-vary 2 "$smpipe" sweep "$trace"
check bad-shard 2 "$smpipe" sweep "$trace" --vary stages=1,2 --shard 3/2
contains bad-shard "$tmp/err" "expected I/N"
check bad-jobs 2 "$smpipe" sweep "$trace" --vary stages=1,2 --jobs -1
check bad-tolerance 2 "$smpipe" sweep "$trace" --vary stages=1,2 --tolerance -1

# The same bytes whatever --jobs is; architecture keys take words.
vary="--vary mem.source=dram,l2 --vary stages=1..6 --vary threads=64,128"
check jobs1 0 "$smpipe" sweep "$trace" $vary --jobs 1 --csv "$tmp/j1.csv"
cp "$tmp/out" "$tmp/j1.txt"
check jobs2 0 "$smpipe" sweep "$trace" $vary --jobs 2 --csv "$tmp/j2.csv"
same jobs-csv "$tmp/j1.csv" "$tmp/j2.csv"
same jobs-report "$tmp/j1.txt" "$tmp/out"
[ "$(rows "$tmp/j1.csv" | wc -l)" -eq 25 ] && ok || fail "jobs: $(rows "$tmp/j1.csv" | wc -l) lines, want 25"
rows "$tmp/j1.csv" | head -n 1 | grep -q '^point,mem.source,stages,threads,status,cycles,' && ok || fail "header: $(rows "$tmp/j1.csv" | head -n 1)"
contains csv-last-columns "$tmp/j1.csv" 'blocks_per_sm,occupancy_limit,error'
contains csv-row "$tmp/j1.csv" '13,l2,1,128,ok,'
# One recommendation per combination of the other parameters.
[ "$(grep -c '^recommended stages: ' "$tmp/j1.txt")" -eq 4 ] && ok || fail "recommend per combination"
contains recommend-group "$tmp/j1.txt" 'recommended stages: '
contains recommend-group "$tmp/j1.txt" ' (mem.source=l2 threads=128): '
contains recommend-cost "$tmp/j1.txt" 'bytes of shared memory per block'
contains recommend-estimate "$tmp/j1.txt" 'estimate: '
# --csv - puts the CSV alone on stdout.
check csv-stdout 0 "$smpipe" sweep "$trace" --vary stages=1..3 --csv -
rows "$tmp/out" | head -n 1 | grep -q '^point,stages,status,' && ok || fail "csv-stdout: $(rows "$tmp/out" | head -n 1)"
[ "$(rows "$tmp/out" | wc -l)" -eq 4 ] && ok || fail "csv-stdout: extra lines on stdout"
contains csv-stdout "$tmp/err" 'recommended stages: '

# Shards merged back give the unsharded bytes, in any order of files.
for i in 1 2 3; do
    check "shard$i" 0 "$smpipe" sweep "$trace" $vary --shard "$i/3" --csv "$tmp/s$i.csv"
done
contains shard-no-recommendation "$tmp/out" "shard 3/3: no recommendation from part of the points"
check merge 0 "$smpipe" merge "$tmp/s2.csv" "$tmp/s3.csv" "$tmp/s1.csv"
same merge "$tmp/j1.csv" "$tmp/out"
# The merged sweep, resumed, simulates nothing and recommends as the whole sweep does.
cp "$tmp/out" "$tmp/merged.csv"
check merged-resume 0 "$smpipe" sweep "$trace" $vary --resume "$tmp/merged.csv"
same merged-resume "$tmp/j1.txt" "$tmp/out"
same merged-resume-csv "$tmp/j1.csv" "$tmp/merged.csv"
check merge-o 0 "$smpipe" merge -o "$tmp/m.csv" "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv" "$tmp/s1.csv"
same merge-o "$tmp/j1.csv" "$tmp/m.csv"
check merge-missing 4 "$smpipe" merge "$tmp/s1.csv" "$tmp/s3.csv"
contains merge-missing "$tmp/err" "points are missing (1, 4,"
# Without the last shard the points after the last row are missing too
# (the CSV's '# points:' line), each of shard 3's counted.
check merge-missing-trailing 4 "$smpipe" merge "$tmp/s1.csv" "$tmp/s2.csv"
n3=$(rows "$tmp/s3.csv" | tail -n +2 | wc -l)
contains merge-missing-trailing "$tmp/err" "warning: $n3 points are missing (2, 5,"
contains merge-missing-trailing "$tmp/s1.csv" "# points: $(rows "$tmp/j1.csv" | tail -n +2 | wc -l)"
sed 's/^# points: .*/# points: 5/' "$tmp/s2.csv" > "$tmp/s2-other.csv"
check merge-other-count 2 "$smpipe" merge "$tmp/s1.csv" "$tmp/s2-other.csv"
contains merge-other-count "$tmp/err" "s2-other.csv: from a sweep of 5 points, "
check merge-other-sweep 2 "$smpipe" merge "$tmp/s1.csv" "$tmp/forms.csv"
contains merge-other-sweep "$tmp/err" "made with other fixed parameters"
{ grep '^#' "$tmp/s2.csv"; rows "$tmp/s2.csv" | head -n 2; rows "$tmp/s2.csv" | sed -n 3p | head -c 40; } > "$tmp/torn.csv"
check merge-torn 2 "$smpipe" merge "$tmp/s1.csv" "$tmp/torn.csv"
contains merge-torn "$tmp/err" "incomplete"
printf 'cycles\n1\n' > "$tmp/notsweep.csv"
check merge-not-sweep 2 "$smpipe" merge "$tmp/notsweep.csv"

# Resume: an interrupted CSV (some rows, out of order, the last one cut)
# is completed to the same bytes as an uninterrupted run.
{ grep '^#' "$tmp/j1.csv"; rows "$tmp/j1.csv" | sed -n '1p;9p;3p;14p'; rows "$tmp/j1.csv" | sed -n '6p' | head -c 40; } > "$tmp/r.csv"
check resume 0 "$smpipe" sweep "$trace" $vary --jobs 2 --resume "$tmp/r.csv"
same resume "$tmp/j1.csv" "$tmp/r.csv"
contains resume-torn "$tmp/err" "dropped an incomplete last row"
check resume-missing-file 0 "$smpipe" sweep "$trace" $vary --resume "$tmp/new.csv"
same resume-missing-file "$tmp/j1.csv" "$tmp/new.csv"
check resume-done 0 "$smpipe" sweep "$trace" $vary --resume "$tmp/new.csv" --csv "$tmp/new2.csv"
same resume-done "$tmp/j1.csv" "$tmp/new2.csv"
check resume-shard 0 "$smpipe" sweep "$trace" $vary --shard 2/3 --resume "$tmp/s2.csv"
check resume-wrong-shard 2 "$smpipe" sweep "$trace" $vary --shard 1/3 --resume "$tmp/s2.csv"
contains resume-wrong-shard "$tmp/err" "is not in this sweep shard"
check resume-other-sweep 2 "$smpipe" sweep "$trace" --vary stages=1..6 --vary threads=64,128 --vary mem.source=dram,l2 \
    --resume "$tmp/j1.csv"
contains resume-other-sweep "$tmp/err" "its header differs"
"$smpipe" sweep "$trace" --vary stages=1..6 --vary threads=64,128 --csv "$tmp/v.csv" >/dev/null
check resume-other-values 2 "$smpipe" sweep "$trace" --vary stages=1..6 --vary threads=32,128 --resume "$tmp/v.csv"
contains resume-other-values "$tmp/err" "not the same --vary lists"

# A failing point gets a row with its error; the others run.
cat > "$tmp/fail.trace" <<'EOF'
smpipe 1
param stages = 1 in 1..8
block 32
shared pipeline_shared_state<block, 2> st
var p = make_pipeline(block, st)
if (stages == 3)
    p.consumer_wait()
end
EOF
check failing-point 4 "$smpipe" sweep "$tmp/fail.trace" --vary stages=1..4 --csv "$tmp/f.csv"
contains failing-point "$tmp/f.csv" "2,3,failed,"
contains failing-point "$tmp/f.csv" ",fail.trace:7:5: consumer_wait on an empty pipeline"
# Rows do not depend on the directory the sweep ran from (the provenance
# names the trace as given).
(cd "$tmp" && "$smpipe" sweep fail.trace --vary stages=1..4 --csv f2.csv >/dev/null 2>&1)
grep -v '^# trace:' "$tmp/f.csv" > "$tmp/f.rows"
grep -v '^# trace:' "$tmp/f2.csv" > "$tmp/f2.rows"
same failing-point-relative "$tmp/f.rows" "$tmp/f2.rows"
contains failing-point-relative "$tmp/f2.csv" "# trace: fail.trace"
[ "$(grep -c ',ok,' "$tmp/f.csv")" -eq 3 ] && ok || fail "failing-point: the other points did not run"
contains failing-point "$tmp/err" "1 of 4 points did not run"
check rejected-point 4 "$smpipe" sweep "$trace" --vary threads=512,1024 --set sm.blocks=3 --csv "$tmp/rj.csv"
contains rejected-point "$tmp/rj.csv" ",1024,rejected,"
contains rejected-point "$tmp/rj.csv" "but the SM of h100 holds 2048"
check watchdog-point 4 "$smpipe" sweep "$trace" --vary stages=1,2 --max-cycles 15000 --csv "$tmp/w.csv"
contains watchdog-point "$tmp/w.csv" "0,1,limit,"
contains watchdog-point "$tmp/w.csv" "1,2,ok,"

# The recommendation on a trace whose answer is 4 by construction: its
# cycles fall by 400 dependent multiply-adds per stage below 4, then stay.
cat > "$tmp/known.trace" <<'EOF'
smpipe 1
param stages = 1 in 1..16
block 32
compute(imad, 50)
compute(imad, max(0, 4 - stages) * 400)
EOF
check known 0 "$smpipe" sweep "$tmp/known.trace" --vary stages=1..8
contains known "$tmp/out" "recommended stages: 4: "
check known-tolerance 0 "$smpipe" sweep "$tmp/known.trace" --vary stages=1..8 --tolerance 5000
contains known-tolerance "$tmp/out" "recommended stages: 1: "
# The guide kernel gets a count, a cost, a reason and the estimate.
check guide 0 "$smpipe" sweep "$trace" --vary stages=1..8
contains guide "$tmp/out" "recommended stages: "
contains guide "$tmp/out" "  cost: "
contains guide "$tmp/out" "  why: "
contains guide "$tmp/out" "  estimate: "
contains guide "$tmp/out" "  simulation vs estimate: "

# A sweep over the parameter that picks the copy engine names the faster
# engine, by how much, where the gap comes from and what bounds each; a
# sweep that varies no engine says nothing of engines.
engine="$src/traces/gemm_tiles_engine.trace"
check engine 0 "$smpipe" sweep "$engine" --vary engine=0,1 --vary stages=1,2 --set batches=4
contains engine "$tmp/out" "recommended stages: "
contains engine "$tmp/out" "faster copy engine: "
contains engine "$tmp/out" "% fewer than "
contains engine "$tmp/out" "  the gap: "
contains engine "$tmp/out" "  cp.async (engine=0, stages="
contains engine "$tmp/out" "  bulk copies (engine=1, stages="
check engine-only 0 "$smpipe" sweep "$engine" --vary engine=0,1 --vary threads=64,128 --set batches=4
[ "$(grep -c '^faster copy engine (threads=' "$tmp/out")" -eq 2 ] && ok || fail "engine-only: one line per thread count"
# Which engine is named follows the simulated cycles, both ways: with one
# warp of 4-byte elements the cp.async loop issues more (bulk copies win);
# with 256 threads the bulk points wait longer on their barriers.
check engine-bulk 0 "$smpipe" sweep "$engine" --vary engine=0,1 --vary stages=1,2,4 --set batches=8 \
    --set threads=32 --set elem_bytes=4
contains engine-bulk "$tmp/out" "faster copy engine: bulk copies (engine=1, stages=4): "
contains engine-bulk "$tmp/out" "  the gap: the cp.async point spends "
check engine-cp 0 "$smpipe" sweep "$engine" --vary engine=0,1 --vary stages=1,2,4 --set batches=8 \
    --set threads=256
contains engine-cp "$tmp/out" "faster copy engine: cp.async (engine=0, stages=4): "
contains engine-cp "$tmp/out" "% fewer than bulk copies (engine=1, stages=4): "
check engine-none 0 "$smpipe" sweep "$engine" --vary stages=1,2 --set batches=4
grep -q "faster copy engine" "$tmp/out" && fail "engine-none: an engine comparison without an engine axis" || ok
# One classification: the sweep's reason for stopping at the recommended
# count names the bound run's verdict names for that point, with the same
# share of warp-cycles (it used to say "compute bound" where run said
# "wait-overhead bound").
"$smpipe" sweep "$trace" --vary stages=1..8 > "$tmp/one.txt" 2>/dev/null
n=$(sed -n 's/^recommended stages: \([0-9]*\):.*/\1/p' "$tmp/one.txt")
sweep_bound=$(sed -n 's/.*more gain under 2%: \([a-z ,-]*\): \([0-9]*%\).*/\1 \2/p' "$tmp/one.txt" |
    sed 's/, by issue//')
"$smpipe" run "$trace" --set stages="$n" > "$tmp/one-run.txt"
run_bound=$(sed -n 's/^  verdict: \([a-z -]*\): \([0-9]*%\).*/\1 \2/p' "$tmp/one-run.txt" |
    sed 's/^copy-latency bound /copy latency /; s/^wait-overhead bound /copy latency /;
         s/^copy-bandwidth bound /copy bandwidth /; s/^synchronisation bound /synchronisation /;
         s/^shared-memory bound /shared-memory bank conflicts /; s/^memory-latency bound /memory latency /;
         s/^divergence bound /divergence /')
[ -n "$sweep_bound" ] && [ "$sweep_bound" = "$run_bound" ] && ok \
    || fail "one-bound: sweep says '$sweep_bound', run --set stages=$n says '$run_bound'"

# Plot: a PNG (magic bytes), SVG and PDF; without gnuplot, the data file
# and how to install it.
if command -v gnuplot >/dev/null 2>&1; then
    check plot-png 0 "$smpipe" plot "$tmp/j1.csv" -o "$tmp/sweep.png"
    [ "$(od -An -tx1 -N8 "$tmp/sweep.png" | tr -d ' \n')" = "89504e470d0a1a0a" ] && ok || fail "plot-png: not a PNG"
    contains plot-data "$tmp/sweep.dat" "# recommended stages"
    check plot-svg 0 "$smpipe" plot "$tmp/f.csv" -o "$tmp/f.svg"
    contains plot-svg "$tmp/f.svg" "<svg"
    check plot-pdf 0 "$smpipe" plot "$tmp/j1.csv" -o "$tmp/s.pdf" --x mem.source
    [ "$(head -c 5 "$tmp/s.pdf")" = "%PDF-" ] && ok || fail "plot-pdf: not a PDF"
    # Readable: the title names the trace and the architecture; the x axis
    # spans the data (1..64 on a base-2 axis, no tics at -10 or 70); the
    # hidden fraction on its own scale, not 0..1.
    "$smpipe" sweep "$trace" --vary stages=1,2,4,8,16,32,64 --csv "$tmp/p64.csv" >/dev/null 2>&1
    check plot-readable 0 "$smpipe" plot "$tmp/p64.csv" -o "$tmp/p64.svg"
    grep -o '<text>[^<]*</text>' "$tmp/p64.svg" | sed 's/<[^>]*>//g; s/^ *//' > "$tmp/p64.txt"
    contains plot-readable "$tmp/p64.txt" "$trace on h100: cycles"
    grep -qx -- '-10' "$tmp/p64.txt" && fail "plot-readable: x tic at -10" || ok
    grep -qx '70' "$tmp/p64.txt" && fail "plot-readable: x tic at 70" || ok
    grep -qx '64' "$tmp/p64.txt" && grep -qx '32' "$tmp/p64.txt" && ok || fail "plot-readable: no tics at 32 and 64"
    grep -qx '0.8' "$tmp/p64.txt" && fail "plot-readable: the hidden fraction drawn on 0..1" || ok
else
    echo "skip plot-png: gnuplot is not installed"
fi
# Exit 3 as for every picture: the data is written.
check plot-no-gnuplot 3 env PATH=/nonexistent "$smpipe" plot "$tmp/j1.csv" -o "$tmp/ng.png"
contains plot-no-gnuplot "$tmp/err" "apt-get install gnuplot-nox"
contains plot-no-gnuplot "$tmp/err" "the data is in $tmp/ng.dat (draw it with: gnuplot -e \"datafile = '$tmp/ng.dat'"
[ -s "$tmp/ng.dat" ] && [ ! -e "$tmp/ng.png" ] && ok || fail "plot-no-gnuplot: no data file, or a picture"
check plot-bad-ext 2 "$smpipe" plot "$tmp/j1.csv" -o "$tmp/x.gif"
check plot-bad-x 2 "$smpipe" plot "$tmp/j1.csv" -o "$tmp/x.png" --x cycles
check plot-not-sweep 2 "$smpipe" plot "$tmp/notsweep.csv" -o "$tmp/x.png"

# Provenance: the CSV says what it was made from, and --resume and merge
# refuse a CSV made from another trace, other fixed --set values or
# another architecture.
sha=$(sha256sum "$trace" | cut -d' ' -f1)
contains provenance "$tmp/j1.csv" "# trace_sha256: $sha"
contains provenance "$tmp/j1.csv" "# trace: $trace"
contains provenance "$tmp/j1.csv" "# smpipe: "
contains provenance "$tmp/j1.csv" "# format: 2"
contains provenance "$tmp/j1.csv" "# params: batches=16 compute_iters=16 elem_bytes=4"
contains provenance "$tmp/j1.csv" "# arch: h100"
contains provenance "$tmp/j1.csv" "# arch_sha256: "
grep -q '^# params:.*stages' "$tmp/j1.csv" && fail "provenance: a varied parameter among the fixed ones" || ok
"$smpipe" sweep "$trace" --vary stages=1..3 --csv "$tmp/p.csv" >/dev/null 2>&1
{ cat "$trace"; echo '# one comment more'; } > "$tmp/edited.trace"
check resume-edited-trace 2 "$smpipe" sweep "$tmp/edited.trace" --vary stages=1..3 --resume "$tmp/p.csv"
contains resume-edited-trace "$tmp/err" "made from another trace ($trace, sha256 ${sha%"${sha#????????????}"}), not this sweep's"
check resume-other-set 2 "$smpipe" sweep "$trace" --vary stages=1..3 --set batches=8 --resume "$tmp/p.csv"
contains resume-other-set "$tmp/err" "made with other fixed parameters (batches=16 compute_iters=16 elem_bytes=4 threads=128), not this sweep's (batches=8 "
check resume-other-arch 2 "$smpipe" sweep "$trace" --vary stages=1..3 --arch a100 --resume "$tmp/p.csv"
contains resume-other-arch "$tmp/err" "made on another architecture (h100, sha256 "
check resume-other-arch-key 2 "$smpipe" sweep "$trace" --vary stages=1..3 --set dram.latency=900 --resume "$tmp/p.csv"
contains resume-other-arch-key "$tmp/err" "made on another architecture (h100, sha256 "
cp "$src/arch/h100.ini" "$tmp/h100.ini"
check resume-same-arch-file 0 "$smpipe" sweep "$trace" --vary stages=1..3 --arch "$tmp/h100.ini" --resume "$tmp/p.csv" \
    --csv "$tmp/p2.csv"
awk '/^\[dram\]/ { d = 1 } d && /^latency = / { print "latency = 999"; d = 0; next } { print }' "$src/arch/h100.ini" \
    > "$tmp/h100.ini"
cmp -s "$src/arch/h100.ini" "$tmp/h100.ini" && fail "resume-edited-arch: no dram latency to edit" || ok
check resume-edited-arch 2 "$smpipe" sweep "$trace" --vary stages=1..3 --arch "$tmp/h100.ini" --resume "$tmp/p.csv"
contains resume-edited-arch "$tmp/err" "made on another architecture"
"$smpipe" sweep "$trace" --vary stages=1..4 --shard 1/2 --csv "$tmp/h1.csv" >/dev/null 2>&1
"$smpipe" sweep "$trace" --vary stages=1..4 --shard 2/2 --arch a100 --csv "$tmp/a2.csv" >/dev/null 2>&1
"$smpipe" sweep "$trace" --vary stages=1..4 --shard 2/2 --set batches=8 --csv "$tmp/b2.csv" >/dev/null 2>&1
check merge-other-arch 2 "$smpipe" merge "$tmp/h1.csv" "$tmp/a2.csv"
contains merge-other-arch "$tmp/err" "a2.csv: made on another architecture (a100, sha256 "
check merge-other-set 2 "$smpipe" merge "$tmp/h1.csv" "$tmp/b2.csv"
contains merge-other-set "$tmp/err" "b2.csv: made with other fixed parameters (batches=8 "
rows "$tmp/j1.csv" > "$tmp/old.csv"
check merge-no-provenance 2 "$smpipe" merge "$tmp/old.csv"
contains merge-no-provenance "$tmp/err" "no provenance lines"
sed 's/^# format: 2$/# format: 99/' "$tmp/p.csv" > "$tmp/f99.csv"
check resume-unknown-format 2 "$smpipe" sweep "$trace" --vary stages=1..3 --resume "$tmp/f99.csv"
contains resume-unknown-format "$tmp/err" "format 99, not this smpipe's format 2"
# run: the JSON and the CSV carry the same provenance; overrides are typed.
check run-provenance 0 "$smpipe" run "$trace" --set dram.latency=900 --set mem.source=l2 --set l2.bytes_per_clk_sm=40.5 \
    --json "$tmp/r.json" --csv "$tmp/r1.csv"
contains run-json-provenance "$tmp/r.json" "\"trace_sha256\": \"$sha\""
contains run-json-provenance "$tmp/r.json" '"format": 2'
contains run-json-typed "$tmp/r.json" '"dram.latency": 900,'
contains run-json-typed "$tmp/r.json" '"l2.bytes_per_clk_sm": 40.5'
contains run-json-typed "$tmp/r.json" '"mem.source": "l2",'
contains run-csv-provenance "$tmp/r1.csv" "# trace_sha256: $sha"
contains run-csv-provenance "$tmp/r1.csv" "# arch_set: dram.latency=900 mem.source=l2 l2.bytes_per_clk_sm=40.5"
ash=$(sed -n 's/.*"arch_sha256": "\(.*\)".*/\1/p' "$tmp/r.json")
contains run-arch-hash "$tmp/r1.csv" "# arch_sha256: $ash"
[ ${#ash} -eq 64 ] && ok || fail "run-arch-hash: '$ash'"

# The cluster recipes: GNU parallel (or xargs) and Slurm (a stand-in
# sbatch that runs the array's tasks, then the merge, right away).
check parallel-script 0 env SMPIPE="$smpipe" sh "$src/scripts/sweep-parallel.sh" 3 "$tmp/par.csv" "$trace" $vary
same parallel-script "$tmp/j1.csv" "$tmp/par.csv"
same parallel-script-report "$tmp/j1.txt" "$tmp/out"
mkdir "$tmp/bin" "$tmp/slurm"
cat > "$tmp/bin/sbatch" <<'EOF'
#!/bin/sh
# A stand-in for sbatch: runs the job now (the array's tasks in turn),
# noting its options in sbatch.log beside it.
echo "$*" >> "$(dirname "$0")/sbatch.log"
array=""
while [ $# -gt 0 ]; do
    case "$1" in
    --array=*) array=${1#--array=} ;;
    --cpus-per-task=*) export SLURM_CPUS_PER_TASK=${1#--cpus-per-task=} ;;
    --*) ;;
    *) break ;;
    esac
    shift
done
if [ -n "$array" ]; then
    i=${array%-*}
    while [ "$i" -le "${array#*-}" ]; do
        SLURM_ARRAY_TASK_ID=$i sh "$@" || exit 1
        i=$((i + 1))
    done
else
    sh "$@" || exit 1
fi
echo "$$;cluster"
EOF
# A stand-in for sinfo: a cluster of 2-CPU nodes.
printf '#!/bin/sh\necho 2\n' > "$tmp/bin/sinfo"
chmod +x "$tmp/bin/sbatch" "$tmp/bin/sinfo"
(cd "$tmp/slurm" && PATH="$tmp/bin:$PATH" SMPIPE=$smpipe \
    sh "$src/scripts/sweep-slurm.sh" 4 all.csv "$trace" $vary) >"$tmp/out" 2>"$tmp/err" && ok || { fail "slurm-script"; cat "$tmp/err"; }
contains slurm-script "$tmp/out" "submitted shards as job"
same slurm-script "$tmp/j1.csv" "$tmp/slurm/all.csv"
same slurm-script-report "$tmp/j1.txt" "$tmp/slurm/all.csv.txt"
# CPUS defaults to 4, or fewer when the nodes have fewer (here 2).
contains slurm-cpus "$tmp/bin/sbatch.log" "--cpus-per-task=2 "
# More CPUs than any node has: refused, nothing submitted.
rm -f "$tmp/bin/sbatch.log"
(cd "$tmp/slurm" && PATH="$tmp/bin:$PATH" SMPIPE=$smpipe CPUS=8 \
    sh "$src/scripts/sweep-slurm.sh" 4 c.csv "$trace" $vary) >"$tmp/out" 2>"$tmp/err" && fail "slurm-cpus-too-many" || ok
contains slurm-cpus-too-many "$tmp/err" "CPUS=8 but the largest node has 2 CPUs"
[ ! -e "$tmp/bin/sbatch.log" ] && ok || fail "slurm-cpus-too-many: submitted"
# Bad input is found by --dry-run before anything is submitted.
(cd "$tmp/slurm" && PATH="$tmp/bin:$PATH" SMPIPE=$smpipe \
    sh "$src/scripts/sweep-slurm.sh" 4 b.csv "$trace" --vary nosuch=1,2) >"$tmp/out" 2>"$tmp/err" && fail "slurm-bad-input" || ok
contains slurm-bad-input "$tmp/err" "nothing submitted"
contains slurm-bad-input "$tmp/err" "nosuch"
[ ! -e "$tmp/bin/sbatch.log" ] && ok || fail "slurm-bad-input: submitted"
# A task's errors land in its part log.
(cd "$tmp/slurm" && SMPIPE=$smpipe SWEEP_OUT=e.csv SWEEP_SHARDS=2 SLURM_ARRAY_TASK_ID=1 \
    sh "$src/scripts/sweep-slurm.sh" task "$tmp/nope.trace" --vary stages=1,2) >/dev/null 2>&1 && fail "slurm-part-log" || ok
contains slurm-part-log "$tmp/slurm/e.csv.part1.log" "nope.trace: cannot open"
# A shard with a failed point (exit 4) still counts as done: the merge
# runs, and the whole sweep's exit status 4 says points did not run.
(cd "$tmp/slurm" && PATH="$tmp/bin:$PATH" SMPIPE=$smpipe \
    sh "$src/scripts/sweep-slurm.sh" 2 fail.csv "$tmp/fail.trace" --vary stages=1..4) >"$tmp/out" 2>"$tmp/err" \
    && ok || { fail "slurm-failed-point"; cat "$tmp/err"; }
same slurm-failed-point "$tmp/f.csv" "$tmp/slurm/fail.csv"
check parallel-failed-point 4 env SMPIPE="$smpipe" sh "$src/scripts/sweep-parallel.sh" 2 "$tmp/pf.csv" "$tmp/fail.trace" \
    --vary stages=1..4
same parallel-failed-point "$tmp/f.csv" "$tmp/pf.csv"
# --dry-run checks every point and writes nothing.
check dry-run 0 "$smpipe" sweep "$trace" --vary stages=1..3 --vary threads=512,1024 --set sm.blocks=3 --dry-run \
    --csv "$tmp/dry.csv"
contains dry-run "$tmp/out" "dry run: 6 of 6 points to run, 3 would be rejected"
contains dry-run "$tmp/err" "point 5 (stages=3 threads=1024) would be rejected"
[ ! -e "$tmp/dry.csv" ] && ok || fail "dry-run: wrote the CSV"
check dry-run-bad 2 "$smpipe" sweep "$trace" --vary stages=0,1 --dry-run

finish sweep_cli
