#!/usr/bin/env python3
"""Goldens for bozkir-points' pyworldgen/numpy compatibility (crates/points/tests/pyworldgen.rs).

Runs pyworldgen 0.1.8's point functions and numpy's default_rng on fixed inputs and writes
their outputs (never pyworldgen code) into crates/points/tests/golden/:

* numpy_rng.txt   SeedSequence pools and states, PCG64 state/increment and raw words,
                  random() doubles, integers() and weighted choice() sequences, np.sum
                  (pairwise) of fixed arrays;
* pwg_points.txt  the test meshes (a hand-made one with very unequal triangle areas, a fully
                  degenerate one and a pyworldgen landscape terrain mesh), then for each
                  (mesh, seed) the sample's count, first points and normals and an FNV-1a 64
                  hash of all of them; farthest_point_sampling indices; points_to_occupancy
                  shapes, origins, counts and cell hashes;
* pwg_*.ply, pwg_*.xyz  files written by pyworldgen's write_ply / write_xyz.

Format of the .txt files: one record per line, `key token token ...`; f64 values as the 16
hex digits of their IEEE-754 bits, f32 as 8, u32/u64/u128 as hex, indices in decimal.
Hashes are FNV-1a 64 (basis 0xcbf29ce484222325, prime 0x100000001b3) over the little-endian
bytes of the f64 values (all points x y z, then all normals) or of the occupancy cells (one
byte 0/1 each, C order).

Regenerate (from the repository root):

    /work/scratch/pwg/venv/bin/python scripts/pyworldgen_points_golden.py

(any venv with pyworldgen 0.1.8 and numpy 2.x; checked with numpy 2.4.6).
"""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path

import numpy as np
import pyworldgen
from pyworldgen.biomes.landscape import generate_landscape
from pyworldgen.io import write_ply, write_xyz
from pyworldgen.io.obj import landscape_terrain_mesh
from pyworldgen.pointcloud import PointCloud, points_to_occupancy, sample_mesh_surface
from pyworldgen.spatial import farthest_point_sampling

OUT = Path(__file__).resolve().parent.parent / "crates" / "points" / "tests" / "golden"


def f64(v) -> str:
    return struct.pack(">d", float(v)).hex()


def f32(v) -> str:
    return struct.pack(">f", float(v)).hex()


def fnv(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def line(key: str, tokens) -> str:
    return key + " " + " ".join(str(t) for t in tokens) + "\n"


# --------------------------------------------------------------------------- numpy
SEEDS = [0, 1, 42, 12345, 2**32 + 5, 2**64 + 3, 2**127 + 11, 2**128 - 1]
INT_CALLS = [(0, 7, 9), (0, 7, 9), (5, 3_000_000_000, 5), (0, 2**32, 3), (-5, 2**40 + 3, 4), (0, 1, 2),
             (-(2**63), 2**63 - 1, 3), (0, 2**32 + 1, 3)]
PW_SIZES = [1, 2, 7, 8, 9, 15, 16, 17, 100, 127, 128, 129, 255, 256, 1000, 8191, 8192, 8193, 100_000]


def pw_array(n: int) -> np.ndarray:
    scales = [1e-8, 1.0, 1e8]
    return np.array([float((i * 2654435761) % 1000003) / 997.0 * scales[i % 3] for i in range(n)])


def numpy_goldens() -> str:
    out = []
    for s in SEEDS:
        ss = np.random.SeedSequence(s)
        out.append(line(f"pool.{s}", [f"{w:08x}" for w in ss.pool]))
        out.append(line(f"state32.{s}", [f"{w:08x}" for w in ss.generate_state(8)]))
        bg = np.random.PCG64(s)
        st = bg.state["state"]
        out.append(line(f"pcg.{s}", [f"{st['state']:032x}", f"{st['inc']:032x}"]))
        out.append(line(f"raw.{s}", [f"{int(w):016x}" for w in bg.random_raw(8)]))
        g = np.random.default_rng(s)
        out.append(line(f"random.{s}", [f64(v) for v in g.random(8)]))
        # One generator through a sequence of calls: the buffered half-word carries over.
        g = np.random.default_rng(s)
        ints = []
        for lo, hi, n in INT_CALLS:
            ints += [int(v) for v in g.integers(lo, hi, size=n)]
        out.append(line(f"ints.{s}", ints))
        out.append(line(f"ints_then_random.{s}", [f64(g.random())]))
        w = np.array([float((i * 7919) % 13) for i in range(60)])
        p = w / float(w.sum())
        g = np.random.default_rng(s)
        out.append(line(f"choice.{s}", [int(v) for v in g.choice(60, size=200, p=p)]))
        out.append(line(f"choice_then_random.{s}", [f64(g.random())]))
    ss = np.random.SeedSequence([1, 2, 3, 4, 5, 6, 7])
    out.append(line("pool.list", [f"{w:08x}" for w in ss.pool]))
    out.append(line("state64.list", [f"{int(w):016x}" for w in ss.generate_state(3, np.uint64)]))
    for n in PW_SIZES:
        out.append(line(f"pwsum.{n}", [f64(pw_array(n).sum())]))
    return "".join(out)


# --------------------------------------------------------------------------- meshes
def unequal_mesh():
    """Triangles with twice-areas from ~1e-14 to ~2e4, two degenerate ones, assorted
    orientations and signs."""
    v = np.array([
        [0, 0, 0], [100, 0, 0], [0, 100, 0],            # 0-2: 1e4 (twice area)
        [1, 1, 1], [1.001, 1, 1], [1, 1.002, 1],        # 3-5: 2e-6
        [-3, 0.5, 5], [-3, 3.5, 5], [-3, 0.5, 9.25],    # 6-8: 12.75
        [2, 2, 2], [3, 4, 5],                           # 9-10: with 9 repeated: degenerate
        [-1, 0, 0], [1, 2, 0.5], [-2, 1, 3],            # 11-13: skew
        [0, 0, 0.1], [1, 1, 1.1], [3, 3, 3.1],          # 14-16: collinear
        [5, 5, 5], [5.5, 5, 5], [5, 5, 5.2],            # 17-19: 0.1
        [7, 7, 7], [7 + 1e-7, 7, 7], [7, 7 + 1e-7, 7],  # 20-22: below 1e-12 (normal unscaled)
        [0.1, -4.3, 0.7], [2.9, -4.1, 0.2], [0.3, -3.3, 1.9],
    ], dtype=np.float64)
    f = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 9, 10], [11, 12, 13], [14, 15, 16],
                  [17, 18, 19], [20, 21, 22], [23, 24, 25], [2, 1, 0], [8, 6, 11]], dtype=np.int64)
    return v, f


def flat_mesh():
    v = np.array([[0, 0, 0], [1, 1, 1], [2, 2, 2], [4, 0, 1]], dtype=np.float64)
    f = np.array([[0, 1, 2], [3, 3, 0], [1, 1, 1]], dtype=np.int64)
    return v, f


def landscape_mesh():
    world = generate_landscape(seed=7, params={"domain_size": (64.0, 64.0)})
    verts, faces = landscape_terrain_mesh(world)
    return verts, faces


def point_bytes(arr) -> bytes:
    return np.ascontiguousarray(np.asarray(arr, dtype="<f8")).tobytes()


def points_goldens() -> tuple[str, dict]:
    out = []
    meshes = {"unequal": unequal_mesh(), "flat": flat_mesh(), "landscape": landscape_mesh()}
    for name, (v, f) in meshes.items():
        if v.dtype == np.float32:
            out.append(line(f"verts32.{name}", [f32(x) for x in v.ravel()]))
        else:
            out.append(line(f"verts64.{name}", [f64(x) for x in v.ravel()]))
        out.append(line(f"faces.{name}", [int(x) for x in np.asarray(f).ravel()]))
    clouds = {}
    for name, seed, count in [("unequal", 0, 3000), ("unequal", 2**40 + 1, 3000), ("flat", 5, 50),
                              ("landscape", 1, 4000), ("landscape", 123456789, 4000)]:
        c = sample_mesh_surface(meshes[name], count, seed=seed)
        clouds[(name, seed)] = c
        key = f"sample.{name}.{seed}"
        out.append(line(key + ".count", [len(c.points)]))
        out.append(line(key + ".hash", [fnv(point_bytes(c.points) + point_bytes(c.normals))]))
        head = np.column_stack([c.points[:16], c.normals[:16]]).ravel()
        out.append(line(key + ".head", [f64(x) for x in head]))
    land = clouds[("landscape", 1)].points
    uneq = clouds[("unequal", 0)].points
    flat = clouds[("flat", 5)].points
    dups = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 0], [1, 0, 0], [5, 0, 0], [1, 0, 0]], dtype=np.float64)
    for key, pts, k, start in [("landscape.256.0", land, 256, 0), ("landscape.300.1234", land, 300, 1234),
                               ("unequal.200.7", uneq, 200, 7), ("flat.10.3", flat, 10, 3),
                               ("dups.5.1", dups, 5, 1), ("dups.6.9", dups, 6, 9), ("dups.0.0", dups, 0, 0)]:
        idx = farthest_point_sampling(pts, k, start_idx=start)
        out.append(line(f"fps.{key}", ["-"] + [int(i) for i in idx]))
    for key, pts, res, origin, pad in [("landscape.a", land, 2.0, None, 0), ("landscape.b", land, 0.7, None, 2),
                                       ("landscape.c", land, 1.0, tuple(np.floor(land.min(axis=0)) - 1.5), 1),
                                       ("unequal.a", uneq, 0.5, None, 0), ("unequal.b", uneq, 3.0, None, 1)]:
        occ, org = points_to_occupancy(pts, resolution=res, origin=origin, pad=pad)
        cells = np.ascontiguousarray(occ, dtype=np.uint8).tobytes()
        out.append(line(f"occ.{key}", list(occ.shape) + [f64(x) for x in org] + [int(occ.sum()), fnv(cells)]))
    return "".join(out), clouds


def text_files(clouds) -> dict[str, bytes]:
    c = clouds[("landscape", 1)]
    files = {}
    small = PointCloud(c.points[:40], c.normals[:40])
    ties = np.array([[0.0078125, -0.0, 1e-9], [-1e-9, 2.5, 123456789.0000005], [3 / 128, -3 / 128, 1e15 / 3]])
    rgb = np.array([[-3.0, 12.9, 300.0], [255.0, 0.5, 17.0], [128.4, 254.99, 1.0]])
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        write_ply(t / "a.ply", small)
        write_xyz(t / "a.xyz", small)
        write_xyz(t / "b.xyz", small, with_normals=False)
        write_ply(t / "c.ply", PointCloud(ties, None, rgb), comment="ties and colours")
        write_ply(t / "d.ply", ties)
        for src, dst in [("a.ply", "pwg_landscape40.ply"), ("a.xyz", "pwg_landscape40.xyz"),
                         ("b.xyz", "pwg_landscape40_points.xyz"), ("c.ply", "pwg_ties_colours.ply"),
                         ("d.ply", "pwg_ties.ply")]:
            files[dst] = (t / src).read_bytes()
    return files


def main() -> None:
    assert pyworldgen.__version__ == "0.1.8", pyworldgen.__version__
    OUT.mkdir(parents=True, exist_ok=True)
    header = f"# numpy {np.__version__}, pyworldgen {pyworldgen.__version__}; scripts/pyworldgen_points_golden.py\n"
    (OUT / "numpy_rng.txt").write_text(header + numpy_goldens())
    text, clouds = points_goldens()
    (OUT / "pwg_points.txt").write_text(header + text)
    for name, data in text_files(clouds).items():
        (OUT / name).write_bytes(data)
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"wrote {OUT} ({total} bytes)")


if __name__ == "__main__":
    main()
