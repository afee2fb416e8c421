#!/usr/bin/env python3
"""The peers' side of the world benchmarks (issue 21): pyworldgen 0.1.8 and scikit-image.

Run through `scripts/bench_world.sh` (which also runs `crates/bench/benches/world.rs` and
prints the side-by-side table); by hand, with the venv that holds pyworldgen, numpy, scipy and
scikit-image (PY=/work/scratch/pwg/venv/bin/python on the project's machine):

    $PY scripts/bench_world_peer.py gen --out OUT/peer_gen.jsonl
        pyworldgen's `generate(name, seed="atlas", **overrides)` for flat, landscape, roads,
        composite at its default domain and at 256², 512², 1024² cells (domain_size = N·2 m, the
        default 2 m cells, as `bozkir world --size N`), plus composite without roads at 1024²,
        landscape on its default 120 m domain at 120/1024 m cells, and `roads_product` (the
        `roads` generator followed by carve_road_terrain, road_polylines_3d and
        road_ribbon_mesh: the work our `roads` product does) at the default size and 256². Each case runs in its own
        process (its own peak memory, a wall-clock limit): one untimed warm-up at the default
        size, then up to REPS timed runs, stopping early once the runs have taken --budget
        seconds; reported: median and best of the runs made (the table uses the median), and
        the process's peak resident set (VmHWM). A case over --timeout is reported as such, with
        the limit as a lower bound.
    $PY scripts/bench_world_peer.py mcp --export DIR --out OUT/peer_mcp.jsonl
        scikit-image's MCP_Geometric (8-connected, `route_through_array`'s class) on an isotropic
        cost grid computed here from the height and water of the terrain the Rust bench exported
        (BOZKIR_WORLD_EXPORT=DIR), between the same cells as our single routes (routes.json):
        time (median of 5: MCP construction + find_costs + traceback) and path quality, measured
        the same way for both sides (see `path_quality`).
    $PY scripts/bench_world_peer.py table --ours OUT/ours_rss.jsonl --criterion target/criterion \\
        --gen OUT/peer_gen.jsonl [MORE.jsonl ...] --mcp OUT/peer_mcp.jsonl
        markdown tables: ours (criterion median) | pyworldgen (median) | ratio | peak memory.

The cost grid for MCP is the same transfer functions as our road cost made isotropic (per cell
instead of per direction of travel): c = base + slope_weight·(g/max_grade)² with g = |∇h|
(numpy's gradient), impassable (inf) where g > max_grade; + water_weight·d/max_water_depth over
shallow water (d > 1e-6); base + bridge_cost over water deeper than max_water_depth. MCP_Geometric
charges a move dist·(c_a + c_b)/2; costs are per metre (× res). Nothing of pyworldgen is copied.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

SEED = "atlas"
GENERATORS = ["flat", "landscape", "roads", "composite"]
SIZES = ["default", "256", "512", "1024"]
RES = 2.0  # every generator's default resolution (checked in `one`)


def vmhwm_kib():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def case_overrides(name, size):
    """(generator, overrides) of a case: `name` is a generator or one of the two extras."""
    if name == "composite_noroads":
        return "composite", {"domain_size": (RES * int(size), RES * int(size)), "add_roads": False}
    if name == "roads_product":
        return "roads", ({} if size == "default" else {"domain_size": (RES * int(size), RES * int(size))})
    if name == "landscape_fine":
        return "landscape", {"resolution": 120.0 / int(size)}
    if size == "default":
        return name, {}
    return name, {"domain_size": (RES * int(size), RES * int(size))}


def one(name, size, reps, budget):
    """One case in this process: prints a JSON line."""
    import numpy as np
    import pyworldgen as pw

    gen, kw = case_overrides(name, size)

    def run(**kw):
        if gen == "forest":  # its ground half, as ours (sites, crowns, canopy; no branch graphs)
            from pyworldgen.biomes.forest import generate_forest

            w = generate_forest(seed=SEED, params=kw or None, build_graphs=False)
            w.height, w.resolution = w.canopy_height, w.resolution
            return w
        w = pw.generate(gen, seed=SEED, **kw)
        if gen == "implicit_cave":
            w.height = w.occ
        if name == "roads_product":  # what our `roads` product also does: grade, drape, mesh
            from pyworldgen.roads import carve_road_terrain, road_polylines_3d, road_ribbon_mesh

            w.graded = carve_road_terrain(w)
            w.lines3d = road_polylines_3d(w)
            w.ribbon = road_ribbon_mesh(w)
        return w

    run()  # warm-up (imports, caches) at the default size
    base = vmhwm_kib()
    times, shape = [], None
    t_all = time.perf_counter()
    for _ in range(reps):
        t = time.perf_counter()
        w = run(**kw)
        times.append(time.perf_counter() - t)
        shape = np.asarray(w.height).shape
        res = float(w.resolution)
        del w
        if time.perf_counter() - t_all > budget:
            break
    print(json.dumps({
        "case": f"{name}_{size}", "generator": gen, "overrides": {k: list(v) if isinstance(v, tuple) else v for k, v in kw.items()},
        "shape": list(shape), "resolution": res, "runs": len(times), "times_s": times,
        "median_s": statistics.median(times), "best_s": min(times),
        "vmhwm_kib": vmhwm_kib(), "vmhwm_after_warmup_kib": base,
        "pyworldgen": pw.__version__, "numpy": np.__version__,
    }), flush=True)


def gen(args):
    reps_for = {"default": 20, "256": 5, "512": 3, "1024": 3}
    cases = [(g, s) for s in SIZES for g in GENERATORS]
    cases += [("composite_noroads", "1024"), ("landscape_fine", "1024"), ("roads_product", "default"),
              ("roads_product", "256"), ("implicit_cave", "default"), ("forest", "default")]
    # The slowest last, so a short --timeout loses the fewest figures.
    order = {"composite_1024": 2, "roads_1024": 1}
    cases.sort(key=lambda c: order.get(f"{c[0]}_{c[1]}", 0))
    if args.only:
        cases = [c for c in cases if f"{c[0]}_{c[1]}" in args.only.split(",")]
    with open(args.out, "a") as out:
        for name, size in cases:
            cmd = [sys.executable, __file__, "one", name, size, str(reps_for[size]), str(args.budget)]
            t = time.perf_counter()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
                line = p.stdout.strip().splitlines()[-1] if p.returncode == 0 and p.stdout.strip() else None
                rec = json.loads(line) if line else {"case": f"{name}_{size}", "error": p.stderr[-2000:]}
            except subprocess.TimeoutExpired:
                rec = {"case": f"{name}_{size}", "timeout_s": args.timeout,
                       "note": f"no run finished within {args.timeout} s"}
            rec["wall_s"] = time.perf_counter() - t
            rec["loadavg_after"] = os.getloadavg()
            print(json.dumps(rec), flush=True)
            out.write(json.dumps(rec) + "\n")
            out.flush()


# ---------------------------------------------------------------------------------------------
# Single routes: scikit-image MCP against ours.


def cost_grid(h, w, res, c):
    """The isotropic version of our road cost per metre (see the module doc), inf = impassable."""
    import numpy as np

    gy, gx = np.gradient(h, res, res)
    g = np.hypot(gx, gy)
    cost = c["base"] + c["slope_weight"] * (g / c["max_grade"]) ** 2
    cost = np.where(g > c["max_grade"], np.inf, cost)
    shallow = (w > 1e-6) & (w <= c["max_water_depth"])
    cost = np.where(shallow, cost + c["water_weight"] * (w / c["max_water_depth"]), cost)
    deep = w > c["max_water_depth"]
    cost = np.where(deep, c["base"] + c["bridge_cost"], cost)
    return cost


def mask_chain(waypoints):
    """The cells our cost samples along a route of mask steps (each step o sampled at
    n = max(2, ⌊2|o|⌋ + 1) points round_half_even(o·t), t = linspace(0, 1, n)), consecutive
    repeats dropped: an 8-connected chain of cells, as an MCP path is."""
    import numpy as np

    out = [tuple(waypoints[0])]
    for (ax, ay), (bx, by) in zip(waypoints[:-1], waypoints[1:]):
        di, dj = bx - ax, by - ay
        n = max(2, int(math.hypot(di, dj) * 2) + 1)
        t = np.linspace(0.0, 1.0, n)
        for sx, sy in zip(np.round(di * t).astype(int), np.round(dj * t).astype(int)):
            c = (ax + int(sx), ay + int(sy))
            if c != out[-1]:
                out.append(c)
    return out


def resample(pts, step):
    """Points every `step` along the polyline `pts` (same units), both ends kept."""
    out = [pts[0]]
    carry = 0.0
    for a, b in zip(pts[:-1], pts[1:]):
        seg = math.hypot(b[0] - a[0], b[1] - a[1])
        t = step - carry
        while t <= seg:
            f = t / seg
            out.append((a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])))
            t += step
        carry = (carry + seg) % step
    if out[-1] != pts[-1]:
        out.append(pts[-1])
    return out


def heading_change_deg(pts):
    total = 0.0
    for a, b, c in zip(pts[:-2], pts[1:-1], pts[2:]):
        u = (b[0] - a[0], b[1] - a[1])
        v = (c[0] - b[0], c[1] - b[1])
        if u == (0, 0) or v == (0, 0):
            continue
        total += abs(math.degrees(math.atan2(u[0] * v[1] - u[1] * v[0], u[0] * v[0] + u[1] * v[1])))
    return total


def path_quality(waypoints, chain, h, cost, res):
    """Both sides measured alike. `waypoints` (ix, iy) are the route as routed (our mask
    endpoints; every cell of an MCP path); `chain` the 8-connected cells it passes through.
    * length / Euclidean: the waypoint polyline's length over the straight start–goal distance;
    * heading change: the sum of |turn| at the waypoints, degrees, raw (cell-scale zigzags
      included) and on the polyline resampled every 10 m (road-scale turning);
    * grade: |Δh| / (res · centre distance) between consecutive cells of the chain: max and
      mean, and the count of cell steps steeper than 0.175 (see docs/benchmarks.md on why 0.175);
    * isotropic cost: the chain costed as MCP_Geometric costs a path on the grid above, over
      the cells that grid allows, and the count of chain cells it forbids (|∇h| > max_grade:
      an anisotropic road may run along such a slope, an isotropic cost cannot)."""
    pl = sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(waypoints[:-1], waypoints[1:]))
    s, g = waypoints[0], waypoints[-1]
    straight = math.hypot(g[0] - s[0], g[1] - s[1])
    grades, iso = [], 0.0
    for (ax, ay), (bx, by) in zip(chain[:-1], chain[1:]):
        d = math.hypot(bx - ax, by - ay)
        grades.append(abs(float(h[by, bx]) - float(h[ay, ax])) / (res * d))
        ca, cb = float(cost[ay, ax]), float(cost[by, bx])
        if math.isfinite(ca) and math.isfinite(cb):
            iso += res * d * 0.5 * (ca + cb)
    forbidden = sum(not math.isfinite(float(cost[y, x])) for x, y in chain)
    wp = [(float(p[0]) * res, float(p[1]) * res) for p in waypoints]
    return {
        "waypoints": len(waypoints), "chain_cells": len(chain),
        "length_m": pl * res, "straight_m": straight * res, "length_over_euclid": pl / straight,
        "heading_change_deg": heading_change_deg(wp),
        "heading_change_10m_deg": heading_change_deg(resample(wp, 10.0)),
        "max_grade": max(grades), "mean_grade": sum(grades) / len(grades),
        "steps_over_0.35": sum(x > 0.35 for x in grades), "steps_over_0.175": sum(x > 0.175 for x in grades),
        "isotropic_cost": iso, "cells_isotropic_forbids": forbidden,
    }


def mcp(args):
    import numpy as np
    import skimage
    from skimage.graph import MCP_Geometric

    d = args.export
    h = np.load(os.path.join(d, "terrain_1024_height.npy"))
    w = np.load(os.path.join(d, "terrain_1024_water.npy"))
    meta = json.load(open(os.path.join(d, "routes.json")))
    res = float(meta["res"])
    cost = cost_grid(h, w, res, meta["cost"])
    with open(args.out, "a") as out:
        for r in meta["routes"]:
            if r["k"] != 5 and r["k"] != 1:
                continue
            rec = {"pair": r["pair"], "k": r["k"], "start": r["start"], "goal": r["goal"]}
            if r["cells"]:
                wp = [tuple(c) for c in r["cells"]]
                rec["ours"] = path_quality(wp, mask_chain(wp), h, cost, res)
                rec["ours"].update({"median_s": r["median_s"], "best_s": r["best_s"], "cost": r["cost"],
                                    "expanded": r["expanded"]})
            else:
                rec["ours"] = {"error": "no route"}
            if r["k"] == 5:  # MCP once per pair
                (sx, sy), (gx, gy) = r["start"], r["goal"]
                times = []
                for _ in range(args.reps):
                    t = time.perf_counter()
                    m = MCP_Geometric(cost, fully_connected=True)
                    costs, _ = m.find_costs([(sy, sx)], [(gy, gx)])
                    path = m.traceback((gy, gx))
                    times.append(time.perf_counter() - t)
                wp = [(int(c[1]), int(c[0])) for c in path]
                rec["mcp"] = path_quality(wp, wp, h, cost, res)
                rec["mcp"].update({"median_s": statistics.median(times), "best_s": min(times),
                                   "cost": float(costs[gy, gx]) * res, "skimage": skimage.__version__})
            print(json.dumps(rec), flush=True)
            out.write(json.dumps(rec) + "\n")


# ---------------------------------------------------------------------------------------------
# The side-by-side table.


def read_jsonl(path):
    if not path or not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.strip()]


def criterion_median(root, case):
    p = os.path.join(root, *case.split("/"), "new", "estimates.json")
    try:
        return json.load(open(p))["median"]["point_estimate"] * 1e-9
    except OSError:
        return None


def fmt_s(s):
    if s is None:
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def table(args):
    ours_rss = {r["case"]: r for r in read_jsonl(args.ours)}
    peers = {r["case"]: r for f in args.gen for r in read_jsonl(f) if "case" in r}  # later files win
    print("| case | cells | ours (criterion median) | peak RSS ours | pyworldgen 0.1.8 (median of runs) | peak RSS peer | ratio |")
    print("|---|---|---|---|---|---|---|")
    rows = [(f"{g}", s, f"world_gen/{g}_{s}", f"{g}_{s}") for g in GENERATORS for s in SIZES]
    rows += [
        ("composite without roads", "1024", "world_gen/composite_noroads_1024", "composite_noroads_1024"),
        ("landscape, 120 m domain", "1024", "world_gen/landscape_fine_1024", "landscape_fine_1024"),
        ("roads: network only (= pyworldgen's generator)", "default",
         "world_roads/roads_generator_network_only_default", "roads_default"),
        ("roads: network only (= pyworldgen's generator)", "1024",
         "world_roads/roads_generator_network_only_1024", "roads_1024"),
        ("roads: product (peer + carve, 3-D lines, ribbon)", "default", "world_gen/roads_default",
         "roads_product_default"),
        ("roads: product (peer + carve, 3-D lines, ribbon)", "256", "world_gen/roads_256", "roads_product_256"),
        ("implicit_cave (volume)", "default", "world_gen/implicit_cave_default", "implicit_cave_default"),
        ("forest (sites, crowns, canopy; no graphs)", "default", "world_gen/forest_default", "forest_default"),
    ]
    for label, s, ours_id, peer_id in rows:
        ours = criterion_median(args.criterion, ours_id)
        rss = ours_rss.get(ours_id, {}).get("vmhwm_kib")
        p = peers.get(peer_id, {})
        pm = p.get("median_s")
        if pm is not None:
            peer = f"{fmt_s(pm)} ({p['runs']} run{'s' if p['runs'] > 1 else ''}, best {fmt_s(p['best_s'])})"
            ratio = f"{pm / ours:.0f}×" if ours else "—"
        elif "timeout_s" in p:
            peer = f"> {p['timeout_s']} s (timed out)"
            ratio = f"> {p['timeout_s'] / ours:.0f}×" if ours else "—"
        else:
            peer, ratio = "—", "—"
        prss = p.get("vmhwm_kib")
        cells = "default" if s == "default" else f"{s}²"
        print(f"| {label} | {cells} | {fmt_s(ours)} | {rss and f'{rss / 1024:.0f} MiB' or '—'} | {peer} | "
              f"{prss and f'{prss / 1024:.0f} MiB' or '—'} | {ratio} |")
    print()
    print("| case (roads, routes, carve) | ours (criterion median) | peak RSS (process, incl. terrain) |")
    print("|---|---|---|")
    for case in sorted(k for k in ours_rss if k.startswith(("world_roads/", "world_route/", "world_gen/carve_"))):
        r = ours_rss[case]
        med = fmt_s(criterion_median(args.criterion, case))
        if med == "—" and "times_s" in r:  # a heavy case, timed by its one-shot runs only
            n = len(r["times_s"])
            med = f"{fmt_s(r['secs'])} (median of {n} one-shot run{'s' if n > 1 else ''}, best {fmt_s(r['best_s'])})"
        print(f"| {case} | {med} | {r.get('vmhwm_kib', 0) / 1024:.0f} MiB {r.get('error', '')} |")
    print()
    print("| pair | router | time (median) | length / Euclid | heading change raw / at 10 m (°) | max grade | mean grade | steps > 0.175 | isotropic cost (cells it forbids) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in read_jsonl(args.mcp):
        rows = [(f"bozkir k = {r['k']}", r.get("ours", {}))]
        if "mcp" in r:
            rows.append(("skimage MCP_Geometric", r["mcp"]))
        for who, q in rows:
            if "error" in q:
                print(f"| {r['pair']} | {who} | {q['error']} | | | | | | |")
                continue
            print(f"| {r['pair']} | {who} | {fmt_s(q['median_s'])} | {q['length_over_euclid']:.3f} | "
                  f"{q['heading_change_deg']:.0f} / {q['heading_change_10m_deg']:.0f} | {q['max_grade']:.3f} | "
                  f"{q['mean_grade']:.3f} | {q['steps_over_0.175']} | {q['isotropic_cost']:.0f} ({q['cells_isotropic_forbids']}) |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    o = sub.add_parser("one")
    o.add_argument("name")
    o.add_argument("size")
    o.add_argument("reps", type=int)
    o.add_argument("budget", type=float)
    g = sub.add_parser("gen")
    g.add_argument("--out", required=True)
    g.add_argument("--budget", type=float, default=60.0, help="stop repeating a case after this many seconds")
    g.add_argument("--timeout", type=float, default=1800.0, help="wall-clock limit of one case's process")
    g.add_argument("--only", help="comma-separated cases, e.g. roads_default,composite_default")
    m = sub.add_parser("mcp")
    m.add_argument("--export", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--reps", type=int, default=5)
    t = sub.add_parser("table")
    t.add_argument("--ours")
    t.add_argument("--criterion", default="target/criterion")
    t.add_argument("--gen", nargs="*", default=[], help="pyworldgen results; a case in a later file wins")
    t.add_argument("--mcp")
    a = ap.parse_args()
    if a.cmd == "one":
        one(a.name, a.size, a.reps, a.budget)
    elif a.cmd == "gen":
        gen(a)
    elif a.cmd == "mcp":
        mcp(a)
    else:
        table(a)


if __name__ == "__main__":
    main()
