"""Golden outputs of pyworldgen 0.1.8's road generator for bozkir's `roads` tests.

Run with the pyworldgen venv active, from the repository root:

    python crates/world/tests/golden/make_roads.py

Writes crates/world/tests/golden/roads_<case>.json.gz (gzip without a timestamp, so the files
are reproducible): the input height and water depth (float32 as pyworldgen holds them,
little-endian, base64), the hubs, the routed edges (grid paths and smoothed
polylines), the road and bridge masks, the graded height, the 3-D polylines and the ribbon
mesh. The Rust test `roads_golden` rebuilds the same network and compares.
"""

import base64
import gzip
import json
import os

import numpy as np
import pyworldgen as bf
from pyworldgen.roads import carve_road_terrain, road_polylines_3d, road_ribbon_mesh
from pyworldgen.roads.generate import generate_roads

OUT = os.path.dirname(os.path.abspath(__file__))


def f64s(a):
    return [float(v) for v in np.asarray(a, dtype=np.float64).ravel()]


def f32_b64(a):
    """float32 values, little-endian, base64 (exact and compact)."""
    return base64.b64encode(np.asarray(a, dtype="<f4").tobytes()).decode()


def dump(name, seed, height, water, res, domain, net, params):
    graded = carve_road_terrain(net)
    polys = road_polylines_3d(net)
    verts, faces = road_ribbon_mesh(net)
    doc = {
        "seed": seed,
        "params": params,
        "nx": int(height.shape[1]),
        "ny": int(height.shape[0]),
        "resolution": float(res),
        "domain": [float(domain[0]), float(domain[1])],
        "height_f32": f32_b64(height),
        "water_f32": None if water is None else f32_b64(water),
        "hubs": [{"xy": list(map(float, n.xy)), "grid": list(map(int, n.grid))} for n in net.nodes],
        "segments": [
            {
                "a": s.a,
                "b": s.b,
                "grid_path": [[int(i), int(j)] for i, j in s.grid_path],
                "polyline": f64s(s.polyline),
            }
            for s in net.segments
        ],
        "road_mask": "".join("1" if v else "0" for v in net.road_mask.ravel()),
        "bridge_mask": "".join("1" if v else "0" for v in net.bridge_mask().ravel()),
        # graded height only where it differs from the input: [cell index, value]
        "graded_changes": [[int(i), float(graded.ravel()[i])] for i in np.flatnonzero(graded.ravel() != height.astype(np.float64).ravel())],
        "polylines_3d": [f64s(p) for p in polys],
        "ribbon_vertices_f32": f32_b64(verts),
        "ribbon_faces": [int(v) for v in faces.ravel()],
    }
    path = os.path.join(OUT, f"roads_{name}.json.gz")
    data = json.dumps(doc, separators=(",", ":")).encode()
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(data)
    print(path, len(net.nodes), "hubs", len(net.segments), "segments", int(net.road_mask.sum()), "road cells")


def flat_case(name, seed, terrain_params, road_params):
    """The `roads` generator: roads over pyworldgen's flat terrain."""
    params = {**terrain_params, **road_params}
    net = bf.generate("roads", seed=seed, **params)
    t = bf.generate("flat", seed=seed, **terrain_params)
    assert np.array_equal(net.height, t.height)
    dump(name, seed, t.height, t.water_depth, t.resolution, t.domain_size, net, params)


def landscape_case(name, land_seed, land_params, road_seed, road_params):
    """Roads over a pyworldgen landscape (with water, so bridges)."""
    w = bf.generate("landscape", seed=land_seed, **land_params)
    ny, nx = w.height.shape
    domain = (nx * w.resolution, ny * w.resolution)
    net = generate_roads(w.height, w.resolution, seed=road_seed, water=w.water_depth, params=road_params)
    dump(name, road_seed, w.height, w.water_depth, w.resolution, domain, net, road_params)


def composite_case(name, seed, comp_params):
    """The roads pyworldgen's `composite` lays over its blended terrain."""
    from pyworldgen.core.hash import seed_to_int

    w = bf.generate("composite", seed=seed, **comp_params)
    net = w.roads
    road_seed = seed_to_int(seed) + 77
    params = {"num_hubs": net.metadata["params"]["num_hubs"], "mask_radius": net.metadata["params"]["mask_radius"]}
    dump(name, road_seed, w.height, w.water_depth, w.resolution, w.domain_size, net, params)


if __name__ == "__main__":
    flat_case("flat0", 0, {"domain_size": (60.0, 60.0), "undulation_amp": 4.0}, {})
    flat_case(
        "rhine",
        "rhine",
        {"domain_size": (80.0, 60.0), "slope_x": 0.05, "undulation_amp": 9.0, "undulation_scale": 0.05},
        {"mask_radius": 5, "num_hubs": 6},
    )
    flat_case(
        "curv7",
        7,
        {"domain_size": (50.0, 50.0), "undulation_amp": 5.0},
        {"mask_radius": 1, "num_hubs": 5, "curvature_weight": 0.5, "smoothing_iters": 3, "width": 5.0},
    )
    flat_case(
        "curv11_k3",
        11,
        {"domain_size": (44.0, 40.0), "undulation_amp": 4.0},
        {"mask_radius": 3, "num_hubs": 4, "curvature_weight": 0.8, "reuse_discount": 0.5},
    )
    flat_case("atlas", "atlas", {"domain_size": (64.0, 48.0), "resolution": 1.5, "undulation_amp": 3.0}, {"max_grade": 0.2})
    landscape_case("land3", 3, {"domain_size": (80.0, 80.0)}, "roads", {"num_hubs": 7})
    landscape_case(
        "land11_nobridge", 11, {"domain_size": (70.0, 70.0)}, 5, {"num_hubs": 6, "allow_bridges": False, "mask_radius": 4}
    )
    composite_case("comp0", 0, {"domain_size": (90.0, 90.0), "num_hubs": 6})
    composite_case("comp_rhine", "rhine", {"domain_size": (90.0, 90.0), "num_hubs": 6})
