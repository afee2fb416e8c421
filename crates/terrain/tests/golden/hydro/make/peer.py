"""pysheds 0.5 peer for bozkir's D∞, MFD and HAND (issue 24, scope 7). See the golden README."""
import json, sys
import numpy as np
np.in1d = np.isin  # pysheds 0.5 calls np.in1d, removed in numpy >= 2.4
import pysheds
from affine import Affine
from pysheds.sgrid import sGrid
from pysheds.sview import Raster, ViewFinder

meta = json.load(open('meta.json'))
dx, dy, sq = meta['dx'], meta['dy'], meta['square']
filled = np.load('filled.npy')          # bozkir's fill_epsilon of the int16 window (f64)
codes = np.load('d8codes.npy').astype(np.int64)   # bozkir's D8 (ESRI codes, 0 = outlet)
streams = np.load('streams.npy').astype(bool)
n0, n1 = filled.shape

def grid_for(cx, cy, arr, nodata):
    vf = ViewFinder(affine=Affine(cx, 0.0, 0.0, 0.0, -cy, 0.0), shape=arr.shape, nodata=nodata)
    r = Raster(arr, viewfinder=vf)
    return sGrid.from_raster(r), r

border = np.zeros(filled.shape, bool); border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
out = {}
# 1. D∞ directions on metric (non-square) cells.
g, r = grid_for(dx, dy, filled, np.float64(-99999.0))
ang = np.asarray(g.flowdir(r, routing='dinf', flats=-1.0, pits=-2.0, nodata_out=np.nan))
out['dinf_angle'] = ang
# 2. D∞ accumulation on square cells (pysheds splits by pi/4 sectors: square cells only).
gs, rs = grid_for(sq, sq, filled, np.float64(-99999.0))
angs = gs.flowdir(rs, routing='dinf', flats=-1.0, pits=-2.0, nodata_out=np.nan)
out['dinf_angle_sq'] = np.asarray(angs)
ones = Raster(np.ones(filled.shape), viewfinder=ViewFinder(affine=rs.affine, shape=filled.shape, nodata=np.float64(-1.0)))
acc = gs.accumulation(angs, routing='dinf', weights=ones)
out['dinf_acc_sq'] = np.asarray(acc)
# 3. MFD (pysheds: share ∝ drop^p / distance, p = 1 fixed) on metric cells; borders are outlets.
fm = g.flowdir(r, routing='mfd', nodata_out=0.0)
fm[:, border] = 0.0
ones_m = Raster(np.ones(filled.shape), viewfinder=ViewFinder(affine=r.affine, shape=filled.shape, nodata=np.float64(-1.0)))
mfd = g.accumulation(fm, routing='mfd', weights=ones_m)
out['mfd_acc'] = np.asarray(mfd)
# 4. HAND over bozkir's D8 directions and stream mask (padded by one outlet ring: pysheds' HAND
#    walks flat indices without bounds checks).
P = lambda a, v: np.pad(a, 1, constant_values=v)
gp, rp = grid_for(dx, dy, P(filled, filled.max()), np.float64(-99999.0))
fd = Raster(P(codes, 0), viewfinder=ViewFinder(affine=rp.affine, shape=rp.shape, nodata=np.int64(-999)))
mk = Raster(P(streams, False), viewfinder=ViewFinder(affine=rp.affine, shape=rp.shape, nodata=False))
idx = np.asarray(gp.compute_hand(fd, rp, mk, return_index=True))[1:-1, 1:-1]
hnd = np.asarray(gp.compute_hand(fd, rp, mk))[1:-1, 1:-1]
# Padded flat index -> window flat index.
valid = idx >= 0
pr, pc = np.divmod(np.where(valid, idx, 0), n1 + 2)
out['hand_index'] = np.where(valid, (pr - 1) * n1 + (pc - 1), -1).astype(np.int32)
out['hand'] = hnd
for k, v in out.items():
    np.save(f'peer_{k}.npy', v)
print('pysheds', pysheds.__version__ if hasattr(pysheds, '__version__') else '?')
print('mass dinf', out['dinf_acc_sq'][border].sum(), filled.size, 'mfd', out['mfd_acc'][border].sum())
