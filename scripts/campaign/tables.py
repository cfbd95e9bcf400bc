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
           "--output", out] + extra
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


POINT_FIELDS = ["gpu", "part", "regime", "kernel", "threads", "mode", "folder", "point", "params", "measured",
                "simulated", "error_pct"]


def point_rows(results):
    """One dict per compared point, in folder then point order."""
    out = []
    for f, rows in results:
        for r in rows:
            params = ";".join("%s=%s" % (k, v) for k, v in r.items() if k not in NOT_PARAMS or k == "stages")
            out.append(dict(gpu=f["gpu"], part=f["part"], regime=f["regime"], kernel=f["kernel"],
                            threads=str(f["threads"]), mode=f["mode"],
                            folder=os.path.relpath(f["dir"], CAMPAIGN), point=r["point"], params=params,
                            measured=r["measured_cycles"], simulated=r["simulated_cycles"], error_pct=r["error_pct"]))
    return out


def groups_of(points):
    """(folder key, params dicts with measured/simulated) per folder, for the stage picks."""
    by = defaultdict(list)
    for p in points:
        row = dict(kv.split("=", 1) for kv in p["params"].split(";") if kv)
        row["measured_cycles"] = p["measured"]
        row["simulated_cycles"] = p["simulated"]
        by[p["folder"]].append(row)
    return by


ENGINE_GAP = 5.0       # a configuration counts when the GPU shows this much difference


def engine_choice(points):
    """{(gpu, part): (right, total)}: gemm_tiles (cp.async, one thread per
    16 bytes) against gemm_tiles_bulk (one thread issuing bulk copies) in the
    same regime, block size, mode and parameters: where the measured faster
    engine is at least ENGINE_GAP percent faster, does smpipe name it?"""
    by = {}
    for p in points:
        if p["kernel"] in ("gemm_tiles", "gemm_tiles_bulk"):
            key = (p["gpu"], p["part"], p["regime"], p["threads"], p["mode"], p["params"])
            by.setdefault(key, {})[p["kernel"]] = (float(p["measured"]), float(p["simulated"]))
    out = defaultdict(lambda: [0, 0])
    for key, e in by.items():
        if len(e) < 2:
            continue
        (mc, sc), (mb, sb) = e["gemm_tiles"], e["gemm_tiles_bulk"]
        if abs(mc - mb) < ENGINE_GAP / 100 * min(mc, mb):
            continue
        out[key[:2]][1] += 1
        out[key[:2]][0] += (mc < mb) == (sc < sb)
    return out


def render(points):
    out = io.StringIO()
    picks = {folder: stage_picks(rows) for folder, rows in groups_of(points).items()}
    for gpu in sorted({p["gpu"] for p in points}):
        for prt in ("train", "test"):
            sel = [p for p in points if p["gpu"] == gpu and p["part"] == prt]
            if not sel:
                continue
            title = "training part (fitted against)" if prt == "train" else "held-out part (never fitted)"
            out.write("\n### %s, %s: %d points\n\n" % (gpu.upper(), title, len(sel)))
            out.write("| regime | threads | mode | points | MAPE | signed mean | stage pick within 5% |\n")
            out.write("| --- | --- | --- | --- | --- | --- | --- |\n")
            keys = sorted({(p["regime"], int(p["threads"]), p["mode"]) for p in sel},
                          key=lambda k: (REGIMES.index(k[0]), k[1], k[2]))
            for key in keys:
                s = [p for p in sel if (p["regime"], int(p["threads"]), p["mode"]) == key]
                good = total = 0
                for folder in sorted({p["folder"] for p in s}):
                    g, t = picks[folder]
                    good += g
                    total += t
                errs = [float(p["error_pct"]) for p in s]
                out.write("| %s | %d | %s | %d | %.1f%% | %+.1f%% | %s |\n" % (
                    key[0], key[1], key[2], len(s), mape(errs), smean(errs),
                    "%d / %d" % (good, total) if total else "n/a"))
            out.write("\n| kernel | points | MAPE | signed mean |\n| --- | --- | --- | --- |\n")
            for k in KERNELS:
                errs = [float(p["error_pct"]) for p in sel if p["kernel"] == k]
                if errs:
                    out.write("| %s | %d | %.1f%% | %+.1f%% |\n" % (k, len(errs), mape(errs), smean(errs)))
            errs = [float(p["error_pct"]) for p in sel]
            good = sum(picks[f][0] for f in {p["folder"] for p in sel})
            total = sum(picks[f][1] for f in {p["folder"] for p in sel})
            out.write("| **all** | %d | **%.1f%%** | **%+.1f%%** |\n" % (len(errs), mape(errs), smean(errs)))
            if total:
                out.write("\nStage pick within 5%% of the measured best: %d of %d groups (%.0f%%).\n"
                          % (good, total, 100.0 * good / total))
    engines = engine_choice(points)
    if engines:
        out.write("\n### The faster copy engine (gemm_tiles: cp.async, gemm_tiles_bulk: bulk copies)\n\n")
        out.write("| GPU | part | configurations the GPU separates by 5% or more | smpipe names the faster |\n")
        out.write("| --- | --- | --- | --- |\n")
        for (gpu, prt), (right, total) in sorted(engines.items()):
            out.write("| %s | %s | %d | %d (%.0f%%) |\n" % (gpu.upper(), "training" if prt == "train" else "held out",
                                                          total, right, 100.0 * right / total))
    return out.getvalue()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smpipe", default=os.path.join(ROOT, "build", "smpipe"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", choices=["train", "test"])
    ap.add_argument("--gpu", action="append")
    ap.add_argument("--csv", help="write every compared point here")
    ap.add_argument("--from-csv", help="tables from a points CSV (no simulation)")
    ap.add_argument("--check", type=int, metavar="N",
                    help="with --from-csv: re-simulate every Nth folder and require its simulated cycles unchanged")
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    if a.from_csv:
        with open(a.from_csv) as fh:
            points = list(csv.DictReader(fh))
        if a.check:
            return check(points, a)
        sys.stdout.write(render(points))
        return 0
    gpus = a.gpu or sorted(d for d in os.listdir(CAMPAIGN) if os.path.isdir(os.path.join(CAMPAIGN, d))
                           and d not in ("raw", "microbench"))
    todo = []
    for f in folders(gpus):
        gpu_name = "NVIDIA H100" if f["gpu"] == "h100" else f["gpu"].upper()
        f["part"] = part(gpu_name, f["regime"], f["threads"], f["mode"], f["kernel"])
        if a.only is None or f["part"] == a.only:
            todo.append(f)
    with tempfile.TemporaryDirectory() as scratch, ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda f: simulate(f, a.smpipe, a.extra, scratch), todo))
    points = point_rows(results)
    if a.csv:
        with open(a.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, POINT_FIELDS, lineterminator="\n")
            w.writeheader()
            w.writerows(points)
    sys.stdout.write(render(points))
    return 0


def check(points, a):
    """Re-simulates every Nth folder of a points CSV: a model change that
    moves the documented figures fails here until they are regenerated."""
    folders_in = sorted({p["folder"] for p in points})
    picked = folders_in[::a.check]
    bad = 0
    with tempfile.TemporaryDirectory() as scratch:
        for folder in picked:
            gpu, regime, name = folder.split("/")
            kernel, rest = name.rsplit("_t", 1)
            f = dict(gpu=gpu, regime=regime, kernel=kernel, dir=os.path.join(CAMPAIGN, folder))
            _, rows = simulate(f, a.smpipe, a.extra, scratch)
            now = {r["point"]: r["simulated_cycles"] for r in rows}
            for p in points:
                if p["folder"] == folder and now.get(p["point"]) != p["simulated"]:
                    print("%s point %s: simulated %s now, %s in the committed table" % (
                        folder, p["point"], now.get(p["point"]), p["simulated"]))
                    bad += 1
    print("re-simulated %d of %d folders: %s" % (len(picked), len(folders_in),
                                                   "%d points differ" % bad if bad else "unchanged"))
    if bad:
        print("the model moved the documented figures: regenerate them (docs/validation.md says how)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
