#!/usr/bin/env python3
"""Re-simulate the H100 validation points (docs/validation/all.csv) and
report the error per run; optionally search architecture keys for a lower
mean error.  A developer's tool, not part of the build:

    python3 scripts/fit_arch.py                       # MAPE per run, current h100.ini
    python3 scripts/fit_arch.py --set barrier.mbarrier_wake=250
    python3 scripts/fit_arch.py --fit barrier.mbarrier_wake=150,200,250 --fit cp_async.wait_cycles=40,78,120

--fit does coordinate descent: each key in turn takes the listed value
that minimises the mean of the per-run MAPEs (every run weighs the same,
whatever its point count), for --rounds rounds.  --every N simulates
every Nth point of each run (faster, for the search).
"""
import argparse
import csv
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

PARAMS = ["batches", "compute_iters", "elem_bytes", "stages", "threads", "tile_bytes", "neighbour"]


def load(path, every):
    rows = []
    seen = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["check"] != "ok" or not r["measured_cycles"]:
                continue
            n = seen.get(r["run"], 0)
            seen[r["run"]] = n + 1
            if n % every == 0:
                rows.append(r)
    return rows


def simulate(smpipe, row, sets):
    cmd = [smpipe, "run", row["trace"], "-q", "--arch", row["arch"]]
    for p in PARAMS:
        if row.get(p):
            cmd += ["--set", f"{p}={row[p]}"]
    if row["mode"] == "warm":
        cmd += ["--set", "mem.source=l2"]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {out.stderr.strip()}")
    return int(out.stdout.split()[0])


def evaluate(smpipe, rows, sets, jobs):
    with ThreadPoolExecutor(jobs) as pool:
        sims = list(pool.map(lambda r: simulate(smpipe, r, sets), rows))
    per_run = {}
    for r, s in zip(rows, sims):
        m = float(r["measured_cycles"])
        per_run.setdefault(r["run"], []).append((s - m) / m * 100)
    # (MAPE, mean signed error: negative = simulated too fast)
    mape = {k: (sum(map(abs, v)) / len(v), sum(v) / len(v)) for k, v in per_run.items()}
    return sum(m for m, _ in mape.values()) / len(mape), mape


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default="docs/validation/all.csv")
    ap.add_argument("--smpipe", default="build/smpipe")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE for every point")
    ap.add_argument("--fit", action="append", default=[], help="KEY=V1,V2,... values to try")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()

    rows = load(a.csv, a.every)
    sets = dict(s.split("=", 1) for s in a.set)
    grid = [(k, v.split(",")) for k, v in (f.split("=", 1) for f in a.fit)]
    best, mape = evaluate(a.smpipe, rows, sets, a.jobs)
    print(f"start: mean MAPE {best:.1f}% over {len(mape)} runs, {len(rows)} points", flush=True)
    for rnd in range(a.rounds if grid else 0):
        changed = False
        for key, values in grid:
            for v in values:
                if sets.get(key) == v:
                    continue
                trial = dict(sets, **{key: v})
                score, m = evaluate(a.smpipe, rows, trial, a.jobs)
                print(f"  round {rnd + 1}: {key}={v}: {score:.2f}%", flush=True)
                if score < best - 1e-9:
                    best, mape, sets, changed = score, m, trial, True
        print(f"round {rnd + 1}: {best:.2f}% with {sets}", flush=True)
        if not changed:
            break
    for run in sorted(mape):
        print(f"{run:50s} MAPE {mape[run][0]:6.1f}%  bias {mape[run][1]:+6.1f}%")
    print(f"mean {best:.2f}%  settings: {' '.join(f'--set {k}={v}' for k, v in sets.items())}")


if __name__ == "__main__":
    main()
