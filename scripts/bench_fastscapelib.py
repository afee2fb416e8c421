#!/usr/bin/env python3.11
"""Side-by-side timing of the peer: fastscapelib 0.3 stream-power steps on bozkir's synthetic DEM.

Run with the venv (git-ignored):

    python3.11 -m venv scripts/.venv
    scripts/.venv/bin/pip install fastscapelib numpy
    scripts/.venv/bin/python scripts/bench_fastscapelib.py [--size 1024] [--steps 10]

then ours on the very same input (it reads the DEM this script writes):

    cargo bench -p bozkir-bench --bench stream_power

What it does:
* Synthesises the benchmark DEM: 6-octave value-noise fBm from bozkir's integer hash
  (`hash_unit(x, y, octave)` on a lattice of period 128/2^octave cells, smoothstep-interpolated,
  amplitudes 1/2^octave), scaled to 0..1000 m, cells 30 m x 30 m. The same function is in
  `crates/bench/benches/stream_power.rs`; the file written here is what both sides read.
* Writes it as raw little-endian f64, row-major, to /tmp/bozkir_sp_dem_<n>.f64.
* Runs N steps of fastscapelib with the same physics as bozkir's benchmark run: uniform uplift
  U = 1e-3 m/yr of the core nodes, K = 1e-5 /yr, m = 0.5, n = 1, dt = 1000 yr, no diffusion,
  all borders FIXED_VALUE. Per step (as in fastscapelib's own examples): uplift,
  `FlowGraph(grid, [PFloodSinkResolver(), SingleFlowRouter()]).update_routes`, `accumulate(1.0)`
  (area in m^2), `SPLEroder.erode`. fastscapelib re-fills depressions every step; bozkir fills
  once and keeps the no-new-pit invariant.
* Prints wall and CPU Mcell-steps/s (fastscapelib is single-threaded), best of --repeat runs,
  and writes the final heights to /tmp/bozkir_sp_fastscapelib_<n>_<steps>.f64 so the Rust bench
  can report how far apart the two results are.
"""
import argparse
import time

import numpy as np

M32 = np.uint64(0xFFFFFFFF)


def hash_unit(x, y, s):
    """bozkir's hash_u32 (Math.imul semantics) mapped to [0, 1): h / 2^32."""
    x = x.astype(np.uint64)
    y = y.astype(np.uint64)
    s = np.uint64(s)
    h = ((x * np.uint64(0x27D4EB2D)) & M32) ^ ((y * np.uint64(0x165667B1)) & M32) ^ ((s * np.uint64(0x9E3779B1)) & M32)
    h = ((h ^ (h >> np.uint64(15))) * np.uint64(0x85EBCA6B)) & M32
    h = ((h ^ (h >> np.uint64(13))) * np.uint64(0xC2B2AE35)) & M32
    h = h ^ (h >> np.uint64(16))
    return h.astype(np.float64) * (1.0 / 4294967296.0)


def synth_dem(n):
    """Same operation order as `synth_dem` in crates/bench/benches/stream_power.rs."""
    yy, xx = np.meshgrid(np.arange(n, dtype=np.float64), np.arange(n, dtype=np.float64), indexing="ij")
    v = np.zeros((n, n))
    amp, tot = 1.0, 0.0
    for o in range(6):
        period = 128.0 / float(1 << o)
        fx, fy = xx / period, yy / period
        ix, iy = np.floor(fx), np.floor(fy)
        tx, ty = fx - ix, fy - iy
        sx, sy = tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty)
        ix, iy = ix.astype(np.int64), iy.astype(np.int64)
        a, b = hash_unit(ix, iy, o), hash_unit(ix + 1, iy, o)
        c, d = hash_unit(ix, iy + 1, o), hash_unit(ix + 1, iy + 1, o)
        top = a + (b - a) * sx
        bot = c + (d - c) * sx
        v += amp * (top + (bot - top) * sy)
        tot += amp
        amp *= 0.5
    return 1000.0 * v / tot


def run_fastscapelib(z0, steps, dx, k, m, dt, uplift):
    import fastscapelib as fs

    n = z0.shape[0]
    grid = fs.RasterGrid([n, n], [dx, dx], fs.NodeStatus.FIXED_VALUE)
    graph = fs.FlowGraph(grid, [fs.PFloodSinkResolver(), fs.SingleFlowRouter()])
    eroder = fs.SPLEroder(graph, k_coef=k, area_exp=m, slope_exp=1.0)
    core = np.zeros((n, n), dtype=bool)
    core[1:-1, 1:-1] = True
    up = np.where(core, uplift * dt, 0.0)
    h = z0.copy()
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        h = h + up
        filled = graph.update_routes(h)
        area = graph.accumulate(1.0)
        h = filled - eroder.erode(filled, area, dt)
    return h, time.perf_counter() - t0, time.process_time() - c0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--write-npz", metavar="PATH", help="only write the DEM as an NPZ (height, dx, dy) and exit")
    ap.add_argument("--run-npz", metavar="PATH",
                    help="whole-process mode: read the DEM from this NPZ, run --steps once, "
                         "save the heights to --save (timed from outside, see bench_erode_process.sh)")
    ap.add_argument("--save", metavar="PATH", help="with --run-npz: where the final heights go (.npy)")
    args = ap.parse_args()
    n, steps = args.size, args.steps
    dx, k, m, dt, uplift = 30.0, 1e-5, 0.5, 1000.0, 1e-3

    if args.write_npz:
        np.savez(args.write_npz, height=synth_dem(n), dx=np.float64(dx), dy=np.float64(dx))
        return
    if args.run_npz:
        f = np.load(args.run_npz)
        h, _, _ = run_fastscapelib(f["height"], steps, float(f["dx"]), k, m, dt, uplift)
        np.save(args.save, h)
        return

    z0 = synth_dem(n)
    dem_path = f"/tmp/bozkir_sp_dem_{n}.f64"
    z0.astype("<f8").tofile(dem_path)
    print(f"DEM {n}x{n}, {z0.min():.1f}..{z0.max():.1f} m, written to {dem_path}")

    import fastscapelib

    best = None
    for _ in range(args.repeat):
        h, wall, cpu = run_fastscapelib(z0, steps, dx, k, m, dt, uplift)
        if best is None or wall < best[1]:
            best = (h, wall, cpu)
    h, wall, cpu = best
    cells = n * n * steps
    print(f"fastscapelib {fastscapelib.__version__}: {steps} steps in {wall:.3f} s wall ({cpu:.3f} s CPU), "
          f"{wall / steps * 1e3:.1f} ms/step -> {cells / wall / 1e6:.2f} Mcell-steps/s wall, "
          f"{cells / cpu / 1e6:.2f} CPU")
    out_path = f"/tmp/bozkir_sp_fastscapelib_{n}_{steps}.f64"
    h.astype("<f8").tofile(out_path)
    print(f"final heights (mean {h.mean():.4f} m) written to {out_path}")


if __name__ == "__main__":
    main()
