#!/usr/bin/env python3
"""genfuzz.py: a generative fuzzer of valid pipeline programs (issue 20).

Writes random traces that follow the rules (docs/semantics.md): a block of
threads stages batches of a global input through shared memory with
memcpy_async on one of the pipeline or barrier forms, each thread reads its
items back and stores them to a global output; the same input also goes to
a second output by plain loads and stores.  Each program is pushed through

  smpipe check, smpipe run (event and stepped engines), smpipe cuda

and flagged when a command crashes (a signal, or an exit status other than
0), hangs (past --timeout seconds), the engines disagree (the reports
differ), the race detector reports a race, or the generated reference shows
the two outputs differing (the copy path moved other bytes than the plain
one).  With --mutate, each program also gets one mutation that breaks
exactly one rule (a release dropped, a wait dropped, an overlapping copy,
a commit before any acquire); the mutant must be refused (exit 1 or 2)
without a crash.  With --nvcc, every program's CUDA code is compiled for
sm_80 and sm_90, as the cuda suite compiles the traces; an nvcc error is a
finding.

Every flagged program is kept under --out (default genfuzz-findings/) with
the command and its output; a finding becomes a regression input under
tests/.  The run is reproducible: program i of seed s is always the same.

Usage: genfuzz.py SMPIPE [--seed S] [--count N | --minutes M] [--mutate]
                  [--nvcc PATH] [--out DIR] [--timeout SECONDS]
"""
import argparse
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

ESZ = {1: "char", 2: "short", 4: "int", 8: "int2", 16: "int4"}


def gen_program(rng):
    """Returns (text, description) of one valid program."""
    threads = rng.choice([1, 2, 31, 32, 33, 64, 96, 128])
    esz = rng.choice([1, 2, 4, 8, 16])
    per = rng.choice([1, 2, 3, 4])           # items per thread per batch
    batches = rng.randint(1, 6)
    stages = rng.randint(1, 4)
    form = rng.choice(["thread", "unified", "count", "role", "barrier", "cg"])
    if threads == 1 and form in ("count", "role"):
        form = "unified"
    group = rng.choice(["thread", "block"]) if form not in ("thread", "cg") else "thread"
    if form == "cg":
        group = "block"
    # A tile of the block (tiled_partition<N>) copies its own range, in the
    # barrier and cg forms, where N divides the block.
    tiles = [n for n in (2, 4, 8, 16) if threads % n == 0]
    if form in ("barrier", "cg") and tiles and rng.random() < 0.4:
        group = "tile%d" % rng.choice(tiles)
    # Pipeline forms: the pipeline is made and used `reps` times in a loop
    # body, its destructor ending each (SPEC pipeline-scope-1).
    reps = rng.choice([1, 1, 2]) if form in ("thread", "unified", "count", "role") else 1
    sized = rng.choice(["plain", "aligned"])
    # How the batches reach gout (barrier and cg forms): loads and stores
    # from shared memory, memcpy_async shared -> global, or global -> global.
    outdir = rng.choice(["load", "s2g", "g2g"]) if form in ("barrier", "cg") else "load"
    items = threads * per
    t = ESZ[esz]
    out = []
    w = out.append
    w("smpipe 1")
    w("# genfuzz: form=%s threads=%d esz=%d per=%d batches=%d stages=%d group=%s size=%s out=%s reps=%d"
      % (form, threads, esz, per, batches, stages, group, sized, outdir, reps))
    w("block %d" % threads)
    w("global %s gin[%d]" % (t, items * batches))
    w("global %s gout[%d]" % (t, items * batches))
    w("global %s gref[%d]" % (t, items * batches))
    w("shared %s s[%d]" % (t, items * max(stages, 1)))
    if group.startswith("tile"):
        w("var %s = cooperative_groups::tiled_partition<%s>(block)" % (group, group[4:]))

    def size(n):
        if sized == "aligned":
            return "aligned_size_t<%d>(sizeof(%s) * %s)" % (esz, t, n)
        return "sizeof(%s) * %s" % (t, n)

    def group_args(dst, src, n):
        """The group, destination, source and size of a group's copy of n
        items per thread: the block's whole range, or a tile's own part."""
        if group == "block":
            return "block", dst, src, size(n * threads)
        tn = int(group[4:])
        at = "(threadIdx.x / %d) * %d" % (tn, n * tn)
        return group, "%s + %s" % (dst, at), "%s + %s" % (src, at), size(n * tn)

    def cg_copy(dst, src, n):
        return "cooperative_groups::memcpy_async(%s, %s, %s, %s)" % group_args(dst, src, n)

    def copy(dst, src, n, on):
        if group != "thread":
            return "memcpy_async(%s, %s, %s, %s, %s)" % (group_args(dst, src, n) + (on,))
        return "memcpy_async(%s + threadIdx.x * %d, %s + threadIdx.x * %d, %s, %s)" % (
            dst, n, src, n, size(n), on)

    def readback(stage_expr, batch_expr, ind):
        lines = []
        lines.append("for (var k = 0; k < %d; k = k + 1)" % per)
        if group != "thread":
            idx = "k * %d + threadIdx.x" % threads
        else:
            idx = "threadIdx.x * %d + k" % per
        lines.append("    var v = load(s + (%s) * %d + %s)" % (stage_expr, items, idx))
        lines.append("    store(gout + (%s) * %d + %s, v)" % (batch_expr, items, idx))
        lines.append("end")
        return [ind + x for x in lines]

    if form == "barrier":
        w("barrier bar")
        w("if (threadIdx.x == 0)")
        w("    init(&bar, block.size())")
        w("end")
        w("__syncthreads()")
        w("for (var b = 0; b < %d; b = b + 1)" % batches)
        if outdir == "g2g":
            w("    " + copy("gout + b * %d" % items, "gin + b * %d" % items, per, "bar"))
            w("    bar.arrive_and_wait()")
        else:
            w("    " + copy("s + (b %% %d) * %d" % (stages, items), "gin + b * %d" % items, per, "bar"))
            w("    bar.arrive_and_wait()")
            if outdir == "s2g":
                w("    " + copy("gout + b * %d" % items, "s + (b %% %d) * %d" % (stages, items), per, "bar"))
                w("    bar.arrive_and_wait()")
            else:
                out.extend(readback("b %% %d" % stages, "b", "    "))
        w("    __syncthreads()")
        w("end")
    elif form == "cg":
        w("for (var b = 0; b < %d; b = b + 1)" % batches)
        if outdir == "g2g":
            w("    " + cg_copy("gout + b * %d" % items, "gin + b * %d" % items, per))
            w("    cooperative_groups::wait(block)")
        else:
            w("    " + cg_copy("s + (b %% %d) * %d" % (stages, items), "gin + b * %d" % items, per))
            w("    cooperative_groups::wait(block)")
            if outdir == "s2g":
                w("    " + cg_copy("gout + b * %d" % items, "s + (b %% %d) * %d" % (stages, items), per))
                w("    cooperative_groups::wait(block)")
            else:
                out.extend(readback("b %% %d" % stages, "b", "    "))
        w("    __syncthreads()")
        w("end")
    else:
        if form != "thread":
            w("shared pipeline_shared_state<block, %d> st" % stages)
        first = len(out)
        if form == "thread":
            w("var p = make_pipeline()")
        else:
            if form == "unified":
                w("var p = make_pipeline(block, &st)")
            elif form == "count":
                w("var p = make_pipeline(block, &st, %d)" % rng.randint(1, threads - 1))
            else:
                w("var p = make_pipeline(block, &st, threadIdx.x < %d ? producer : consumer)"
                  % rng.randint(1, threads - 1))
        if form in ("thread", "unified"):
            # Every thread produces and consumes: batch b is copied `depth`
            # iterations before it is read; the acquire comes before the
            # release in an iteration, so depth is at most stages - 1.
            depth = min(stages - 1, batches)
            w("for (var b = 0; b < %d; b = b + 1)" % (batches + depth))
            w("    if (b < %d)" % batches)
            w("        p.producer_acquire()")
            w("        " + copy("s + (b %% %d) * %d" % (stages, items), "gin + b * %d" % items, per, "p"))
            w("        p.producer_commit()")
            w("    end")
            w("    if (b >= %d)" % depth)
            w("        p.consumer_wait()")
            out.extend(readback("(b - %d) %% %d" % (depth, stages), "b - %d" % depth, "        "))
            w("        p.consumer_release()")
            w("    end")
            w("end")
        else:
            # Partitioned: producers copy whole batches, consumers read them.
            # Producers are threads < np (count: the first operation fixes
            # the role), and the copy is by the producers alone.
            np_ = int(out[-1].split("threadIdx.x < ")[1].split(" ")[0]) if form == "role" else \
                int(out[-1].split(", ")[-1].rstrip(")"))
            w("if (threadIdx.x < %d)" % np_)
            w("    for (var b = 0; b < %d; b = b + 1)" % batches)
            w("        p.producer_acquire()")
            w("        for (var k = threadIdx.x; k < %d; k = k + %d)" % (items, np_))
            w("            memcpy_async(s + (b %% %d) * %d + k, gin + b * %d + k, sizeof(%s), p)"
              % (stages, items, items, t))
            w("        end")
            w("        p.producer_commit()")
            w("    end")
            w("else")
            w("    for (var c = 0; c < %d; c = c + 1)" % batches)
            w("        p.consumer_wait()")
            w("        for (var k = threadIdx.x - %d; k < %d; k = k + %d)" % (np_, items, threads - np_))
            w("            var v = load(s + (c %% %d) * %d + k)" % (stages, items))
            w("            store(gout + c * %d + k, v)" % items)
            w("        end")
            w("        p.consumer_release()")
            w("    end")
            w("end")
        if reps > 1:
            out[first:] = ["for (var rep = 0; rep < %d; rep = rep + 1)" % reps] + \
                ["    " + x for x in out[first:]] + ["end"]
    # The plain path: the same bytes by loads and stores.
    w("for (var i = threadIdx.x; i < %d; i = i + block.size())" % (items * batches))
    w("    var x = load(gin + i)")
    w("    store(gref + i, x)")
    w("end")
    return "\n".join(out) + "\n", out[1]


MUTATIONS = ["drop_release", "drop_wait", "overlap", "commit_first"]


def mutate(text, rng):
    """Breaks exactly one rule; returns (text, name) or None."""
    lines = text.split("\n")
    rng_order = MUTATIONS[:]
    rng.shuffle(rng_order)
    for m in rng_order:
        if m == "drop_release":
            idx = [i for i, l in enumerate(lines) if l.strip() == "p.consumer_release()"]
            if idx:
                # Without a release the producers run out of stages only
                # when there are more batches than stages; a thread pipeline
                # keeps going.  Report either a refusal or a valid run.
                continue
        if m == "drop_wait":
            idx = [i for i, l in enumerate(lines) if l.strip() == "p.consumer_wait()"]
            if idx:
                del lines[idx[0]]
                return "\n".join(lines), m
        if m == "overlap":
            idx = [i for i, l in enumerate(lines) if "memcpy_async(" in l and "gin" in l]
            if idx:
                # The source becomes the destination's own range (batch 0).
                l = lines[idx[0]]
                to_gout = re.search(r"memcpy_async\((\w+, )?gout", l) is not None
                lines[idx[0]] = l.replace("gin + ", "gout + " if to_gout else "s + 0 * ", 1)
                return "\n".join(lines), m
        if m == "commit_first":
            idx = [i for i, l in enumerate(lines) if l.strip() == "p.producer_acquire()"]
            if idx:
                lines[idx[0]] = lines[idx[0]].replace("p.producer_acquire()", "p.producer_commit()")
                return "\n".join(lines), m
    return None


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def read_ref(path):
    """The reference file: {buffer: bytes} of point 0."""
    data = open(path, "rb").read()
    assert data[:8] == b"SMPREF1\n", path
    at = 8
    out = {}
    while at < len(data):
        point, buf, n = struct.unpack_from("<IIQ", data, at)
        at += 16
        if point == 0:
            out[buf] = data[at:at + n]
        at += n
    return out


def check_valid(smpipe, path, tmp, args):
    """Returns a list of findings for a valid program."""
    found = []
    rc, o, e = run([smpipe, "check", path], args.timeout)
    if rc != 0:
        found.append("check: exit %s: %s" % (rc, e.strip()[:400]))
        return found
    rc, ev, e = run([smpipe, "run", path], args.timeout)
    if rc != 0:
        found.append("run (event): exit %s: %s" % (rc, e.strip()[:400]))
        return found
    rc2, st, e2 = run([smpipe, "run", path, "--engine", "stepped"], args.timeout)
    if rc2 != 0:
        found.append("run (stepped): exit %s: %s" % (rc2, e2.strip()[:400]))
    elif ev != st:
        found.append("the engines' reports differ")
    if " race: " in ev:
        found.append("a race warning on a valid program: " +
                     [l for l in ev.split("\n") if " race: " in l][0].strip())
    cu = os.path.join(tmp, "p.cu")
    rc, o, e = run([smpipe, "cuda", path, "-o", cu], args.timeout)
    if rc != 0:
        found.append("cuda: exit %s: %s" % (rc, e.strip()[:400]))
        return found
    ref = read_ref(cu + ".ref")
    # Buffers: gin 0, gout 1, gref 2.
    if ref.get(1) != ref.get(2):
        found.append("the copy path and the plain path moved different bytes")
    if args.nvcc:
        # As the cuda suite compiles them (tests/test_cuda_build.sh).
        rc, o, e = run([args.nvcc, "-O3", "-std=c++17", "-c", "--Werror", "all-warnings",
                        "-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90",
                        "-o", os.path.join(tmp, "p.o"), cu], 600)
        if rc != 0:
            found.append("nvcc: exit %s: %s" % (rc, (o + e).strip()[:400]))
    return found


def check_invalid(smpipe, path, args):
    rc, o, e = run([smpipe, "run", path], args.timeout)
    if rc == "timeout":
        return ["mutant: hangs"]
    if rc not in (1, 2):
        return ["mutant: exit %s (a broken rule accepted, or a crash): %s" % (rc, e.strip()[:400])]
    rc2, o2, e2 = run([smpipe, "run", path, "--engine", "stepped"], args.timeout)
    if rc2 != rc or e2 != e:
        return ["mutant: the engines disagree (%s / %s)" % (rc, rc2)]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("smpipe")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--minutes", type=float, default=0)
    ap.add_argument("--mutate", action="store_true")
    ap.add_argument("--nvcc")
    ap.add_argument("--out", default="genfuzz-findings")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    deadline = time.time() + args.minutes * 60 if args.minutes else None
    tmp = tempfile.mkdtemp()
    findings = 0
    mutants = 0
    i = 0
    try:
        while (deadline and time.time() < deadline) or (not deadline and i < args.count):
            rng = random.Random("%d/%d" % (args.seed, i))
            text, desc = gen_program(rng)
            path = os.path.join(tmp, "g%d.trace" % i)
            open(path, "w").write(text)
            found = check_valid(args.smpipe, path, tmp, args)
            if args.mutate and not found:
                m = mutate(text, rng)
                if m:
                    mpath = os.path.join(tmp, "g%d_%s.trace" % (i, m[1]))
                    open(mpath, "w").write(m[0])
                    mutants += 1
                    f2 = check_invalid(args.smpipe, mpath, args)
                    if f2:
                        found += f2
                        path = mpath
            if found:
                findings += 1
                os.makedirs(args.out, exist_ok=True)
                keep = os.path.join(args.out, "seed%d_%d_%s" % (args.seed, i, os.path.basename(path)))
                shutil.copy(path, keep)
                open(keep + ".txt", "w").write("\n".join(found) + "\n")
                print("FINDING %s: %s" % (keep, "; ".join(found)), flush=True)
            i += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("genfuzz: seed %d, %d programs, %d mutants, %d findings" % (args.seed, i, mutants, findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
