#!/bin/sh
# Unpacks a device run's NAME.tgz (scripts/campaign/device-run.sh) into the
# committed campaign folder: for every results.json, the folder gets the
# emitted manifest.json beside it (from the emission folder CAMPAIGN_DIR),
# so `smpipe validate TRACE --results FOLDER` can re-simulate it.  A
# whole-GPU point's per-block list (hundreds of blocks) is left in the raw
# archive (docs/validation/campaign/raw/): the folder keeps its count.
# Usage: sh scripts/campaign/collect.sh NAME.tgz CAMPAIGN_DIR DEST
set -eu
tgz=$1; src=$2; dest=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar xzf "$tgz" -C "$tmp"
mkdir -p "$dest"
cp "$tmp"/env_*.txt "$dest/"
find "$tmp" -name results.json | sort | while read -r r; do
    rel=${r#"$tmp"/}
    rel=${rel#"$src"/}
    d=$dest/$(dirname "$rel")
    mkdir -p "$d"
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for p in d.get("points", []):
    if len(p.get("per_block", [])) > 8:
        p["per_block_summary"] = {"blocks": len(p.pop("per_block"))}
json.dump(d, open(sys.argv[2], "w"), indent=1)
' "$r" "$d/results.json"
    cp "$src/$(dirname "$rel")/manifest.json" "$d/manifest.json"
    if [ -s "$(dirname "$r")/results.err" ]; then
        cp "$(dirname "$r")/results.err" "$d/results.err"
    fi
done
echo "collected $(find "$dest" -name results.json | wc -l) results into $dest"
