"""bozkir: procedural terrain and worlds, from Rust, on numpy arrays.

Everything runs in the bozkir engine (the same code as the ``bozkir`` command line, so the same
inputs give the same bytes) with the GIL released; pass ``progress=callable(stage, done,
total)`` to watch a long run, and press Ctrl-C to cancel it (``KeyboardInterrupt``).

Height fields are 2-D ``float64`` arrays with a cell size ``(dx, dy)`` in metres (or one number
for square cells). Terrains and DEMs have row 0 at the north edge; pyworldgen's worlds
(``generate``) keep pyworldgen's layout, row 0 at the south edge.

>>> import bozkir
>>> t = bozkir.run_recipe("canyon", size=64, seed=3)
>>> t["height"].shape
(64, 64)
>>> eroded = bozkir.apply(t["height"], "stream_power", cell_size=t["dx"], steps=5, k=1e-4, dt=1000.0)
>>> sorted(eroded)
['dx', 'dy', 'height', 'masks', 'sea_level', 'seed']
"""

from ._bozkir import (
    __version__,
    analyze,
    apply,
    generate,
    list_generators,
    list_profiles,
    list_recipes,
    read_dem,
    run_recipe,
    write_geotiff,
)


def profile(name, seed=0, size=512, cell_size=10.0, height_range=1000.0, progress=None):
    """One of the 19 profiles of the original bozkır generator (``list_profiles()``): a
    ``(size, size)`` height field of ``cell_size`` metres spanning ``height_range`` metres, the
    same heights as ``bozkir terrain --profile NAME --seed SEED --size SIZE``. Returns the
    dictionary of ``run_recipe``."""
    if name not in list_profiles():
        raise ValueError(f"no profile {name!r}; have {', '.join(list_profiles())}")
    text = (
        'format = 1\nname = "python-profile"\nsize = %d\ncell_size = %r\nseed = %d\n\n'
        '[[stage]]\nop = "profile"\nprofile = "%s"\nheight_range = %r\n'
        % (size, float(cell_size), seed, name, float(height_range))
    )
    return run_recipe(text, progress=progress)


__all__ = [
    "__version__",
    "analyze",
    "apply",
    "generate",
    "list_generators",
    "list_profiles",
    "list_recipes",
    "profile",
    "read_dem",
    "run_recipe",
    "write_geotiff",
]
