// Selective merging (GSWT §3.4).
//
// Cells are drawn one call each, from their own sorted orders, so two
// neighbours whose splats overlap on screen stack instead of interleaving.
// When the eye is near the plane of their shared boundary the overlap is
// real and the order between them is about to flip; such pairs are merged
// into one stream sorted over both. The score is |boundarySign|: the
// perpendicular distance from the eye to the boundary plane (grid.js), which
// does not fall off with range.
//
// A merged draw tags each index with the cell's slot in its group: the top
// SLOT_BITS bits of a 32-bit value, the splat index in the rest.
//
// No DOM, no WebGL: runs in node, the page and the sort worker.

import { boundarySign, neighbourPairs } from './grid.js';

/** Bits for a cell's slot within a merged group. */
export const SLOT_BITS = 3;
/** Most cells in one merged group (the slot must fit SLOT_BITS). */
export const MAX_GROUP = 1 << SLOT_BITS;
/** Bits left for the splat index (2^29 = 536,870,912 splats). */
export const INDEX_BITS = 32 - SLOT_BITS;
/** Mask of the index bits. */
export const INDEX_MASK = (1 << INDEX_BITS) - 1;

/**
 * Packs a slot and a splat index into one unsigned 32-bit value.
 * @param {number} slot 0 .. MAX_GROUP−1
 * @param {number} index 0 .. 2^29 − 1
 * @returns {number} (slot << 29 | index) as an unsigned number
 */
export function pack(slot, index) {
  return ((slot << INDEX_BITS) | (index & INDEX_MASK)) >>> 0;
}

/**
 * Splits a packed value (works for slot 7, whose values exceed 2^31).
 * @param {number} v packed value
 * @returns {[number, number]} [slot, index]
 */
export function unpack(v) {
  return [v >>> INDEX_BITS, (v & INDEX_MASK) >>> 0];
}

/**
 * GSWT's merge criterion: the eye's distance to the boundary plane of a and
 * b (world units). Small means the two cells interpenetrate on screen.
 * @param {import('./grid.js').GridGeometry} geom
 * @param {number} a cell id
 * @param {number} b cell id
 * @param {ArrayLike<number>} eye [x, y, z]
 * @returns {number}
 */
export function mergeScore(geom, a, b, eye) {
  return Math.abs(boundarySign(geom, a, b, eye));
}

/**
 * Groups of cells to draw as one merged stream, for one eye position.
 *
 * Neighbour pairs with score < threshold are united cheapest first
 * (union-find); a union that would exceed MAX_GROUP cells is skipped, so
 * when the cap bites it is the boundaries farthest from the eye that stay
 * apart. Every cell ends in exactly one group (singletons included). Groups
 * come in draw order: a group sits at the position of its first member in
 * `order`, and its members are listed in `order` order. The number of
 * merged pairs is cells.length − groups.length.
 *
 * @param {ArrayLike<number>} cells cell ids
 * @param {ArrayLike<number>|null} order the same ids in draw order (far → near);
 *   null keeps the order of `cells`
 * @param {import('./grid.js').GridGeometry} geom
 * @param {ArrayLike<number>} eye [x, y, z]
 * @param {number} [threshold=0.5·geom.tile] world units
 * @returns {number[][]} groups of cell ids
 */
export function mergeGroups(cells, order, geom, eye, threshold = 0.5 * geom.tile) {
  const m = cells.length;
  const pos = new Map();
  for (let k = 0; k < m; k++) pos.set(cells[k], k);
  const parent = new Int32Array(m);
  const size = new Int32Array(m).fill(1);
  for (let k = 0; k < m; k++) parent[k] = k;
  const find = (k) => {
    while (parent[k] !== k) { parent[k] = parent[parent[k]]; k = parent[k]; }
    return k;
  };
  const scored = [];
  for (const [a, b] of neighbourPairs(cells, geom.n)) {
    const s = mergeScore(geom, a, b, eye);
    if (s < threshold) scored.push([s, pos.get(a), pos.get(b)]);
  }
  scored.sort((p, q) => p[0] - q[0]);   // stable: equal scores keep pair order
  for (const [, a, b] of scored) {
    const ra = find(a), rb = find(b);
    if (ra === rb || size[ra] + size[rb] > MAX_GROUP) continue;
    if (size[ra] < size[rb]) { parent[ra] = rb; size[rb] += size[ra]; }
    else { parent[rb] = ra; size[ra] += size[rb]; }
  }
  const seq = order || cells;
  const groupOfRoot = new Map();
  const groups = [];
  for (let r = 0; r < seq.length; r++) {
    const k = pos.get(seq[r]);
    if (k === undefined) continue;
    const root = find(k);
    let g = groupOfRoot.get(root);
    if (!g) { g = []; groupOfRoot.set(root, g); groups.push(g); }
    g.push(seq[r]);
  }
  return groups;
}

/**
 * Exact reference merge of already sorted streams (far → near) by their
 * depths: repeatedly takes the head with the largest depth (ties: the
 * earlier stream). Slow but exact; the worker's counting sort (mergeSort in
 * sort-worker.js) is checked against it.
 * @param {Array<{slot: number, order: ArrayLike<number>, depth: ArrayLike<number>}>} streams
 *   order: splat indices; depth: one per entry, non-increasing
 * @returns {Uint32Array} packed (slot << 29 | index), far → near
 */
export function kwayMerge(streams) {
  let total = 0;
  for (const s of streams) total += s.order.length;
  const out = new Uint32Array(total);
  const head = new Int32Array(streams.length);
  for (let w = 0; w < total; w++) {
    let best = -1, bestDepth = -Infinity;
    for (let k = 0; k < streams.length; k++) {
      const h = head[k];
      if (h >= streams[k].order.length) continue;
      const d = streams[k].depth[h];
      if (best < 0 || d > bestDepth) { best = k; bestDepth = d; }
    }
    const s = streams[best];
    out[w] = pack(s.slot, s.order[head[best]++]);
  }
  return out;
}
