"""The Python face of bozkir, on the wheel built by scripts/test_python.sh: arrays in and out,
refusals, progress and cancellation, the GIL released, and the same bytes as the CLI."""

import os
import pathlib
import subprocess
import threading
import time

import numpy as np
import pytest

import bozkir

ROOT = pathlib.Path(__file__).resolve().parents[3]


def cli():
    """The bozkir binary cargo built last (release or debug), or BOZKIR_BIN."""
    if os.environ.get("BOZKIR_BIN"):
        return os.environ["BOZKIR_BIN"]
    found = [p for p in (ROOT / "target" / d / "bozkir" for d in ("release", "debug")) if p.is_file()]
    if not found:
        pytest.fail("no bozkir binary: run `cargo build -p bozkir` first (or set BOZKIR_BIN)")
    return str(max(found, key=lambda p: p.stat().st_mtime))


def need(module):
    """An optional peer module: skipped where it is missing, except under CI=true (where
    scripts/test_python.sh installs it), where that is a failure."""
    try:
        return __import__(module)
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{module} is not installed (scripts/test_python.sh installs it)")


def run_cli(*args):
    subprocess.run([cli(), "--quiet", *args], check=True, capture_output=True)


def test_lists():
    assert len(bozkir.list_profiles()) == 19 and "canyon" in bozkir.list_profiles()
    assert {"ds2", "island"} <= set(bozkir.list_recipes())
    assert {"flat", "landscape", "roads", "composite", "forest"} <= set(bozkir.list_generators())
    assert bozkir.get_info("landscape")[1] is True
    assert bozkir.__version__


def test_profile_is_the_clis_height_tif_to_the_bit(tmp_path):
    t = bozkir.profile("canyon", seed=7, size=64)
    h = t["height"]
    assert h.shape == (64, 64) and h.dtype == np.float64 and h.flags["C_CONTIGUOUS"]
    assert (t["dx"], t["dy"]) == (10.0, 10.0)
    assert h.min() == 0.0 and h.max() == 1000.0
    run_cli("terrain", "--profile", "canyon", "--seed", "7", "--size", "64", "--out", str(tmp_path / "t"))
    tif = bozkir.read_dem(tmp_path / "t" / "height.tif")["height"]
    assert np.array_equal(h.astype(np.float32), tif.astype(np.float32))


def test_recipe_is_the_clis_and_deterministic(tmp_path):
    a = bozkir.run_recipe("ds2", size=64, seed=5)
    b = bozkir.run_recipe("ds2", size=64, seed=5)
    assert a["height"].tobytes() == b["height"].tobytes()
    assert {"sediment", "wear", "deposit"} <= set(a["masks"])
    # ds2 details its last stages at twice the size (2·64 − 1 cells), masks included.
    assert a["height"].shape == (127, 127)
    for m in a["masks"].values():
        assert m.shape == a["height"].shape
    run_cli("terrain", "--recipe", "ds2", "--size", "64", "--seed", "5", "--out", str(tmp_path / "r"))
    tif = bozkir.read_dem(tmp_path / "r" / "height.tif")["height"]
    assert np.array_equal(a["height"].astype(np.float32), tif.astype(np.float32))
    assert bozkir.run_recipe("ds2", size=64, seed=6)["height"].tobytes() != a["height"].tobytes()


def test_apply_runs_a_stage_and_leaves_the_input_alone():
    t = bozkir.profile("alpine", seed=1, size=48)
    before = t["height"].copy()
    e = bozkir.apply(
        t["height"], "stream_power", cell_size=(10.0, 10.0), steps=5, k=1e-4, dt=1000.0, uplift=0.0, kappa=0.0, margin_cells=0
    )
    assert np.array_equal(t["height"], before)
    assert e["height"].shape == (48, 48) and np.isfinite(e["height"]).all()
    assert not np.array_equal(e["height"], before)
    # Stream power without uplift only lowers the ground.
    assert (e["height"] <= before + 1e-9).all()
    assert {"sediment", "wear"} <= set(e["masks"])
    # A non-contiguous view is accepted and gives the same result as its copy.
    big = np.zeros((96, 48))
    big[::2] = before
    v = bozkir.apply(big[::2], "thermal", cell_size=10.0, iterations=3)
    w = bozkir.apply(before.copy(), "thermal", cell_size=10.0, iterations=3)
    assert v["height"].tobytes() == w["height"].tobytes()
    # So is an array whose buffer is not 8-byte aligned (Dask hands scattered arrays over in
    # out-of-band buffers at any offset), contiguous or strided.
    raw = np.zeros(before.nbytes * 2 + 1, dtype=np.uint8)
    odd = np.frombuffer(raw.data, dtype=np.float64, count=before.size * 2, offset=1).reshape(96, 48)
    odd[::2] = before
    assert not odd.flags["ALIGNED"]
    u = bozkir.apply(odd[::2], "thermal", cell_size=10.0, iterations=3)
    assert u["height"].tobytes() == w["height"].tobytes()
    flat = np.frombuffer(raw.data, dtype=np.float64, count=before.size, offset=1).reshape(48, 48)
    flat[:] = before
    assert not flat.flags["ALIGNED"] and flat.flags["C_CONTIGUOUS"]
    u = bozkir.apply(flat, "thermal", cell_size=10.0, iterations=3)
    assert u["height"].tobytes() == w["height"].tobytes()


def test_refusals_are_clear():
    h = np.zeros((16, 16))
    with pytest.raises(ValueError, match="unknown stage"):
        bozkir.apply(h, "no_such_stage")
    with pytest.raises(ValueError, match="steps"):
        bozkir.apply(h, "stream_power", steps=-1)
    with pytest.raises(ValueError, match="not finite"):
        bad = h.copy()
        bad[2, 3] = np.nan
        bozkir.apply(bad, "thermal")
    with pytest.raises(ValueError, match="cell_size"):
        bozkir.apply(h, "thermal", cell_size=0.0)
    with pytest.raises(ValueError, match="empty"):
        bozkir.apply(np.zeros((0, 5)), "thermal")
    with pytest.raises(TypeError):
        bozkir.apply(np.zeros((4, 4), dtype=np.int32), "thermal")
    with pytest.raises(TypeError):
        bozkir.apply(np.zeros(16), "thermal")
    with pytest.raises(ValueError, match="no built-in recipe"):
        bozkir.run_recipe("nope")
    with pytest.raises(ValueError, match="size"):
        bozkir.run_recipe("ds2", size=3)
    with pytest.raises(ValueError, match="no profile"):
        bozkir.profile("nope")
    with pytest.raises(OSError, match="no-such-file.tif"):
        bozkir.read_dem("/no-such-file.tif")
    with pytest.raises(ValueError):
        bozkir.generate("no_such_generator")


def test_analyze_equals_the_clis_maps(tmp_path):
    dem = ROOT / "data" / "dem" / "jacksboro_fault_dem.npz"
    d = bozkir.read_dem(dem)
    a = bozkir.analyze(d["height"], cell_size=(d["dx"], d["dy"]))
    assert {"filled", "lake_depth", "receivers", "accumulation", "streams", "watersheds", "slope", "tpi", "landform", "sky_view"} <= set(a)
    run_cli("analyze", str(dem), "--out", str(tmp_path / "a"))
    acc = bozkir.read_dem(tmp_path / "a" / "accumulation.tif")["height"]
    # read_dem takes a TIFF as heights: counts above 9000 (no height on Earth) read as NaN.
    big = np.isnan(acc)
    assert np.array_equal(big, a["accumulation"] > 9000)
    assert np.array_equal(a["accumulation"][~big].astype(np.float32), acc[~big].astype(np.float32))
    slope = bozkir.read_dem(tmp_path / "a" / "slope.tif")["height"]
    assert np.array_equal(a["slope"].astype(np.float32), slope.astype(np.float32))
    only = bozkir.analyze(d["height"], cell_size=(d["dx"], d["dy"]), outputs="slope")
    assert set(only) == {"slope"}
    filled = bozkir.read_dem(tmp_path / "a" / "filled.tif")["height"]
    assert np.array_equal(a["filled"].astype(np.float32), filled.astype(np.float32))
    with pytest.raises(ValueError, match="nope"):
        bozkir.analyze(d["height"], outputs="nope")


def test_dem_io_round_trip(tmp_path):
    d = bozkir.read_dem(ROOT / "data" / "dem" / "gridded" / "jacksboro_nc4.nc")
    assert d["crs"] == "EPSG:4326" and d["height"].shape == (344, 403)
    assert abs(d["transform"][0] + 84.4004166) < 1e-6 and abs(d["dx"] - 74.57) < 0.1
    h = np.arange(12.0).reshape(3, 4)
    h[1, 1] = np.nan
    p = tmp_path / "h.tif"
    bozkir.write_geotiff(p, h, cell_size=5.0, crs="EPSG:32633", origin=(500000.0, 4000000.0))
    back = bozkir.read_dem(p)
    assert back["crs"] == "EPSG:32633" and (back["dx"], back["dy"]) == (5.0, 5.0)
    assert np.array_equal(np.isnan(back["height"]), np.isnan(h))
    assert np.array_equal(back["height"][~np.isnan(h)], h[~np.isnan(h)])
    assert back["transform"][3] == 4000015.0  # top edge: the south-west corner plus 3 rows of 5 m


def test_generate_has_pyworldgens_call_shape():
    g = bozkir.generate("landscape", seed="rhine", domain_size=[64, 48], resolution=1.0)
    assert g["height"].shape == (48, 64) and g["water_depth"].shape == (48, 64)
    assert g.shape == (48, 64) and g.x[0] == 0.5 and g.y[-1] == 47.5 and g.resolution == 1.0
    assert g.colour.shape == (48, 64, 3) and g.colour.dtype == np.uint8
    again = bozkir.generate("landscape", seed="rhine", domain_size=[64, 48], resolution=1.0)
    assert g["height"].tobytes() == again["height"].tobytes()
    flat = bozkir.generate("flat", seed="x", domain_size=[10, 6], resolution=2.0)
    assert flat["height"].shape == (3, 5) and np.all(flat["height"] == flat["height"][0, 0])


def test_progress_is_reported_and_a_raising_callback_stops_the_run():
    seen = []
    bozkir.run_recipe("ds2", size=32, until=4, progress=lambda s, d, n: seen.append((s, d, n)))
    assert any(s == "stream_power" for s, _, _ in seen)

    class Stop(Exception):
        pass

    def stop(stage, done, total):
        if done >= 3:
            raise Stop(stage)

    with pytest.raises(Stop):
        bozkir.run_recipe("ds2", size=32, until=4, progress=stop)

    def interrupt(stage, done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bozkir.run_recipe("ds2", size=32, until=4, progress=interrupt)


def test_the_gil_is_released_during_work():
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    h = bozkir.profile("canyon", seed=2, size=128)["height"]
    t = threading.Thread(target=ticker)
    t.start()
    start = time.perf_counter()
    bozkir.apply(h, "stream_power", cell_size=10.0, steps=200, k=1e-4, dt=1000.0)
    end = time.perf_counter()
    stop.set()
    t.join()
    during = [x for x in ticks if start < x < end]
    # The Python thread kept running while the engine worked (it would be frozen under the GIL).
    assert end - start > 0.05 and len(during) >= 5, (end - start, len(during))


# A pyworldgen script switches by its import: the same calls and attributes on both packages
# (pyworldgen 0.1.8, installed beside the wheel by scripts/test_python.sh).
PEER_CASES = [
    ("flat", dict(domain_size=[40, 30], resolution=2.0, undulation_amp=1.5), 0.0),
    ("landscape", dict(domain_size=[64, 48], resolution=1.0), 0.0),
    ("roads", dict(domain_size=[64, 48], resolution=1.0), 0.0),
    # The composite's blend differs from the peer's float32 arithmetic by half a unit in the
    # last place at most (9.5e-7 m at 16–32 m).
    ("composite", dict(domain_size=[48, 40], resolution=1.0), 1e-5),
]


@pytest.mark.parametrize("name,params,tol", PEER_CASES, ids=[c[0] for c in PEER_CASES])
def test_generate_equals_pyworldgen(name, params, tol):
    pyworldgen = need("pyworldgen")
    a = pyworldgen.generate(name, seed="rhine", **params)
    b = bozkir.generate(name, seed="rhine", **params)
    assert a.height.shape == b.shape
    if tol == 0.0:
        assert np.array_equal(a.height, b.height.astype(a.height.dtype))
    else:
        assert np.abs(a.height.astype(np.float64) - b.height).max() <= tol
    if hasattr(a, "water_surface"):
        assert np.abs(a.water_surface.astype(np.float64) - b.water_surface).max() <= max(tol, 0.0)
    for axis in ("x", "y"):
        if hasattr(a, axis):
            assert np.array_equal(getattr(a, axis), getattr(b, axis))
    assert sorted(set(pyworldgen.list_generators()) - {"implicit_cave"}) == sorted(
        set(bozkir.list_generators()) - {"implicit_cave", "voxels"}
    )


def test_xarray_round_trip_keeps_coordinates_and_crs():
    xr = need("xarray")
    d = bozkir.read_dem(ROOT / "data" / "dem" / "gridded" / "jacksboro_nc4.nc")
    da = bozkir.to_dataarray(d)
    assert da.dims == ("lat", "lon") and da.attrs["crs"] == "EPSG:4326"
    assert da["lat"].values[0] > da["lat"].values[-1]  # north first
    assert abs(da["lon"].values[0] - (-84.4)) < 1e-9 and abs(da["lat"].values[0] - 36.73) < 1e-9
    back = bozkir.from_dataarray(da)
    assert np.array_equal(back["height"], d["height"])
    assert (back["dx"], back["dy"], back["crs"]) == (d["dx"], d["dy"], d["crs"])
    assert np.allclose(back["transform"], d["transform"], rtol=0, atol=1e-12)
    # South-first rows in metres with a projected CRS: read north first, the CRS kept.
    h = np.arange(20.0).reshape(4, 5)
    south_first = xr.DataArray(
        h[::-1], dims=("y", "x"), coords={"y": 15.0 + 30.0 * np.arange(4), "x": 500015.0 + 30.0 * np.arange(5)},
        attrs={"crs": "EPSG:32633"},
    )
    r = bozkir.from_dataarray(south_first)
    assert np.array_equal(r["height"], h) and r["crs"] == "EPSG:32633" and (r["dx"], r["dy"]) == (30.0, 30.0)
    assert r["transform"][0] == 500000.0 and r["transform"][3] == 120.0
    uneven = south_first.assign_coords(x=[0.0, 1.0, 2.0, 3.5, 4.0])
    with pytest.raises(ValueError, match="not evenly spaced"):
        bozkir.from_dataarray(uneven)
    # A generated terrain: metres from its south-west corner.
    t = bozkir.to_dataarray(bozkir.profile("canyon", size=16))
    assert t.dims == ("y", "x") and t["x"].values[0] == 5.0 and t["y"].values[0] == 155.0


def test_ctrl_c_cancels_a_long_run():
    # A real SIGINT to a Python process in the middle of a long stream-power run: it stops at the
    # next progress report with KeyboardInterrupt, long before the run would have finished.
    import signal
    import sys

    code = (
        "import bozkir, numpy as np, time, sys\n"
        "h = np.random.default_rng(1).random((512, 512)) * 100\n"
        "print('ready', flush=True)\n"
        "t = time.time()\n"
        "try:\n"
        "    bozkir.apply(h, 'stream_power', cell_size=10.0, steps=100000, k=1e-5, dt=1000.0)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted after %.2f s' % (time.time() - t), flush=True)\n"
        "    sys.exit(3)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 3, out
    assert out.startswith("interrupted after")


def test_erode_is_the_clis_erode(tmp_path):
    dem = ROOT / "data" / "dem" / "jacksboro_fault_dem.npz"
    d = bozkir.read_dem(dem)
    e = bozkir.erode(d["height"], cell_size=(d["dx"], d["dy"]), steps=20, k=2e-5)
    assert e["steps_run"] == 20 and (e["eroded"] >= 0).all()
    run_cli("erode", str(dem), "--steps", "20", "--k", "2e-5", "--outputs", "height", "--out", str(tmp_path / "e"))
    tif = bozkir.read_dem(tmp_path / "e" / "height.tif")["height"]
    assert np.array_equal(e["height"].astype(np.float32), tif.astype(np.float32))
    with pytest.raises(ValueError, match="steps"):
        bozkir.erode(d["height"], steps=0)
    with pytest.raises(ValueError, match="kappa|diffusion"):
        bozkir.erode(d["height"], diffusion=-1.0)


def test_height_files_and_point_clouds(tmp_path):
    t = bozkir.profile("canyon", seed=3, size=32)
    h = t["height"]
    run_cli("terrain", "--profile", "canyon", "--seed", "3", "--size", "32", "--out", str(tmp_path / "cli"))
    for name in ("height.png", "height.rg16.png", "height.r16"):
        lo, hi = bozkir.write_height(tmp_path / name, h, cell_size=10.0)
        assert (lo, hi) == (h.min(), h.max())
        assert (tmp_path / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    assert bozkir.write_height(tmp_path / "h.tif", h, cell_size=10.0) == (h.min(), h.max())
    assert np.array_equal(bozkir.read_dem(tmp_path / "h.tif")["height"], h.astype(np.float32).astype(np.float64))
    with pytest.raises(ValueError, match="extension"):
        bozkir.write_height(tmp_path / "h.bmp", h)
    bad = h.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        bozkir.write_height(tmp_path / "v.png", bad)
    assert not (tmp_path / "v.png").exists()
    las = bozkir.read_points(ROOT / "data" / "lidar" / "autzen_trim.laz")
    assert las["xyz"].shape == (110000, 3) and las["classification"].shape == (110000,)
    assert las["rgb"].shape == (110000, 3) and las["rgb"].dtype == np.uint16
    assert set(np.unique(las["classification"])) <= {1, 2}
    ply = bozkir.read_points(ROOT / "data" / "splat" / "luigi.ply")
    assert ply["xyz"].shape == (14526, 3) and ply["classification"] is None
    with pytest.raises(ValueError, match="extension"):
        bozkir.read_points(tmp_path / "h.tif")
