// Orbit / walk camera maths for the splat renderer. Plain functions, no DOM, no GL.
//
// World: x east, y north, z up (tilegrid.rs). Camera space (as 3DGS / bozkir camera.py):
// x right, y down, z forward. `az` is the compass bearing the camera LOOKS toward, in degrees
// (0 = looking north, 90 = looking east); `el` is how far the orbit eye sits above the target's
// horizon (orbit) or the pitch of the gaze above the horizon (walk). A top view (el 90, az 0)
// shows north up and east right.

export const DEG = Math.PI / 180;

const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = (a) => {
  const l = Math.hypot(a[0], a[1], a[2]) || 1;
  return [a[0] / l, a[1] / l, a[2] / l];
};
export const vec = { sub, dot, cross, norm };

/** Orbit eye: target + dist·(−cos el·sin az, −cos el·cos az, sin el). */
export function orbitEye({ target, az, el, dist }) {
  const a = az * DEG, e = el * DEG;
  return [
    target[0] - dist * Math.cos(e) * Math.sin(a),
    target[1] - dist * Math.cos(e) * Math.cos(a),
    target[2] + dist * Math.sin(e),
  ];
}

/**
 * Eye and camera axes for an orbit camera {target, az, el, dist, fov} or a walk camera
 * {eye, az, el, fov}. `right` always follows the bearing, so straight-down views stay stable.
 */
export function cameraBasis(cam) {
  const a = cam.az * DEG, e = cam.el * DEG;
  let eye, forward;
  if (cam.eye) {
    eye = cam.eye.slice(0, 3);
    forward = [Math.cos(e) * Math.sin(a), Math.cos(e) * Math.cos(a), Math.sin(e)];
  } else {
    eye = orbitEye(cam);
    forward = [Math.cos(e) * Math.sin(a), Math.cos(e) * Math.cos(a), -Math.sin(e)];
  }
  const right = [Math.cos(a), -Math.sin(a), 0];
  const down = cross(forward, right);
  return { eye, forward, right, down, fov: cam.fov ?? 60 };
}

/** world → camera rotation as a column-major mat3 (rows right, down, forward) for GLSL. */
export function viewMat3(basis) {
  const { right: r, down: d, forward: f } = basis;
  return new Float32Array([r[0], d[0], f[0], r[1], d[1], f[1], r[2], d[2], f[2]]);
}

/** Camera-space coordinates of world point p. */
export function toCamera(basis, p) {
  const q = sub(p, basis.eye);
  return [dot(basis.right, q), dot(basis.down, q), dot(basis.forward, q)];
}

/** Focal length in pixels for a vertical field of view over `height` pixels. */
export function focalPx(fovDeg, height) {
  return (0.5 * height) / Math.tan(0.5 * fovDeg * DEG);
}

/** Pixel position (x right, y down, origin top-left) and depth of world point p, or null behind. */
export function project(basis, width, height, p) {
  const c = toCamera(basis, p);
  if (c[2] <= 1e-9) return null;
  const f = focalPx(basis.fov, height);
  return { x: width / 2 + (f * c[0]) / c[2], y: height / 2 + (f * c[1]) / c[2], depth: c[2] };
}

/**
 * Column-major 4×4 view-projection (OpenGL clip space) equal to what the shaders compute from
 * the mat3 view and focal length: clip = (2f·x/W, −2f·y/H, ((far+near)z − 2·far·near)/(far−near), z).
 */
export function viewProjection(basis, width, height, near = 0.05, far = 50000) {
  const f = focalPx(basis.fov, height);
  const sx = (2 * f) / width, sy = (-2 * f) / height;
  const A = (far + near) / (far - near), B = (-2 * far * near) / (far - near);
  const { right: r, down: d, forward: w, eye: e } = basis;
  const tr = -dot(r, e), td = -dot(d, e), tf = -dot(w, e);
  // rows of the 4×4 (row-major), then transposed into column-major storage
  const rows = [
    [sx * r[0], sx * r[1], sx * r[2], sx * tr],
    [sy * d[0], sy * d[1], sy * d[2], sy * td],
    [A * w[0], A * w[1], A * w[2], A * tf + B],
    [w[0], w[1], w[2], tf],
  ];
  const m = new Float32Array(16);
  for (let c = 0; c < 4; c++) for (let k = 0; k < 4; k++) m[c * 4 + k] = rows[k][c];
  return m;
}

/**
 * Frustum planes {n:[x,y,z], d}: a point p is inside when n·p + d ≥ 0 for all of them.
 * Order: left, right, top, bottom, near.
 */
export function frustumPlanes(basis, aspect, near = 0.05) {
  const ty = Math.tan(0.5 * basis.fov * DEG), tx = ty * aspect;
  const { right: r, down: dn, forward: f, eye } = basis;
  const mk = (cx, cy, cz) => {
    // camera-space normal → world
    const n = norm([r[0] * cx + dn[0] * cy + f[0] * cz, r[1] * cx + dn[1] * cy + f[1] * cz, r[2] * cx + dn[2] * cy + f[2] * cz]);
    return { n, d: -dot(n, eye) };
  };
  const planes = [mk(1, 0, tx), mk(-1, 0, tx), mk(0, 1, ty), mk(0, -1, ty), mk(0, 0, 1)];
  planes[4].d -= near;
  return planes;
}

/** Signed distance of p to the frustum: the minimum over planes (≥ 0 inside). */
export function frustumDistance(planes, p) {
  let m = Infinity;
  for (const { n, d } of planes) m = Math.min(m, n[0] * p[0] + n[1] * p[1] + n[2] * p[2] + d);
  return m;
}

/**
 * Ray through a pixel (x right, y down, in pixels of a width×height view): {origin, dir} unit dir.
 */
export function screenRay(basis, width, height, px, py) {
  const f = focalPx(basis.fov, height);
  const cx = (px - width / 2) / f, cy = (py - height / 2) / f;
  const { right: r, down: d, forward: w } = basis;
  const dir = norm([w[0] + r[0] * cx + d[0] * cy, w[1] + r[1] * cx + d[1] * cy, w[2] + r[2] * cx + d[2] * cy]);
  return { origin: basis.eye.slice(), dir };
}
