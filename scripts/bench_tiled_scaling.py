#!/usr/bin/env python3
"""Worker scaling of tiled generation on Dask (issue 26, docs/scale.md).

For each worker count, starts a LocalCluster of that many single-threaded worker processes, runs
`bozkir.tiled.generate` into a fresh store, and prints one JSON line per run: wall seconds of the
coarse pass and of the tiles, cells per second, microseconds per cell per worker, the workers'
peak resident memory, and a digest of the store's chunks (every run must give the same digest).

    python scripts/bench_tiled_scaling.py --size 4097 --tile 1024 --workers 1,2
    python scripts/bench_tiled_scaling.py --size 8193 --tile 1024 --workers 1,2,4,8,16 --out runs.jsonl

Needs the `bozkir` wheel and dask[distributed] (scripts/test_python.sh installs both).
"""

import argparse
import hashlib
import json
import os
import pathlib
import platform
import shutil
import sys
import tempfile
import time


def peak_rss_bytes():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def store_digest(store):
    """SHA-256 over the height chunks in key order: the same world gives the same digest."""
    h = hashlib.sha256()
    base = pathlib.Path(store) / "height" / "c"
    for p in sorted(q for q in base.rglob("*") if q.is_file()):
        h.update(str(p.relative_to(base)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--recipe", default="highlands")
    ap.add_argument("--size", type=int, default=4097)
    ap.add_argument("--tile", type=int, default=1024)
    ap.add_argument("--coarse", type=int, default=None)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    ap.add_argument("--dir", default=None, help="where the stores go (default: a temporary folder)")
    ap.add_argument("--out", default=None, help="also append the JSON lines to this file")
    a = ap.parse_args()

    import dask
    import distributed

    import bozkir.tiled

    counts = [int(w) for w in a.workers.split(",")]
    if not counts or min(counts) < 1:
        sys.exit(f"--workers {a.workers!r}: give counts of at least 1, e.g. 1,2,4")
    # Spawned workers: see docs/python.md (a worker forked after in-process work can hang).
    dask.config.set({"distributed.worker.multiprocessing-method": "spawn"})
    root = pathlib.Path(a.dir or tempfile.mkdtemp(prefix="bozkir-scaling-"))
    root.mkdir(parents=True, exist_ok=True)
    plan = bozkir.tiled.plan(a.recipe, size=a.size, tile=a.tile, coarse=a.coarse, seed=a.seed)
    cells = a.size * a.size
    for w in counts:
        store = root / f"w{w}.zarr"
        shutil.rmtree(store, ignore_errors=True)
        with distributed.LocalCluster(
            n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None, memory_limit=0
        ) as cluster, distributed.Client(cluster) as client:
            t0 = time.perf_counter()
            out = bozkir.tiled.generate(
                a.recipe, size=a.size, tile=a.tile, coarse=a.coarse, seed=a.seed, store=store, client=client
            )
            wall = time.perf_counter() - t0
            rss = client.run(peak_rss_bytes)
        row = dict(
            recipe=plan["recipe"],
            size=a.size,
            tile=a.tile,
            tiles=plan["tiles"][0] * plan["tiles"][1],
            halo=plan["halo"],
            workers=w,
            cpus=os.cpu_count(),
            machine=platform.processor() or platform.machine(),
            coarse_s=round(out["coarse_s"], 2),
            tiles_s=round(out["tiles_s"], 2),
            wall_s=round(wall, 2),
            mcells_per_s=round(cells / wall / 1e6, 2),
            us_per_cell_per_worker=round(wall * w / cells * 1e6, 3),
            tile_us_per_cell_per_worker=round(out["tiles_s"] * w / cells * 1e6, 3),
            worker_peak_rss_mib=round(max(rss.values()) / 2**20),
            digest=store_digest(store),
        )
        line = json.dumps(row)
        print(line, flush=True)
        if a.out:
            with open(a.out, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        shutil.rmtree(store, ignore_errors=True)


if __name__ == "__main__":
    main()
