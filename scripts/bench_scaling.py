#!/usr/bin/env python3
"""Scaling table: wall time and peak memory of whole `bozkir` processes against grid size.

    python3 scripts/bench_scaling.py [--bozkir target/release/bozkir] [--gpu] \
        [--cases "profile:512,1024,2048 ds2:512,1024 erode:512,1024,2048 analyze:512,1024,2048"]

Each case runs once per size in a fresh process (`os.wait4` gives the child's own peak resident
memory); between sizes the script prints a markdown row, and at the end each workflow's slope
of log(time) against log(cells) over its sizes (1 = linear in cells; the fit uses the sizes
from 1024² up when there are at least two, as the smallest sizes are dominated by fixed costs).

Workflows (all with default outputs):
  profile  `terrain --profile canyon --seed 7 --size N` (plus `--gpu require` with --gpu)
  ds2      `terrain --recipe ds2 --seed 7 --size N` (plus `--gpu require` with --gpu)
  erode    `erode dem.tif --steps 20` on a noise DEM of N² at 30 m (scripts/scaling_dem.toml,
           made beforehand, not timed), U = 1e-3 m/yr, no diffusion (plus `--gpu require`)
  analyze  `analyze dem.tif` on the same DEM (plus `--gpu require`: the fill on the GPU)
Only the standard library: it runs on the GPU machine as well.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time


def run(cmd, limit):
    """Wall seconds and peak RSS (MiB) of one child process; raises on failure or past `limit` s."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    killer = threading.Timer(limit, p.kill)
    killer.start()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = status  # reaped here: keep Popen from waiting again
    killer.cancel()
    wall = time.perf_counter() - t0
    if wall >= limit:
        raise TimeoutError(f"past {limit:.0f} s")
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {err.decode(errors='replace')[-800:]}")
    return wall, ru.ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bozkir", default="target/release/bozkir")
    ap.add_argument("--gpu", action="store_true", help="erosion and fills on the GPU (--gpu require)")
    ap.add_argument("--cases", default="profile:512,1024,2048 ds2:512,1024 erode:512,1024,2048 analyze:512,1024,2048")
    ap.add_argument("--threads", type=int, default=0, help="--threads for bozkir (0: all cores)")
    ap.add_argument("--limit", type=float, default=1e9, help="seconds one run may take (then: a row saying so)")
    args = ap.parse_args()
    bz = os.path.abspath(args.bozkir)
    here = os.path.dirname(os.path.abspath(__file__))
    work = tempfile.mkdtemp(prefix="bozkir-scaling-")
    gpu = ["--gpu", "require"] if args.gpu else []
    common = ["-q", "--force"] + (["--threads", str(args.threads)] if args.threads else [])
    print(f"machine: {os.cpu_count()} logical CPUs; bozkir {bz}; gpu: {bool(args.gpu)}")
    print("| workflow | size | cells | wall (s) | µs per cell | peak RSS (MiB) | bytes per cell |")
    print("|---|---|---|---|---|---|---|")
    fits = {}
    dems = {}

    def dem(n):
        if n not in dems:
            d = os.path.join(work, f"dem{n}")
            r = subprocess.run([bz, "terrain", "--recipe", os.path.join(here, "scaling_dem.toml"), "--size", str(n),
                                "--outputs", "height", "--out", d] + common,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode != 0:
                raise RuntimeError(f"input DEM of {n}²: {r.stderr.decode(errors='replace').strip()[-200:]}")
            dems[n] = os.path.join(d, "height.tif")
        return dems[n]

    def command(name, n, out):
        if name == "profile":
            return [bz, "terrain", "--profile", "canyon", "--seed", "7", "--size", str(n), "--out", out] + gpu
        if name == "ds2":
            return [bz, "terrain", "--recipe", "ds2", "--seed", "7", "--size", str(n), "--out", out] + gpu
        if name == "erode":
            return [bz, "erode", dem(n), "--steps", "20", "--uplift", "1e-3", "--diffusion", "0", "--out", out] + gpu
        if name == "analyze":
            return [bz, "analyze", dem(n), "--out", out] + gpu
        sys.exit(f"unknown workflow {name!r} (profile, ds2, erode, analyze)")

    try:
        for case in args.cases.split():
            name, sizes = case.split(":")
            for n in [int(s) for s in sizes.split(",")]:
                out = os.path.join(work, f"{name}{n}")
                try:
                    cmd = command(name, n, out)
                except RuntimeError as e:
                    print(f"| {name} | {n}² | {n * n / 1e6:.2f} M | {e} | | | |", flush=True)
                    continue
                try:
                    wall, rss = run(cmd + common, args.limit)
                except (TimeoutError, RuntimeError) as e:
                    print(f"| {name} | {n}² | {n * n / 1e6:.2f} M | {str(e)[:200]} | | | |", flush=True)
                    shutil.rmtree(out, ignore_errors=True)
                    continue
                shutil.rmtree(out, ignore_errors=True)
                cells = n * n
                fits.setdefault(name, []).append((cells, wall))
                print(f"| {name}{' (GPU)' if gpu else ''} | {n}² | {cells / 1e6:.2f} M | "
                      f"{wall:.2f} | {wall / cells * 1e6:.3f} | {rss:.0f} | {rss * 2**20 / cells:.0f} |", flush=True)
        print()
        for name, pts in fits.items():
            use = [p for p in pts if p[0] >= 1024 * 1024]
            use = use if len(use) >= 2 else pts
            if len(use) < 2:
                continue
            xs = [math.log(c) for c, _ in use]
            ys = [math.log(t) for _, t in use]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
            print(f"slope {name}: time ∝ cells^{slope:.2f} (over {len(use)} sizes from {int(math.sqrt(use[0][0]))}²)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
