#!/usr/bin/env python3
"""Peers of the issue-23 speed benches ("Views"), on the inputs that bozkir's `views_inputs`
example writes (the same numbers as our criterion benches), and the side-by-side table.

    bench_views_peer.py peers INPUT_DIR OUT.json     # time the peers, write their figures
    bench_views_peer.py table PEERS.json CRITERION_DIR [OUT.md]   # ours (criterion medians) + peers

Peers (each figure the best of REPEAT runs, default 3, wall clock, ms):
  * pyworldgen 0.1.8 SoftwareRenderer on the 1 M-point cloud at 1280 x 720 (one pixel per point,
    colour: its fastest; and its defaults, 3 x 3-pixel squares, depth colouring) and on the
    999,698-triangle mesh (its per-triangle Python loop: a random subset of MESH_SUBSET triangles,
    default 20000, is drawn and the time scaled to the whole mesh; MESH_SUBSET=0 draws all);
  * pyworldgen sample_mesh_surface (1 M points on that mesh) and farthest_point_sampling
    (numpy backend; 40,000 -> 4,096);
  * fpsample: fps_sampling (vanilla exact), fps_npdu_kdtree_sampling, bucket_fps_kdtree_sampling
    and bucket_fps_kdline_sampling (QuickFPS, h = 7) on 40,000 -> 4,096, and kdline (h = 9) on
    10 M -> 100 k in a child process killed after BIG_TIMEOUT seconds (default 300);
  * open3d PointCloud.farthest_point_down_sample on 40,000 -> 4,096, and 10 M -> 100 k with the
    same timeout.
FPS starts at index 0 everywhere; the exact picks are checked against the numpy reference.
"""
import json
import multiprocessing as mp
import os
import sys
import time

import numpy as np

REPEAT = int(os.environ.get("REPEAT", "3"))
BIG_TIMEOUT = float(os.environ.get("BIG_TIMEOUT", "300"))
EYE = (0.0, 70.0, 260.0)


def best(f, repeat=REPEAT):
    t, out = float("inf"), None
    for _ in range(repeat):
        s = time.perf_counter()
        out = f()
        t = min(t, (time.perf_counter() - s) * 1e3)
    return t, out


def camera():
    from pyworldgen.rendering.camera import Camera

    return Camera.look_at(EYE, (0.0, 0.0, 0.0), up=(0.0, 1.0, 0.0), fov_y=50.0, viewport=(720, 1280))


def _big_child(kind, path, q):
    pts = np.load(path)
    s = time.perf_counter()
    if kind == "fpsample_kdline_h9":
        import fpsample

        fpsample.bucket_fps_kdline_sampling(pts, 100_000, h=9, start_idx=0)
    elif kind == "open3d":
        import open3d as o3d

        pc = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(pts))
        pc.farthest_point_down_sample(100_000)
    q.put((time.perf_counter() - s) * 1e3)


def big(kind, path):
    """Time one 10 M -> 100 k run in a child process; None when it ran past BIG_TIMEOUT."""
    q = mp.Queue()
    p = mp.Process(target=_big_child, args=(kind, path, q))
    p.start()
    p.join(BIG_TIMEOUT + 60)  # loading the 240 MB input takes a few seconds too
    if p.is_alive():
        p.terminate()
        p.join()
        return None
    return q.get() if not q.empty() else None


def peers(inp, out):
    import pyworldgen
    from pyworldgen.pointcloud.cloud import sample_mesh_surface
    from pyworldgen.rendering.scene import Scene
    from pyworldgen.rendering.software import SoftwareRenderer
    from pyworldgen.spatial.fps import farthest_point_sampling

    res = {"versions": {"pyworldgen": pyworldgen.__version__, "numpy": np.__version__}, "big_timeout_s": BIG_TIMEOUT}
    r = res["ms"] = {}
    notes = res["notes"] = []
    L = lambda name: np.load(os.path.join(inp, name))

    # Render: points.
    cam = camera()
    pos, col = L("cloud_pos.npy").astype(np.float64), L("cloud_col.npy")
    scene = Scene().add_points(pos, colors=col)
    r["render_points_1M_fastest"], _ = best(lambda: SoftwareRenderer(point_size=1, shade="color").render(scene, cam))
    r["render_points_1M_default"], _ = best(lambda: SoftwareRenderer().render(scene, cam))
    print("pyworldgen render points done", flush=True)

    # Render: mesh (a random subset, scaled).
    mpos, midx = L("mesh_pos.npy").astype(np.float64), L("mesh_idx.npy").astype(np.int64)
    sub = int(os.environ.get("MESH_SUBSET", "20000"))
    faces = midx
    if 0 < sub < len(midx):
        pick = np.sort(np.random.default_rng(0).choice(len(midx), size=sub, replace=False))
        faces = midx[pick]
    mscene = Scene().add_mesh((mpos, faces))
    t, _ = best(lambda: SoftwareRenderer().render(mscene, cam), repeat=1)
    r["render_mesh_1M"] = t * len(midx) / len(faces)
    if len(faces) < len(midx):
        notes.append(f"pyworldgen mesh render: {len(faces)} random triangles of {len(midx)} in {t:.0f} ms, scaled")
    print("pyworldgen render mesh done", flush=True)

    r["sample_mesh_surface_1M"], _ = best(lambda: sample_mesh_surface((mpos, midx), 1_000_000, seed=1))
    print("pyworldgen sample done", flush=True)

    import fpsample

    res["versions"]["fpsample"] = getattr(fpsample, "__version__", "1.0.2")
    try:
        import open3d as o3d

        res["versions"]["open3d"] = o3d.__version__
    except Exception as e:  # noqa: BLE001
        o3d = None
        notes.append(f"open3d not importable: {e}")

    for name in ("cube", "terrain"):
        pts = np.ascontiguousarray(L(f"fps_{name}_40k.npy"))
        k = 4096
        t, ref = best(lambda: farthest_point_sampling(pts, k, start_idx=0), repeat=1)
        r[f"fps_40k/{name}/pyworldgen_numpy"] = t
        cases = {
            "fpsample_vanilla": lambda: fpsample.fps_sampling(pts, k, start_idx=0),
            "fpsample_npdu_kdtree": lambda: fpsample.fps_npdu_kdtree_sampling(pts, k, start_idx=0),
            "fpsample_bucket_kdtree": lambda: fpsample.bucket_fps_kdtree_sampling(pts, k, start_idx=0),
            "fpsample_bucket_kdline_h7": lambda: fpsample.bucket_fps_kdline_sampling(pts, k, h=7, start_idx=0),
        }
        if o3d is not None:
            def o3d_fps():
                pc = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(pts))
                return pc.farthest_point_down_sample(k)

            cases["open3d"] = o3d_fps
        for cname, f in cases.items():
            t, got = best(f)
            r[f"fps_40k/{name}/{cname}"] = t
            if cname == "open3d":
                continue  # returns a cloud, not indices; compared by its points below
            got = np.asarray(got, np.int64)
            if np.array_equal(np.sort(got), np.sort(ref)):
                if not np.array_equal(got, ref):
                    notes.append(f"fps 40k {name}: {cname} returns the reference's picks in another order")
            else:
                agree = len(np.intersect1d(got, ref))
                notes.append(f"fps 40k {name}: {cname} picks differ from the numpy reference ({agree}/{k} shared)")
        print(f"fps 40k {name} done", flush=True)

    big_path = os.path.join(inp, "fps_terrain_10M.npy")
    if os.path.exists(big_path):
        for kind in ("fpsample_kdline_h9", "open3d"):
            t = big(kind, big_path)
            r[f"fps_10M/terrain/{kind}"] = t
            if t is None:
                notes.append(f"fps 10M -> 100k: {kind} did not finish in {BIG_TIMEOUT:.0f} s")
            print(f"fps 10M {kind}: {t}", flush=True)
    with open(out, "w") as fh:
        json.dump(res, fh, indent=1)


def crit(cdir, group, bench):
    """Median of a criterion bench in ms, or None."""
    # criterion names a bench's folder after its id with '/' replaced by '_'.
    p = os.path.join(cdir, group, bench.replace("/", "_"), "new", "estimates.json")
    try:
        with open(p) as fh:
            return json.load(fh)["median"]["point_estimate"] / 1e6
    except OSError:
        return None


ROWS = [
    # (measure, criterion group, bench, peer key(s), target ms)
    ("point frame 1 M, 1280x720, fastest (1 px)", "render_points", "1M/fast_square_0.5px/random",
     ["render_points_1M_fastest"], 30),
    ("point frame 1 M, fastest, scan order", "render_points", "1M/fast_square_0.5px/scan",
     ["render_points_1M_fastest"], 30),
    ("point frame 1 M, defaults", "render_points", "1M/default/random", ["render_points_1M_default"], 30),
    ("triangle frame 1 M, no shadows, 1 sample", "render_mesh", "1M_triangles/no_shadows_1x1",
     ["render_mesh_1M"], 200),
    ("triangle frame 1 M, defaults (shadows, 2x2)", "render_mesh", "1M_triangles/default",
     ["render_mesh_1M"], 200),
    ("sample 1 M points on 1 M triangles", "sample_surface", "1M_from_1M_triangles",
     ["sample_mesh_surface_1M"], None),
]
for name in ("cube", "terrain"):
    ROWS.append((f"exact FPS 40k -> 4096 ({name})", "fps_exact", f"40k_to_4096/{name}",
                 [f"fps_40k/{name}/{p}" for p in ("pyworldgen_numpy", "fpsample_vanilla", "fpsample_npdu_kdtree",
                                                  "fpsample_bucket_kdtree", "fpsample_bucket_kdline_h7", "open3d")],
                 50))
ROWS.append(("approx FPS 10M -> 100k (terrain)", "fps_approx", "10M_to_100k/terrain",
             ["fps_10M/terrain/fpsample_kdline_h9", "fps_10M/terrain/open3d"], 2000))
ROWS.append(("GLB export 4096², 64-quad chunks, with fsync", "glb_4096", "export_with_fsync", [], 2000))
ROWS.append(("  of which height_mesh", "glb_4096", "height_mesh", [], None))
ROWS.append(("  of which encode", "glb_4096", "encode", [], None))
ROWS.append(("  of which write + fsync of the bytes", "glb_4096", "write_fsync", [], None))


def fmt(v):
    if v is None:
        return "—"
    return f"{v:.1f}" if v < 1000 else f"{v:,.0f}"


def table(peers_json, cdir, out=None):
    with open(peers_json) as fh:
        p = json.load(fh)
    lines = ["| measure | ours (ms, criterion median) | peer | peer ms | peer / ours | target | status |",
             "|---|---|---|---|---|---|---|"]
    for measure, group, bench, keys, target in ROWS:
        ours = crit(cdir, group, bench)
        status = "—" if target is None or ours is None else ("met" if ours < target else "**missed**")
        tgt = "—" if target is None else f"< {target} ms"
        if not keys:
            lines.append(f"| {measure} | {fmt(ours)} | — | — | — | {tgt} | {status} |")
        for i, k in enumerate(keys):
            pv = p["ms"].get(k)
            ratio = "—" if pv is None or ours is None else f"{pv / ours:.1f}×"
            if k in p["ms"] and pv is None:
                pv_s = f"> {p.get('big_timeout_s', BIG_TIMEOUT):.0f} s (killed)"
            else:
                pv_s = fmt(pv)
            head = (measure, fmt(ours), ) if i == 0 else ("", "")
            lines.append(f"| {head[0]} | {head[1]} | {k} | {pv_s} | {ratio} | {tgt if i == 0 else ''} | "
                         f"{status if i == 0 else ''} |")
    lines.append("")
    lines.append("versions: " + ", ".join(f"{k} {v}" for k, v in p["versions"].items()))
    lines.extend(f"note: {n}" for n in p["notes"])
    text = "\n".join(lines)
    print(text)
    if out:
        with open(out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "peers":
        peers(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    else:
        sys.exit(__doc__)
