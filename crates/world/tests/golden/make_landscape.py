"""Golden outputs of pyworldgen 0.1.8's `landscape` generator for bozkir's Rust tests.

Run with the pyworldgen venv active:  python make_landscape.py
Writes landscape.json.gz next to this file: per case the seed, the parameter overrides, the
grid shape, and the outputs (height, water depth, moisture as little-endian float32 base64,
material as uint8 base64, rivers, ponds, and every value numpy's generators handed out).
"""
import base64
import gzip
import json
import os

import struct

import numpy as np
import pyworldgen.biomes.landscape as landscape_module
from pyworldgen.biomes.landscape import generate_landscape

_real_default_rng = np.random.default_rng
_draws = {}


def _bits(v):
    return struct.unpack("<Q", struct.pack("<d", float(v)))[0]


class _Recorder:
    """Wraps numpy's Generator and records every value it hands out, as f64 bit patterns (or
    the chosen index for `choice`), so the Rust test can check the generator apart from numpy's
    bit stream."""

    def __init__(self, seed):
        self.g = _real_default_rng(seed)
        self.log = _draws.setdefault(str(seed), [])

    def uniform(self, lo=0.0, hi=1.0):
        v = self.g.uniform(lo, hi)
        self.log.append(["uniform", _bits(v)])
        return v

    def random(self):
        v = self.g.random()
        self.log.append(["random", _bits(v)])
        return v

    def integers(self, n):
        v = self.g.integers(n)
        self.log.append(["integers", int(v)])
        return v

    def normal(self, size=None):
        v = self.g.normal(size=size)
        for x in np.atleast_1d(v):
            self.log.append(["normal", _bits(x)])
        return v

    def choice(self, items):
        v = self.g.choice(items)
        self.log.append(["choice", [str(i) for i in items].index(str(v))])
        return v

CASES = [
    (7, {"domain_size": [60.0, 60.0], "resolution": 2.0}),
    ("rhine", {"domain_size": [80.0, 50.0], "resolution": 2.5}),
    ("atlas", {"domain_size": [120.0, 120.0], "resolution": 4.0}),
    (123, {"domain_size": [64.0, 72.0], "resolution": 2.0, "main_river_count": 3, "tributaries_per_main": 2}),
    ("plains", {"domain_size": [48.0, 48.0], "resolution": 1.5, "smoothing_sigma": 1.3, "pond_count": 3}),
    (0, {"domain_size": [40.0, 56.0], "resolution": 2.0, "river_samples": 30, "pond_near_river_probability": 0.2}),
]


def b64(a, dtype):
    return base64.b64encode(np.ascontiguousarray(a, dtype=dtype).astype(np.dtype(dtype).newbyteorder("<")).tobytes()).decode()


def main():
    out = []
    landscape_module.np.random.default_rng = _Recorder
    for seed, params in CASES:
        _draws.clear()
        w = generate_landscape(seed=seed, params=dict(params, domain_size=tuple(params["domain_size"])))
        ny, nx = w.height.shape
        out.append({
            "seed": seed,
            "params": params,
            "nx": nx,
            "ny": ny,
            "height": b64(w.height, np.float32),
            "water_depth": b64(w.water_depth, np.float32),
            "moisture": b64(w.moisture, np.float32),
            "material": b64(w.material, np.uint8),
            "rivers": [r.to_dict() for r in w.rivers],
            "ponds": [p.to_dict() for p in w.ponds],
            "draws": dict(_draws),
        })
    landscape_module.np.random.default_rng = _real_default_rng
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "landscape.json.gz")
    with gzip.open(path, "wt", compresslevel=9) as f:
        json.dump(out, f, separators=(",", ":"))
    print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
