#!/usr/bin/env python3
"""The model's side of scripts/calib/pipedrift.cu: how far apart the warps of
a partitioned pipeline run in smpipe's timeline.  Simulates the campaign's
with_specialized_staging_unified (256 threads, 512 batches, 4-byte elements,
16 multiply-adds, one block on each of 132 SMs) and prints, per stage count,
the median and largest spread of an iteration's consumer_wait returns over
the warps and the most iterations one warp's consumers ran ahead of
another's (pipedrift.cu's drift.p50, drift.max and lead.max).

Usage: python3 scripts/calib/pipedrift_model.py [--smpipe PATH] [-- --set KEY=VALUE ...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def wait_returns(timeline):
    """Per warp track, the cycles its consumer_wait stretches end (a wait
    split over several timeline slices ends at its last)."""
    per = {}
    for e in timeline["traceEvents"]:
        if e.get("cat") == "warp":
            per.setdefault(e["tid"], []).append(e)
    ends = {}
    for tid, events in per.items():
        events.sort(key=lambda e: e["args"]["cycle"])
        out = []
        for k, e in enumerate(events):
            nxt = events[k + 1] if k + 1 < len(events) else None
            if e["name"] == "consumer_wait" and (nxt is None or nxt["name"] != "consumer_wait"
                                                 or nxt["args"].get("line") != e["args"].get("line")):
                out.append(e["args"]["cycle"] + e["args"]["cycles"])
        ends[tid] = out
    return ends


def drift(ends):
    n = min(len(v) for v in ends.values())
    tids = sorted(ends)
    spread = sorted(max(ends[t][i] for t in tids) - min(ends[t][i] for t in tids) for i in range(16, n - 16))
    lead = 0
    for v in tids:
        for w in tids:
            j = 0
            for i in range(n):
                while j + 1 < n and ends[w][j + 1] <= ends[v][i]:
                    j += 1
                lead = max(lead, j - i)
    return spread[len(spread) // 2], spread[-1], lead


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smpipe", default=os.path.join(ROOT, "build", "smpipe"))
    ap.add_argument("extra", nargs="*", help="after --: more smpipe run arguments")
    a = ap.parse_args()
    print("| stages | cycles a batch | drift p50 | drift max | lead max |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for stages in (2, 3, 4, 8):
            tl = os.path.join(tmp, "t.json")
            cmd = [a.smpipe, "run", os.path.join(ROOT, "traces", "with_specialized_staging_unified.trace"), "-q",
                   "--set", "threads=256", "--set", "batches=512", "--set", "elem_bytes=4", "--set",
                   "compute_iters=16", "--set", "sm.blocks=1", "--set", "launch.grid=132", "--set",
                   "stages=%d" % stages, "-t", tl] + a.extra
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit("pipedrift_model.py: %s failed:\n%s" % (" ".join(cmd), r.stderr))
            with open(tl) as fh:
                p50, most, lead = drift(wait_returns(json.load(fh)))
            print("| %d | %.0f | %d | %d | %d |" % (stages, int(r.stdout.split()[0]) / 512.0, p50, most, lead))


if __name__ == "__main__":
    main()
