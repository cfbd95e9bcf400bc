#!/bin/sh
# test_cli.sh: the smpipe command as a user meets it: verbs, help, exit
# statuses, error messages, outputs.  Usage: test_cli.sh SMPIPE SRCDIR
set -u
. "$2/tests/lib.sh"

check no-args 2 "$smpipe"
check version 0 "$smpipe" --version
contains version "$tmp/out" "smpipe "
check help 0 "$smpipe" --help
for verb in run check arch sweep merge plot cuda validate calibrate; do
    check "help-$verb" 0 "$smpipe" $verb --help
done
check unknown-verb 2 "$smpipe" frobnicate
check bad-option 2 "$smpipe" run --no-such-option "$src/traces/with_staging.trace"
check missing-file 2 "$smpipe" run "$tmp/nope.trace"
contains missing-file "$tmp/err" "nope.trace"

# run prints the cycle count first.
check run 0 "$smpipe" run "$src/traces/with_staging_unified.trace" --set stages=4
head -n 3 "$tmp/out" | grep -q "cycles" && ok || fail "run: no cycles line first"
# README's first screen shows how the demo's report starts: each of its lines
# (all but the "..." that elides the rest) is one smpipe prints now.
(cd "$src" && "$smpipe" run traces/with_staging_unified.trace --set stages=4) > "$tmp/readme_run.txt"
awk '/^The first command prints a report/ { f = 1; next } f && /^```/ { n++; if (n == 2) exit; next }
     f && n == 1 && $0 != "  ..." && $0 != "" { print }' "$src/README.md" > "$tmp/readme_lines.txt"
[ -s "$tmp/readme_lines.txt" ] && ok || fail "readme: no report block on README's first screen"
while IFS= read -r line; do
    grep -qxF -- "$line" "$tmp/readme_run.txt" && ok || fail "readme: smpipe no longer prints: $line"
done < "$tmp/readme_lines.txt"
# Likewise every README example whose ```text block follows a ```sh block of
# one build/smpipe command: each of its lines is one that command prints now.
awk -v dir="$tmp" '
    /^```sh/ { sh = 1; cmd = ""; lines = 0; next }
    sh && /^```/ { sh = 0; last = lines == 1 ? cmd : ""; at = NR; next }
    sh { cmd = $0; lines++; next }
    /^```text/ && last ~ /^build\/smpipe / && NR - at <= 2 { n++; t = 1; print last > (dir "/readme_cmd" n); next }
    t && /^```/ { t = 0; next }
    t { print > (dir "/readme_out" n) }
' "$src/README.md"
for c in "$tmp"/readme_cmd*; do
    [ -e "$c" ] || continue
    k=${c##*readme_cmd}
    args=$(sed 's|^build/smpipe ||' "$c")
    # shellcheck disable=SC2086
    (cd "$src" && "$smpipe" $args) > "$tmp/readme_ran$k" 2>/dev/null
    while IFS= read -r line; do
        grep -qxF -- "$line" "$tmp/readme_ran$k" && ok || fail "readme: '$(cat "$c")' no longer prints: $line"
    done < "$tmp/readme_out$k"
done
check run-quiet 0 "$smpipe" run -q "$src/traces/with_staging_unified.trace"
grep -qE '^[0-9]+$' "$tmp/out" && ok || fail "run-quiet"
check run-json 0 "$smpipe" run "$src/traces/with_staging.trace" --json -
contains run-json "$tmp/out" '"cycles": '
contains run-json "$tmp/out" '"params": {'
check run-json-file 0 "$smpipe" run "$src/traces/with_staging.trace" --json "$tmp/s.json" --csv "$tmp/s.csv" --by role
contains run-json-file "$tmp/s.json" '"by_role"'
# With --by the CSV is the view's table; without, the statistics row.
contains run-csv-by "$tmp/s.csv" 'role,warp_cycles,stall_issuing,'
grep -q '^both,' "$tmp/s.csv" && ok || fail "run-csv-by: no row for the role both"
check run-csv 0 "$smpipe" run "$src/traces/with_staging.trace" --csv "$tmp/s.csv"
contains run-csv "$tmp/s.csv" 'cycles,warps'
for t in with_staging with_staging_unified with_staging_scope_thread; do
    check "run-$t-no-batches" 0 "$smpipe" run -q "$src/traces/$t.trace" --set batches=0
done
check run-arch 0 "$smpipe" run -q "$src/traces/with_staging.trace" --arch a100 --set mem.source=l2 --set sm.blocks=2
check run-bad-set 2 "$smpipe" run "$src/traces/with_staging.trace" --set nosuch=1
contains run-bad-set "$tmp/err" "has no parameter 'nosuch'"
check run-bad-arch-key 2 "$smpipe" run "$src/traces/with_staging.trace" --set dram.nosuch=1
check run-too-many-blocks 2 "$smpipe" run "$src/traces/with_staging.trace" --set threads=1024 --set sm.blocks=3
contains run-too-many-blocks "$tmp/err" "the SM of h100 holds 2048"

# The whole-launch estimate: one full wave of 132 x 4 blocks and a tail of
# 72 blocks, one on each of 72 SMs, which is its own run.
check run-launch 0 "$smpipe" run "$src/traces/with_staging_unified.trace" --set threads=256 --set batches=64 \
    --set sm.blocks=4 --set launch.grid=600 --json "$tmp/launch.json"
json_num() { sed -n '/"launch": {/,/}/p' "$tmp/launch.json" | sed -n "s/^ *\"$1\": \([0-9]*\).*/\1/p"; }
check run-launch-tail 0 "$smpipe" run -q "$src/traces/with_staging_unified.trace" --set threads=256 --set batches=64 \
    --set sm.blocks=1 --set launch.grid=72
[ "$(json_num tail_cycles)" = "$(cat "$tmp/out")" ] && [ "$(json_num tail_sms)" = 72 ] &&
    [ "$(json_num cycles)" = "$(( $(json_num full_waves) * $(json_num wave_cycles) + $(json_num tail_cycles) ))" ] &&
    ok || fail "run-launch: the estimate is not one full wave plus the 72-block tail run"
# The launch's time adds launch.overhead_us to the waves' cycles at the clock.
check run-launch-overhead 0 "$smpipe" run "$src/traces/with_staging_unified.trace" --set threads=256 --set batches=64 \
    --set sm.blocks=4 --set launch.grid=600 --set launch.overhead_us=7.5 --json "$tmp/launch.json"
json_real() { sed -n '/"launch": {/,/}/p' "$tmp/launch.json" | sed -n "s/^ *\"$1\": \([0-9.e+-]*\).*/\1/p"; }
awk -v c="$(json_num cycles)" -v o="$(json_real overhead_us)" -v u="$(json_real us)" \
    'BEGIN { d = u - (c / 1980 + 7.5); exit !(o == 7.5 && c > 0 && d < 1e-3 && d > -1e-3) }' && ok ||
    fail "run-launch-overhead: us is not cycles at 1980 MHz plus 7.5"
contains run-launch-overhead "$tmp/out" "waves plus 7.50 us of launch overhead"
check run-no-launch 0 "$smpipe" run "$src/traces/with_staging_unified.trace"
grep -q "whole launch" "$tmp/out" && fail "run-no-launch: an estimate without launch.grid" || ok

# --by line: warp-cycles per trace line; the lines add up to every
# warp-cycle (cycles x warps), the waits land on their lines, both engines
# agree, and the other statistics do not change.
check by-line 0 "$smpipe" run "$src/traces/with_staging_unified.trace" --by line --json "$tmp/bl.json"
cycles=$(sed -n 's/^  "cycles": \([0-9]*\),$/\1/p' "$tmp/bl.json")
warps=$(sed -n 's/^  "warps": \([0-9]*\),$/\1/p' "$tmp/bl.json")
# (The lines' own warp_cycles, not their stages': those are nested deeper.)
sum=$(grep -o '^      "warp_cycles": [0-9]*' "$tmp/bl.json" | awk '{ s += $2 } END { print s }')
[ -n "$cycles" ] && [ "$sum" = "$((cycles * warps))" ] && ok || fail "by-line: lines sum to $sum, not $cycles x $warps"
grep -A3 '"line": 44,' "$tmp/bl.json" | grep -q '"source": "pipeline.consumer_wait()"' && ok || fail "by-line: line 44 source"
contains by-line "$tmp/out" "pipeline.consumer_wait()"
# Pipeline calls have a row per stage under their line's.
awk '$1 == 44 { l = NR } l && NR == l + 1 && $1 == "stage" && $2 == 0 && $5 ~ /^consumer_wait/ { found = 1 }
     END { exit !found }' "$tmp/out" && ok || fail "by-line: no stage 0 row under line 44"
awk '$1 == 44 && $4 ~ /^consumer_wait/ { found = 1 } END { exit !found }' "$tmp/out" && ok \
    || fail "by-line: consumer_wait not the largest state of line 44"
"$smpipe" run "$src/traces/with_staging_unified.trace" --by line --engine stepped --json "$tmp/bl2.json" >/dev/null
sed 's/"stepped"/"event"/' "$tmp/bl2.json" | cmp -s - "$tmp/bl.json" && ok || fail "by-line: engines differ"
"$smpipe" run "$src/traces/with_staging_unified.trace" --json "$tmp/nobl.json" >/dev/null
# The CSV of --by line: the JSON's lines and their stages, each with its
# warp-cycles (the 16th field from the end, the stage the 17th: a source
# may hold quoted commas).
check by-line-csv 0 "$smpipe" run "$src/traces/with_staging_unified.trace" --by line --csv "$tmp/bl.csv"
contains by-line-csv "$tmp/bl.csv" 'line,source,stage,warp_cycles,stall_issuing,'
contains by-line-csv "$tmp/bl.csv" '44,pipeline.consumer_wait(),,'
contains by-line-csv "$tmp/bl.csv" ',"x = compute(x, compute_iters)",,'
grep -v '^#' "$tmp/bl.csv" | tail -n +2 | awk -F, '{ print $1, $(NF - 16), $(NF - 15) }' > "$tmp/bl.csv.rows"
awk '/^      "line": / { gsub(/,/, ""); l = $2 } /^      "warp_cycles": / { gsub(/,/, ""); print l, "", $2 }
     /^          "stage": / { gsub(/,/, ""); k = $2 } /^          "warp_cycles": / { gsub(/,/, ""); print l, k, $2 }' \
    "$tmp/bl.json" > "$tmp/bl.json.rows"
[ -s "$tmp/bl.csv.rows" ] && cmp -s "$tmp/bl.csv.rows" "$tmp/bl.json.rows" && ok \
    || fail "by-line-csv: rows differ from the JSON's: $(diff "$tmp/bl.csv.rows" "$tmp/bl.json.rows" | head -3)"
sed '/"by_line"/,$d' "$tmp/bl.json" > "$tmp/bl.head"
sed '/"race_warnings"/,$d' "$tmp/nobl.json" > "$tmp/nobl.head"
cmp -s "$tmp/bl.head" "$tmp/nobl.head" && ok || fail "by-line: other statistics changed"

# --by line per stage.  by_line_stages CSV: for each line with stage rows,
# whether its stage rows add up to its own row in every column (warp-cycles
# and each state), and whether only pipeline calls have stage rows; prints
# "bad LINE" for each line that fails.
by_line_stages() {
    grep -v '^#' "$1" | tail -n +2 | awk -F, '
        { n = NF; l = $1; k = $(NF - 16) }
        k == "" { for (c = 0; c < 16; c++) { own[l, c] = $(NF - c) } lines[l] = 1; next }
        { staged[l] = 1; for (c = 0; c < 16; c++) { sum[l, c] += $(NF - c) }
          if ($0 !~ /pipeline\.(producer_acquire|producer_commit|consumer_wait|consumer_release)\(\)|memcpy_async\(.*pipeline\)/) {
              print "bad", l, "(not a pipeline call)" } }
        END { for (l in staged) { for (c = 0; c < 16; c++) { if (sum[l, c] != own[l, c]) { print "bad", l; break } } } }'
}
out=$(by_line_stages "$tmp/bl.csv")
[ -z "$out" ] && grep -q '^44,pipeline.consumer_wait(),1,' "$tmp/bl.csv" && ok || fail "by-line-stages: $out"
# One warp, two stages, two batches: both stages are filled before the
# first consumer_wait, which waits out the cold copy latency on stage 0;
# stage 1's copy lands while the warp works on stage 0, so its wait is
# shorter.  Each stage is released once at the same cost.
check by-line-stage2 0 "$smpipe" run -q "$src/traces/with_staging_unified.trace" --set threads=32 --set batches=2 \
    --set stages=2 --by line --csv "$tmp/bs.csv"
out=$(by_line_stages "$tmp/bs.csv")
wait0=$(awk -F, '/^44,/ && $(NF - 16) == "0" { print $(NF - 6) }' "$tmp/bs.csv")
wait1=$(awk -F, '/^44,/ && $(NF - 16) == "1" { print $(NF - 6) }' "$tmp/bs.csv")
rel0=$(awk -F, '/^51,/ && $(NF - 16) == "0" { print $(NF - 15) }' "$tmp/bs.csv")
rel1=$(awk -F, '/^51,/ && $(NF - 16) == "1" { print $(NF - 15) }' "$tmp/bs.csv")
[ -z "$out" ] && [ -n "$wait0" ] && [ -n "$wait1" ] && [ "$wait0" -gt "$wait1" ] && [ -n "$rel0" ] \
    && [ "$rel0" = "$rel1" ] && ok \
    || fail "by-line-stage2: consumer_wait stage 0 $wait0, stage 1 $wait1; release $rel0, $rel1; $out"
# One stage: every pipeline call works on stage 0 only.
check by-line-stage1 0 "$smpipe" run -q "$src/traces/with_staging_unified.trace" --set threads=32 --set batches=3 \
    --set stages=1 --by line --csv "$tmp/b1.csv"
out=$(by_line_stages "$tmp/b1.csv")
n0=$(grep -v '^#' "$tmp/b1.csv" | awk -F, '$(NF - 16) == "0"' | wc -l)
nother=$(grep -v '^#' "$tmp/b1.csv" | awk -F, 'NR > 1 && $(NF - 16) != "" && $(NF - 16) != "0"' | wc -l)
[ -z "$out" ] && [ "$n0" -eq 5 ] && [ "$nother" -eq 0 ] && ok \
    || fail "by-line-stage1: $n0 stage-0 rows (5 pipeline lines), $nother others; $out"

# Races survive -q (on stderr) and fail the run with --fail-on-race.
race=$src/tests/programs/race_read_before_wait.trace
check race-quiet 0 "$smpipe" run -q "$race"
contains race-quiet "$tmp/err" "warning: read-after-write race: line 16"
check race-json-stdout 0 "$smpipe" run "$race" --json -
contains race-json-stdout "$tmp/err" "warning: read-after-write race"
check race-fail 1 "$smpipe" run "$race" --fail-on-race --json "$tmp/race.json"
contains race-fail "$tmp/race.json" '"race_warnings": 32'
check race-fail-clean 0 "$smpipe" run -q "$src/traces/with_staging.trace" --fail-on-race
[ ! -s "$tmp/err" ] && ok || fail "race-fail-clean: stderr not empty"

# check points at file:line:col with a caret.
printf 'smpipe 1\nblock 32\nvar a = (1 +\n' > "$tmp/broken.trace"
check check-broken 2 "$smpipe" check "$tmp/broken.trace"
contains check-broken "$tmp/err" "broken.trace:3:13:"
printf 'smpipe 1\nblock 32\nvar a = 1 +* 2\n' > "$tmp/broken2.trace"
check check-broken2 2 "$smpipe" check "$tmp/broken2.trace"
contains check-broken2 "$tmp/err" "broken2.trace:3:12:"
contains check-caret "$tmp/err" "^"
check check-ok 0 "$smpipe" check --verbose "$src/traces/with_specialized_staging_unified.trace"
contains check-ok "$tmp/out" "make_pipeline(block)"

# misuse exits 1
printf 'smpipe 1\nblock 32\nshared pipeline_shared_state<block, 2> st\nvar p = make_pipeline(block, st)\np.consumer_release()\n' > "$tmp/misuse.trace"
check misuse 1 "$smpipe" run "$tmp/misuse.trace"
contains misuse "$tmp/err" "misuse.trace:5:"

# arch
check arch-list 0 "$smpipe" arch list
contains arch-list "$tmp/out" "h200"
check arch-show 0 "$smpipe" arch show h100 --set dram.latency=700
contains arch-show "$tmp/out" "latency = 700"
"$smpipe" arch show a100 > "$tmp/a.ini" && check arch-reload 0 "$smpipe" run -q "$src/traces/with_staging.trace" --arch "$tmp/a.ini"

# engines agree
"$smpipe" run "$src/traces/with_staging_scope_thread.trace" --json "$tmp/e.json" >/dev/null
"$smpipe" run "$src/traces/with_staging_scope_thread.trace" --engine stepped --json "$tmp/s2.json" >/dev/null
sed 's/"stepped"/"event"/' "$tmp/s2.json" | cmp -s - "$tmp/e.json" && ok || fail "engines differ"

# cuda: a program and its reference; OpenCL refused; -o required.
check cuda 0 "$smpipe" cuda "$src/traces/with_staging_unified.trace" --set stages=3 -o "$tmp/w.cu"
contains cuda "$tmp/w.cu" "cuda::make_pipeline(block, &shared_state)"
[ -s "$tmp/w.cu.ref" ] && ok || fail "cuda: no reference file"
# Without -o the program alone goes to stdout (no reference file).
(cd "$tmp" && "$smpipe" cuda "$src/traces/with_staging.trace" > stdout.cu 2> "$tmp/err") && ok || fail "cuda-stdout: $(cat "$tmp/err")"
contains cuda-stdout "$tmp/stdout.cu" "cuda::make_pipeline("
[ ! -e "$tmp/smpipe.cu.ref" ] && [ ! -e "$tmp/-.ref" ] && ok || fail "cuda-stdout: wrote a reference file"
check cuda-dash 0 "$smpipe" cuda "$src/traces/with_staging.trace" -o -
cmp -s "$tmp/out" "$tmp/stdout.cu" && ok || fail "cuda-dash: -o - differs from no -o"
check cuda-bad-name 2 "$smpipe" cuda "$src/traces/with_staging.trace" -o "$tmp/w.c"
printf 'smpipe 1\nblock 32\npipe int p[16]\n' > "$tmp/cl.trace"
check cuda-opencl 2 "$smpipe" cuda "$tmp/cl.trace" -o "$tmp/cl.cu"
contains cuda-opencl "$tmp/err" "cl.trace:3:1: OpenCL pipes"
check cuda-deadlock 1 "$smpipe" cuda "$src/tests/programs/deadlock_full_pipeline.trace" -o "$tmp/d.cu"

# validate: no GPU here (forced), the two halves with a fake result, bad lists.
check validate-no-gpu 2 env SMPIPE_NVIDIA_SMI=/nonexistent "$smpipe" validate "$src/traces/with_staging_unified.trace"
contains validate-no-gpu "$tmp/err" "no NVIDIA GPU"
check validate-bad-list 2 "$smpipe" validate "$src/traces/with_staging_unified.trace" --vary stages=4..1 --emit "$tmp/v"
contains validate-bad-list "$tmp/err" "--vary stages=4..1"
check validate-emit 0 "$smpipe" validate "$src/traces/with_staging_unified.trace" --vary stages=1,2 --set batches=4 --emit "$tmp/v"
contains validate-emit "$tmp/v/manifest.json" '"stages=2"'
cp "$src/tests/validate/results.json" "$tmp/v/results.json"
check validate-results 0 "$smpipe" validate "$src/traces/with_staging_unified.trace" --results "$tmp/v" --output "$tmp/vo"
contains validate-results "$tmp/out" "mean absolute percentage error"
contains validate-results "$tmp/vo/validation.csv" "measured_cycles,measured_min,measured_max,kernel_ms,simulated_cycles,error_pct,check"
contains validate-results "$tmp/vo/validation.csv" ",5000,4900,5100,"
check validate-results-refit 0 "$smpipe" validate "$src/traces/with_staging_unified.trace" --results "$tmp/v" -o "$tmp/vo2" --set cp_async.call_cycles=300
cmp -s "$tmp/vo/validation.csv" "$tmp/vo2/validation.csv" && fail "validate: --set did not change the simulation" || ok
# --out is the old name of --output, kept for scripts.
check validate-out-alias 0 "$smpipe" validate "$src/traces/with_staging_unified.trace" --results "$tmp/v" --out "$tmp/vo3"
cmp -s "$tmp/vo/validation.csv" "$tmp/vo3/validation.csv" && ok || fail "validate --out differs from --output"
check validate-missing 2 "$smpipe" validate "$src/traces/with_staging_unified.trace" --results "$tmp/nothing"
# The folder says what it measured: another trace, or a trace parameter
# changed with --set, is refused; an architecture key is not (above).
contains validate-emit "$tmp/v/manifest.json" "\"trace_sha256\": \"$(sha256sum "$src/traces/with_staging_unified.trace" | cut -c1-64)\""
check validate-other-trace 2 "$smpipe" validate "$src/traces/with_staging.trace" --results "$tmp/v" -o "$tmp/vo4"
contains validate-other-trace "$tmp/err" "v: measured from another trace ($src/traces/with_staging_unified.trace, sha256 "
check validate-other-param 2 "$smpipe" validate "$src/traces/with_staging_unified.trace" --results "$tmp/v" -o "$tmp/vo4" --set batches=8
contains validate-other-param "$tmp/err" "measured with batches=4, simulated with batches=8"
[ ! -e "$tmp/vo4" ] && ok || fail "validate: a refused folder wrote $tmp/vo4"

# calibrate: from a (fake) results file; the file loads and runs.
check calibrate 0 "$smpipe" calibrate --arch h100 --from-results "$src/tests/calib/fake_results.txt" -o "$tmp/cal.ini"
contains calibrate "$tmp/cal.ini" "# source: [CAL] measured 2030-01-02 by smpipe calibrate: l2.latency = 300.4"
check calibrate-loads 0 "$smpipe" run -q "$src/traces/with_staging.trace" --arch "$tmp/cal.ini"
check calibrate-no-arch 2 "$smpipe" calibrate -o "$tmp/x.ini" --from-results "$src/tests/calib/fake_results.txt"
check calibrate-bad-results 2 "$smpipe" calibrate --arch h100 --from-results "$src/README.md" -o "$tmp/x.ini"
contains calibrate-bad-results "$tmp/err" "no RESULT lines"
check calibrate-no-gpu 2 env SMPIPE_NVIDIA_SMI=/nonexistent "$smpipe" calibrate --arch h100 -o "$tmp/x.ini"
contains calibrate-no-gpu "$tmp/err" "no NVIDIA GPU"
[ ! -e "$tmp/x.ini" ] && ok || fail "calibrate wrote a file on failure"

# Options mean the same in every verb: help VERB, version, -o/--output,
# one meaning per letter, - for standard input.
check help-verb 0 "$smpipe" help sweep
contains help-verb "$tmp/out" "smpipe sweep [OPTION"
contains help-verb "$tmp/out" "--vary"
check version-verb 0 "$smpipe" version
contains version-verb "$tmp/out" "smpipe "
"$smpipe" --version > "$tmp/v1"
cmp -s "$tmp/out" "$tmp/v1" && ok || fail "version differs from --version"
check calibrate-help 0 "$smpipe" help calibrate
contains calibrate-help "$tmp/out" "--arch NAME|FILE -o FILE.ini"
# One meaning per letter: -j is --jobs, -v --vary, -o --output, -a --arch,
# -s --set wherever a verb has them; verbs without them refuse the letter.
for verb in run check sweep merge plot cuda validate calibrate arch; do
    "$smpipe" $verb --help > "$tmp/h.$verb"
done
cat "$tmp"/h.* | grep -oE '^  -[a-zA-Z], --[a-z-]+' | sort -u | awk '{ print $1 }' | uniq -d > "$tmp/dup"
[ ! -s "$tmp/dup" ] && ok || fail "letters with two meanings: $(cat "$tmp/dup")"
grep -q -- '-o, --output' "$tmp/h.run" && grep -q -- '-o, --output' "$tmp/h.sweep" && grep -q -- '-o, --output' "$tmp/h.validate" \
    && ok || fail "-o/--output missing from run, sweep or validate"
# --arch and --set have one parser (cli_common.c): the same words in every
# verb that takes them.
for args in run check "sweep --vary stages=1..2" sensitivity cuda "plot -o $tmp/x.png"; do
    verb=${args%% *}
    check "set-$verb" 2 "$smpipe" $args "$src/traces/with_staging.trace" -s nope
    contains "set-$verb" "$tmp/err" "smpipe $verb: --set nope: expected NAME=VALUE"
    check "arch-$verb" 2 "$smpipe" $args "$src/traces/with_staging.trace" -a nosuch
    contains "arch-$verb" "$tmp/err" "smpipe $verb: --arch nosuch: no such architecture (bundled: a100, h100, h200"
done
check check-no-v 2 "$smpipe" check -v "$src/traces/with_staging.trace"
check run-no-j 2 "$smpipe" run -j - "$src/traces/with_staging.trace"
# - reads the trace from standard input; messages name <stdin>.
"$smpipe" run "$src/traces/with_staging.trace" --json "$tmp/f.json" > /dev/null
check stdin-run 0 sh -c "\"\$0\" run - --json '$tmp/i.json' < '$src/traces/with_staging.trace'" "$smpipe"
sed 's|"trace": "[^"]*"|"trace": ""|' "$tmp/f.json" > "$tmp/f2.json"
sed 's|"trace": "[^"]*"|"trace": ""|' "$tmp/i.json" > "$tmp/i2.json"
cmp -s "$tmp/f2.json" "$tmp/i2.json" && ok || fail "stdin-run: statistics differ from the file's"
contains stdin-run "$tmp/i.json" '"trace": "<stdin>"'
check stdin-error 2 sh -c 'printf "smpipe 1\nblock 32\nvar a = (1 +\n" | "$0" check -' "$smpipe"
contains stdin-error "$tmp/err" "<stdin>:3:13:"
# -o writes the report to a file and nothing to stdout.
check run-output 0 "$smpipe" run "$src/traces/with_staging.trace" -o "$tmp/report.txt"
[ ! -s "$tmp/out" ] && ok || fail "run-output: stdout not empty"
contains run-output "$tmp/report.txt" "cycles"
check sweep-output 0 "$smpipe" sweep "$src/traces/with_staging_unified.trace" --vary stages=1..3 -o "$tmp/sw.txt" \
    --csv "$tmp/sw.csv"
[ ! -s "$tmp/out" ] && ok || fail "sweep-output: stdout not empty"
contains sweep-output "$tmp/sw.txt" "recommended stages: "
# Outputs are checked before anything runs: no report, no file left.
check output-unwritable 2 "$smpipe" run "$src/traces/with_staging.trace" --csv "$tmp/s9.csv" --json "$tmp/nodir/x.json"
[ ! -s "$tmp/out" ] && [ ! -e "$tmp/s9.csv" ] && ok || fail "output-unwritable: ran before checking its outputs"
check output-is-dir 2 "$smpipe" run "$src/traces/with_staging.trace" --json "$tmp"
check output-same 2 "$smpipe" run "$src/traces/with_staging.trace" --json "$tmp/same" --csv "$tmp/./same"
[ ! -s "$tmp/out" ] && ok || fail "output-same: ran before refusing"
check output-stdout-twice 2 "$smpipe" sweep "$src/traces/with_staging_unified.trace" --vary stages=1..2 --csv - -o -
check output-sweep-dir 2 "$smpipe" sweep "$src/traces/with_staging_unified.trace" --vary stages=1..2 --csv "$tmp/nodir/s.csv"
[ ! -s "$tmp/out" ] && ok || fail "output-sweep-dir: ran before checking its outputs"
check output-merge 2 "$smpipe" merge "$tmp/sw.csv" -o "$tmp/nodir/m.csv"
check output-plot-same 2 "$smpipe" plot "$src/traces/with_staging.trace" -o "$tmp/p.png" --timeline "$tmp/p.png"

finish cli
