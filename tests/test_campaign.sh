#!/bin/sh
# test_campaign.sh: the validation figures of docs/validation.md are the
# model's.  Every 40th folder of the committed campaign is re-simulated
# (scripts/campaign/tables.py --check) and must give the simulated cycles of
# docs/validation/campaign/points.csv; the tables that CSV gives must be the
# ones in docs/validation.md, and so must the whole-launch table
# (scripts/campaign/launch.py) and the replayed microbenchmarks
# (scripts/calib/replay.py).  A model change that moves them fails here
# until they are regenerated (the commands are in docs/validation.md).
# Usage: test_campaign.sh SMPIPE SRCDIR
set -u
smpipe=$1
src=$2
csv=$src/docs/validation/campaign/points.csv
[ -f "$csv" ] || { echo "FAIL: no $csv"; exit 1; }
tables=$(mktemp)
trap 'rm -f "$tables"' EXIT
python3 "$src/scripts/campaign/tables.py" --smpipe "$smpipe" --from-csv "$csv" --check 40 || exit 1
python3 "$src/scripts/campaign/tables.py" --from-csv "$csv" > "$tables" || exit 1
python3 "$src/scripts/campaign/launch.py" --csv "$csv" >> "$tables" || exit 1
python3 "$src/scripts/calib/replay.py" --smpipe "$smpipe" >> "$tables" || exit 1
python3 "$src/scripts/calib/replay.py" --smpipe "$smpipe" --gpu h200 >> "$tables" || exit 1
missing=$(grep -v '^$' "$tables" | grep -F -x -v -f "$src/docs/validation.md")
if [ -n "$missing" ]; then
    echo "FAIL: docs/validation.md lacks these lines of the tables from points.csv:"
    echo "$missing"
    exit 1
fi
echo "ok: docs/validation.md has the tables of points.csv"
