#!/usr/bin/env python3
"""Replays calibration microbenchmarks as traces and compares smpipe with
the GPU: scripts/calib/replay/NAME.trace against
docs/validation/campaign/microbench/NAME_GPU.txt.  A microbenchmark the model
cannot replay points at a mechanism it lacks, independently of the campaign.

    python3 scripts/calib/replay.py [--smpipe build/smpipe] [--gpu h100] [-- --set KEY=VALUE ...]

Prints the markdown tables of docs/validation.md ("Microbenchmarks replayed").
contend.cu's pipe.batch: a block-scope pipeline's four calls without copies,
B blocks of T threads on every SM, cycles a batch (replay/pipe_batch.trace).
loaded.cu: one block of W warps on every SM (launch.grid = the GPU's SMs),
each warp keeping S groups of 512 bytes in flight; the rate in bytes read a
cycle an SM is measured over the whole loop (the trace's cycles include the
S copies that fill it, so the rate counts them too), the latency is
W x S x 512 / rate by Little's law.
spec.cu (H100): the guide's with_specialized_staging_unified alone on an SM,
512 batches, roles by lane (the guide) or by warp (replay/spec.trace).
tiles.cu: the campaign's gemm_tiles (cp.async) and gemm_tiles_bulk (bulk
copies) alone on an SM, 512 batches of 4-byte elements and 4 KiB tiles: the
traces themselves (traces/gemm_tiles*.trace), cycles a batch; and where a
warp's batch goes (warm, stages 1, 2 and 4): tiles.cu's timestamps split it
into issue (iteration start to the fetch loop's end), wait (to the wait's
return), consume (to the stores' end) and release (to the iteration's end),
the model's `--by line` accounting into the same lines' warp-cycles.
latdist.cu (H100): one block of 1-32 warps alone, each lane copying 16 bytes
with cp.async, waiting and meeting at a barrier (replay/latdist.trace).
stream.cu: cp.async streaming from DRAM, one block alone or B on every SM,
E bytes a thread a chunk through an S-stage ring (replay/stream.trace).
wback.cu: loaded.cu's stream with stores, N copies a warp, after an
L2 flush or launched back to back (replay/loaded.trace, mem.flushed).
burst.cu (H200): one block of 128 threads alone or on every SM copying a
burst of K x 2 KiB, waiting for it and spinning Z cycles (replay/burst.trace,
n IMADs where the GPU spins, n chosen on the block alone); `burst occ`, 1, 2
or 4 blocks on every SM (n from the IMAD's simulated cycles).
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MICRO = os.path.join(ROOT, "docs", "validation", "campaign", "microbench")
ITERS = 96       # loaded.cu's kIters
SMS = 132        # both GPUs


def measured(gpu, name="loaded"):
    out = {}
    with open(os.path.join(MICRO, "%s_%s.txt" % (name, gpu))) as fh:
        for line in fh:
            m = re.search(r"key=(\S+) value=(\S+)", line)
            if m:
                out[m.group(1)] = float(m.group(2))
    return out


def run_doc(smpipe, gpu, trace, sets, extra, more=()):
    """The JSON document of scripts/calib/replay/TRACE (a path from the
    repository root when it has a slash) run with --set SETS and the
    arguments MORE."""
    cmd = [smpipe, "run", os.path.join(ROOT, trace) if "/" in trace else os.path.join(ROOT, "scripts", "calib", "replay", trace), "-q", "--json", "-",
           "--no-race-check", "--arch", gpu] + list(more)
    for kv in sets:
        cmd += ["--set", kv]
    r = subprocess.run(cmd + extra, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("replay.py: %s failed:\n%s" % (" ".join(cmd + extra), r.stderr))
    return json.loads(r.stdout)


def mape(errs):
    """The summary of a table's errors (percent): "MAPE m%, signed s% over
    n cases."."""
    return "MAPE %.1f%%, signed %+.1f%% over %d cases." % (sum(abs(x) for x in errs) / len(errs),
                                                          sum(errs) / len(errs), len(errs))


def cycles(smpipe, gpu, trace, sets, extra):
    """The simulated cycles of run_doc's run."""
    return run_doc(smpipe, gpu, trace, sets, extra)["cycles"]


def pipe_batch(smpipe, gpu, extra):
    """The pipe.batch table; returns its errors."""
    meas = measured(gpu, "contend")
    print("| case | measured cycles a batch | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = []
    for b in (1, 2, 4):
        for t in (64, 128, 256, 512, 1024):
            key = "pipe.batch.B%d.T%d" % (b, t)
            if key not in meas:
                continue
            sim = cycles(smpipe, gpu, "pipe_batch.trace",
                         ["T=%d" % t, "sm.blocks=%d" % b, "launch.grid=%d" % (b * SMS)], extra) / 256.0
            err = 100.0 * (sim - meas[key]) / meas[key]
            errs.append(err)
            print("| `%s` | %.0f | %.0f | %+.1f%% |" % (key, meas[key], sim, err))
    print()
    return errs


def spec(smpipe, gpu, extra):
    """The spec.cu table (the guide's partitioned pipeline, roles by lane and
    by warp); returns its errors by roles, or None without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "spec_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "spec")
    print("| case | measured cycles a batch | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = {"lane": [], "warp": []}
    for roles in ("lane", "warp"):
        for s in (1, 2, 3, 4, 8):
            for t in (128, 512):
                for mode in ("cold", "warm"):
                    key = "spec.%s.S%d.E4.T%d.%s.batch" % (roles, s, t, mode)
                    if key not in meas:
                        continue
                    sets = ["by_warp=%d" % (roles == "warp"), "stages=%d" % s, "threads=%d" % t,
                            "mem.source=%s" % ("dram" if mode == "cold" else "l2")]
                    sim = cycles(smpipe, gpu, "spec.trace", sets, extra) / 512.0
                    err = 100.0 * (sim - meas[key]) / meas[key]
                    errs[roles].append(err)
                    print("| `%s` | %.0f | %.0f | %+.1f%% |" % (key, meas[key], sim, err))
    print()
    for roles, what in (("lane", "roles by lane (the guide)"), ("warp", "roles by warp")):
        print("%s spec, %s: %s" % (gpu.upper(), what, mape(errs[roles])))
    print()
    return errs


def tiles(smpipe, gpu, extra):
    """The tiles.cu table: cycles a batch by stage count for each copy
    engine, block size, compute and mode; the faster engine named at each
    point the GPU separates by 5% or more.  None without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "tiles_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "tiles")
    stages = (1, 2, 3, 4, 8)
    print("| engine | threads | IMADs | mode | " + " | ".join("S%d measured / simulated" % s for s in stages) + " |")
    print("| --- | --- | --- | --- | " + " | ".join("---" for _ in stages) + " |")
    errs, sims = {"cpa": [], "bulk": []}, {}
    for eng, trace in (("cpa", "traces/gemm_tiles.trace"), ("bulk", "traces/gemm_tiles_bulk.trace")):
        for t in (64, 128, 512):
            for c in (0, 16):
                for mode in ("cold", "warm"):
                    cells = []
                    for s in stages:
                        key = "tiles.%s.S%d.T%d.C%d.%s.batch" % (eng, s, t, c, mode)
                        sets = ["threads=%d" % t, "stages=%d" % s, "compute_iters=%d" % c, "elem_bytes=4",
                                "tile_bytes=4096", "batches=512", "mem.source=%s" % ("dram" if mode == "cold" else "l2")]
                        sim = cycles(smpipe, gpu, trace, sets, extra) / 512.0
                        sims[key] = sim
                        errs[eng].append(100.0 * (sim - meas[key]) / meas[key])
                        cells.append("%.0f / %.0f" % (meas[key], sim))
                    print("| %s | %d | %d | %s | %s |" % (eng, t, c, mode, " | ".join(cells)))
    print()
    right = total = 0
    for key in sims:
        if key.startswith("tiles.cpa."):
            other = key.replace("tiles.cpa.", "tiles.bulk.")
            mc, mb = meas[key], meas[other]
            if abs(mc - mb) >= 0.05 * min(mc, mb):
                total += 1
                right += (mc < mb) == (sims[key] < sims[other])
    for eng, what in (("cpa", "gemm_tiles (cp.async)"), ("bulk", "gemm_tiles_bulk (bulk copies)")):
        print("%s tiles, %s: %s" % (gpu.upper(), what, mape(errs[eng])))
    print("%s tiles: the faster engine named at %d of the %d points the GPU separates by 5%%." % (gpu.upper(), right, total))
    print()
    return errs


def phase_of(trace):
    """A function from a line of traces/TRACE to tiles.cu's phase of the
    batch loop (None outside it): the loop's head and its fetch loop are
    'issue', the waits (and the bulk kernel's stage index) 'wait', the
    first load to the last store 'consume', the rest of the body 'release'."""
    src = open(os.path.join(ROOT, trace)).read().split("\n")
    head = next(i + 1 for i, l in enumerate(src) if l.startswith("for (var k = 0"))
    end = max(i + 1 for i, l in enumerate(src) if l == "end")
    fetch_end = next(i + 1 for i, l in enumerate(src) if i + 1 > head and l.startswith("    end"))
    waits = {i + 1 for i, l in enumerate(src) if i + 1 > head and ("consumer_wait" in l or "arrive_and_wait" in l
                                                                   or l.startswith("    var s = k %"))}
    first = next(i + 1 for i, l in enumerate(src) if i + 1 > head and l.startswith("    var a = load"))
    last = max(i + 1 for i, l in enumerate(src) if l.startswith("    store("))

    def phase(line):
        if head <= line <= fetch_end:
            return "issue"
        if line in waits:
            return "wait"
        if first <= line <= last:
            return "consume"
        if last < line <= end:
            return "release"
        return None
    return phase


def tiles_phases(smpipe, gpu, extra):
    """tiles.cu's per-phase timestamps (warm, stages 1, 2 and 4) against the
    model's warp-cycles on the same lines, cycles a batch and warp."""
    if not os.path.exists(os.path.join(MICRO, "tiles_%s.txt" % gpu)):
        return
    meas = measured(gpu, "tiles")
    phases = ("issue", "wait", "consume", "release")
    print("| engine | threads | IMADs | stages | " + " | ".join("%s measured / simulated" % p for p in phases) + " |")
    print("| --- | --- | --- | --- | " + " | ".join("---" for _ in phases) + " |")
    errs = {p: [] for p in phases}
    scratch_dir = tempfile.TemporaryDirectory()
    scratch = os.path.join(scratch_dir.name, "phases.csv")
    for eng, trace in (("cpa", "traces/gemm_tiles.trace"), ("bulk", "traces/gemm_tiles_bulk.trace")):
        phase = phase_of(trace)
        for t in (64, 128, 512):
            for c in (0, 16):
                for st in (1, 2, 4):
                    cmd = [smpipe, "run", os.path.join(ROOT, trace), "-q", "--no-race-check", "--arch", gpu, "--by",
                           "line", "--csv", scratch]
                    for kv in ("threads=%d" % t, "stages=%d" % st, "compute_iters=%d" % c, "elem_bytes=4",
                               "tile_bytes=4096", "batches=512", "mem.source=l2"):
                        cmd += ["--set", kv]
                    r = subprocess.run(cmd + extra, cwd=ROOT, capture_output=True, text=True)
                    if r.returncode != 0:
                        raise SystemExit("replay.py: %s failed:\n%s" % (" ".join(cmd + extra), r.stderr))
                    sim = dict.fromkeys(phases, 0.0)
                    with open(scratch) as fh:
                        for row in csv.DictReader(l for l in fh if not l.startswith("#")):
                            p = phase(int(row["line"])) if row["stage"] == "" else None
                            if p:
                                sim[p] += float(row["warp_cycles"]) / 512.0 / (t // 32)
                    cells = []
                    for p in phases:
                        m = meas["tiles.%s.S%d.T%d.C%d.warm.%s" % (eng, st, t, c, p)]
                        errs[p].append(sim[p] - m)
                        cells.append("%.0f / %.0f" % (m, sim[p]))
                    print("| %s | %d | %d | %d | %s |" % (eng, t, c, st, " | ".join(cells)))
    scratch_dir.cleanup()
    print()
    print("%s tiles phases, mean simulated minus measured cycles a batch: %s." % (
        gpu.upper(), ", ".join("%s %+.0f" % (p, sum(e) / len(e)) for p, e in errs.items())))
    print()


def latdist(smpipe, gpu, extra):
    """The latdist.cu table: one block of W warps alone, each lane copying 16
    bytes with cp.async, waiting for its group and meeting at a barrier.  The
    GPU's span from the first copy to the last warp past the barrier against
    the trace's cycles an iteration (which also hold the iteration's opening
    barrier and the library's pipeline calls), and each one's growth over one
    warp's: what a block pays for its slowest warp.  None without a
    measurement."""
    if not os.path.exists(os.path.join(MICRO, "latdist_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "latdist")
    print("| memory | warps | measured span | growth | simulated cycles an iteration | growth |")
    print("| --- | --- | --- | --- | --- | --- |")
    for mode, src in (("l2", "l2"), ("dram", "dram")):
        base_m = base_s = None
        for w in (1, 2, 4, 8, 16, 32):
            m = meas["latdist.warps.%s.W%d.block" % (mode, w)]
            sim = cycles(smpipe, gpu, "latdist.trace", ["W=%d" % w, "iters=64", "mem.source=%s" % src], extra) / 64.0
            if base_m is None:
                base_m, base_s = m, sim
            print("| %s | %d | %.0f | %+.0f | %.0f | %+.0f |" % ("L2" if mode == "l2" else "DRAM", w, m, m - base_m, sim,
                                                                sim - base_s))
    print()
    return True


def ldsrate(smpipe, gpu, extra):
    """The ldsrate.cu table: one block of W warps alone loading shared
    memory at computed addresses: the SM's warp-LDS a cycle (first start to
    last end), measured and simulated (replay/ldsrate.trace).  None without
    a measurement."""
    if not os.path.exists(os.path.join(MICRO, "ldsrate_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "ldsrate")
    print("| warps | measured LDS a cycle | simulated | error |")
    print("| --- | --- | --- | --- |")
    for w in (1, 2, 4, 8, 16, 32):
        m = meas["lds.addr.W%d.sm" % w]
        sim = w * 64.0 * 32 / cycles(smpipe, gpu, "ldsrate.trace", ["W=%d" % w, "rounds=64"], extra)
        print("| %d | %.3f | %.3f | %+.1f%% |" % (w, m, sim, 100.0 * (sim - m) / m))
    print()
    return True


def ldsq(smpipe, gpu, extra):
    """ldsq.cu's rows replayed (replay/ldsq.trace): what one more load adds
    to a warp's round, (round at K = 16 - round at K = 8) / 8, for loads of
    4, 8 and 16 bytes a lane by 1, 4 and 8 warps, and the round at K = 16.
    None without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "ldsq_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "ldsq")
    print("| load | warps | measured cycles a load | simulated | measured round (K = 16) | simulated |")
    print("| --- | --- | --- | --- | --- | --- |")
    errs = []
    for name, v in (("u32", 4), ("v2", 8), ("v4", 16)):
        for w in (1, 4, 8):
            m8, m16 = (meas["ldsq.%s.K%d.W%d.round" % (name, k, w)] for k in (8, 16))
            s8, s16 = (cycles(smpipe, gpu, "ldsq.trace", ["K=%d" % k, "V=%d" % v, "W=%d" % w, "rounds=256"], extra) / 256.0
                       for k in (8, 16))
            m, sim = (m16 - m8) / 8, (s16 - s8) / 8
            errs.append(100.0 * (sim - m) / m)
            print("| `ld.shared.%s` | %d | %.1f | %.1f | %.0f | %.0f |" % (name, w, m, sim, m16, s16))
    print()
    print("%s a warp's shared loads, cycles a load: %s" % (gpu.upper(), mape(errs)))
    print()
    return True


def ldsfill(smpipe, gpu, extra):
    """ldsrate.cu's lds.fill, lds.fillonly and lds.stage rows replayed
    (replay/ldsfill.trace): one warp's cycles a round when K KiB of cp.async
    from L2 land in shared memory while it runs 32 loads at immediate offsets,
    the copies alone, and the loads alone.  None without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "ldsrate_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "ldsrate")
    if "lds.stage.W1.round" not in meas:
        return None
    print("| row | warps | measured cycles a round | simulated | error |")
    print("| --- | --- | --- | --- | --- |")
    errs = []
    rows = [("lds.fill%d" % k, ["K=%d" % k, "LDS=1"]) for k in (1, 4)]
    rows += [("lds.fillonly%d" % k, ["K=%d" % k, "LDS=0"]) for k in (1, 4)]
    rows += [("lds.stage", ["COPY=0"])]
    for name, sets in rows:
        for w in (1, 2, 4, 8):
            m = meas["%s.W%d.round" % (name, w)]
            sim = cycles(smpipe, gpu, "ldsfill.trace", sets + ["W=%d" % w, "rounds=64", "mem.source=l2"], extra) / 64.0
            errs.append(100.0 * (sim - m) / m)
            print("| `%s` | %d | %.0f | %.0f | %+.1f%% |" % (name, w, m, sim, errs[-1]))
    print()
    print("%s loads beside copies landing: %s" % (gpu.upper(), mape(errs)))
    print()
    return True


def mixq(smpipe, gpu, extra):
    """mixq.cu's rows replayed (replay/mixq.trace): a round of K 16-byte
    cp.async a lane, K 16-byte shared loads, or both in either order, for
    1, 4 and 8 warps alone.  None without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "mixq_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "mixq")
    print("| case | measured cycles a round | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = []
    for mode, name in ((1, "cp"), (2, "ld"), (3, "cpld"), (4, "ldcp")):
        for k in (4, 8):
            for w in (1, 4, 8):
                key = "mixq.%s.K%d.W%d" % (name, k, w)
                sets = ["W=%d" % w, "K=%d" % k, "mode=%d" % mode, "rounds=256", "mem.source=l2"]
                sim = cycles(smpipe, gpu, "mixq.trace", sets, extra) / 256.0
                err = 100.0 * (sim - meas[key]) / meas[key]
                errs.append(err)
                print("| `%s` | %.0f | %.0f | %+.1f%% |" % (key, meas[key], sim, err))
    print()
    print("%s copies and loads of one warp: %s" % (gpu.upper(), mape(errs)))
    print()
    return True


def stream(smpipe, gpu, extra):
    """stream.cu's cp.async rows from DRAM (stream.cpasync.E*.T*.B*.S*.dram):
    bytes a cycle an SM, the blocks' bytes over the span of an SM's blocks.
    Returns {E: errors}."""
    meas = measured(gpu, "stream")
    print("| case | measured B/cycle | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = {4: [], 16: []}
    for e, s in ((16, 4), (16, 8), (4, 8)):
        for b in (0, 1, 2, 4):
            for t in (128, 256, 512):
                key = "stream.cpasync.E%d.T%d.B%d.S%d.dram" % (e, t, b, s)
                if key not in meas:
                    continue
                # B = 0: one block alone on the GPU; else B blocks on every SM.
                sets = ["E=%d" % e, "T=%d" % t, "S=%d" % s, "batches=256", "mem.source=dram", "sm.blocks=%d" % max(b, 1),
                        "launch.grid=%d" % (max(b, 1) * SMS if b else 1)]
                rate = max(b, 1) * t * e * 256 / cycles(smpipe, gpu, "stream.trace", sets, extra)
                m = meas[key]
                err = 100.0 * (rate - m) / m
                errs[e].append(err)
                print("| `%s` | %.2f | %.2f | %+.1f%% |" % (key, m, rate, err))
    print()
    for e in (16, 4):
        print("%s stream, %d-byte copies: %s" % (gpu.upper(), e, mape(errs[e])))
    print()
    return errs


def loaded_l2(smpipe, gpu, extra):
    """loadedl2.cu: loaded.cu's copies from a 16 MiB window warm in L2, one
    block of W warps on every SM or alone.  Bytes a cycle an SM and the
    latency they imply.  Returns the errors, or None without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "loadedl2_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "loadedl2")
    print("| case | bytes in flight an SM | measured B/cycle | simulated | error | measured latency | simulated |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    errs = []
    for alone in (False, True):
        for s in (1, 2, 4, 8, 16):
            for w in (1, 2, 4, 8, 16, 32):
                key = "loadedl2.%sW%d.S%d" % ("alone." if alone else "", w, s)
                if key + ".rate" not in meas:
                    continue
                sets = ["W=%d" % w, "S=%d" % s, "window=%d" % (16 << 20), "launch.grid=%d" % (1 if alone else SMS),
                        "mem.source=l2"]
                rate = w * 512 * (s + ITERS) / cycles(smpipe, gpu, "loaded.trace", sets, extra)
                m = meas[key + ".rate"]
                err = 100.0 * (rate - m) / m
                errs.append(err)
                print("| `%s` | %d | %.2f | %.2f | %+.1f%% | %.0f | %.0f |"
                      % (key, w * s * 512, m, rate, err, meas[key + ".latency"], w * s * 512 / rate))
    print()
    print("%s loaded from L2: rate %s" % (gpu.upper(), mape(errs)))
    print()
    return errs


def timeline_warps(smpipe, gpu, trace, sets, extra):
    """The warp slices of run_doc's run's timeline, by warp (the
    timeline's tid): (cycle, cycles, state) in the timeline's order."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "timeline.json")
        run_doc(smpipe, gpu, trace, sets, extra, ("--timeline", path))
        with open(path) as fh:
            events = json.load(fh)["traceEvents"]
    by = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "warp":
            by.setdefault(e["tid"], []).append((e["args"]["cycle"], e["args"]["cycles"], e["name"]))
    return by


def warp_ends(smpipe, gpu, trace, sets, extra):
    """Each warp's end in a run of scripts/calib/replay/TRACE, from its
    timeline: the cycle it exits, or, when it waited for an issue slot just
    before (`not_selected`: another warp held the scheduler), the cycle that
    wait began.  The GPU's clock read right after a warp's last instruction
    is the end the microbenchmarks time; the warp's exit, which needs a slot
    of its own, comes later."""
    by = timeline_warps(smpipe, gpu, trace, sets, extra)
    ends = []
    for tid in sorted(by):
        start, length, name = max(ev for ev in by[tid] if ev[2] != "exited")
        ends.append(start if name == "not_selected" else start + length)
    return ends

def sched(smpipe, gpu, extra):
    """sched.cu: W warps a sub-partition run K independent FFMAs (or, dep,
    one dependent chain of K IMADs) from the same start; the spread of their ends (latest minus earliest, a sub-partition)
    says whether the scheduler keeps issuing one warp (about the others'
    work) or rotates (about 0).  The model's end of a warp is warp_ends'.
    None without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "sched_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "sched")
    print("| case | measured span | simulated | measured end spread | simulated |")
    print("| --- | --- | --- | --- | --- |")
    for dep, k in ((0, 256), (0, 1024), (1, 256)):
        for w in (1, 2, 4, 8):
            key = "sched.%sW%d.K%d" % ("dep." if dep else "", w, k)
            if key + ".span" not in meas:
                continue
            ends = warp_ends(smpipe, gpu, "sched.trace", ["W=%d" % w, "K=%d" % k, "dep=%d" % dep], extra)
            spreads = sorted(max(ends[sp::4]) - min(ends[sp::4]) for sp in range(4))
            spans = sorted(ends)
            print("| `%s` | %.0f | %.0f | %.0f | %.0f |" % (key, meas[key + ".span"], spans[len(spans) // 2],
                                                          meas[key + ".end_spread"], spreads[len(spreads) // 2]))
    print()
    return True


def schedblk(smpipe, gpu, extra):
    """schedblk.cu: B blocks of four warps on every SM, each warp K = 8,192
    IMADs in N independent chains (then B blocks of T threads in
    pipe_batch.trace's protocol loop); the end of each block (its last
    warp's, warp_ends') from the SM's start, the blocks in age order.  None
    without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "schedblk_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "schedblk")
    print("| case | measured end | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = []
    for n in (1, 2, 4):
        for b in (1, 2, 4):
            ends = warp_ends(smpipe, gpu, "schedblk.trace",
                             ["N=%d" % n, "sm.blocks=%d" % b, "launch.grid=%d" % (b * SMS)], extra)
            for i in range(b):
                key = "schedblk.N%d.B%d.end%d" % (n, b, i + 1)
                sim = max(ends[4 * i:4 * i + 4])
                err = 100.0 * (sim - meas[key]) / meas[key]
                errs.append(err)
                print("| `%s` | %.0f | %.0f | %+.1f%% |" % (key, meas[key], sim, err))
    print()
    print("%s blocks in age order: %s" % (gpu.upper(), mape(errs)))
    print()
    print("| case | measured end | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = []
    for t in (128, 256):
        for b in (1, 2, 4):
            ends = warp_ends(smpipe, gpu, "pipe_batch.trace",
                             ["T=%d" % t, "sm.blocks=%d" % b, "launch.grid=%d" % (b * SMS)], extra)
            w = t // 32
            for i in range(b):
                key = "schedblk.pipe.T%d.B%d.end%d" % (t, b, i + 1)
                sim = max(ends[w * i:w * i + w])
                err = 100.0 * (sim - meas[key]) / meas[key]
                errs.append(err)
                print("| `%s` | %.0f | %.0f | %+.1f%% |" % (key, meas[key], sim, err))
    print()
    print("%s pipeline protocol's blocks in age order: %s" % (gpu.upper(), mape(errs)))
    print()
    return True


def phaseq(smpipe, gpu, extra):
    """phaseq.cu: the campaign's gemm_tiles (128 threads, 16-byte elements,
    4 KiB tiles, 512 batches from DRAM) with B blocks on every SM, S stages
    and C multiply-adds a word: the SM's span a batch.  None without a
    measurement."""
    if not os.path.exists(os.path.join(MICRO, "phaseq_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "phaseq")
    print("| case | measured cycles a batch | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = []
    for c in (64, 16):
        for b in (1, 2, 4):
            for st in (1, 2):
                key = "phaseq.S%d.B%d.C%d.batch" % (st, b, c)
                sets = ["threads=128", "batches=512", "elem_bytes=16", "tile_bytes=4096", "compute_iters=%d" % c,
                        "stages=%d" % st, "sm.blocks=%d" % b, "launch.grid=%d" % (b * SMS), "mem.source=dram"]
                sim = cycles(smpipe, gpu, "traces/gemm_tiles.trace", sets, extra) / 512.0
                err = 100.0 * (sim - meas[key]) / meas[key]
                errs.append(err)
                print("| `%s` | %.0f | %.0f | %+.1f%% |" % (key, meas[key], sim, err))
    print()
    print("%s gemm_tiles with several blocks an SM: %s" % (gpu.upper(), mape(errs)))
    print()
    return True


def mmashadow(smpipe, gpu, extra):
    """mmashadow.cu: M independent MMAs an iteration with A integer adds
    after each (dep: one chain), 1 or 4 warps a sub-partition; the trace
    puts the A x M adds after the MMA statement (replay/mmashadow.trace).
    None without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "mmashadow_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "mmashadow")
    print("| case | measured cycles an iteration | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = []
    for m in (8, 16):
        for a in (0, 1, 2, 4):
            for w in (1, 4):
                key = "mmashadow.M%d.A%d.W%d.%s" % (m, a, w, "ind" if a == 0 else "dep")
                if key not in meas:
                    continue
                sim = cycles(smpipe, gpu, "mmashadow.trace", ["M=%d" % m, "A=%d" % a, "W=%d" % w], extra) / 64.0
                err = 100.0 * (sim - meas[key]) / meas[key]
                errs.append(err)
                print("| `%s` | %.0f | %.0f | %+.1f%% |" % (key, meas[key], sim, err))
    print()
    print("%s integer work beside MMAs: %s" % (gpu.upper(), mape(errs)))
    print()
    return True


def schedmix(smpipe, gpu, extra):
    """schedmix.cu: warps of two kinds on each sub-partition, a dependent
    chain (D) and independent FFMAs (I), slot 0 the oldest: when does each
    slot end (after its sub-partition's first start)?  Which of several I
    warps runs first is decided by the code before the loop, not by the
    warps' age (schedmix.cu's I warps start youngest first, its ilp.ffma.C4
    warps oldest first), and the model starts the oldest first, so the I
    warps' ends are compared in the order they end (row `I` k: the k-th I
    warp to end, 0 the first: schedmix.cu's `.i<k>.end`, the median over
    cases of the k-th end); the D warps' slot by slot.  And the ilp rows: W
    warps a sub-partition, 256 IMADs or FFMAs each in C chains: the spread
    of their ends and whether the oldest ends first.  The model's end of a
    warp is warp_ends'.
    Returns the end errors (percent) of the mixed configurations, None
    without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "schedmix_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "schedmix")
    configs = []
    for key in meas:
        m = re.match(r"schedmix\.(imad|ffma|order)\.([DI]+)\.s0\.end$", key)
        if m:
            configs.append((m.group(1), m.group(2)))
    print("| case | slot (D) or order of end (I) | kind | measured end | simulated | error |")
    print("| --- | --- | --- | --- | --- | --- |")
    errs = []
    for dep, cfg in configs:
        roles = sum(1 << k for k, c in enumerate(cfg) if c == "D")
        sets = ["W=%d" % len(cfg), "roles=%d" % roles, "dep=%d" % (1 if dep == "ffma" else 0)]
        ends = warp_ends(smpipe, gpu, "schedmix.trace", sets, extra)
        sim = {}
        for k, kind in enumerate(cfg):
            mine = sorted(ends[4 * k:4 * k + 4])
            sim[k] = (mine[1] + mine[2]) / 2
        islots = [k for k, kind in enumerate(cfg) if kind == "I"]
        rows = [("D", k, meas["schedmix.%s.%s.s%d.end" % (dep, cfg, k)], sim[k])
                for k, kind in enumerate(cfg) if kind == "D"]
        rows += [("I", r, meas["schedmix.%s.%s.i%d.end" % (dep, cfg, r)], s)
                 for r, s in enumerate(sorted(sim[k] for k in islots))]
        for kind, k, m, s in rows:
            err = 100.0 * (s - m) / m
            errs.append(err)
            what = {"D": "dependent %s chain" % dep.upper(), "I": "independent FFMAs"}[kind]
            print("| `schedmix.%s.%s` | %s %d | %s | %.0f | %.0f | %+.1f%% |" % (dep, cfg, kind, k, what, m, s, err))
    print()
    print("%s schedmix ends: %s" % (gpu.upper(), mape(errs)))
    print()
    print("| case | measured span | simulated | measured end spread | simulated | oldest ends first, measured | simulated |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for cls in ("imad", "ffma"):
        for c in (1, 2, 4, 8):
            for w in (1, 2, 4):
                key = "schedmix.ilp.%s.C%d.W%d" % (cls, c, w)
                if key + ".span" not in meas:
                    continue
                sets = ["W=%d" % w, "ilp=%d" % c, "dep=%d" % (1 if cls == "ffma" else 0)]
                ends = warp_ends(smpipe, gpu, "schedmix.trace", sets, extra)
                spreads = sorted(max(ends[sp::4]) - min(ends[sp::4]) for sp in range(4))
                firsts = [ends[sp] == min(ends[sp::4]) and ends[sp::4].count(ends[sp]) == 1 for sp in range(4)]
                spans = sorted(ends)
                print("| `%s` | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f |" % (
                    key, meas[key + ".span"], spans[len(spans) // 2], meas[key + ".end_spread"],
                    spreads[len(spreads) // 2], meas[key + ".first_oldest"], sum(firsts) / 4.0))
    print()
    return errs


def branch(smpipe, gpu, extra):
    """branch.cu: cycles a loop iteration with an if inside (one block of 1,
    4 or 16 warps, 4096 iterations); returns the errors, None without a
    measurement."""
    if not os.path.exists(os.path.join(MICRO, "branch_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "branch")
    print("| case | measured cycles an iteration | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = []
    for name, mode in (("if_warp", 2), ("if_warp1", 4), ("nested", 6)):
        for w in (1, 4, 16):
            key = "loop.%s.W%d" % (name, w)
            sim = cycles(smpipe, gpu, "branch.trace", ["mode=%d" % mode, "W=%d" % w, "N=4096"], extra) / 4096.0
            err = 100.0 * (sim - meas[key]) / meas[key]
            errs.append(err)
            print("| `%s` | %.1f | %.1f | %+.1f%% |" % (key, meas[key], sim, err))
    print()
    print("%s loop control: %s" % (gpu.upper(), mape(errs)))
    print()
    return errs


def pipecopy(smpipe, gpu, extra):
    """pipecopy.cu: a unified block-scope pipeline alone, warm in L2, S
    stages fetched S - 1 ahead: cycles a batch with the four calls alone, a
    4- or 16-byte memcpy_async a thread, and the consumer's load and store;
    returns the errors, None without a measurement."""
    if not os.path.exists(os.path.join(MICRO, "pipecopy_%s.txt" % gpu)):
        return None
    meas = measured(gpu, "pipecopy")
    threads = (32, 128, 512)
    print("| variant | stages | " + " | ".join("T%d measured / simulated" % t for t in threads) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in threads) + " |")
    errs = []
    for mode, name in enumerate(("calls", "cp4", "cp16", "cp16ls", "callsc", "cp16c")):
        for s in (1, 2, 4, 8):
            cells = []
            for t in threads:
                key = "pipecopy.%s.S%d.T%d" % (name, s, t)
                sets = ["mode=%d" % mode, "stages=%d" % s, "T=%d" % t, "batches=512", "mem.source=l2"]
                sim = cycles(smpipe, gpu, "pipecopy.trace", sets, extra) / 512.0
                errs.append(100.0 * (sim - meas[key]) / meas[key])
                cells.append("%.0f / %.0f" % (meas[key], sim))
            print("| %s | %d | %s |" % (name, s, " | ".join(cells)))
    print()
    print("%s pipecopy: %s" % (gpu.upper(), mape(errs)))
    print()
    return errs


def wback(smpipe, gpu, extra):
    """wback.cu: loaded.cu's stream with stores (16 warps, 4 groups of 512
    bytes in flight a warp, N copies a warp) after an L2 flush or launched
    back to back: bytes read a cycle an SM.  Returns {flushed: errors}."""
    meas = measured(gpu, "wback")
    print("| case | measured B/cycle | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = {True: [], False: []}
    for n in (16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 1024):
        for flushed in (True, False):
            key = "wback.N%d.%s" % (n, "flushed" if flushed else "stream")
            if key not in meas:
                continue
            sets = ["W=16", "S=4", "iters=%d" % n, "write=1", "launch.grid=%d" % SMS, "mem.source=dram",
                    "mem.flushed=%s" % ("true" if flushed else "false")]
            rate = 16 * 512 * (4 + n) / cycles(smpipe, gpu, "loaded.trace", sets, extra)
            m = meas[key]
            err = 100.0 * (rate - m) / m
            errs[flushed].append(err)
            print("| `%s` | %.2f | %.2f | %+.1f%% |" % (key, m, rate, err))
    print()
    for flushed, what in ((True, "after a flush"), (False, "back to back")):
        if errs[flushed]:
            print("%s wback, %s: %s" % (gpu.upper(), what, mape(errs[flushed])))
    print()
    return errs


def burst(smpipe, gpu, extra):
    """burst.cu: one block of 128 threads on every SM (and alone) copying a
    burst of K x 2 KiB, waiting for it and spinning Z cycles.  The replay
    computes n IMADs where the CUDA program spins: n is chosen so that the
    block alone takes the measured time (the alone runs are the fit, the
    whole-GPU runs what is compared).  Cycles a batch."""
    if not os.path.exists(os.path.join(MICRO, "burst_%s.txt" % gpu)):
        return
    meas = measured(gpu, "burst")
    print("| case | alone measured / simulated | every SM measured | simulated | error |")
    print("| --- | --- | --- | --- | --- |")
    errs = []
    for src in ("dram", "l2"):
        for k in (2, 8, 32):
            def run(n, grid):
                sets = ["K=%d" % k, "n=%d" % n, "sm.blocks=1", "launch.grid=%d" % grid, "mem.source=%s" % src]
                if src == "l2":
                    sets.append("window=16777216")  # burst.cu's 16 MiB window
                return cycles(smpipe, gpu, "burst.trace", sets, extra) / 64.0
            base = run(0, 1)
            slope = (run(1000, 1) - base) / 1000.0
            for z in (0, 250, 500, 1000, 2000, 4000, 8000):
                key = "burst.%s.K%d.Z%d" % (src, k, z)
                if key + ".gpu1.batch" not in meas:
                    continue
                alone = meas[key + ".alone.batch"]
                n = max(0, int(round((alone - base) / slope)))
                m = meas[key + ".gpu1.batch"]
                sim = run(n, SMS)
                err = 100.0 * (sim - m) / m
                errs.append(err)
                print("| `%s` | %.0f / %.0f | %.0f | %.0f | %+.1f%% |" % (key, alone, run(n, 1), m, sim, err))
    print()
    print("%s burst: %s" % (gpu.upper(), mape(errs)))
    print()


def burst_occ(smpipe, gpu, extra):
    """`burst occ`: B = 1, 2 or 4 blocks on every SM, each copying a burst,
    waiting and spinning Z cycles; n IMADs where the GPU spins, n = Z over
    the IMAD's simulated cycles (one block alone).  Cycles a batch."""
    if not os.path.exists(os.path.join(MICRO, "burst_occ_%s.txt" % gpu)):
        return
    meas = measured(gpu, "burst_occ")
    print("| case | measured cycles a batch | simulated | error |")
    print("| --- | --- | --- | --- |")
    errs = []
    for src in ("dram", "l2"):
        for k in (8, 32):
            def run(n, b):
                sets = ["K=%d" % k, "n=%d" % n, "sm.blocks=%d" % b, "launch.grid=%d" % (b * SMS), "mem.source=%s" % src]
                if src == "l2":
                    sets.append("window=16777216")
                return cycles(smpipe, gpu, "burst.trace", sets, extra) / 64.0
            per_imad = (cycles(smpipe, gpu, "burst.trace", ["K=%d" % k, "n=1000", "launch.grid=1"], extra)
                        - cycles(smpipe, gpu, "burst.trace", ["K=%d" % k, "n=0", "launch.grid=1"], extra)) / 64000.0
            for b in (1, 2, 4):
                for z in (0, 1000, 1500, 2000, 2500, 3000, 4000, 6000):
                    key = "burst.occ.%s.K%d.Z%d.B%d" % (src, k, z, b)
                    if key + ".batch" not in meas:
                        continue
                    m = meas[key + ".batch"]
                    sim = run(int(round(z / per_imad)), b)
                    err = 100.0 * (sim - m) / m
                    errs.append(err)
                    print("| `%s` | %.0f | %.0f | %+.1f%% |" % (key, m, sim, err))
    print()
    print("%s burst, several blocks an SM: %s" % (gpu.upper(), mape(errs)))
    print()


LOADLAT_QUANTILES = ("p10", "p25", "p50", "p75", "p90", "p99")


def loadlat(gpu):
    """loadlat.cu: a probe warp's copy latency on every SM while W other warps
    a block stream from DRAM, at its quantiles, and the factor of the
    queueing delay each quantile gives, (latency - the quantile unloaded) /
    (mean - mean unloaded).  The architecture's dram.queue_p10 ... queue_p99
    are the last line: the mean factor of the two loads past the knee
    (W = 24 and 31), where the queue's delay dominates.  Nothing is
    simulated here: loadlat_replay replays the probe."""
    if not os.path.exists(os.path.join(MICRO, "loadlat_%s.txt" % gpu)):
        return
    meas = measured(gpu, "loadlat")
    print("| streaming warps | B/cycle an SM | mean | " + " | ".join(LOADLAT_QUANTILES) + " | factor at "
          + ", ".join(LOADLAT_QUANTILES) + " |")
    print("| --- " * (4 + len(LOADLAT_QUANTILES)) + "|")
    base = "loadlat.W0."
    factors = {}
    for w in (0, 1, 2, 4, 8, 12, 16, 24, 31):
        k = "loadlat.W%d." % w
        extra = meas[k + "mean"] - meas[base + "mean"]
        f = [(meas[k + q] - meas[base + q]) / extra for q in LOADLAT_QUANTILES] if extra > 100 else None
        factors[w] = f
        print("| %d | %.2f | %.0f | %s | %s |" % (w, meas[k + "rate"], meas[k + "mean"],
                                                 " | ".join("%.0f" % meas[k + q] for q in LOADLAT_QUANTILES),
                                                 ", ".join("%.2f" % x for x in f) if f else "(no delay)"))
    print()
    print("%s dram.queue_p10 ... queue_p99: %s" % (gpu.upper(), ", ".join(
        "%.3f" % ((a + b) / 2) for a, b in zip(factors[24], factors[31]))))
    print()
    if not os.path.exists(os.path.join(MICRO, "loadlat_burst_%s.txt" % gpu)):
        return
    # `loadlat burst`: the probe's group is K x 512 bytes; its delay under
    # load (mean less the same K's unloaded mean) against K = 1's.
    meas = measured(gpu, "loadlat_burst")
    print("| probe group | streaming warps | mean | p10 | p50 | p90 | p99 | delay (mean - unloaded) | against 512 B |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for w in (8, 16, 24, 31):
        for k in (1, 4, 16, 64):
            key = "loadlat.burst.K%d." % k
            delay = meas[key + "W%d.mean" % w] - meas[key + "W0.mean"]
            one = meas["loadlat.burst.K1.W%d.mean" % w] - meas["loadlat.burst.K1.W0.mean"]
            print("| %d B | %d | %.0f | %s | %.0f | %.2f |" % (
                512 * k, w, meas[key + "W%d.mean" % w],
                " | ".join("%.0f" % meas[key + "W%d.%s" % (w, q)] for q in ("p10", "p50", "p90", "p99")), delay,
                delay / one))
    print()


def quantile(v, f):
    """The f-quantile of the sorted list v, as loadlat.cu takes it (the
    nearest rank)."""
    return v[min(len(v) - 1, int(f * (len(v) - 1) + 0.5))]


def probe_latencies(smpipe, gpu, w, k, extra, samples=256):
    """replay/loadlat.trace's probe: the cycles of each of its copies, from
    one wait's end to the next's (the timeline's consumer_wait of warp 0)."""
    by = timeline_warps(smpipe, gpu, "loadlat.trace", ["W=%d" % w, "K=%d" % k, "samples=%d" % samples,
                                                       "iters=4000", "launch.grid=%d" % SMS, "mem.source=dram"],
                        extra)
    ends = sorted(cycle + cycles for cycle, cycles, state in by[1] if state == "consumer_wait")
    return [b - a for a, b in zip([0] + ends[:-1], ends)]

def loadlat_replay(smpipe, gpu, extra):
    """`loadlat burst` replayed: the probe's latency at its mean and
    quantiles, GPU against trace, K x 512 bytes a copy, W streaming warps;
    the summary is over the loaded rows' p10, p50, p90 and p99."""
    if not os.path.exists(os.path.join(MICRO, "loadlat_burst_%s.txt" % gpu)):
        return
    meas = measured(gpu, "loadlat_burst")
    qs = (("p10", 0.10), ("p50", 0.50), ("p90", 0.90), ("p99", 0.99))
    print("| probe group | streaming warps | measured mean, " + ", ".join(q for q, _ in qs) + " | simulated |")
    print("| --- | --- | --- | --- |")
    errs = []
    for k in (1, 4, 16, 64):
        for w in (0, 8, 16, 24, 31):
            lat = sorted(probe_latencies(smpipe, gpu, w, k, extra))
            sim = [sum(lat) / len(lat)] + [quantile(lat, x) for _, x in qs]
            key = "loadlat.burst.K%d.W%d." % (k, w)
            m = [meas[key + "mean"]] + [meas[key + q] for q, _ in qs]
            if w > 0:
                errs += [100.0 * (a - b) / b for a, b in zip(sim[1:], m[1:])]
            print("| %d B | %d | %s | %s |" % (512 * k, w, ", ".join("%.0f" % x for x in m),
                                              ", ".join("%.0f" % x for x in sim)))
    print()
    print("%s loaded probe's quantiles: %s" % (gpu.upper(), mape(errs)))
    print()


TOGETHER_LOADS = ((0, 4), (8, 4), (16, 4), (12, 8), (16, 8))


def together_latencies(smpipe, gpu, g, k, w, s, extra, rounds=64, sms=SMS):
    """replay/loadtog.trace's probes: for each round, each probe warp's
    latency, from the end of its wait at the barrier (the issue) to the end
    of its consumer_wait; and the round's span, first issue to last
    arrival."""
    by = timeline_warps(smpipe, gpu, "loadtog.trace", ["G=%d" % g, "K=%d" % k, "W=%d" % w, "S=%d" % s,
                                                       "rounds=%d" % rounds,
                                                       "iters=%d" % (rounds * 40), "launch.grid=%d" % sms,
                                                       "mem.source=dram"], extra)
    per_warp = []
    for tid in range(1, g + 1):
        issue, lats = None, []
        for cycle, length, state in by[tid]:
            if state == "mbarrier":
                issue = cycle + length
            elif state == "consumer_wait":
                lats.append((issue, cycle + length))
        per_warp.append(lats)
    rounds_out = []
    for r in range(rounds):
        pairs = [lats[r] for lats in per_warp]
        rounds_out.append(([b - a for a, b in pairs], max(b for _, b in pairs) - min(a for a, _ in pairs)))
    return rounds_out


def together_stats(rounds):
    """Mean, p50, p90 of a warp's latency; the round span's mean; and the
    share of the latencies' variance between rounds (loadlat.cu's icc)."""
    lat = sorted(x for r, _ in rounds for x in r)
    mean = sum(lat) / len(lat)
    total = sum((x - mean) ** 2 for x in lat)
    within = sum((x - sum(r) / len(r)) ** 2 for r, _ in rounds for x in r)
    span = sum(sp for _, sp in rounds) / len(rounds)
    return mean, quantile(lat, 0.5), quantile(lat, 0.9), span, (1.0 - within / total) if total > 0 and len(rounds[0][0]) > 1 else 1.0


def together(smpipe, gpu, extra):
    """`loadlat together` replayed: G probe warps copy K x 512 bytes each at
    once while W warps stream with S groups in flight; a warp's latency
    (mean, p50, p90), the round's span (first issue to last arrival: what a
    tile waits for) and the share of variance between rounds.  The summary
    is over the loaded rows' spans, the figure a k-tile's wait depends on.
    (`loadlat.togl`, the same with contiguous runs, is a control of the GPU
    only: it differs from these rows by under 10%.)"""
    if not os.path.exists(os.path.join(MICRO, "loadlat_together_%s.txt" % gpu)):
        return
    meas = measured(gpu, "loadlat_together")
    print("| probe warps x copies | streaming warps x groups | measured mean, p50, p90, span, icc | simulated |")
    print("| --- | --- | --- | --- |")
    errs = []
    rows = [(g, 1, w, s) for g in (1, 4, 8, 16) for w, s in TOGETHER_LOADS] + [(32, 1, 0, 4)]
    rows += [(g, k, w, s) for g, k in ((4, 2), (4, 4), (4, 8), (8, 4), (16, 2)) for w, s in TOGETHER_LOADS[:3]]
    for g, k, w, s in rows:
        key = "loadlat.tog.G%d%s.W%d.S%d." % (g, "K%d" % k if k > 1 else "", w, s)
        m = [meas[key + q] for q in ("mean", "p50", "p90", "round_mean", "icc")]
        sim = together_stats(together_latencies(smpipe, gpu, g, k, w, s, extra))
        if w > 0:
            errs.append(100.0 * (sim[3] - m[3]) / m[3])
        print("| %d x %d | %d x %d | %s, %.2f | %s, %.2f |" % (g, k, w, s, ", ".join("%.0f" % x for x in m[:4]), m[4],
                                                            ", ".join("%.0f" % x for x in sim[:4]), sim[4]))
    print()
    print("%s together, loaded rounds' spans: %s" % (gpu.upper(), mape(errs)))
    print()


def together_sms(smpipe, gpu, extra):
    """`loadlat togb` replayed: a 16 KiB round (4 warps x 8 copies, or 32 x
    1) with no streaming warps, launched on B SMs: how a burst's span grows
    with the chip's load when its own SM sends nothing else."""
    if not os.path.exists(os.path.join(MICRO, "loadlat_togb_%s.txt" % gpu)):
        return
    meas = measured(gpu, "loadlat_togb")
    print("| probe warps x copies | SMs | measured mean, p90, span | simulated |")
    print("| --- | --- | --- | --- |")
    errs = []
    for g, k in ((4, 8), (32, 1)):
        for b in (1, 8, 33, 66, 99, SMS):
            key = "loadlat.togb%d.G%d%s.W0.S4." % (b, g, "K%d" % k if k > 1 else "")
            m = [meas[key + q] for q in ("mean", "p90", "round_mean")]
            sim = together_stats(together_latencies(smpipe, gpu, g, k, 0, 4, extra, sms=b))
            sim = [sim[0], sim[2], sim[3]]
            errs.append(100.0 * (sim[2] - m[2]) / m[2])
            print("| %d x %d | %d | %s | %s |" % (g, k, b, ", ".join("%.0f" % x for x in m),
                                                 ", ".join("%.0f" % x for x in sim)))
    print()
    print("%s together on B SMs, rounds' spans: %s" % (gpu.upper(), mape(errs)))
    print()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smpipe", default=os.path.join(ROOT, "build", "smpipe"))
    ap.add_argument("--gpu", default="h100")
    ap.add_argument("extra", nargs="*", help="after --: more smpipe run arguments (--set KEY=VALUE to try a value)")
    a = ap.parse_args()
    e = pipe_batch(a.smpipe, a.gpu, a.extra)
    print("%s pipe.batch: %s" % (a.gpu.upper(), mape(e)))
    print()
    spec(a.smpipe, a.gpu, a.extra)
    tiles(a.smpipe, a.gpu, a.extra)
    tiles_phases(a.smpipe, a.gpu, a.extra)
    latdist(a.smpipe, a.gpu, a.extra)
    ldsrate(a.smpipe, a.gpu, a.extra)
    ldsq(a.smpipe, a.gpu, a.extra)
    ldsfill(a.smpipe, a.gpu, a.extra)
    mixq(a.smpipe, a.gpu, a.extra)
    stream(a.smpipe, a.gpu, a.extra)
    if os.path.exists(os.path.join(MICRO, "wback_%s.txt" % a.gpu)):
        wback(a.smpipe, a.gpu, a.extra)
    loaded_l2(a.smpipe, a.gpu, a.extra)
    burst(a.smpipe, a.gpu, a.extra)
    burst_occ(a.smpipe, a.gpu, a.extra)
    loadlat(a.gpu)
    loadlat_replay(a.smpipe, a.gpu, a.extra)
    together(a.smpipe, a.gpu, a.extra)
    together_sms(a.smpipe, a.gpu, a.extra)
    sched(a.smpipe, a.gpu, a.extra)
    schedmix(a.smpipe, a.gpu, a.extra)
    schedblk(a.smpipe, a.gpu, a.extra)
    phaseq(a.smpipe, a.gpu, a.extra)
    mmashadow(a.smpipe, a.gpu, a.extra)
    branch(a.smpipe, a.gpu, a.extra)
    pipecopy(a.smpipe, a.gpu, a.extra)
    meas = measured(a.gpu)
    print("| case | bytes in flight an SM | measured B/cycle | simulated | error | measured latency | simulated |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    errs = {0: [], 1: []}
    for write, name in ((0, "loaded"), (1, "loadedw")):
        for s in (1, 2, 4, 8):
            for w in (1, 2, 4, 8, 16, 32):
                key = "%s.W%d.S%d" % (name, w, s)
                if key + ".rate" not in meas:
                    continue
                # loaded.cu launches back to back without flushing the L2:
                # each launch reads fresh data and evicts the dirty lines the
                # one before left (mem.flushed = false).
                sets = ["W=%d" % w, "S=%d" % s, "write=%d" % write, "launch.grid=%d" % SMS, "mem.source=dram",
                        "mem.flushed=false"]
                rate = w * 512 * (s + ITERS) / cycles(a.smpipe, a.gpu, "loaded.trace", sets, a.extra)
                m = meas[key + ".rate"]
                err = 100.0 * (rate - m) / m
                errs[write].append(err)
                print("| `%s` | %d | %.2f | %.2f | %+.1f%% | %.0f | %.0f |"
                      % (key, w * s * 512, m, rate, err, meas[key + ".latency"], w * s * 512 / rate))
    print()
    for write, what in ((0, "reads only"), (1, "reads and stores")):
        print("%s %s: rate %s" % (a.gpu.upper(), what, mape(errs[write])))


if __name__ == "__main__":
    sys.exit(main())
