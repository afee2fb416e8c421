"""Crops the 80x80 window of srtm_ref.tif (rows/cols 400..480) and its metric cell size."""
import json, math
import numpy as np, tifffile
WGS84_A = 6378137.0; WGS84_E2 = 6.69437999014e-3
def metres_per_degree(lat):
    phi = math.radians(lat); s = 1.0 - WGS84_E2 * math.sin(phi) ** 2
    return (math.pi * WGS84_A * math.cos(phi) / (180.0 * math.sqrt(s)),
            math.pi * WGS84_A * (1.0 - WGS84_E2) / (180.0 * s ** 1.5))
with tifffile.TiffFile('/work/shared/data/dem/srtm_ref.tif') as t:  # = data/dem/srtm_ref.tif
    p = t.pages[0]; a = p.asarray()
    sx, sy, _ = p.tags["ModelPixelScaleTag"].value; tie = p.tags["ModelTiepointTag"].value
y0 = x0 = 400; n = 80
z = a[y0:y0 + n, x0:x0 + n].astype('<i2'); assert (z != -32768).all()
lat = tie[4] - (y0 + n / 2.0) * sy
mx, my = metres_per_degree(lat)
np.save('dem.npy', z)
json.dump({'y0': y0, 'x0': x0, 'n': n, 'lat': lat, 'dx': sx * mx, 'dy': sy * my, 'square': 80.0}, open('meta.json', 'w'))
