"""Golden outputs of pyworldgen 0.1.8's `flat` generator for bozkir-world's tests.

Run with the pyworldgen venv active, from this folder:
    python make_flat.py
Writes flat.json.gz: one case per (seed, params), with the grid shape and the float32 heights
(as exact decimal doubles), row 0 the southern row as pyworldgen stores it.
"""

import gzip
import json

import numpy as np
import pyworldgen

CASES = [
    (0, {"domain_size": [40.0, 30.0]}),
    ("flat", {"domain_size": [24.0, 24.0]}),
    (42, {"domain_size": [40.0, 30.0], "slope_x": 0.05, "slope_y": -0.02}),
    (7, {"domain_size": [50.0, 34.0], "resolution": 2.0, "undulation_amp": 1.5}),
    ("rhine", {"domain_size": [46.0, 40.0], "undulation_amp": 3.0, "undulation_scale": 0.07,
               "slope_x": 0.01}),
    ("atlas", {"domain_size": [25.0, 27.0], "resolution": 2.0, "undulation_amp": 0.8,
               "base_height": -3.5}),
    (-12345, {"domain_size": [33.0, 21.0], "resolution": 1.5, "undulation_amp": 2.0,
              "undulation_scale": 0.11, "slope_y": 0.03}),
    (4000000000, {"domain_size": [20.0, 20.0], "undulation_amp": 1.0}),
]


def main():
    out = []
    for seed, params in CASES:
        t = pyworldgen.generate("flat", seed=seed, **params)
        h = np.asarray(t.height, dtype=np.float32)
        assert h.dtype == np.float32 and not np.any(t.water_depth)
        out.append({
            "seed": seed,
            "params": params,
            "shape": list(h.shape),
            "height": [float(v) for v in h.ravel()],
        })
    with gzip.open("flat.json.gz", "wt") as f:
        json.dump({"pyworldgen": pyworldgen.__version__, "cases": out}, f)


if __name__ == "__main__":
    main()
