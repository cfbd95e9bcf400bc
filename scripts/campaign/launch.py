#!/usr/bin/env python3
"""The whole-launch estimate against the GPU's launch times (issue 16, point 5).

Every whole-GPU point of the campaign (regimes gpu1, occ2 and occ4: launch.grid
= 132 x sm.blocks, one full wave, no tail) has the launch's time measured with
CUDA events (`kernel_ms` in results.json, the median of the timed launches).
`smpipe run --set launch.grid=...` estimates that launch as waves of the
simulated SM's cycles plus launch.overhead_us; for one wave that is the
simulated cycles of the point, which points.csv holds, at the clock smpipe
runs the kernel at (arch.clock_mhz, times arch.mma_clock_ratio for a
trace with an hmma compute statement: models/sm.h, sm_arch_for_program),
plus the overhead.  This script compares the
two per GPU, part (points.csv's, scripts/campaign/split.py's split) and regime.

    python3 scripts/campaign/launch.py [--csv docs/validation/campaign/points.csv]
"""
import argparse
import configparser
import csv
import json
import os
import sys
from collections import defaultdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CAMPAIGN = os.path.join(ROOT, "docs", "validation", "campaign")


def arch_value(gpu, section, key):
    ini = configparser.ConfigParser(inline_comment_prefixes=("#",))
    ini.read(os.path.join(ROOT, "arch", gpu + ".ini"))
    return float(ini[section][key])


def clock_mhz(gpu, kernel):
    """The clock smpipe runs kernel's trace at on gpu (sm_arch_for_program)."""
    with open(os.path.join(ROOT, "traces", kernel + ".trace")) as fh:
        mma = "compute(hmma" in fh.read().replace(" ", "")
    ratio = arch_value(gpu, "arch", "mma_clock_ratio")
    return arch_value(gpu, "arch", "clock_mhz") * (ratio if mma and ratio > 0 else 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default=os.path.join(CAMPAIGN, "points.csv"))
    args = ap.parse_args()
    measured = {}
    errs = defaultdict(list)
    with open(args.csv) as fh:
        for row in csv.DictReader(fh):
            if row["regime"] == "alone":
                continue
            folder = os.path.join(CAMPAIGN, row["folder"])
            if folder not in measured:
                with open(os.path.join(folder, "results.json")) as r:
                    doc = json.load(r)
                measured[folder] = {p["index"]: p.get("kernel_ms") for p in doc["points"]}
            ms = measured[folder].get(int(row["point"]))
            if not ms or ms <= 0:
                continue
            gpu = row["gpu"]
            est_ms = (float(row["simulated"]) / clock_mhz(gpu, row["kernel"]) +
                      arch_value(gpu, "launch", "overhead_us")) / 1000.0
            key = (row["gpu"], row["part"], row["regime"])
            errs[key].append(100.0 * (est_ms - ms) / ms)
    print("| GPU | part | regime | launches | MAPE | signed mean | within 10% |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key in sorted(errs):
        e = errs[key]
        within = sum(1 for x in e if abs(x) <= 10.0)
        print("| %s | %s | %s | %d | %.1f%% | %+.1f%% | %d / %d |" % (
            key[0].upper(), "training" if key[1] == "train" else "held out", key[2], len(e),
            sum(abs(x) for x in e) / len(e), sum(e) / len(e), within, len(e)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
