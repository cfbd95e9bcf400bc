#!/usr/bin/env python3
"""Regenerates docs/validation/all.csv and prints the Markdown tables of
docs/validation.md's Results section from the per-run folders, after they
were re-simulated with `smpipe validate TRACE --results DIR`:

    for d in docs/validation/*/; do
        build/smpipe validate "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['trace'])" \\
            "$d/manifest.json")" --results "$d"
    done
    python3 scripts/validation_tables.py > /tmp/tables.md
"""
import csv
import glob
import os
import re
import sys

ROOT = "docs/validation"
KERNELS = ["with_staging", "with_staging_unified", "with_specialized_staging_unified",
           "with_staging_scope_thread", "gemm_tiles", "gemm_tiles_bulk"]
COLUMNS = ["t128_cold", "t128_warm", "t256_cold", "t256_warm"]


def runs():
    out = {}
    for d in sorted(glob.glob(f"{ROOT}/*/validation.csv")):
        name = os.path.basename(os.path.dirname(d))
        with open(d) as f:
            out[name] = list(csv.DictReader(f))
    return out


def write_all(data):
    params = ["batches", "compute_iters", "elem_bytes", "stages", "threads", "tile_bytes", "neighbour"]
    names = (["run", "point", "trace", "arch", "mode", "gpu"] + params +
             ["measured_cycles", "measured_min", "measured_max", "kernel_ms", "simulated_cycles", "error_pct", "check"])
    with open(f"{ROOT}/all.csv", "w", newline="") as f:
        w = csv.DictWriter(f, names, restval="", lineterminator="\n")
        w.writeheader()
        for run, rows in sorted(data.items()):
            for r in rows:
                w.writerow(dict(r, run=run))


def mape(rows):
    e = [abs(float(r["error_pct"])) for r in rows if r["check"] == "ok"]
    return sum(e) / len(e)


def stage_picks(run):
    text = open(f"{ROOT}/{run}/summary.txt").read()
    m = re.search(r"exactly in (\d+) of (\d+) groups, within 2% of the fastest in (\d+) of", text)
    return (int(m.group(1)), int(m.group(3)), int(m.group(2))) if m else None


def results_table(data):
    print("| kernel | t128 cold | t128 warm | t256 cold | t256 warm "
          "| fastest stages right (exact / within 2%), t128 cold | same, all four |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k in KERNELS:
        cells = [f"{mape(data[f'{k}_{c}']):.1f}%" for c in COLUMNS]
        picks = [stage_picks(f"{k}_{c}") for c in COLUMNS]
        if k == "with_staging" or None in picks:
            first, total = "n/a", "n/a (stages ignored)"
        else:
            first = f"{picks[0][0]} / {picks[0][1]} of {picks[0][2]}"
            total = (f"{sum(p[0] for p in picks)} / {sum(p[1] for p in picks)} "
                     f"of {sum(p[2] for p in picks)}")
        print(f"| {k} | {' | '.join(cells)} | {first} | {total} |")


def kernel_tables(data):
    for k in KERNELS:
        rows = data[f"{k}_t128_cold"]
        print(f"\n#### {k} (threads 128, batches 32, cold)\n")
        if k == "with_staging":
            print("| elem_bytes | compute_iters | measured | simulated | error |")
            print("| --- | --- | --- | --- | --- |")
            for r in rows:
                print(f"| {r['elem_bytes']} | {r['compute_iters']} | {r['measured_cycles']} "
                      f"| {r['simulated_cycles']} | {float(r['error_pct']):+.1f}% |")
            continue
        stages = sorted({int(r["stages"]) for r in rows})
        groups = {}
        for r in rows:
            groups.setdefault((int(r["elem_bytes"]), int(r["compute_iters"])), {})[int(r["stages"])] = r
        print("| elem_bytes, compute_iters | " + " | ".join(f"stages {s}" for s in stages) + " |")
        print("| --- | " + " | ".join("---" for _ in stages) + " |")
        for (eb, ci), g in sorted(groups.items()):
            best_m = min(g, key=lambda s: int(g[s]["measured_cycles"]))
            best_s = min(g, key=lambda s: int(g[s]["simulated_cycles"]))
            cells = []
            for s in stages:
                m, sim = g[s]["measured_cycles"], g[s]["simulated_cycles"]
                cells.append(f"{'**' + m + '**' if s == best_m else m} / {'*' + sim + '*' if s == best_s else sim}")
            print(f"| {eb}, {ci} | " + " | ".join(cells) + " |")


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return b, my - b * mx


def batch_table(data):
    print("\n| kernel | stages | per batch, measured | per batch, simulated | fixed, measured | fixed, simulated |")
    print("| --- | --- | --- | --- | --- | --- |")
    for k in KERNELS:
        rows = data.get(f"{k}_batches_cold")
        if not rows:
            continue
        for s in sorted({r["stages"] for r in rows}, key=int):
            pts = [r for r in rows if r["stages"] == s]
            xs = [int(r["batches"]) for r in pts]
            bm, am = fit(xs, [int(r["measured_cycles"]) for r in pts])
            bs, as_ = fit(xs, [int(r["simulated_cycles"]) for r in pts])
            print(f"| {k} | {s} | {bm:.0f} | {bs:.0f} | {am:.0f} | {as_:.0f} |")


def main():
    data = runs()
    if not data:
        sys.exit(f"no {ROOT}/*/validation.csv: run from the repository root")
    write_all(data)
    results_table(data)
    kernel_tables(data)
    batch_table(data)


if __name__ == "__main__":
    main()
