"""Golden outputs of pyworldgen 0.1.8's `forest` generator (its sites, crown ownership and canopy;
not the branch graphs) for bozkir-world's tests.

Run with the pyworldgen venv active, from this folder:
    python make_forest.py
Writes forest.json.gz: per case the sites (exact decimal doubles), and the `ny × nx` grids as
base64 of their little-endian bytes: owner (int32), border, terrain and canopy (float32).
"""

import base64
import gzip
import json

import numpy as np
import pyworldgen
from pyworldgen.biomes.forest import generate_forest

CASES = [
    ("forest", {}),
    (3, {"domain_size": [60.0, 40.0], "resolution": 1.0}),
    ("grenoble", {"canopy_diffusion": 0.4, "domain_size": [90.0, 70.0]}),
    (11, {"lloyd_iterations": 0, "target_tree_count": 30, "domain_size": [50.0, 50.0]}),
    (123456, {"lloyd_iterations": 3, "resolution": 2.0, "spacing_factor": 0.9,
              "competition_weight_strength": 30.0}),
]


def b64(a, dtype):
    return base64.b64encode(np.ascontiguousarray(a, dtype=dtype).tobytes()).decode()


def main():
    out = []
    for seed, params in CASES:
        w = generate_forest(seed=seed, params=dict(params), build_graphs=False)
        out.append({
            "seed": seed,
            "params": params,
            "shape": list(w.owner_grid.shape),
            "sites": [[s.id, s.xy[0], s.xy[1], s.height, s.crown_radius, s.weight, s.age, s.trunk_radius]
                      for s in w.sites],
            "owner": b64(w.owner_grid, "<i4"),
            "border": b64(w.border_distance, "<f4"),
            "terrain": b64(w.terrain_height, "<f4"),
            "canopy": b64(w.canopy_height, "<f4"),
        })
    with gzip.GzipFile("forest.json.gz", "wb", mtime=0) as f:
        f.write(json.dumps({"pyworldgen": pyworldgen.__version__, "cases": out}).encode())


if __name__ == "__main__":
    main()
