"""Golden outputs of pyworldgen 0.1.8's `composite` for crates/world/tests/compose_golden.rs.

Run with the pyworldgen venv:  python make_compose.py  (writes compose.json, compose.bin.gz
and compose_roads.json next to this file). Forest and roads are off for the grids: trees are
ours, roads have their own goldens; compose_roads.json holds the road cells pyworldgen's
composite routes on its composed terrain (forest off), for the roads hook.

compose.bin.gz holds, per world in order, little-endian: region centres (f64 x, y pairs),
height f32, water depth f32, weights f32 (one plane per biome, palette order), tree density
f32, dominant u8, colour u8 (r, g, b per cell); compose.json has the sizes and offsets.
"""

import gzip
import json
import os

import numpy as np
from pyworldgen.compose import compose_world
from pyworldgen.compose.palette import BiomeType, _hills, _mountains, _plains, _water

HERE = os.path.dirname(os.path.abspath(__file__))

# A three-biome custom palette (written as TOML in the Rust test).
CUSTOM = [
    BiomeType("lake", (20, 60, 200), 0.0, (0.3, 0.8), _water, is_water=True),
    BiomeType("steppe", (200, 180, 100), 0.05, (0.5, 0.2), _plains),
    BiomeType("crags", (90, 90, 90), 0.3, (0.8, 0.5), _mountains),
    BiomeType("downs", (110, 160, 70), 0.6, (0.6, 0.6), _hills),
]

WORLDS = [
    ("int0", 0, {"domain_size": (65.0, 47.0), "resolution": 2.0}, None),  # 32.5 -> 32, 23.5 -> 24
    ("int42", 42, {"domain_size": (80.0, 60.0), "resolution": 2.5}, None),
    ("atlas", "atlas", {"domain_size": (96.0, 96.0), "resolution": 3.0}, None),
    ("composite", "composite", {"domain_size": (220.0, 220.0), "resolution": 5.0}, None),
    ("rhine", "rhine", {"domain_size": (120.0, 90.0), "resolution": 2.5, "num_regions": 6}, None),
    ("int12345", 12345, {"domain_size": (50.0, 70.0), "resolution": 1.25, "num_regions": 5,
                          "blend_softness": 0.3, "boundary_warp": 0.8, "base_level": -3.0}, None),
    ("custom7", 7, {"domain_size": (90.0, 90.0), "resolution": 2.0, "num_regions": 9}, CUSTOM),
]


def main():
    meta, chunks, offset = [], [], 0
    for name, seed, params, palette in WORLDS:
        p = dict(params, add_forest=False, add_roads=False)
        w = compose_world(seed=seed, params=p, palette=palette)
        ny, nx = w.height.shape
        seeds = np.array([(x, y) for x, y, _ in w.region_seeds], dtype="<f8").ravel()
        types = [w.biome_names.index(b) for _, _, b in w.region_seeds]
        arrays = [seeds, w.height.astype("<f4").ravel(), w.water_depth.astype("<f4").ravel()]
        arrays += [w.weights[b].astype("<f4").ravel() for b in w.biome_names]
        arrays += [w.tree_density.astype("<f4").ravel(), w.dominant.astype("u1").ravel(),
                   w.color.astype("u1").ravel()]
        blob = b"".join(a.tobytes() for a in arrays)
        meta.append({
            "name": name, "seed": seed, "seed_int": int(w.metadata["seed"]), "params": {
                k: list(v) if isinstance(v, tuple) else v for k, v in params.items()},
            "custom_palette": palette is not None, "nx": nx, "ny": ny,
            "biomes": w.biome_names, "region_types": types, "offset": offset, "bytes": len(blob),
        })
        chunks.append(blob)
        offset += len(blob)
    with open(os.path.join(HERE, "compose.bin.gz"), "wb") as f:
        f.write(gzip.compress(b"".join(chunks), compresslevel=9, mtime=0))
    with open(os.path.join(HERE, "compose.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")

    roads = []
    for seed in ["atlas", 7, "rhine"]:
        params = {"domain_size": [160.0, 160.0], "num_hubs": 5}
        w = compose_world(seed=seed, params=dict(params, add_forest=False))
        mask = np.asarray(w.roads.road_mask).astype(bool).ravel()
        roads.append({"seed": seed, "params": params, "nx": int(w.height.shape[1]),
                      "ny": int(w.height.shape[0]), "segments": len(w.roads.segments),
                      "road_cells": [int(i) for i in np.flatnonzero(mask)]})
    with open(os.path.join(HERE, "compose_roads.json"), "w") as f:
        json.dump(roads, f)
        f.write("\n")


if __name__ == "__main__":
    main()
