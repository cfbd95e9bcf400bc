#!/usr/bin/env python3
"""Re-simulates the committed campaign (docs/validation/campaign/) and prints
the validation tables of docs/validation.md: per part (training / held out),
regime and kernel, the mean absolute percentage error, the signed mean error
and the stage-pick agreement.

    python3 scripts/campaign/tables.py [--smpipe build/smpipe] [--jobs 2]
        [--only train|test] [--gpu h100] [--csv all.csv] [-- EXTRA validate ARGS]

Everything after `--` goes to every `smpipe validate --results` call (for
example `--set barrier.mbarrier_arrive=20` to try a value without editing
the architecture file).  The split is scripts/campaign/split.py's.
"""
import argparse
import csv
import io
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from split import part  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CAMPAIGN = os.path.join(ROOT, "docs", "validation", "campaign")
KERNELS = ["with_staging", "with_staging_unified", "with_specialized_staging_unified",
           "with_staging_scope_thread", "gemm_tiles", "gemm_tiles_bulk", "cutlass_multistage", "flash_attention"]
REGIMES = ["alone", "gpu1", "occ2", "occ4"]
PICK_TOLERANCE = 2.0   # smpipe's recommendation: fewest stages within 2% of its best
# validation.csv columns that are not a trace parameter: the rest (but
# stages) name a group of points whose stage counts are compared.
NOT_PARAMS = {"point", "trace", "arch", "mode", "gpu", "stages", "measured_cycles", "measured_min", "measured_max",
              "kernel_ms", "simulated_cycles", "error_pct", "check"}
PICK_GOOD = 5.0        # the pick is right when measured within 5% of the measured best


def folders(gpus):
    for gpu in gpus:
        for regime in REGIMES:
            base = os.path.join(CAMPAIGN, gpu, regime)
            if not os.path.isdir(base):
                continue
            for name in sorted(os.listdir(base)):
                d = os.path.join(base, name)
                if not os.path.isfile(os.path.join(d, "results.json")):
                    continue
                kernel, rest = name.rsplit("_t", 1)
                threads, mode = rest.split("_")
                yield dict(gpu=gpu, regime=regime, kernel=kernel, threads=int(threads), mode=mode, dir=d)


def simulate(f, smpipe, extra, scratch):
    out = os.path.join(scratch, f["gpu"], f["regime"], os.path.basename(f["dir"]))
    os.makedirs(out, exist_ok=True)
    cmd = [smpipe, "validate", os.path.join(ROOT, "traces", f["kernel"] + ".trace"), "--results", f["dir"],
           "--out", out] + extra
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("tables.py: %s failed:\n%s" % (" ".join(cmd), r.stderr))
    rows = []
    with open(os.path.join(out, "validation.csv")) as fh:
        for row in csv.DictReader(fh):
            if row["check"] not in ("ok", "not-checked") or not row["measured_cycles"]:
                continue
            rows.append(row)
    return f, rows


def mape(errs):
    return sum(abs(e) for e in errs) / len(errs) if errs else float("nan")


def smean(errs):
    return sum(errs) / len(errs) if errs else float("nan")


def stage_picks(rows):
    """(good, groups): groups of points that differ only in stages."""
    groups = defaultdict(list)
    for r in rows:
        if "stages" not in r:
            return 0, 0
        key = tuple((k, v) for k, v in sorted(r.items()) if k not in NOT_PARAMS)
        groups[key].append((int(r["stages"]), float(r["measured_cycles"]), float(r["simulated_cycles"])))
    good = total = 0
    for pts in groups.values():
        if len({p[0] for p in pts}) < 2:
            continue
        total += 1
        sim_best = min(p[2] for p in pts)
        pick = min((p for p in pts if p[2] <= sim_best * (1 + PICK_TOLERANCE / 100)), key=lambda p: p[0])
        meas_best = min(p[1] for p in pts)
        good += pick[1] <= meas_best * (1 + PICK_GOOD / 100)
    return good, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smpipe", default=os.path.join(ROOT, "build", "smpipe"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", choices=["train", "test"])
    ap.add_argument("--gpu", action="append")
    ap.add_argument("--csv")
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    gpus = a.gpu or sorted(d for d in os.listdir(CAMPAIGN) if os.path.isdir(os.path.join(CAMPAIGN, d)) and d != "raw")
    todo = []
    for f in folders(gpus):
        gpu_name = "NVIDIA H100" if f["gpu"] == "h100" else f["gpu"].upper()
        f["part"] = part(gpu_name, f["regime"], f["threads"], f["mode"], f["kernel"])
        if a.only is None or f["part"] == a.only:
            todo.append(f)
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda f: simulate(f, a.smpipe, a.extra, scratch), todo))

    points = []
    for f, rows in results:
        for r in rows:
            points.append(dict(f, err=float(r["error_pct"]), measured=float(r["measured_cycles"]),
                               simulated=float(r["simulated_cycles"]), row=r))
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["gpu", "part", "regime", "kernel", "threads", "mode", "label", "measured", "simulated", "error_pct"])
            for p in points:
                label = " ".join("%s=%s" % (k, v) for k, v in p["row"].items()
                                 if k not in NOT_PARAMS - {"stages"} and k not in ("batches", "threads"))
                w.writerow([p["gpu"], p["part"], p["regime"], p["kernel"], p["threads"], p["mode"], label,
                            "%.0f" % p["measured"], "%.0f" % p["simulated"], "%.2f" % p["err"]])

    out = io.StringIO()
    for gpu in gpus:
        for prt in ("train", "test"):
            sel = [p for p in points if p["gpu"] == gpu and p["part"] == prt]
            if not sel:
                continue
            title = "training part (fitted against)" if prt == "train" else "held-out part (never fitted)"
            out.write("\n### %s, %s: %d points\n\n" % (gpu.upper(), title, len(sel)))
            out.write("| regime | threads | mode | points | MAPE | signed mean | stage pick within 5% |\n")
            out.write("| --- | --- | --- | --- | --- | --- | --- |\n")
            keys = sorted({(p["regime"], p["threads"], p["mode"]) for p in sel},
                          key=lambda k: (REGIMES.index(k[0]), k[1], k[2]))
            for key in keys:
                s = [p for p in sel if (p["regime"], p["threads"], p["mode"]) == key]
                good = total = 0
                for f, rows in results:
                    if f["gpu"] == gpu and f["part"] == prt and (f["regime"], f["threads"], f["mode"]) == key:
                        g, t = stage_picks(rows)
                        good += g
                        total += t
                errs = [p["err"] for p in s]
                out.write("| %s | %d | %s | %d | %.1f%% | %+.1f%% | %s |\n" % (
                    key[0], key[1], key[2], len(s), mape(errs), smean(errs),
                    "%d / %d" % (good, total) if total else "n/a"))
            out.write("\n| kernel | points | MAPE | signed mean |\n| --- | --- | --- | --- |\n")
            for k in KERNELS:
                errs = [p["err"] for p in sel if p["kernel"] == k]
                if errs:
                    out.write("| %s | %d | %.1f%% | %+.1f%% |\n" % (k, len(errs), mape(errs), smean(errs)))
            errs = [p["err"] for p in sel]
            out.write("| **all** | %d | **%.1f%%** | **%+.1f%%** |\n" % (len(errs), mape(errs), smean(errs)))
    sys.stdout.write(out.getvalue())


if __name__ == "__main__":
    main()
