// First-person walk over the terrain: the drawn terrain is the collider. Pure functions (no
// DOM), so the walk can be tested in node along a scripted path.

/** Eye height above the ground in metres, walking speed in m/s, and the run multiplier. */
export const WALK = { eye: 1.7, speed: 1.4, run: 3 };

/**
 * A walk camera standing at (x, y): `{eye: [x, y, ground + eye], az, el, fov}`.
 * @param {(x:number, y:number) => number} heightAt the drawn terrain height (world units = metres)
 */
export function standAt(x, y, az, el, fov, heightAt, eye = WALK.eye) {
  return { eye: [x, y, heightAt(x, y) + eye], az, el, fov };
}

/**
 * One step of the walk: `keys` is a set of held keys (`w a s d` / arrows move, `q e` turn,
 * `z x` look up and down, `shift` runs); `dt` in seconds; `bounds` = half the world's side
 * (the walker stays on it). Returns the new camera; the eye stays `eye` above the terrain.
 */
export function walkStep(cam, keys, dt, heightAt, { bounds = Infinity, eye = WALK.eye, speed = WALK.speed, run = WALK.run } = {}) {
  const has = (k) => keys.has(k);
  const fwd = (has('w') || has('arrowup') ? 1 : 0) - (has('s') || has('arrowdown') ? 1 : 0);
  const side = (has('d') || has('arrowright') ? 1 : 0) - (has('a') || has('arrowleft') ? 1 : 0);
  let az = cam.az + ((has('e') ? 1 : 0) - (has('q') ? 1 : 0)) * 60 * dt;
  az = ((az % 360) + 360) % 360;
  const el = Math.max(-80, Math.min(80, cam.el + ((has('z') ? 1 : 0) - (has('x') ? 1 : 0)) * 40 * dt));
  const v = speed * (has('shift') ? run : 1) * dt;
  const a = (az * Math.PI) / 180;
  const len = Math.hypot(fwd, side) || 1;
  let x = cam.eye[0] + ((fwd * Math.sin(a) + side * Math.cos(a)) / len) * v;
  let y = cam.eye[1] + ((fwd * Math.cos(a) - side * Math.sin(a)) / len) * v;
  x = Math.max(-bounds, Math.min(bounds, x));
  y = Math.max(-bounds, Math.min(bounds, y));
  return standAt(x, y, az, el, cam.fov, heightAt, eye);
}
