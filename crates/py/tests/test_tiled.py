"""Tiled worlds on Dask (bozkir.tiled): the untiled run's bits where stages have a bounded
reach, the same store for any tile count, worker count or a killed worker, seams within 5 %
where drainage crosses tiles, and the CLI's bytes."""

import os
import pathlib
import signal
import threading
import time

import numpy as np
import pytest

import bozkir
import bozkir.tiled

from test_bozkir import cli, need, run_cli

# Coarse sculpting and stream power, then every bounded stage a tile takes after the upsample.
EXACT = (pathlib.Path(__file__).resolve().parents[2] / "recipe" / "tests" / "data_tiled_exact.toml").read_text(
    encoding="utf-8"
).replace("factor = 2", "factor = FACTOR")


@pytest.fixture
def deadline():
    """Fail a cluster test that has not finished in 5 minutes instead of hanging the suite (a
    lost task error once did: see ``_portable_errors`` in ``bozkir/tiled.py``)."""

    def expired(signum, frame):
        raise TimeoutError("the Dask cluster test did not finish in 300 s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(300)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


CLUSTER = pytest.mark.usefixtures("deadline")


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two single-threaded worker processes."""
    distributed = need("distributed")
    dask = need("dask")
    # Spawned workers (distributed's default): a worker forked from this process after it ran
    # tiles in process would inherit rayon's thread pool without its threads and wait forever
    # (the killed worker's replacement is forked from here, after the reference run).
    dask.config.set({"distributed.worker.multiprocessing-method": "spawn"})
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    c = distributed.Client(cluster)
    c.wait_for_workers(2, timeout=120)
    yield c
    c.close()
    cluster.close()


def heights(store):
    zarr = need("zarr")
    return np.asarray(zarr.open_group(str(store), mode="r")["height"][:])


def chunk_bytes(store):
    base = pathlib.Path(store) / "height" / "c"
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


def test_plan_and_refusals():
    p = bozkir.tiled.plan("highlands", size=4097, tile=1024)
    assert (p["tiles"], p["factor"], p["coarse"], p["cell"]) == ((5, 5), 4, 1025, 7.5)
    assert p["exact"] is False and p["halo"] == p["reach"] + 64
    with pytest.raises(ValueError, match="nearest are 3073 and 4097"):
        bozkir.tiled.plan("highlands", size=4096)
    with pytest.raises(ValueError, match="needs one `upsample` stage"):
        bozkir.tiled.plan("canyon", size=1025)
    with pytest.raises(ValueError, match="neither a built-in recipe"):
        bozkir.tiled.plan("no-such-recipe", size=1025)


def test_a_panic_on_a_worker_reaches_the_client_as_an_error():
    """pyo3's PanicException cannot be pickled back from a worker (its module cannot be
    imported); the task wrapper turns it into a RuntimeError with the message, which can."""
    import pickle

    class PanicException(BaseException):
        pass

    def boom():
        raise PanicException("index out of bounds")

    with pytest.raises(RuntimeError, match="panicked on a worker: index out of bounds") as e:
        bozkir.tiled._portable_errors(boom)
    assert e.value.__context__ is None and e.value.__cause__ is None
    assert isinstance(pickle.loads(pickle.dumps(e.value)), RuntimeError)
    tblib = pytest.importorskip("tblib.pickling_support")
    tblib.install(e.value)
    assert isinstance(pickle.loads(pickle.dumps(e.value)), RuntimeError)
    # Ordinary errors and Ctrl-C pass through as they are.
    with pytest.raises(ValueError):
        bozkir.tiled._portable_errors(int, "x")

    def stop():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        bozkir.tiled._portable_errors(stop)


@CLUSTER
def test_bounded_stages_on_dask_are_the_untiled_run_bit_for_bit(client, tmp_path):
    text = EXACT.replace("FACTOR", "4")
    p = bozkir.tiled.plan(text, size=129, tile=40)
    assert p["exact"] and p["tiles"] == (4, 4)
    out = bozkir.tiled.generate(text, size=129, tile=40, store=tmp_path / "w.zarr", client=client)
    assert out["written"] == 16
    whole = bozkir.run_recipe(text)["height"]
    assert whole.shape == (129, 129)
    got = heights(tmp_path / "w.zarr")
    assert np.array_equal(got, whole.astype(np.float32)), "tiles differ from the untiled run"


@CLUSTER
def test_store_bytes_do_not_depend_on_workers_tiles_or_the_face(client, tmp_path):
    args = dict(size=513, coarse=129, seed=4)
    a = bozkir.tiled.generate("highlands", tile=128, store=tmp_path / "a.zarr", client=client, **args)
    b = bozkir.tiled.generate("highlands", tile=128, store=tmp_path / "b.zarr", client=None, **args)
    assert a["written"] == b["written"] == 25
    assert chunk_bytes(tmp_path / "a.zarr") == chunk_bytes(tmp_path / "b.zarr")
    # The command line writes the same store.
    run_cli("tiled", "--recipe", "highlands", "--size", "513", "--coarse", "129", "--seed", "4", "--tile", "128",
            "--out", str(tmp_path / "cli.zarr"))
    assert chunk_bytes(tmp_path / "cli.zarr") == chunk_bytes(tmp_path / "a.zarr")
    for f in ("zarr.json", "height/zarr.json", "x/c/0", "y/c/0"):
        assert (tmp_path / "cli.zarr" / f).read_bytes() == (tmp_path / "a.zarr" / f).read_bytes(), f
    # Another tile size: other chunks, the same heights wherever drainage stays inside the
    # halo — with highlands' fine stream power that is not every cell, so compare the exact
    # recipe's and bound highlands' difference.
    c = bozkir.tiled.generate("highlands", tile=256, store=tmp_path / "c.zarr", client=client, **args)
    assert c["written"] == 9
    ha, hc = heights(tmp_path / "a.zarr"), heights(tmp_path / "c.zarr")
    relief = float(ha.max() - ha.min())
    assert float(np.sqrt(np.mean((ha.astype(np.float64) - hc) ** 2))) < 1e-3 * relief
    text = EXACT.replace("FACTOR", "4")
    e1 = bozkir.tiled.generate(text, size=129, tile=16, store=tmp_path / "e1.zarr", client=client)
    e2 = bozkir.tiled.generate(text, size=129, tile=100, store=tmp_path / "e2.zarr", client=None)
    assert (e1["written"], e2["written"]) == (81, 4)
    assert np.array_equal(heights(tmp_path / "e1.zarr"), heights(tmp_path / "e2.zarr"))


@CLUSTER
def test_a_killed_worker_still_yields_the_same_store(client, tmp_path):
    args = dict(size=1025, coarse=257, seed=2, tile=128)
    ref = bozkir.tiled.generate("highlands", store=tmp_path / "ref.zarr", client=None, **args)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    killed = []

    def kill_when_started():
        # Once a few tiles are in the store, kill one worker process outright (its nanny
        # restarts it; the scheduler reruns the tasks it held).
        chunks = tmp_path / "run.zarr" / "height" / "c"
        deadline = time.time() + 60
        while time.time() < deadline:
            if chunks.is_dir() and sum(1 for p in chunks.rglob("*") if p.is_file()) >= 3:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
                return
            time.sleep(0.01)

    t = threading.Thread(target=kill_when_started)
    t.start()
    out = bozkir.tiled.generate("highlands", store=tmp_path / "run.zarr", client=client, **args)
    t.join()
    assert killed, "the run ended before a worker could be killed"
    assert out["written"] == ref["written"] == 81
    assert chunk_bytes(tmp_path / "run.zarr") == chunk_bytes(tmp_path / "ref.zarr")
    client.wait_for_workers(2, timeout=60)


def test_a_writers_leftover_temporary_file_is_gone_when_the_run_ends(tmp_path):
    """What a writer killed mid-chunk leaves (`.NAME.PID.N.tmp` beside the chunks; its tile reruns
    elsewhere) is swept once every tile is in: planted here after the first tile, deterministic
    where the killed-worker test above depends on when the kill lands."""
    store = tmp_path / "w.zarr"
    planted = store / "height" / "c" / "0" / ".0.99999.1.tmp"

    def plant(done, total):
        if done == 1:
            planted.write_bytes(b"half a chunk")

    out = bozkir.tiled.generate("highlands", size=257, coarse=65, seed=1, tile=128, store=store, progress=plant)
    assert out["written"] == 9
    assert not planted.exists()
    assert all(not p.name.endswith(".tmp") for p in (store / "height").rglob("*"))


def test_drainage_seams_stay_within_five_percent_and_streams_cross_borders(tmp_path):
    tile = 128
    bozkir.tiled.generate("highlands", size=1025, coarse=257, seed=5, tile=tile, store=tmp_path / "w.zarr")
    z = heights(tmp_path / "w.zarr").astype(np.float64)
    p = bozkir.tiled.plan("highlands", size=1025, coarse=257, seed=5, tile=tile)
    gy, gx = np.gradient(z, p["cell"])
    s = np.hypot(gx, gy)[2:-2, 2:-2]
    idx = np.arange(2, 1023)
    near = (idx % tile < 2) | (idx % tile >= tile - 2)
    band = near[:, None] | near[None, :]
    ratio = s[band].mean() / s[~band].mean()
    assert abs(ratio - 1) < 0.05, f"border band slope / interior {ratio}"
    # Streams (D8 accumulation over 200 cells) on the tiled world cross tile borders as often,
    # per border cell, as they cross the same lines shifted half a tile (no border there).
    acc = bozkir.analyze(z, cell_size=p["cell"], outputs="acc")["accumulation"]
    streams = acc > 200

    def crossings(offset):
        lines = np.arange(offset, 1025 - 1, tile)
        lines = lines[(lines > 0) & (lines < 1024)]
        across_x = sum(int(np.sum(streams[:, c - 1] & streams[:, c])) for c in lines)
        across_y = sum(int(np.sum(streams[r - 1, :] & streams[r, :])) for r in lines)
        return (across_x + across_y) / len(lines)

    at_borders, between = crossings(tile), crossings(tile // 2)
    assert at_borders > 0.6 * between, f"{at_borders} stream crossings per tile border vs {between} mid-tile"
