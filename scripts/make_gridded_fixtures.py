"""Write the NetCDF and Zarr DEM fixtures of data/dem/gridded/ with the reference libraries.

Run once with numpy, xarray, netCDF4, scipy and zarr installed (any recent versions); the files
it writes are committed, so the tests never need Python. The source is matplotlib's Jacksboro
DEM (data/dem/jacksboro_fault_dem.npz, int16, 344 x 403, 3 arc-second cells).

  jacksboro_nc4.nc      NetCDF-4 (HDF5), deflate + shuffle, south-first rows (latitude
                        ascending, the CF/xarray habit), lon/lat in degrees, int16 elevation.
  jacksboro_classic.nc  NetCDF-3 classic (CDF-1), same layout, written by scipy.
  jacksboro_v2.zarr     Zarr v2 directory store (xarray, Blosc/LZ4 default), same layout.
  jacksboro_v3.zarr     Zarr v3 directory store (xarray, zstd default), same layout.
  packed_utm.nc         NetCDF-4 of a projected grid: x/y in metres, north-first rows, int16
                        packed with scale_factor 0.1 and add_offset 100, _FillValue -32768 on a
                        12 x 9 void, a grid mapping variable carrying EPSG:32616's WKT.
  codecs_v2_zlib.zarr   Zarr v2, zlib, big-endian float32, 60 x 80 in 32 x 32 chunks, the last
                        chunk all fill (-9999, also the _FillValue) and so not written.
  codecs_v3_gzip_crc_be.zarr
                        Zarr v3 of the same: big-endian bytes, gzip then crc32c.
  uneven_lat.nc, furlongs.nc, two_grids.nc
                        4 x 5 grids the reader must refuse: uneven latitudes, unknown height
                        units, two grids none of which is named as an elevation.
"""
import pathlib
import shutil
import sys

import numpy as np
import xarray as xr

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "data" / "dem" / "gridded"
out.mkdir(parents=True, exist_ok=True)
src = np.load(root / "data" / "dem" / "jacksboro_fault_dem.npz")
elev = src["elevation"]  # north-first rows, as the NPZ reader takes them
h, w = elev.shape
step = 1.0 / 1200.0
lon0, lat_top = -84.4, 36.73
lon = lon0 + step * np.arange(w)
lat = lat_top - step * np.arange(h)
# South-first: flip the rows and the latitudes together.
da = xr.DataArray(
    elev[::-1].copy(),
    dims=("lat", "lon"),
    coords={"lat": lat[::-1].copy(), "lon": lon},
    name="elevation",
    attrs={"units": "m", "long_name": "surface elevation"},
)
da.lat.attrs.update(units="degrees_north", standard_name="latitude")
da.lon.attrs.update(units="degrees_east", standard_name="longitude")
ds = da.to_dataset()

ds.to_netcdf(out / "jacksboro_nc4.nc", format="NETCDF4", engine="netcdf4",
             encoding={"elevation": {"zlib": True, "complevel": 4, "shuffle": True}})
ds.to_netcdf(out / "jacksboro_classic.nc", format="NETCDF3_CLASSIC", engine="scipy")
for name, fmt in (("jacksboro_v2.zarr", 2), ("jacksboro_v3.zarr", 3)):
    shutil.rmtree(out / name, ignore_errors=True)
    ds.to_zarr(out / name, zarr_format=fmt, consolidated=False, mode="w")

# A packed projected grid with a void: 80 x 60 cells of 30 m, north-first rows.
ph, pw = 60, 80
heights = elev[:ph, :pw].astype(np.float64) + 0.25  # metres, quarter-metre offset survives packing at 0.1
packed = np.round((heights - 100.0) / 0.1).astype(np.int16)
packed[20:29, 30:42] = -32768
x = 500_000.0 + 15.0 + 30.0 * np.arange(pw)
y = 4_070_000.0 - 15.0 - 30.0 * np.arange(ph)
wkt = (
    'PROJCS["WGS 84 / UTM zone 16N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,'
    'AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],'
    'UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],'
    'PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",-87],'
    'PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],'
    'UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],'
    'AUTHORITY["EPSG","32616"]]'
)
pds = xr.Dataset(
    {
        "band1": (("y", "x"), packed, {"grid_mapping": "transverse_mercator", "units": "m"}),
        "transverse_mercator": ((), np.int32(0), {"crs_wkt": wkt, "spatial_ref": wkt,
                                                  "grid_mapping_name": "transverse_mercator"}),
    },
    coords={"x": ("x", x, {"units": "m", "standard_name": "projection_x_coordinate"}),
            "y": ("y", y, {"units": "m", "standard_name": "projection_y_coordinate"})},
)
pds["band1"].encoding.update(scale_factor=0.1, add_offset=100.0, _FillValue=np.int16(-32768), dtype="int16")
# The values are already packed: write them raw and declare the packing by attributes.
raw = pds.copy()
raw["band1"].attrs.update(scale_factor=0.1, add_offset=100.0, _FillValue=np.int16(-32768))
raw["band1"].encoding = {}
raw.to_netcdf(out / "packed_utm.nc", format="NETCDF4", engine="netcdf4")
# Small refusals: uneven latitudes, heights in furlongs, two grids with no elevation name.
tiny = np.arange(20, dtype=np.float32).reshape(4, 5) + 100.0
bad_lat = np.array([10.0, 10.1, 10.3, 10.4])
xr.Dataset({"elevation": (("lat", "lon"), tiny)},
           coords={"lat": bad_lat, "lon": 20.0 + 0.1 * np.arange(5)}).to_netcdf(out / "uneven_lat.nc", engine="netcdf4")
xr.Dataset({"elevation": (("y", "x"), tiny, {"units": "furlong"})},
           coords={"y": 50.0 - 10.0 * np.arange(4), "x": 10.0 * np.arange(5)}).to_netcdf(out / "furlongs.nc", engine="netcdf4")
xr.Dataset({"a": (("y", "x"), tiny), "b": (("y", "x"), tiny)},
           coords={"y": 50.0 - 10.0 * np.arange(4), "x": 10.0 * np.arange(5)}).to_netcdf(out / "two_grids.nc", engine="netcdf4")
# Codecs and layouts xarray's defaults do not use, written with zarr-python directly: the first
# 60 x 80 cells in 32 x 32 chunks (partial chunks at the edges), an all-fill chunk left unwritten.
import zarr
import numcodecs

sub = elev[:60, :80].astype(np.float32)
sub[32:60, 64:80] = -9999.0  # the whole last chunk: not written, read back as the fill value
ys = 4_070_000.0 - 15.0 - 30.0 * np.arange(60)
xs = 500_015.0 + 30.0 * np.arange(80)
for name, fmt, kw in (
    ("codecs_v2_zlib.zarr", 2, dict(compressors=numcodecs.Zlib(level=5))),
    ("codecs_v3_gzip_crc_be.zarr", 3, dict(compressors=[zarr.codecs.GzipCodec(level=5), zarr.codecs.Crc32cCodec()],
                                           serializer=zarr.codecs.BytesCodec(endian="big"))),
):
    shutil.rmtree(out / name, ignore_errors=True)
    g = zarr.open_group(out / name, mode="w", zarr_format=fmt)
    dims = {"dimension_names": ["y", "x"]} if fmt == 3 else {}
    e = g.create_array("elevation", shape=sub.shape, chunks=(32, 32), dtype=">f4" if fmt == 2 else "float32",
                       fill_value=-9999.0, config={"write_empty_chunks": False}, **dims, **kw)
    e[:] = sub
    e.attrs.update(units="m", _FillValue=-9999.0)
    for cname, vals in (("y", ys), ("x", xs)):
        c = g.create_array(cname, shape=vals.shape, chunks=vals.shape, dtype="float64",
                           **({"dimension_names": [cname]} if fmt == 3 else {}), **kw)
        c[:] = vals
        c.attrs.update(units="m")
        if fmt == 2:
            c.attrs["_ARRAY_DIMENSIONS"] = [cname]
    if fmt == 2:
        e.attrs["_ARRAY_DIMENSIONS"] = ["y", "x"]
print("wrote", sorted(p.name for p in out.iterdir()), file=sys.stderr)
