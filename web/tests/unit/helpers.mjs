// Shared fixtures for the unit tests (not a test file itself).

/** All cell ids of an n × n grid. */
export function allCells(n) {
  return Array.from({ length: n * n }, (_, c) => c);
}

/** Orbit eye looking at the origin: az 0 = from the south looking north. */
export function orbit(azDeg, elDeg, dist, target = [0, 0, 0]) {
  const az = (azDeg * Math.PI) / 180, el = (elDeg * Math.PI) / 180;
  const off = [dist * Math.cos(el) * Math.sin(az), -dist * Math.cos(el) * Math.cos(az), dist * Math.sin(el)];
  const eye = [target[0] + off[0], target[1] + off[1], target[2] + off[2]];
  const len = Math.hypot(...off);
  const forward = off.map((v) => -v / len);
  return { eye, forward };
}

/** Deterministic pseudo-random numbers in [0, 1). */
export function rng(seed = 1) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a 64 over byte chunks, in two 32-bit halves (prime 2⁴⁰ + 0x1b3). */
export function fnv1a64(chunks) {
  let hi = 0xcbf29ce4, lo = 0x84222325;
  for (const c of chunks) {
    const b = new Uint8Array(c.buffer, c.byteOffset, c.byteLength);
    for (let k = 0; k < b.length; k++) {
      lo = (lo ^ b[k]) >>> 0;
      const a = lo * 0x1b3;
      hi = (hi * 0x1b3 + Math.floor(a / 4294967296) + (lo % 16777216) * 256) >>> 0;
      lo = a >>> 0;
    }
  }
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}
