"""Golden outputs of pyworldgen 0.1.8's `implicit_cave` generator for bozkir-world's tests.

Run with the pyworldgen venv active, from this folder:
    python make_cave.py
Writes cave.json.gz: one case per (seed, params): the volume's shape (lateral, tunnel, up), its
occupancy packed 8 voxels a byte in numpy's C order (`np.packbits`, base64), the solid fraction,
and the cave field's density and components at fixed probe points (spec coordinates), as exact
decimal doubles.
"""

import base64
import gzip
import json

import numpy as np
import pyworldgen
from pyworldgen.biomes.cave import CaveParams, FusedCaveField

CASES = [
    ("luxembourg", {"length": 30.0}),
    (0, {"length": 24.0, "resolution": 2.0}),
    (7, {"length": 40.0, "resolution": 1.0, "CORR_R": 9.0, "SPELEO_SPAWN": 0.5}),
    ("cave", {}),
    (-3, {"length": 18.0, "resolution": 1.5, "SPELEO": False, "ROUGH": 0.0}),
    (123456789, {"length": 21.0, "resolution": 3.0, "CAV_T": 0.45, "WORM_T": 0.12}),
]

# Probe points (spec x lateral, y up, z tunnel): a grid over the default bounds, and far
# tunnel distances.
PROBES = [(x, y, z) for x in (-50.0, -12.3, 0.0, 7.7, 41.0) for y in (3.3, 27.0, 50.1)
          for z in (0.0, 13.37, 260.5, -77.0)]


def main():
    out = []
    for seed, params in CASES:
        p = dict(params)
        v = pyworldgen.generate("implicit_cave", seed=seed, **p)
        occ = np.asarray(v.occ, dtype=bool)
        cp = CaveParams.from_seed(seed, **{k: x for k, x in params.items() if k not in ("length", "resolution")})
        f = FusedCaveField(cp)
        xs, ys, zs = (np.array([q[i] for q in PROBES]) for i in range(3))
        comp = f.components(xs, ys, zs)
        dens = f.density(xs, ys, zs)
        out.append({
            "seed": seed,
            "params": params,
            "shape": list(occ.shape),
            "occ": base64.b64encode(np.packbits(occ.ravel()).tobytes()).decode(),
            "solid_fraction": float(occ.mean()),
            "probes": [list(q) for q in PROBES],
            "density": [float(d) for d in dens],
            "components": {k: [float(x) for x in np.broadcast_to(a, dens.shape)] for k, a in comp.items()},
        })
    with gzip.GzipFile("cave.json.gz", "wb", mtime=0) as f:
        f.write(json.dumps({"pyworldgen": pyworldgen.__version__, "cases": out}).encode())


if __name__ == "__main__":
    main()
