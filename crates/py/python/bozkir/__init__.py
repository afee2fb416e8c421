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

import numpy as _np

from ._bozkir import (
    __version__,
    analyze,
    apply,
    erode,
    generator_table,
    list_profiles,
    list_recipes,
    read_dem,
    read_points,
    run_recipe,
    write_geotiff,
    write_height,
)
from . import _bozkir


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


class World:
    """A generated world with pyworldgen's attributes: ``name``, ``height`` and ``water_depth``
    (``(ny, nx)`` float64, row 0 at the south edge), ``water_surface`` (their sum, float32 as
    pyworldgen gives it), ``x`` and ``y`` (cell centres in metres), ``shape``, ``resolution``,
    ``domain_size``, ``metadata`` (the generator, the seed text and the resolved parameters), and
    bozkir's extras: ``dx``, ``dy``, ``colour`` (``(ny, nx, 3)`` uint8 or None) and the counts of
    ``roads``, ``rivers`` and ``trees``. ``world["height"]`` works as well as ``world.height``."""

    def __init__(self, name, seed, params, d):
        self.name = name
        self.height = d["height"]
        self.water_depth = d["water_depth"]
        self.water_surface = (self.height + self.water_depth).astype(_np.float32)
        self.dx, self.dy = d["dx"], d["dy"]
        ny, nx = self.height.shape
        self.shape = (ny, nx)
        self.x = (_np.arange(nx) + 0.5) * self.dx
        self.y = (_np.arange(ny) + 0.5) * self.dy
        self.resolution = self.dx
        self.domain_size = (nx * self.dx, ny * self.dy)
        self.colour = d.get("colour")
        self.roads, self.rivers, self.trees = d["roads"], d["rivers"], d["trees"]
        self.metadata = {"type": name, "seed": seed, "params": dict(params)}

    def __getitem__(self, key):
        return getattr(self, key)

    def __repr__(self):
        return f"World({self.name!r}, shape={self.shape}, resolution={self.resolution})"


def list_generators():
    """pyworldgen's generator names that this build has (height-field and voxel ones)."""
    return sorted(name for name, available, _ in generator_table() if available)


def get_info(name):
    """``(name, available, description)`` of one of pyworldgen's generators."""
    for row in generator_table():
        if row[0] == name:
            return row
    raise ValueError(f"unknown generator {name!r}; have {', '.join(n for n, _, _ in generator_table())}")


def generate(name, seed=0, progress=None, **params):
    """A world by pyworldgen's generator name and call shape, e.g. ``generate("landscape",
    seed="rhine", domain_size=[200, 150], resolution=1.0)``: the same heights as pyworldgen 0.1.8
    for the same seed and parameters. Returns a :class:`World`. Height-field generators only
    (``voxels`` and ``implicit_cave`` are the CLI's: ``bozkir world NAME``)."""
    d = _bozkir.generate(name, seed=str(seed), progress=progress, **params)
    return World(name, seed, params, d)


def _geographic(crs):
    """Whether ``"EPSG:n"`` names a geographic CRS (the EPSG geographic 2-D block, as the
    engine's ``Crs::parse`` tells them apart)."""
    try:
        return crs is not None and 4000 <= int(str(crs).upper().removeprefix("EPSG:")) < 5000
    except ValueError:
        return False


def to_dataarray(result, name="height"):
    """An ``xarray.DataArray`` of a result dictionary (``read_dem``, ``run_recipe``,
    ``profile``, ``apply``; or a ``World``): the ``name`` array with ``y`` (north first) and
    ``x`` coordinates of the cell centres, in the result's CRS units when it carries a
    ``transform`` (``lon``/``lat`` in degrees for a geographic CRS), else in metres from the
    south-west corner; attributes ``crs`` (``"EPSG:n"`` or None), ``units`` and the cell size
    ``dx``/``dy`` in metres. Needs xarray."""
    import xarray as xr

    a = result[name]
    ny, nx = a.shape[:2]
    dx, dy = result["dx"], result["dy"]
    t = result.get("transform") if isinstance(result, dict) else None
    crs = result.get("crs") if isinstance(result, dict) else None
    if isinstance(result, World):
        # pyworldgen's layout: row 0 south, x and y in metres from the south-west corner.
        return xr.DataArray(a, dims=("y", "x"), coords={"y": result.y, "x": result.x}, name=name,
                            attrs={"crs": None, "units": "m", "dx": dx, "dy": dy})
    if t is not None:
        xs = t[0] + (_np.arange(nx) + 0.5) * t[1]
        ys = t[3] + (_np.arange(ny) + 0.5) * t[5]
    else:
        xs = (_np.arange(nx) + 0.5) * dx
        ys = (ny - 0.5 - _np.arange(ny)) * dy
    degrees = t is not None and _geographic(crs)
    xn, yn = ("lon", "lat") if degrees else ("x", "y")
    da = xr.DataArray(a, dims=(yn, xn), coords={yn: ys, xn: xs}, name=name,
                      attrs={"crs": crs, "units": "m", "dx": dx, "dy": dy})
    da[xn].attrs["units"] = "degrees_east" if degrees else "m"
    da[yn].attrs["units"] = "degrees_north" if degrees else "m"
    return da


def from_dataarray(da):
    """Read a 2-D ``xarray.DataArray`` of heights placed by 1-D coordinates (``x``/``y``,
    ``lon``/``lat`` or ``longitude``/``latitude``, ascending or descending, degrees or metres)
    exactly as ``read_dem`` reads a NetCDF or Zarr file with those coordinates: rows north
    first, columns west first, degrees converted to metres at the centre latitude, uneven or
    non-finite coordinates refused. Returns ``read_dem``'s dictionary. Needs xarray."""
    import os
    import tempfile

    if da.ndim != 2:
        raise ValueError(f"from_dataarray: a 2-D array is needed, this one has dimensions {da.dims}")
    ydim, xdim = da.dims
    names = {"x": "x", "y": "y", "lon": "lon", "longitude": "lon", "lat": "lat", "latitude": "lat"}
    def key(dim):
        units = str(da[dim].attrs.get("units", "")).lower() if dim in da.coords else ""
        if dim not in da.coords:
            raise ValueError(f"from_dataarray: dimension {dim!r} has no coordinate array")
        if units.startswith("degree"):
            return "lat" if dim == ydim else "lon"
        if dim.lower() in names:
            return names[dim.lower()]
        return "y" if dim == ydim else "x"
    ky, kx = key(ydim), key(xdim)
    scale = {"km": 1000.0}.get(str(da.attrs.get("units", "m")).lower(), 1.0)
    fd, path = tempfile.mkstemp(suffix=".npz")
    os.close(fd)
    try:
        _np.savez(path, elevation=_np.asarray(da.values, dtype=_np.float64) * scale,
                  **{kx: _np.asarray(da[xdim].values, dtype=_np.float64),
                     ky: _np.asarray(da[ydim].values, dtype=_np.float64)})
        d = read_dem(path)
    finally:
        os.remove(path)
    crs = da.attrs.get("crs")
    if crs and not _geographic(crs) and d["crs"] is None:
        d["crs"] = str(crs)
    return d


__all__ = [
    "World",
    "from_dataarray",
    "to_dataarray",
    "get_info",
    "__version__",
    "analyze",
    "apply",
    "erode",
    "generate",
    "list_generators",
    "list_profiles",
    "list_recipes",
    "profile",
    "read_dem",
    "read_points",
    "run_recipe",
    "write_geotiff",
    "write_height",
]
