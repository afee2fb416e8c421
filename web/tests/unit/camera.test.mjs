// node --test web/tests/unit/camera.test.mjs
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  orbitEye, cameraBasis, viewMat3, toCamera, project, viewProjection, frustumPlanes, frustumDistance, screenRay, focalPx,
} from '../../src/camera.js';

const close = (a, b, eps = 1e-9) => assert.ok(Math.abs(a - b) < eps, `${a} vs ${b}`);
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

test('orbit eye sits south of the target when looking north', () => {
  const e = orbitEye({ target: [1, 2, 3], az: 0, el: 0, dist: 10 });
  close(e[0], 1); close(e[1], -8); close(e[2], 3);
  const up = orbitEye({ target: [0, 0, 0], az: 0, el: 90, dist: 5 });
  close(up[2], 5);
  const east = orbitEye({ target: [0, 0, 0], az: 90, el: 0, dist: 5 }); // looking east: eye west
  close(east[0], -5); close(east[1], 0);
});

test('basis is orthonormal, right-handed (right × down = forward) and looks at the target', () => {
  for (const [az, el] of [[0, 0], [37, 25], [200, 60], [90, 89.99], [45, -10]]) {
    const b = cameraBasis({ target: [3, -1, 2], az, el, dist: 7, fov: 60 });
    for (const v of [b.right, b.down, b.forward]) close(Math.hypot(...v), 1, 1e-9);
    close(dot(b.right, b.down), 0); close(dot(b.right, b.forward), 0); close(dot(b.down, b.forward), 0);
    const c = [b.right[1] * b.down[2] - b.right[2] * b.down[1], b.right[2] * b.down[0] - b.right[0] * b.down[2], b.right[0] * b.down[1] - b.right[1] * b.down[0]];
    for (let k = 0; k < 3; k++) close(c[k], b.forward[k]);
    const t = toCamera(b, [3, -1, 2]);
    close(t[0], 0); close(t[1], 0); close(t[2], 7, 1e-9);
  }
});

test('top view: north is up and east is right on screen', () => {
  const b = cameraBasis({ target: [0, 0, 0], az: 0, el: 89.9, dist: 10, fov: 60 });
  const n = project(b, 800, 600, [0, 1, 0]);
  const e = project(b, 800, 600, [1, 0, 0]);
  assert.ok(n.y < 300, 'north above the centre');
  assert.ok(e.x > 400, 'east right of the centre');
  close(e.y, 300, 1e-6);
});

test('walk camera looks along its bearing, pitch up positive', () => {
  const b = cameraBasis({ eye: [0, 0, 1.7], az: 90, el: 10, fov: 60 });
  assert.ok(b.forward[0] > 0.9 && b.forward[2] > 0);
  assert.deepEqual(b.eye, [0, 0, 1.7]);
});

test('viewMat3 (column-major) maps world offsets to camera coordinates', () => {
  const b = cameraBasis({ target: [0, 0, 0], az: 30, el: 40, dist: 5, fov: 50 });
  const m = viewMat3(b), p = [0.3, -2, 1];
  const q = [p[0] - b.eye[0], p[1] - b.eye[1], p[2] - b.eye[2]];
  const cam = [0, 1, 2].map((r) => m[r] * q[0] + m[3 + r] * q[1] + m[6 + r] * q[2]);
  const ref = toCamera(b, p);
  for (let k = 0; k < 3; k++) close(cam[k], ref[k], 1e-6);
});

test('viewProjection agrees with project()', () => {
  const b = cameraBasis({ target: [1, 1, 0], az: 120, el: 30, dist: 9, fov: 70 });
  const M = viewProjection(b, 640, 480);
  const p = [2, -1, 0.5];
  const clip = [0, 1, 2, 3].map((r) => M[r] * p[0] + M[4 + r] * p[1] + M[8 + r] * p[2] + M[12 + r]);
  const px = project(b, 640, 480, p);
  close(((clip[0] / clip[3]) * 0.5 + 0.5) * 640, px.x, 1e-3);
  close((0.5 - (clip[1] / clip[3]) * 0.5) * 480, px.y, 1e-3);
  assert.ok(clip[2] / clip[3] > -1 && clip[2] / clip[3] < 1);
});

test('frustum planes: inside / outside', () => {
  const b = cameraBasis({ target: [0, 0, 0], az: 0, el: 30, dist: 10, fov: 60 });
  const planes = frustumPlanes(b, 4 / 3);
  assert.ok(frustumDistance(planes, [0, 0, 0]) > 0);
  assert.ok(frustumDistance(planes, [100, 0, 0]) < 0);
  assert.ok(frustumDistance(planes, b.eye.map((v, k) => v - 5 * b.forward[k])) < 0, 'behind');
});

test('screen ray through a projected point passes through it', () => {
  const b = cameraBasis({ target: [0, 0, 0], az: 77, el: 20, dist: 6, fov: 45 });
  const p = [0.7, -0.4, 0.2];
  const px = project(b, 800, 600, p);
  const { origin, dir } = screenRay(b, 800, 600, px.x, px.y);
  const v = [p[0] - origin[0], p[1] - origin[1], p[2] - origin[2]];
  const l = Math.hypot(...v);
  for (let k = 0; k < 3; k++) close(v[k] / l, dir[k], 1e-9);
  close(focalPx(90, 600), 300, 1e-9);
});
