#!/usr/bin/env python3
"""Rewrites the generated tables of docs/validation.md in place from the
committed data, after a model change (tests/test_campaign.sh fails until
they are the model's):

    python3 scripts/campaign/tables.py --csv docs/validation/campaign/points.csv   # re-simulates
    python3 scripts/campaign/update_docs.py [--smpipe build/smpipe]

Three blocks are replaced, each by the output of the script that makes it:
the campaign's results (tables.py --from-csv points.csv: from the heading
"### H100, training part" to "### Before:"), the whole-launch table
(launch.py: the first table under "### The whole launch") and the replayed
microbenchmarks (replay.py for the H100 between the lines "H100:" and
"H200:", for the H200 from "H200:" to the first paragraph after it that
starts with "*").  The prose around them, which cites their figures, is
left to the author.
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DOC = os.path.join(ROOT, "docs", "validation.md")
CSV = os.path.join(ROOT, "docs", "validation", "campaign", "points.csv")


def output(args):
    r = subprocess.run([sys.executable] + args, cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("update_docs.py: %s failed:\n%s" % (" ".join(args), r.stderr))
    return r.stdout.strip("\n").split("\n")


def index(lines, pred, start=0, what=""):
    for i in range(start, len(lines)):
        if pred(lines[i]):
            return i
    raise SystemExit("update_docs.py: docs/validation.md has no %s" % what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smpipe", default=os.path.join(ROOT, "build", "smpipe"))
    a = ap.parse_args()
    with open(DOC) as fh:
        lines = fh.read().split("\n")

    results = output(["scripts/campaign/tables.py", "--from-csv", CSV])
    i = index(lines, lambda s: s.startswith("### H100, training part"), what="results heading")
    j = index(lines, lambda s: s.startswith("### Before:"), i, "'### Before:' heading")
    lines[i:j] = results + [""]

    launch = output(["scripts/campaign/launch.py", "--csv", CSV])
    h = index(lines, lambda s: s.startswith("### The whole launch"), what="whole-launch heading")
    i = index(lines, lambda s: s.startswith("| GPU | part | regime | launches"), h, "launch table")
    j = index(lines, lambda s: not s.startswith("|"), i, "end of the launch table")
    lines[i:j] = launch

    for gpu, end in (("h100", lambda s: s == "H200:"), ("h200", lambda s: s.startswith("*"))):
        replay = output(["scripts/calib/replay.py", "--smpipe", a.smpipe, "--gpu", gpu])
        i = index(lines, lambda s, g=gpu: s == g.upper() + ":", what="'%s:' line" % gpu.upper())
        j = index(lines, end, i + 1, "end of the %s replay block" % gpu.upper())
        lines[i + 1:j] = [""] + replay + [""]

    with open(DOC, "w") as fh:
        fh.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
