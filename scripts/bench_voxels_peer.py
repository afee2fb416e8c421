#!/usr/bin/env python3
"""The peers' side of the voxel-world benchmarks (issue 22): pyworldgen 0.1.8 and scikit-image.

Run through `scripts/bench_voxels.sh` (which also runs `crates/bench/benches/voxels.rs` and
prints the side-by-side table); by hand, with the venv that holds pyworldgen, numpy and
scikit-image (PY=/work/scratch/pwg/venv/bin/python on the project's machine), after the Rust
bench wrote its export (BOZKIR_VOXELS_EXPORT=DIR):

    $PY scripts/bench_voxels_peer.py chunks --export DIR --out OUT/peer_chunks.json
        pyworldgen's standard passes (SimpleTerrainPass, SimpleBiomePass, SimpleCavePass,
        SimpleTreeFeaturePass, ApplyDeferredEditsPass, SimpleSunlightPass) through
        `GenerationScheduler([...]).generate_chunk` on a world of chunk_size 32 and the same
        integer seed, for the mixed chunks of the Rust region (DIR/mixed.json) in the same
        ascending order, one `generate_chunk` timed per chunk, until --budget seconds were spent
        (at least 4 chunks). Then, on the chunks it generated: `build_chunk_mesh_naive(world,
        chunk)` (culled faces, neighbours looked up in the world) and
        `build_chunk_mesh_greedy(chunk)` (chunk-local), each timed per chunk within --mesh-budget
        seconds. Also reported: how many of the generated voxels equal ours
        (DIR/mixed_blocks.npy; trees cut at chunk borders differ by design: pyworldgen applies
        only the edits buffered when a chunk runs, ours every neighbour's).
    $PY scripts/bench_voxels_peer.py mc --export DIR --out OUT/peer_mc.json
        scikit-image's `measure.marching_cubes(lattice, level=0)` (Lewiner) on the cave lattice
        our `surface_nets` meshes (DIR/cave_lattice.npy, the same float32 numbers): median of 5.
    $PY scripts/bench_voxels_peer.py table --stats DIR/stats.json --criterion target/criterion \\
        --chunks OUT/peer_chunks.json --mc OUT/peer_mc.json
        one markdown table: case | ours | peer | ratio | target | status.

Nothing of pyworldgen is copied; it is imported and called.
"""
import argparse
import json
import os
import statistics
import time

VOXELS = 32 ** 3


def load_mixed(export):
    with open(os.path.join(export, "mixed.json")) as f:
        return json.load(f)


def chunks(args):
    import numpy as np
    import pyworldgen as pw
    from pyworldgen.core.coords import ChunkCoord
    from pyworldgen.generation import (
        ApplyDeferredEditsPass,
        GenerationScheduler,
        SimpleBiomePass,
        SimpleCavePass,
        SimpleTerrainPass,
        SimpleTreeFeaturePass,
    )
    from pyworldgen.mesh.greedy_mesher import build_chunk_mesh_greedy
    from pyworldgen.mesh.naive_mesher import build_chunk_mesh_naive
    from pyworldgen.voxel.lighting import SimpleSunlightPass
    from pyworldgen.world.world import World

    m = load_mixed(args.export)
    ours = np.load(os.path.join(args.export, "mixed_blocks.npy"))
    world = World.create(m["seed"], chunk_size=m["chunk_size"])
    assert world.seed == m["seed"], (world.seed, m["seed"])
    sched = GenerationScheduler([SimpleTerrainPass(), SimpleBiomePass(), SimpleCavePass(),
                                 SimpleTreeFeaturePass(), ApplyDeferredEditsPass(), SimpleSunlightPass()])
    gen_t, made = [], []
    t_all = time.perf_counter()
    for i, c in enumerate(m["mixed"]):
        chunk = world.chunks.get_or_create(ChunkCoord(*c))
        t = time.perf_counter()
        sched.generate_chunk(world, chunk)
        gen_t.append(time.perf_counter() - t)
        made.append((i, chunk))
        if time.perf_counter() - t_all > args.budget and len(made) >= 4:
            break
    equal = sum(int((ch.blocks.blocks.reshape(-1) == ours[i].reshape(-1)).sum()) for i, ch in made)
    same_chunks = sum(int(np.array_equal(ch.blocks.blocks.reshape(-1), ours[i].reshape(-1))) for i, ch in made)

    def mesh_times(fn):
        times, tris = [], 0
        t_all = time.perf_counter()
        for _, ch in made:
            t = time.perf_counter()
            mesh = fn(ch)
            times.append(time.perf_counter() - t)
            tris += mesh.triangle_count
            if time.perf_counter() - t_all > args.mesh_budget and len(times) >= 2:
                break
        return {"chunks": len(times), "times_s": times, "median_s": statistics.median(times),
                "mean_s": statistics.fmean(times), "triangles": tris}

    naive = mesh_times(lambda ch: build_chunk_mesh_naive(world, ch))
    greedy = mesh_times(build_chunk_mesh_greedy)
    rec = {
        "pyworldgen": pw.__version__, "numpy": np.__version__,
        "seed": world.seed, "mixed_total": len(m["mixed"]), "generated": len(made),
        "generate_times_s": gen_t, "generate_median_s": statistics.median(gen_t),
        "generate_mean_s": statistics.fmean(gen_t),
        "voxels_equal": equal, "voxels_compared": len(made) * VOXELS, "chunks_identical": same_chunks,
        "naive": naive, "greedy": greedy, "loadavg_after": os.getloadavg(),
    }
    with open(args.out, "w") as f:
        json.dump(rec, f)
    print(json.dumps({k: v for k, v in rec.items() if not k.endswith("times_s")}))


def mc(args):
    import numpy as np
    import skimage
    from skimage.measure import marching_cubes

    vol = np.load(os.path.join(args.export, "cave_lattice.npy"))
    verts, faces, _, _ = marching_cubes(vol, level=0.0)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        marching_cubes(vol, level=0.0)
        times.append(time.perf_counter() - t)
    rec = {"scikit-image": skimage.__version__, "shape": list(vol.shape), "vertices": int(len(verts)),
           "triangles": int(len(faces)), "times_s": times, "median_s": statistics.median(times),
           "loadavg_after": os.getloadavg()}
    with open(args.out, "w") as f:
        json.dump(rec, f)
    print(json.dumps(rec))


def crit(root, name):
    """Criterion's median of `voxels/name`, seconds (None if absent)."""
    p = os.path.join(root, "voxels", name, "new", "estimates.json")
    try:
        with open(p) as f:
            return json.load(f)["median"]["point_estimate"] * 1e-9
    except (OSError, KeyError, ValueError):
        return None


def fmt_time(s):
    if s is None:
        return "—"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def table(args):
    with open(args.stats) as f:
        st = json.load(f)
    with open(args.chunks) as f:
        pc = json.load(f)
    with open(args.mc) as f:
        pm = json.load(f)
    n = st["mixed_chunks"]
    rows = []

    gen_s = crit(args.criterion, "chunks_32_pyworldgen_passes") or st["generate_mixed_s"]
    ours_cps = n / gen_s
    peer_cps = 1.0 / pc["generate_median_s"]
    ratio = ours_cps / peer_cps
    st_rate = "met" if ours_cps >= 2000 else "**missed**"
    st_ratio = "met" if ratio >= 100 else "**missed**"
    rows.append(("`voxels/chunks_32_pyworldgen_passes`: terrain, biomes, caves, trees, edits, sunlight + palette, "
                 f"{n} mixed 32³ chunks",
                 f"{ours_cps:,.0f} chunks/s ({ours_cps * VOXELS / 1e6:.1f} M voxels/s; {fmt_time(gen_s)} for {n})",
                 f"pyworldgen 0.1.8 `generate_chunk`: {peer_cps:.2f} chunks/s ({fmt_time(pc['generate_median_s'])} a chunk, "
                 f"median of {pc['generated']})",
                 f"{ratio:,.0f}×", "≥ 2,000 chunks/s; ≥ 100×", f"rate {st_rate}; ratio {st_ratio}"))

    for case, key, peer_name, target in [("greedy_32", "greedy", "`build_chunk_mesh_greedy` (chunk-local, no apron)", 20e6),
                                         ("culled_32", "culled", "`build_chunk_mesh_naive` (neighbours from the world)", None)]:
        s = crit(args.criterion, case) or st["meshing"][key]["parallel_s"]
        vps = n * VOXELS / s
        one = n * VOXELS / st["meshing"][key]["one_thread_s"]
        p = pc["naive" if key == "culled" else "greedy"]
        pvps = VOXELS / p["median_s"]
        status = ("met" if vps >= target else "**missed**") if target else "recorded"
        rows.append((f"`voxels/{case}`: mesh_chunk ({key}, apron, AO) of the {n} mixed chunks",
                     f"{vps / 1e6:.1f} M voxels/s ({fmt_time(s)}; one thread {one / 1e6:.1f} M/s); "
                     f"{st['meshing'][key]['triangles']:,} triangles",
                     f"{peer_name}: {pvps / 1e3:.1f} k voxels/s ({fmt_time(p['median_s'])} a chunk, median of {p['chunks']})",
                     f"{vps / pvps:,.0f}×", "≥ 20 M voxels/s" if target else "—", status))

    sn = crit(args.criterion, "surface_nets_cave") or st["surface_nets"]["median_s"]
    d = st["surface_nets"]["dims"]
    rows.append((f"`voxels/surface_nets_cave`: implicit cave `atlas`, {d[0]}×{d[1]}×{d[2]} samples at 1 m",
                 f"{fmt_time(sn)} ({st['surface_nets']['triangles']:,} triangles)",
                 f"scikit-image {pm['scikit-image']} `marching_cubes` (Lewiner): {fmt_time(pm['median_s'])} "
                 f"({pm['triangles']:,} triangles)",
                 f"{pm['median_s'] / sn:.1f}×", "—", "recorded"))

    pb = st["palette_bits_per_voxel"]
    rows.append((f"palette storage of the {pb['chunks']} mixed chunks (`bits_per_voxel`)",
                 f"min {pb['min']:.3f} / median {pb['median']:.3f} / max {pb['max']:.3f} bits/voxel "
                 f"(mean {pb['mean']:.3f}; {pb['over_1_bit']} chunks over 1)",
                 "pyworldgen: dense uint16, 16 bits/voxel", f"{16 / pb['median']:.0f}× smaller (median)",
                 "≤ 1 bit/voxel",
                 "met" if pb["max"] <= 1.0 else ("median met, max **missed**" if pb["median"] <= 1.0 else "**missed**")))

    print("| case | ours | peer | ratio | target | status |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    print(f"Region {st['region_chunks']} chunks (8×3×8, seed {st['seed']}), {n} mixed; whole region "
          f"generated in {fmt_time(st['generate_region_s'])}; rayon threads {st['threads']}. "
          f"pyworldgen generated {pc['generated']} of the {pc['mixed_total']} mixed chunks; "
          f"{100 * pc['voxels_equal'] / pc['voxels_compared']:.3f} % of their voxels equal ours "
          f"({pc['chunks_identical']} chunks identical). Peer load average after: {pc['loadavg_after'][0]:.1f}.")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("chunks")
    a.add_argument("--export", required=True)
    a.add_argument("--out", required=True)
    a.add_argument("--budget", type=float, default=60.0)
    a.add_argument("--mesh-budget", type=float, default=30.0)
    b = sub.add_parser("mc")
    b.add_argument("--export", required=True)
    b.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("--stats", required=True)
    t.add_argument("--criterion", required=True)
    t.add_argument("--chunks", required=True)
    t.add_argument("--mc", required=True)
    args = ap.parse_args()
    {"chunks": chunks, "mc": mc, "table": table}[args.cmd](args)


if __name__ == "__main__":
    main()
