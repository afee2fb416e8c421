// Cell geometry of the tile grid, shared by the draw order (order.js) and the
// selective merging (merge.js).
//
// Both ask one question about two neighbouring cells: on which side of their
// shared boundary does the eye lie, and how far from it? order.js uses the
// sign, merge.js the magnitude. Keeping the plane in one place keeps the two
// in agreement about which boundaries are undecided.
//
// Conventions (the viewer's layout):
//   * a grid of n × n cells, cell id c = j·n + i, i runs east, j runs SOUTH
//     (row 0 is the northern row);
//   * cell centre in the grid's own frame: half = (n − 1)/2,
//     lx = (i − half)·tile, ly = (half − j)·tile, then turned by angleDeg
//     (counter-clockwise, about +z) into the world frame: x east, y north,
//     z up;
//   * heights come from geom.heightAt(x, y) (world metres); a geometry
//     without heightAt is flat ground at z = 0.
//
// No DOM, no WebGL: runs in node and in the browser.

/**
 * @typedef {object} GridGeometry
 * @property {number} n          cells per side
 * @property {number} tile       tile side in world units
 * @property {number} [angleDeg] rotation of the grid about +z, degrees (0 = axis aligned)
 * @property {(x: number, y: number) => number} [heightAt] terrain height; flat 0 when absent
 */

const DEG = Math.PI / 180;

function height(geom, x, y) {
  return geom.heightAt ? geom.heightAt(x, y) : 0;
}

/**
 * Turns a point of the grid's own frame into the world frame.
 * @param {GridGeometry} geom
 * @param {number} lx
 * @param {number} ly
 * @returns {[number, number]} world [x, y]
 */
export function gridToWorld(geom, lx, ly) {
  const a = (geom.angleDeg || 0) * DEG;
  const c = Math.cos(a), s = Math.sin(a);
  return [lx * c - ly * s, lx * s + ly * c];
}

/**
 * World centre of cell c (no height).
 * @param {GridGeometry} geom
 * @param {number} c cell id, j·n + i
 * @returns {[number, number]} [x, y]
 */
export function cellCentre(geom, c) {
  const { n, tile } = geom;
  const i = c % n, j = (c - i) / n;
  const half = (n - 1) / 2;
  return gridToWorld(geom, (i - half) * tile, (half - j) * tile);
}

/**
 * The four corners of cell c in the world, lifted onto the terrain.
 * Order: north-west, north-east, south-east, south-west.
 * @param {GridGeometry} geom
 * @param {number} c cell id
 * @returns {Array<[number, number, number]>}
 */
export function cellCorners(geom, c) {
  const { n, tile } = geom;
  const i = c % n, j = (c - i) / n;
  const half = (n - 1) / 2;
  const lx = (i - half) * tile, ly = (half - j) * tile, h = tile / 2;
  const out = [];
  for (const [dx, dy] of [[-h, h], [h, h], [h, -h], [-h, -h]]) {
    const [x, y] = gridToWorld(geom, lx + dx, ly + dy);
    out.push([x, y, height(geom, x, y)]);
  }
  return out;
}

/**
 * The 4-neighbour pairs among the given cells, each pair once, as [a, b]
 * with b the east (i + 1) or south (j + 1) neighbour of a. Cells absent from
 * the list (culled, holes) produce no pairs. Pairs come in the order of
 * `cells`, east neighbour before south neighbour.
 * @param {ArrayLike<number>} cells cell ids
 * @param {number} n cells per side
 * @returns {Array<[number, number]>}
 */
export function neighbourPairs(cells, n) {
  const present = new Set();
  for (let k = 0; k < cells.length; k++) present.add(cells[k]);
  const pairs = [];
  for (let k = 0; k < cells.length; k++) {
    const c = cells[k];
    const i = c % n;
    if (i + 1 < n && present.has(c + 1)) pairs.push([c, c + 1]);
    if (c + n < n * n && present.has(c + n)) pairs.push([c, c + n]);
  }
  return pairs;
}

/**
 * The plane of the boundary shared by cells a and b.
 *
 * The edge's two ends are lifted onto the terrain with heightAt, the two
 * centres too. The normal is the centre-to-centre vector (a → b, 3-D, so it
 * tilts when relief lifts the cells unequally) with its component along the
 * 3-D edge removed: the plane contains the lifted edge and stands across the
 * surface, which is what separates the two tiles' splats when tiles follow
 * the ground. On flat ground it is the vertical plane through the edge.
 * `mid` is the midpoint of the lifted edge. Swapping a and b negates the
 * normal exactly and keeps mid, so boundarySign is exactly antisymmetric.
 *
 * @param {GridGeometry} geom
 * @param {number} a cell id
 * @param {number} b cell id (a 4-neighbour of a)
 * @returns {{mid: [number, number, number], normal: [number, number, number]}}
 */
export function boundary(geom, a, b) {
  const [ax, ay] = cellCentre(geom, a);
  const [bx, by] = cellCentre(geom, b);
  const az = height(geom, ax, ay), bz = height(geom, bx, by);
  const dx = bx - ax, dy = by - ay, dz = bz - az;
  const hl = Math.hypot(dx, dy) || 1;
  // Edge ends: the midpoint ± half a tile across the centre line.
  const mx = (ax + bx) / 2, my = (ay + by) / 2;
  const tx = (-dy / hl) * geom.tile / 2, ty = (dx / hl) * geom.tile / 2;
  // Sorted so that (a, b) and (b, a) use the very same two ends.
  let p = [mx + tx, my + ty], q = [mx - tx, my - ty];
  if (p[0] > q[0] || (p[0] === q[0] && p[1] > q[1])) [p, q] = [q, p];
  const pz = height(geom, p[0], p[1]), qz = height(geom, q[0], q[1]);
  let ex = q[0] - p[0], ey = q[1] - p[1], ez = qz - pz;
  const el = Math.hypot(ex, ey, ez) || 1;
  ex /= el; ey /= el; ez /= el;
  const along = dx * ex + dy * ey + dz * ez;
  let nx = dx - along * ex, ny = dy - along * ey, nz = dz - along * ez;
  const nl = Math.hypot(nx, ny, nz) || 1;
  nx /= nl; ny /= nl; nz /= nl;
  return {
    mid: [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (pz + qz) / 2],
    normal: [nx, ny, nz],
  };
}

/**
 * Signed distance from the eye to the boundary plane of a and b:
 * normal · (eye − mid), normal running from a to b. Positive puts the eye on
 * b's side, so b is the nearer cell and is drawn after a. Its magnitude is
 * the perpendicular distance to the plane (it does not fall off with range).
 * @param {GridGeometry} geom
 * @param {number} a cell id
 * @param {number} b cell id
 * @param {ArrayLike<number>} eye [x, y, z]
 * @returns {number}
 */
export function boundarySign(geom, a, b, eye) {
  const { mid, normal } = boundary(geom, a, b);
  return normal[0] * (eye[0] - mid[0])
    + normal[1] * (eye[1] - mid[1])
    + normal[2] * (eye[2] - mid[2]);
}
