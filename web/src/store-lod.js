// The quadtree of a tiled world store (`bozkir tiled`, served by `bozkir serve` under
// data/stores/NAME/): which nodes to draw for a camera. Plain functions, no DOM, no GL.
//
// A world of S × S cells of `cell` metres is centred on the origin, x east, y north, z up. Level L
// cuts it into 2^L × 2^L nodes of `node` samples a side (node − 1 intervals); node (L, x, y)
// counts x east and y south from the north-west corner, as the server does.

/** World extent of node (level, x, y): {x0, x1, y0, y1} in metres (y0 north edge, y1 south). */
export function nodeBounds(meta, level, x, y) {
  const half = ((meta.size - 1) * meta.cell_m) / 2;
  const span = ((meta.size - 1) * meta.cell_m) / 2 ** level;
  return { x0: -half + x * span, x1: -half + (x + 1) * span, y0: half - y * span, y1: half - (y + 1) * span, span };
}

/** Distance from point p to node's box (its xy rectangle between the world's low and high). */
export function nodeDistance(meta, b, p, zscale = 1) {
  const dx = Math.max(b.x0 - p[0], 0, p[0] - b.x1);
  const dy = Math.max(b.y1 - p[1], 0, p[1] - b.y0);
  const lo = meta.low_m * zscale, hi = meta.high_m * zscale;
  const dz = Math.max(lo - p[2], 0, p[2] - hi);
  return Math.hypot(dx, dy, dz);
}

/**
 * The nodes to draw: a node is split when the eye is nearer than `lod` × its span and its level
 * is not the deepest; a split node draws its four children where all four are loaded, else
 * itself (and asks for the children). `loaded(key)` tells whether a node's heights are on the
 * GPU; `visible(bounds)` culls (default: everything). Returns {draw: [{level, x, y, key}],
 * want: [{level, x, y, key, dist}]} — `want` is every node wanted and not loaded, nearest and
 * coarsest first.
 */
export function selectNodes(meta, eye, { lod = 1.5, zscale = 1, loaded = () => false, visible = () => true } = {}) {
  const draw = [], want = [];
  const key = (l, x, y) => `${l}/${x}/${y}`;
  const visit = (l, x, y) => {
    const b = nodeBounds(meta, l, x, y);
    if (!visible(b)) return;
    const k = key(l, x, y);
    if (!loaded(k)) {
      want.push({ level: l, x, y, key: k, dist: nodeDistance(meta, b, eye, zscale) });
      return;
    }
    const dist = nodeDistance(meta, b, eye, zscale);
    if (l + 1 < meta.levels && dist < lod * b.span) {
      const kids = [];
      for (let j = 0; j < 2; j++) for (let i = 0; i < 2; i++) kids.push([l + 1, 2 * x + i, 2 * y + j]);
      const ready = kids.filter(([cl, cx, cy]) => !visible(nodeBounds(meta, cl, cx, cy)) || loaded(key(cl, cx, cy)));
      if (ready.length === 4) {
        for (const [cl, cx, cy] of kids) visit(cl, cx, cy);
        return;
      }
      for (const [cl, cx, cy] of kids) {
        const cb = nodeBounds(meta, cl, cx, cy);
        if (visible(cb) && !loaded(key(cl, cx, cy))) want.push({ level: cl, x: cx, y: cy, key: key(cl, cx, cy), dist: nodeDistance(meta, cb, eye, zscale) });
      }
    }
    draw.push({ level: l, x, y, key: k });
  };
  visit(0, 0, 0);
  want.sort((a, b) => a.level - b.level || a.dist - b.dist);
  return { draw, want };
}
