"""Golden outputs of scipy.ndimage.gaussian_filter (defaults) for bozkir-world's compat::ndimage.

Run with the pyworldgen venv:  python crates/world/tests/golden/make_ndimage.py
Writes ndimage.json.gz: per case the shape (ny, nx), sigma, dtype, and input/output as hex
IEEE-754 bit patterns (16 digits for float64, 8 for float32), row-major.
"""
import gzip
import json
import os
import struct

import numpy as np
import scipy
from scipy.ndimage import gaussian_filter

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPES = [(3, 5), (5, 3), (1, 7), (8, 8), (13, 7), (24, 32)]
SIGMAS = [0.35, 0.75, 1.0, 2.0, 2.5, 6.0]


def hexes(a):
    if a.dtype == np.float64:
        return "".join("%016x" % struct.unpack("<Q", struct.pack("<d", v))[0] for v in a.ravel())
    return "".join("%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in a.ravel())


def main():
    rng = np.random.default_rng(2101)
    cases = []
    for ny, nx in SHAPES:
        base = rng.uniform(-50.0, 400.0, size=(ny, nx))
        for sigma in SIGMAS:
            for dtype in (np.float64, np.float32):
                a = base.astype(dtype)
                out = gaussian_filter(a, sigma)
                assert out.dtype == dtype
                cases.append({"ny": ny, "nx": nx, "sigma": sigma, "dtype": np.dtype(dtype).name,
                              "input": hexes(a), "output": hexes(out)})
    doc = {"scipy": scipy.__version__, "numpy": np.__version__, "cases": cases}
    path = os.path.join(HERE, "ndimage.json.gz")
    raw = json.dumps(doc, separators=(",", ":")).encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(raw, mtime=0))
    print("wrote", path, os.path.getsize(path), "bytes,", len(cases), "cases")


if __name__ == "__main__":
    main()
