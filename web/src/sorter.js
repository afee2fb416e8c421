// The page's side of the sort worker (sort-worker.js): promises instead of
// messages, a sequence number per request so that a reply to an older
// request than the latest of its kind is dropped (its promise resolves to
// null), and SyncSorter, the same API without a worker, for tests and for
// browsers without module workers.

import { createSortState, handleSortMessage } from './sort-worker.js';

/**
 * @typedef {{start: number, count: number}} SplatRange
 * @typedef {{range: number, offset: ArrayLike<number>}} GroupMember
 */

/**
 * Sorting through a module worker.
 *
 * `sort` and `merge` each keep their own latest sequence number; a reply
 * whose seq is older than the latest request of its kind resolves its
 * promise to null (stale), so a caller may simply ignore null. Worker errors
 * reject the promise of the request that caused them.
 */
export class Sorter {
  /**
   * @param {URL|string} [workerUrl] the worker module
   * @param {{createWorker?: (url: URL|string) => Worker}} [opts] createWorker
   *   replaces `new Worker(url, {type: 'module'})` (tests)
   */
  constructor(workerUrl = new URL('./sort-worker.js', import.meta.url), { createWorker } = {}) {
    this.worker = createWorker ? createWorker(workerUrl) : new Worker(workerUrl, { type: 'module' });
    this.seq = 0;
    this.latest = { sorted: 0, merged: 0, ready: 0 };
    this.pending = new Map();   // seq → {kind, resolve, reject}
    this.worker.onmessage = (e) => this._receive(e.data);
    this.worker.onerror = (e) => {
      const err = new Error(`sort worker failed: ${e && e.message ? e.message : e}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
  }

  /** True while any request is waiting for its reply. */
  get busy() { return this.pending.size > 0; }

  _request(kind, msg, transfer = []) {
    const seq = ++this.seq;
    this.latest[kind] = seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { kind, resolve, reject });
      this.worker.postMessage({ ...msg, seq }, transfer);
    });
  }

  _receive(data) {
    const p = this.pending.get(data.seq);
    if (!p) return;
    this.pending.delete(data.seq);
    if (data.type === 'error') { p.reject(new Error(data.message)); return; }
    if (data.seq < this.latest[p.kind]) { p.resolve(null); return; }
    if (data.type === 'sorted') p.resolve({ orders: data.orders, ms: data.ms, seq: data.seq });
    else if (data.type === 'merged') p.resolve({ streams: data.streams, ms: data.ms, seq: data.seq });
    else p.resolve(data);
  }

  /**
   * Hands the worker the splat positions (copied) and the ranges to sort.
   * @param {Float32Array} positions xyz per splat
   * @param {SplatRange[]} ranges one per tile level
   * @returns {Promise<{type: 'ready', count: number, ranges: number, seq: number}>}
   */
  init(positions, ranges) {
    return this._request('ready', { type: 'init', positions, ranges });
  }

  /**
   * Sorts every range far → near along `forward`.
   * @param {ArrayLike<number>} forward unit view direction
   * @param {ArrayLike<number>} eye [x, y, z]
   * @param {number[]} [only] sort only these range indices (others: null)
   * @returns {Promise<{orders: Array<Uint32Array|null>, ms: number, seq: number} | null>}
   *   orders hold absolute splat indices; null when superseded
   */
  sort(forward, eye, only) {
    return this._request('sorted', { type: 'sort', forward: [...forward], eye: [...eye], only });
  }

  /**
   * One packed far → near stream (slot << 29 | absolute index) per group.
   * @param {ArrayLike<number>} forward unit view direction
   * @param {ArrayLike<number>} eye [x, y, z]
   * @param {GroupMember[][]} groups slot = position in its group
   * @returns {Promise<{streams: Uint32Array[], ms: number, seq: number} | null>}
   */
  merge(forward, eye, groups) {
    return this._request('merged', { type: 'merge', forward: [...forward], eye: [...eye], groups });
  }

  /** Stops the worker; waiting promises resolve to null. */
  terminate() {
    this.worker.terminate();
    for (const p of this.pending.values()) p.resolve(null);
    this.pending.clear();
  }
}

/**
 * The same API as Sorter, computed on the calling thread (results come back
 * as already-resolved promises; nothing is ever stale, `busy` is false).
 */
export class SyncSorter {
  constructor() {
    this.state = createSortState();
    this.seq = 0;
  }

  /** Always false: work finishes inside the call. */
  get busy() { return false; }

  _run(msg) {
    const { reply } = handleSortMessage(this.state, { ...msg, seq: ++this.seq });
    if (reply.type === 'error') return Promise.reject(new Error(reply.message));
    return Promise.resolve(reply);
  }

  /**
   * @param {Float32Array} positions xyz per splat (kept, not copied)
   * @param {SplatRange[]} ranges
   * @returns {Promise<{type: 'ready', count: number, ranges: number, seq: number}>}
   */
  init(positions, ranges) { return this._run({ type: 'init', positions, ranges }); }

  /**
   * @param {ArrayLike<number>} forward
   * @param {ArrayLike<number>} eye
   * @param {number[]} [only]
   * @returns {Promise<{orders: Array<Uint32Array|null>, ms: number, seq: number}>}
   */
  sort(forward, eye, only) {
    return this._run({ type: 'sort', forward, eye, only })
      .then((r) => ({ orders: r.orders, ms: r.ms, seq: r.seq }));
  }

  /**
   * @param {ArrayLike<number>} forward
   * @param {ArrayLike<number>} eye
   * @param {GroupMember[][]} groups
   * @returns {Promise<{streams: Uint32Array[], ms: number, seq: number}>}
   */
  merge(forward, eye, groups) {
    return this._run({ type: 'merge', forward, eye, groups })
      .then((r) => ({ streams: r.streams, ms: r.ms, seq: r.seq }));
  }

  /** Drops the positions. */
  terminate() { this.state = createSortState(); }
}

/**
 * A Sorter when module workers are available, else a SyncSorter.
 * @param {URL|string} [workerUrl]
 * @returns {Sorter|SyncSorter}
 */
export function createSorter(workerUrl) {
  if (typeof Worker === 'undefined') return new SyncSorter();
  try {
    return new Sorter(workerUrl);
  } catch {
    return new SyncSorter();
  }
}
