#!/usr/bin/env python3.11
"""Peer hydrology on real DEMs: pysheds' fill + D8 flow direction + D8 accumulation.

Writes data/peer/<name>.bin.gz, read by crates/terrain/tests/hydrology_peer.rs (the test never
runs Python). Run with the venv (git-ignored):

    python3.11 -m venv scripts/.venv
    scripts/.venv/bin/pip install numpy pysheds==0.5 tifffile
    scripts/.venv/bin/python scripts/peer_hydrology.py            # writes data/peer/*.bin.gz
    scripts/.venv/bin/python scripts/peer_hydrology.py --time     # also times pysheds at 1000²

Peer: pysheds 0.5 (numba). Pipeline: Grid.fill_pits -> fill_depressions (priority flood seeded
from the border) -> resolve_flats (Garbrecht & Martz style gradients, eps 1e-5) -> flowdir (D8,
ESRI dirmap 64,128,1,2,4,8,16,32 = N,NE,E,SE,S,SW,W,NW) -> accumulation (D8, cells).

Conventions pinned here, so that the Rust side can reproduce them:
* DEM: the int16 heights as stored, as float64 metres; row 0 is north. No nodata in either input.
* Cell size: both DEMs are geographic (3 arc-second). pysheds takes its D8 distances from the
  raster's affine (dx for E/W, dy for N/S, sqrt(dx²+dy²) diagonals), so we hand it an affine in
  metres: the cell size converted at the window's centre latitude on the WGS84 ellipsoid
  (metres per degree of longitude = pi*a*cos(phi) / (180*sqrt(1-e²sin²phi)), of latitude =
  pi*a*(1-e²) / (180*(1-e²sin²phi)^1.5)). dx and dy are stored in the header; the Rust test uses
  them, so both sides weigh diagonals the same (non-square cells: dx != dy).
* Edges: pysheds routes border cells like any other (a border cell may drain inward). Bozkir
  makes every border cell an outlet. To compare like with like, the peer's direction of every
  border cell is set to 0 (outlet) *before* its accumulation is computed; interior cells are
  untouched, and may still drain into a border cell on both sides.
* Flats: pysheds resolves flats by inflating them (resolve_flats); bozkir uses an epsilon
  (next-representable-value) fill. Cells of a flat may route differently, so the test compares
  directions only where the peer's *filled* DEM (stored here as `filled_minus_dem`) gives an
  unambiguous steepest descent; `flat_raise_max` (the largest rise resolve_flats applied) lets
  the test also exclude cells whose choice a flat's inflation could flip.
* Ties: pysheds keeps the first of equal slopes in its order N,NE,E,SE,S,SW,W,NW; bozkir the
  lowest row-major index. Tied cells are excluded in the test, not reproduced.

File format (<name>.bin.gz, gzip of): b"BZPEER01", u32 LE header length, that many bytes of UTF-8
JSON header, then the arrays back to back, little-endian, row-major, at the offsets the header
gives (relative to the start of the array section).
"""
import argparse
import gzip
import json
import math
import os
import struct
import sys
import time

import numpy as np

np.in1d = np.isin  # pysheds 0.5 calls np.in1d, removed in numpy >= 2.4

import pysheds  # noqa: E402
from affine import Affine  # noqa: E402  (a pysheds dependency)
from pysheds.sgrid import sGrid  # noqa: E402
from pysheds.sview import Raster, ViewFinder  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = "/work/shared/data/dem"
OUT = os.path.join(ROOT, "data", "peer")
WGS84_A = 6378137.0
WGS84_E2 = 6.69437999014e-3


def metres_per_degree(lat_deg):
    phi = math.radians(lat_deg)
    s = 1.0 - WGS84_E2 * math.sin(phi) ** 2
    lon = math.pi * WGS84_A * math.cos(phi) / (180.0 * math.sqrt(s))
    lat = math.pi * WGS84_A * (1.0 - WGS84_E2) / (180.0 * s**1.5)
    return lon, lat


def load_jacksboro():
    d = np.load(os.path.join(DATA, "jacksboro_fault_dem.npz"))
    z = d["elevation"]
    lat = 0.5 * (float(d["ymin"]) + float(d["ymax"]))
    mx, my = metres_per_degree(lat)
    src = "jacksboro_fault_dem.npz: key 'elevation' (int16, full 344x403), dx/dy degrees, ymin/ymax"
    return z, float(d["dx"]) * mx, float(d["dy"]) * my, lat, src


def load_srtm_window(x0=372, y0=372, n=256):
    import tifffile

    with tifffile.TiffFile(os.path.join(DATA, "srtm_ref.tif")) as t:
        page = t.pages[0]
        a = page.asarray()
        sx, sy, _ = page.tags["ModelPixelScaleTag"].value
        tie = page.tags["ModelTiepointTag"].value
    z = a[y0 : y0 + n, x0 : x0 + n]
    assert z.dtype == np.int16 and (z != -32768).all()
    lat = tie[4] - (y0 + n / 2.0) * sy  # tie point is the north-west corner
    mx, my = metres_per_degree(lat)
    src = f"srtm_ref.tif window rows {y0}..{y0 + n}, cols {x0}..{x0 + n} (int16, GDAL nodata -32768 absent)"
    return z, sx * mx, sy * my, lat, src


def peer(z, dx, dy):
    """pysheds pipeline on z (2-D array) with metre cell sizes. Returns dict of arrays."""
    dem = z.astype(np.float64)
    vf = ViewFinder(affine=Affine(dx, 0.0, 0.0, 0.0, -dy, 0.0), shape=dem.shape, nodata=np.float64(-32768.0))
    r = Raster(dem, viewfinder=vf)
    grid = sGrid.from_raster(r)
    pit = grid.fill_pits(r)
    filled = grid.fill_depressions(pit)
    inflated = grid.resolve_flats(filled)
    fdir = grid.flowdir(inflated, flats=-1, pits=-2, nodata_out=0)
    fdir = np.asarray(fdir).astype(np.int64)
    fdir[0, :] = 0
    fdir[-1, :] = 0
    fdir[:, 0] = 0
    fdir[:, -1] = 0
    unresolved = int(((fdir == -1) | (fdir == -2)).sum())
    fdir[fdir < 0] = 0
    fr = Raster(fdir, viewfinder=ViewFinder(affine=vf.affine, shape=dem.shape, nodata=np.int64(-999)))
    acc = grid.accumulation(fr, nodata_out=0.0)
    acc = np.asarray(acc)
    assert np.all(acc == np.round(acc)) and acc.min() >= 1
    filled = np.asarray(filled)
    delta = filled - dem
    assert np.all(delta == np.round(delta)) and delta.min() >= 0 and delta.max() < 32768
    raise_max = float((np.asarray(inflated) - filled).max())
    return {
        "dem": z.astype("<i2"),
        "filled_minus_dem": delta.astype("<i2"),
        "dir": fdir.astype(np.uint8),
        "acc": acc.astype("<u4"),
        "unresolved": unresolved,
        "flat_raise_max": raise_max,
        "filled_cells": int((delta > 0).sum()),
    }


def write(name, z, dx, dy, lat, src):
    res = peer(z, dx, dy)
    arrays = ["dem", "filled_minus_dem", "dir", "acc"]
    blobs, meta, off = [], [], 0
    for a in arrays:
        b = np.ascontiguousarray(res[a]).tobytes()
        meta.append({"name": a, "dtype": str(res[a].dtype.str), "offset": off, "bytes": len(b)})
        blobs.append(b)
        off += len(b)
    header = {
        "format": "BZPEER01",
        "name": name,
        "source": src,
        "width": int(z.shape[1]),
        "height": int(z.shape[0]),
        "dx": dx,
        "dy": dy,
        "centre_latitude": lat,
        "peer": f"pysheds {pysheds.__version__} (numpy {np.__version__})",
        "pipeline": "fill_pits, fill_depressions, resolve_flats(eps=1e-5), flowdir d8, accumulation d8",
        "dirmap": "ESRI: 1=E 2=SE 4=S 8=SW 16=W 32=NW 64=N 128=NE, 0 = outlet (all border cells forced)",
        "edges": "border directions forced to 0 (outlets) before accumulation",
        "flat_raise_max": res["flat_raise_max"],
        "unresolved_interior_flats_or_pits": res["unresolved"],
        "filled_cells": res["filled_cells"],
        "arrays": meta,
    }
    hj = json.dumps(header, indent=1).encode()
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, f"{name}.bin.gz")
    with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as f:
        f.write(b"BZPEER01" + struct.pack("<I", len(hj)) + hj + b"".join(blobs))
    print(f"{path}: {os.path.getsize(path)} bytes; {header['width']}x{header['height']}, dx={dx:.3f} dy={dy:.3f}, "
          f"filled cells {res['filled_cells']}, unresolved {res['unresolved']}, flat_raise_max {res['flat_raise_max']:.3g}")


def timing():
    """Second-call timings of pysheds on the whole 1000x1000 srtm_ref.tif (1 Mcell)."""
    z, dx, dy, _, _ = load_srtm_window(0, 0, 1000)
    dem = z.astype(np.float64)
    vf = ViewFinder(affine=Affine(dx, 0.0, 0.0, 0.0, -dy, 0.0), shape=dem.shape, nodata=np.float64(-32768.0))
    r = Raster(dem, viewfinder=vf)
    grid = sGrid.from_raster(r)
    for rep in range(2):
        t0 = time.perf_counter()
        filled = grid.fill_depressions(r)
        t1 = time.perf_counter()
        inflated = grid.resolve_flats(filled)
        t2 = time.perf_counter()
        fdir = grid.flowdir(inflated)
        t3 = time.perf_counter()
        grid.accumulation(fdir)
        t4 = time.perf_counter()
    n = dem.size / 1e6
    print(f"pysheds {pysheds.__version__} on srtm_ref 1000x1000 (second call): fill_depressions {t1 - t0:.3f} s "
          f"({n / (t1 - t0):.2f} Mcell/s), resolve_flats {t2 - t1:.3f} s, flowdir {t3 - t2:.3f} s, "
          f"accumulation {t4 - t3:.3f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--time", action="store_true", help="also time pysheds at 1000x1000")
    args = ap.parse_args()
    write("jacksboro_pysheds", *load_jacksboro())
    write("srtm256_pysheds", *load_srtm_window())
    if args.time:
        timing()
    return 0


if __name__ == "__main__":
    sys.exit(main())
