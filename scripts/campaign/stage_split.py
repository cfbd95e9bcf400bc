#!/usr/bin/env python3
"""The signed error of the campaign's gemm_tiles kernels one block alone, at
one stage against two and more, by part, GPU, kernel, block size and compute
per word: where the model's stage-1 and pipelined batches part ways
(docs/validation.md, "Stage 1 against the rest").

    python3 scripts/campaign/stage_split.py [--csv docs/validation/campaign/points.csv]
"""
import argparse
import csv
import os
from collections import defaultdict

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default=os.path.join(ROOT, "docs", "validation", "campaign", "points.csv"))
    a = ap.parse_args()
    split = defaultdict(lambda: ([], []))
    with open(a.csv) as fh:
        for r in csv.DictReader(fh):
            if not r["kernel"].startswith("gemm_tiles") or r["regime"] != "alone":
                continue
            p = dict(kv.split("=", 1) for kv in r["params"].split(";"))
            key = (r["part"], r["gpu"], r["kernel"], int(r["threads"]), int(p["compute_iters"]))
            split[key][0 if p["stages"] == "1" else 1].append(float(r["error_pct"]))
    print("| part | GPU | kernel | threads | IMADs a word | stage 1: points, signed | stages 2+: points, signed |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key in sorted(split):
        one, rest = split[key]
        print("| %s | %s | %s | %d | %d | %d, %+.1f%% | %d, %+.1f%% |" % (
            key + (len(one), sum(one) / len(one), len(rest), sum(rest) / len(rest))))


if __name__ == "__main__":
    main()
