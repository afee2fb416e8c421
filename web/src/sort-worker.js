// Depth sorting of splats, off the main thread (a module worker), and the
// same functions for node tests and for the synchronous fallback (sorter.js).
//
// A comparison sort over hundreds of thousands of floats is far too slow for
// a frame; a counting sort over depth quantised to 16 bits is linear. The
// depth of splat p is d = (p − eye)·forward; it is quantised across the
// range actually present, q = floor((d − min)·65535/(max − min)), and the
// output runs FAR TO NEAR (bucket 65535 first), stable by splat index
// within a bucket. Short ranges take a comparison sort of the same keys,
// which gives the identical result without touching 65536 counters.
//
// Messages (worker side):
//   {type:'init', positions: Float32Array|ArrayBuffer (xyz), ranges:[{start,count}], seq?}
//       → {type:'ready', count, ranges, seq}
//   {type:'sort', forward:[3], eye:[3], seq, only?: number[]}
//       → {type:'sorted', orders: Uint32Array[] (one per range, ABSOLUTE splat
//          indices; null for ranges left out by `only`), ms, seq}
//   {type:'merge', forward:[3], eye:[3], groups:[[{range, offset:[3]}]], seq}
//       → {type:'merged', streams: Uint32Array[] (one per group, packed
//          slot<<29 | absolute index, far → near), ms, seq}
//   anything failing → {type:'error', message, seq}
// Result buffers are transferred.
//
// No DOM or WebGL: node imports this file for its exports.

import { INDEX_BITS, SLOT_BITS, INDEX_MASK } from './merge.js';

export { INDEX_BITS, SLOT_BITS } from './merge.js';
const BUCKETS = 65536;
const SMALL = 2048;   // below this many splats, sort the keys instead of counting

let counts = null;    // Uint32Array(65536), lazily
let depthScratch = new Float64Array(0);
let keyScratch = new Uint16Array(0);

function scratch(n) {
  if (depthScratch.length < n) {
    const size = Math.max(n, depthScratch.length * 2);
    depthScratch = new Float64Array(size);
    keyScratch = new Uint16Array(size);
  }
}

// Quantise depthScratch[0..n) into keyScratch, then write `n` output values
// out[o + r] = label(k) far → near, stable by k.
function countingSort(n, out, label) {
  const d = depthScratch, q = keyScratch;
  let min = Infinity, max = -Infinity;
  for (let k = 0; k < n; k++) {
    const v = d[k];
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const scale = max > min ? 65535 / (max - min) : 0;
  for (let k = 0; k < n; k++) {
    const b = Math.floor((d[k] - min) * scale);
    q[k] = b > 65535 ? 65535 : b;
  }
  if (n < SMALL) {
    // Same order as the counting sort: bucket descending, then k ascending.
    const tmp = new Float64Array(n);
    for (let k = 0; k < n; k++) tmp[k] = (65535 - q[k]) * n + k;
    tmp.sort();
    for (let r = 0; r < n; r++) out[r] = label(tmp[r] % n);
    return;
  }
  if (!counts) counts = new Uint32Array(BUCKETS);
  counts.fill(0);
  for (let k = 0; k < n; k++) counts[q[k]]++;
  // Start of each bucket, walking from the far end.
  let run = 0;
  for (let b = BUCKETS - 1; b >= 0; b--) {
    const c = counts[b];
    counts[b] = run;
    run += c;
  }
  for (let k = 0; k < n; k++) out[counts[q[k]]++] = label(k);
}

/**
 * Sorts splats start .. start+count−1 far → near along `forward`.
 * @param {Float32Array} positions xyz per splat
 * @param {number} start first splat
 * @param {number} count number of splats
 * @param {ArrayLike<number>} forward view direction (unit)
 * @param {ArrayLike<number>} eye [x, y, z]
 * @param {Uint32Array} [out] reused when at least `count` long
 * @returns {Uint32Array} `count` ABSOLUTE splat indices, far → near (16-bit
 *   depth buckets, stable by index within a bucket)
 */
export function depthSort(positions, start, count, forward, eye, out) {
  if (!out || out.length < count) out = new Uint32Array(count);
  if (count === 0) return out;
  scratch(count);
  const [fx, fy, fz] = forward;
  const [ex, ey, ez] = eye;
  const d = depthScratch;
  for (let k = 0, p = 3 * start; k < count; k++, p += 3) {
    d[k] = (positions[p] - ex) * fx + (positions[p + 1] - ey) * fy + (positions[p + 2] - ez) * fz;
  }
  countingSort(count, out, (k) => start + k);
  return out.length === count ? out : out.subarray(0, count);
}

/**
 * One far → near stream over the union of several splat ranges, each moved
 * by its own offset (the cell's place relative to the others), for drawing a
 * merged group of cells in one call. Counting sort over the union.
 * @param {Array<{start: number, count: number, offset?: ArrayLike<number>}>} groupEntries
 *   slot = position in this array (at most 8 entries)
 * @param {Float32Array} positions xyz per splat
 * @param {ArrayLike<number>} forward view direction (unit)
 * @param {ArrayLike<number>} eye [x, y, z]
 * @returns {Uint32Array} packed (slot << 29 | absolute index) >>> 0, far → near
 */
export function mergeSort(groupEntries, positions, forward, eye) {
  if (groupEntries.length > 1 << SLOT_BITS) {
    throw new RangeError(`a merged group holds at most ${1 << SLOT_BITS} cells, got ${groupEntries.length}`);
  }
  let total = 0;
  for (const g of groupEntries) total += g.count;
  const out = new Uint32Array(total);
  if (total === 0) return out;
  scratch(total);
  const [fx, fy, fz] = forward;
  const d = depthScratch;
  const label = new Uint32Array(total);
  let k = 0;
  groupEntries.forEach((g, slot) => {
    const o = g.offset || [0, 0, 0];
    const ex = eye[0] - o[0], ey = eye[1] - o[1], ez = eye[2] - o[2];
    const tag = (slot << INDEX_BITS) >>> 0;
    for (let r = 0, p = 3 * g.start; r < g.count; r++, p += 3, k++) {
      d[k] = (positions[p] - ex) * fx + (positions[p + 1] - ey) * fy + (positions[p + 2] - ez) * fz;
      label[k] = (tag | ((g.start + r) & INDEX_MASK)) >>> 0;
    }
  });
  countingSort(total, out, (j) => label[j]);
  return out;
}

/**
 * A fresh worker state (what `init` fills).
 * @returns {{positions: Float32Array|null, ranges: Array<{start: number, count: number}>}}
 */
export function createSortState() {
  return { positions: null, ranges: [] };
}

function now() {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

/**
 * Handles one message against a state; the worker and SyncSorter share it.
 * @param {{positions: Float32Array|null, ranges: Array<{start: number, count: number}>}} state
 * @param {object} msg see the file header
 * @returns {{reply: object, transfer: ArrayBuffer[]}}
 */
export function handleSortMessage(state, msg) {
  const seq = msg.seq ?? 0;
  try {
    if (msg.type === 'init') {
      const p = msg.positions;
      state.positions = p instanceof Float32Array ? p : new Float32Array(p);
      const n = state.positions.length / 3;
      state.ranges = (msg.ranges || [{ start: 0, count: n }]).map(({ start, count }) => {
        if (!(start >= 0 && count >= 0 && start + count <= n)) {
          throw new RangeError(`range {start: ${start}, count: ${count}} lies outside the ${n} splats`);
        }
        return { start, count };
      });
      return { reply: { type: 'ready', count: n, ranges: state.ranges.length, seq }, transfer: [] };
    }
    if (!state.positions) throw new Error(`'${msg.type}' before 'init'`);
    if (msg.type === 'sort') {
      const t0 = now();
      const which = msg.only || state.ranges.map((_, r) => r);
      const orders = state.ranges.map(() => null);
      for (const r of which) {
        const { start, count } = state.ranges[r];
        orders[r] = depthSort(state.positions, start, count, msg.forward, msg.eye);
      }
      const ms = now() - t0;
      return {
        reply: { type: 'sorted', orders, ms, seq },
        transfer: orders.filter(Boolean).map((o) => o.buffer),
      };
    }
    if (msg.type === 'merge') {
      const t0 = now();
      const streams = msg.groups.map((group) => mergeSort(
        group.map(({ range, offset }) => {
          const r = state.ranges[range];
          if (!r) throw new RangeError(`merge: no range ${range}`);
          return { start: r.start, count: r.count, offset };
        }),
        state.positions, msg.forward, msg.eye));
      const ms = now() - t0;
      return { reply: { type: 'merged', streams, ms, seq }, transfer: streams.map((s) => s.buffer) };
    }
    throw new Error(`unknown message type '${msg.type}'`);
  } catch (err) {
    return { reply: { type: 'error', message: String(err && err.message || err), seq }, transfer: [] };
  }
}

// Register only inside a dedicated worker; importing in node or a page is inert.
if (typeof WorkerGlobalScope !== 'undefined' && typeof self !== 'undefined'
    && self instanceof WorkerGlobalScope && typeof window === 'undefined') {
  const state = createSortState();
  self.onmessage = (e) => {
    const { reply, transfer } = handleSortMessage(state, e.data);
    self.postMessage(reply, transfer);
  };
}
