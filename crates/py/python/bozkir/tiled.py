"""Worlds larger than memory, generated in tiles on Dask.

A tiled recipe has one ``upsample`` stage: the stages before it (sculpting, stream power: what
reads the whole field) run once over the whole world at the coarse size — the *coarse pass* —
and the stages after it run per tile, on the tile widened by a halo, at the world's resolution.
Stages of bounded reach (noise, crags, plates, blur, thermal) give tiles that are bit for bit the
untiled run; a ``stream_power`` stage after the upsample sees drainage only inside its tile's
window (``plan["exact"]`` is then False; ``docs/scale.md`` gives the measured seam error).

Tiles go to a Zarr v3 store, one chunk per tile (float32 heights ``height``, coordinates ``x`` and
``y`` in metres, row 0 north; the group's ``bozkir`` attribute names the world). Open it with
``xarray.open_zarr(store)``, ``zarr.open(store)``, or ``bozkir.read_dem(store)`` when it fits in
memory.

>>> import bozkir.tiled
>>> plan = bozkir.tiled.plan("highlands", size=2049, tile=1024)
>>> plan["tiles"], plan["factor"]
((3, 3), 2)

``generate`` runs the coarse pass on one worker, then every tile as a task on the ``client``'s
cluster (a ``dask.distributed.Client``: a ``LocalCluster`` of processes here, the same code on
any Dask cluster). A tile's chunk depends only on the plan, the coarse pass and the tile, so the
store is the same bytes whatever the number of workers, the order tasks run in, or a task
retried after its worker died. The same tiles run without Dask from the command line:
``bozkir tiled --recipe highlands --size 16385 --out world.zarr``.
"""

import os as _os
import time as _time

from . import _bozkir

__all__ = ["plan", "generate"]


def _recipe_text(recipe):
    """A built-in name, TOML text, or the text of a TOML file (workers need not see the file)."""
    if recipe in _bozkir.list_recipes() or "[[stage]]" in recipe:
        return recipe
    if _os.path.isfile(recipe):
        with open(recipe, encoding="utf-8") as f:
            return f.read()
    raise ValueError(
        f"recipe {recipe!r}: neither a built-in recipe ({', '.join(_bozkir.list_recipes())}), "
        "TOML text, nor an existing file"
    )


def plan(recipe="highlands", size=4097, tile=2048, halo=None, coarse=None, seed=None):
    """The plan of a tiled world: ``size``, ``tile``, ``halo`` and the stages' ``reach``
    (cells), ``exact`` (tiles bit for bit the untiled run), ``coarse`` size, ``coarse_cell`` and
    ``cell`` (metres), upsampling ``factor``, ``tiles`` (columns, rows), ``seed``. ``size`` must be
    ``(coarse − 1)·k + 1``; the error names the nearest sizes."""
    return _bozkir.tiled_plan((_recipe_text(recipe), size, tile, halo, coarse, seed))


def _worker_threads():
    """The thread count of the Dask worker running this task (its tiles run on that many
    threads, not on every core of the node), or None outside a worker."""
    try:
        from distributed import get_worker

        return get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        return None


def _portable_errors(call, *args):
    """``call(*args)`` on a worker, with a Rust panic re-raised as ``RuntimeError``. pyo3's
    ``PanicException`` is a ``BaseException`` of a module that cannot be imported, so it cannot
    be pickled back to the client: Dask would lose the error and the client would wait forever."""
    try:
        return call(*args)
    except Exception:
        raise
    except BaseException as e:
        if type(e).__name__ != "PanicException":
            raise
        message = str(e)
    # Raised outside the handler, so that the panic is not kept as ``__context__`` either
    # (distributed pickles exceptions with their context and traceback through tblib).
    raise RuntimeError(f"bozkir panicked on a worker: {message}")


def _tile_task(store, coarse_heights, tx, ty, spec):
    from . import _bozkir as b

    _portable_errors(b.tiled_tile, store, coarse_heights, tx, ty, spec, _worker_threads())
    return (tx, ty)


def _coarse_task(spec):
    from . import _bozkir as b

    # Every core of the worker's node: nothing else of this world runs until the coarse pass ends.
    return _portable_errors(b.tiled_coarse, spec, None)


def generate(
    recipe="highlands",
    size=4097,
    tile=2048,
    halo=None,
    coarse=None,
    seed=None,
    store="world.zarr",
    client=None,
    resume=False,
    retries=3,
    progress=None,
):
    """Generate a tiled world into the Zarr store ``store`` on a Dask cluster.

    ``client``: a ``dask.distributed.Client``; None runs every tile in this process, one after
    another (no Dask needed). ``resume``: keep the chunks already in the store (it is reopened
    only when its metadata is this world's exactly). ``retries``: how often Dask reruns a tile
    whose worker died. ``progress``: ``callable(done, total)`` after each tile.

    Returns a dict: the plan, ``store``, ``written`` and ``kept`` tile counts, and the wall
    seconds of the coarse pass and of the tiles.
    """
    text = _recipe_text(recipe)
    args = (text, size, tile, halo, coarse, seed)
    p = _bozkir.tiled_plan(args)
    store = _os.fspath(store)
    present = set(_bozkir.tiled_open(store, args, resume))
    nx, ny = p["tiles"]
    todo = [(tx, ty) for ty in range(ny) for tx in range(nx) if not (resume and (tx, ty) in present)]
    t0 = _time.perf_counter()
    if client is None:
        coarse_heights = _bozkir.tiled_coarse(args)
    else:
        coarse_heights = client.submit(_coarse_task, args, pure=False).result()
    t1 = _time.perf_counter()
    done = 0
    if client is None:
        for tx, ty in todo:
            _tile_task(store, coarse_heights, tx, ty, args)
            done += 1
            if progress is not None:
                progress(done, len(todo))
    else:
        from dask.distributed import as_completed

        shared = client.scatter(coarse_heights, broadcast=True)
        futures = [
            client.submit(_tile_task, store, shared, tx, ty, args, key=f"bozkir-tile-{tx}-{ty}-{_os.getpid()}-{id(todo)}",
                          retries=retries, pure=False)
            for tx, ty in todo
        ]
        for fut in as_completed(futures):
            fut.result()
            done += 1
            if progress is not None:
                progress(done, len(todo))
    t2 = _time.perf_counter()
    # A worker killed in the middle of a chunk leaves its temporary file beside the chunks (the
    # scheduler reran its tile elsewhere, whose chunk was renamed into place whole). Every tile
    # is in now and nothing else writes the store, so those files go; and every chunk must be
    # there.
    present = _bozkir.tiled_open(store, args, True)
    if len(present) != nx * ny:
        raise RuntimeError(f"{store}: {nx * ny - len(present)} of {nx * ny} tiles missing after the run")
    out = dict(p)
    out.update(store=store, written=len(todo), kept=nx * ny - len(todo), coarse_s=t1 - t0, tiles_s=t2 - t1)
    return out
