// Tile-level draw order (GSWT §3.4, "tile-level topological sorting").
//
// Ranking cells by one depth number fails where the view lines up with a
// grid axis: every cell of a row projects to the same key, the tie-break
// decides the whole row at once and turning through the axis reverses it in
// one frame. Instead each pair of neighbours is constrained by the side of
// their shared boundary plane the eye is on (grid.js), and the constraints
// are sorted topologically (Kahn). The depth key only chooses among cells
// that are free at the same time, i.e. where no boundary decides.
//
// Pairs whose plane passes within epsilon of the eye are left unconstrained
// and returned as `weak`: their sign is the thing about to change, and those
// are exactly the pairs selective merging (merge.js) is for.
//
// No DOM, no WebGL: runs in node and in the browser.

import { boundarySign, neighbourPairs, cellCorners } from './grid.js';

export { cellCentre, cellCorners, boundary, boundarySign, neighbourPairs } from './grid.js';

/**
 * The default depth key of a cell: the largest distance from the eye to the
 * cell's four corners lifted onto the terrain (larger = farther). Unlike a
 * projection onto the view direction it does not tie across a whole row at
 * axis-aligned views (only mirror-symmetric cells tie, and ties are broken
 * by cell id).
 * @param {import('./grid.js').GridGeometry} geom
 * @param {number} c cell id
 * @param {ArrayLike<number>} eye [x, y, z]
 * @returns {number}
 */
export function cornerKey(geom, c, eye) {
  let best = -Infinity;
  for (const [x, y, z] of cellCorners(geom, c)) {
    const d = Math.hypot(x - eye[0], y - eye[1], z - eye[2]);
    if (d > best) best = d;
  }
  return best;
}

/**
 * The original viewer's "near key": the smallest projected depth
 * (corner − eye)·forward over the four corners. Kept for comparison and
 * tests: at axis-aligned views whole rows share one value.
 * @param {import('./grid.js').GridGeometry} geom
 * @param {number} c cell id
 * @param {ArrayLike<number>} eye [x, y, z]
 * @param {ArrayLike<number>} forward unit view direction
 * @returns {number}
 */
export function projectedKey(geom, c, eye, forward) {
  let best = Infinity;
  for (const [x, y, z] of cellCorners(geom, c)) {
    const d = (x - eye[0]) * forward[0] + (y - eye[1]) * forward[1] + (z - eye[2]) * forward[2];
    if (d < best) best = d;
  }
  return best;
}

/**
 * The pairwise constraints for one eye position.
 * @param {ArrayLike<number>} cells cell ids
 * @param {import('./grid.js').GridGeometry} geom
 * @param {ArrayLike<number>} eye [x, y, z]
 * @param {number} [epsilon=1e-6] pairs with |sign| ≤ epsilon are weak
 * @returns {{edges: Array<[number, number]>, weak: Array<[number, number, number]>}}
 *   edges [before, after] (cell ids; `before` is farther, drawn first);
 *   weak [a, b, sign] left unconstrained
 */
export function constraints(cells, geom, eye, epsilon = 1e-6) {
  const edges = [];
  const weak = [];
  for (const [a, b] of neighbourPairs(cells, geom.n)) {
    const s = boundarySign(geom, a, b, eye);
    if (Math.abs(s) <= epsilon) weak.push([a, b, s]);
    else edges.push(s > 0 ? [a, b] : [b, a]);
  }
  return { edges, weak };
}

// Max-heap of positions 0..m−1 by key, ties to the smaller position.
class Heap {
  constructor(key) { this.key = key; this.a = []; }
  get size() { return this.a.length; }
  above(p, q) {
    const kp = this.key[p], kq = this.key[q];
    return kp > kq || (kp === kq && p < q);
  }
  push(p) {
    const a = this.a;
    a.push(p);
    let i = a.length - 1;
    while (i > 0) {
      const u = (i - 1) >> 1;
      if (!this.above(a[i], a[u])) break;
      [a[i], a[u]] = [a[u], a[i]];
      i = u;
    }
  }
  pop() {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && this.above(a[l], a[m])) m = l;
        if (r < a.length && this.above(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}

/**
 * Kahn's algorithm over arbitrary items 0..count−1. Among items with no
 * unfinished predecessor the one with the largest key goes first (ties: the
 * smaller item). When everything left is blocked (a cycle) the item with the
 * largest key among those left is released, its remaining incoming
 * constraints are ignored, and the release is counted. O((V + E) log V).
 * @param {number} count number of items
 * @param {Array<[number, number]>} edges [before, after] item pairs
 * @param {ArrayLike<number>} key one number per item, larger first
 * @returns {{order: number[], cycles: number}}
 */
export function kahnOrder(count, edges, key) {
  const indeg = new Int32Array(count);
  const headOf = new Int32Array(count).fill(-1);
  const next = new Int32Array(edges.length);
  const to = new Int32Array(edges.length);
  edges.forEach(([u, v], e) => {
    to[e] = v; next[e] = headOf[u]; headOf[u] = e; indeg[v]++;
  });
  // Items by key, far first: where a cycle releases from.
  const byKey = Array.from({ length: count }, (_, k) => k)
    .sort((p, q) => (key[q] - key[p]) || (p - q));
  let cursor = 0;
  const done = new Uint8Array(count);
  const queued = new Uint8Array(count);
  const heap = new Heap(key);
  for (let k = 0; k < count; k++) if (indeg[k] === 0) { heap.push(k); queued[k] = 1; }
  const order = [];
  let cycles = 0;
  while (order.length < count) {
    let u;
    if (heap.size) {
      u = heap.pop();
    } else {
      while (done[byKey[cursor]]) cursor++;
      u = byKey[cursor];
      cycles++;
    }
    done[u] = 1;
    order.push(u);
    for (let e = headOf[u]; e >= 0; e = next[e]) {
      const v = to[e];
      if (done[v]) continue;
      if (--indeg[v] <= 0 && !queued[v]) { queued[v] = 1; heap.push(v); }
    }
  }
  return { order, cycles };
}

/**
 * Draw order of the given cells, far to near.
 *
 * For each 4-neighbour pair, s = boundarySign(a, b, eye): s > epsilon draws
 * a before b (the eye is on b's side, so a is farther), s < −epsilon the
 * reverse, |s| ≤ epsilon adds no constraint and lists the pair in `weak`.
 * Kahn's algorithm then orders the cells; among cells free at the same time
 * the largest depth key goes first; on a cycle the farthest remaining cell
 * (largest key) is released and counted in `cycles`.
 *
 * @param {ArrayLike<number>} cells cell ids (j·n + i), each once
 * @param {import('./grid.js').GridGeometry} geom
 * @param {ArrayLike<number>} eye [x, y, z]
 * @param {object} [opts]
 * @param {number} [opts.epsilon=1e-6] world units
 * @param {((c: number) => number) | ArrayLike<number>} [opts.depthKey]
 *   larger = farther; a function of the cell id, or an array indexed by cell
 *   id. Default: cornerKey (largest corner distance to the eye).
 * @returns {{order: number[], cycles: number, weak: Array<[number, number, number]>, constrained: number}}
 *   order: cell ids far → near; weak: [a, b, sign]; constrained: number of
 *   pair constraints used
 */
export function topoOrder(cells, geom, eye, { epsilon = 1e-6, depthKey } = {}) {
  const m = cells.length;
  const pos = new Map();
  for (let k = 0; k < m; k++) pos.set(cells[k], k);
  const key = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const c = cells[k];
    key[k] = typeof depthKey === 'function' ? depthKey(c)
      : depthKey ? depthKey[c] : cornerKey(geom, c, eye);
  }
  const { edges, weak } = constraints(cells, geom, eye, epsilon);
  const local = edges.map(([u, v]) => [pos.get(u), pos.get(v)]);
  const { order, cycles } = kahnOrder(m, local, key);
  return { order: order.map((k) => cells[k]), cycles, weak, constrained: edges.length };
}

/**
 * Number of pair constraints an order breaks (for tests and the panel).
 * @param {ArrayLike<number>} cells cell ids
 * @param {import('./grid.js').GridGeometry} geom
 * @param {ArrayLike<number>} eye [x, y, z]
 * @param {ArrayLike<number>} order cell ids far → near
 * @param {number} [epsilon=1e-6]
 * @returns {number}
 */
export function violations(cells, geom, eye, order, epsilon = 1e-6) {
  const rank = new Map();
  for (let k = 0; k < order.length; k++) rank.set(order[k], k);
  let bad = 0;
  for (const [u, v] of constraints(cells, geom, eye, epsilon).edges) {
    if (rank.get(u) > rank.get(v)) bad++;
  }
  return bad;
}
