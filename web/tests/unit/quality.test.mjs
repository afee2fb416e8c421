import test from 'node:test';
import assert from 'node:assert/strict';
import { AutoQuality } from '../../src/quality.js';

// Feeds `seconds` of frames of `ms` each (the clock advances by the frame time).
function run(q, ms, seconds, clock) {
  let last = null;
  const changes = [];
  const frames = Math.round((seconds * 1000) / ms);
  for (let k = 0; k < frames; k++) {
    clock.t += ms;
    last = q.frame(ms, clock.t);
    if (last.changed) changes.push({ ...last, t: clock.t });
  }
  return { last, changes };
}

test('slow frames lower the render scale first, never below 0.5', () => {
  const clock = { t: 0 };
  const q = new AutoQuality({ now: () => clock.t });
  const { changes } = run(q, 45, 1.2, clock);
  assert.ok(q.renderScale < 1, `scale ${q.renderScale}`);
  assert.equal(q.lodBase, 8, 'the LOD waits while the scale can still move');
  assert.ok(changes.length > 0 && changes.every((c) => c.lodBase === 8));
  run(q, 200, 20, clock);
  assert.ok(q.renderScale >= 0.5 && Math.abs(q.renderScale - 0.5) < 1e-9);
});

test('panic: five frames over 1.5 × budget cut the scale by 0.8 at once', () => {
  const clock = { t: 0 };
  const q = new AutoQuality({ now: () => clock.t });
  for (let k = 0; k < 4; k++) assert.equal(q.frame(60, (clock.t += 1)).changed, false);
  const r = q.frame(60, (clock.t += 1));
  assert.equal(r.changed, true);
  assert.ok(Math.abs(r.renderScale - 0.8) < 1e-12);
  // an ordinary frame in between restarts the count
  for (let k = 0; k < 4; k++) q.frame(60, (clock.t += 1));
  q.frame(10, (clock.t += 1));
  for (let k = 0; k < 4; k++) q.frame(60, (clock.t += 1));
  assert.ok(Math.abs(q.renderScale - 0.8) < 1e-12);
});

test('sustained slowness at the minimum scale lowers lodBase, one step per 3 s, never below 3', () => {
  const clock = { t: 0 };
  const q = new AutoQuality({ now: () => clock.t, lodBase: 8 });
  const { changes } = run(q, 80, 60, clock);
  const lodSteps = changes.filter((c, k) => k > 0 ? c.lodBase !== changes[k - 1].lodBase : c.lodBase !== 8);
  assert.equal(q.lodBase, 3);
  assert.equal(q.renderScale, 0.5);
  for (let k = 1; k < lodSteps.length; k++) assert.ok(lodSteps[k].t - lodSteps[k - 1].t >= 3000);
  // the first LOD step comes only after the scale reached its minimum
  const firstLod = changes.find((c) => c.lodBase < 8);
  assert.equal(firstLod.renderScale, 0.5);
});

test('fast frames raise the scale back to 1 and lodBase back to the user value, not above', () => {
  const clock = { t: 0 };
  const q = new AutoQuality({ now: () => clock.t, lodBase: 6 });
  run(q, 80, 30, clock);
  assert.equal(q.lodBase, 3);
  run(q, 8, 60, clock);
  assert.equal(q.renderScale, 1);
  assert.equal(q.lodBase, 6);
  run(q, 5, 30, clock);
  assert.equal(q.lodBase, 6, 'never above the user value');
});

test('setUserLodBase sets the value and the ceiling', () => {
  const clock = { t: 0 };
  const q = new AutoQuality({ now: () => clock.t, lodBase: 12 });
  q.setUserLodBase(5);
  assert.equal(q.lodBase, 5);
  run(q, 5, 30, clock);
  assert.equal(q.lodBase, 5);
});

test('frames inside the budget band change nothing; a phone can start at 0.6', () => {
  const clock = { t: 0 };
  const q = new AutoQuality({ now: () => clock.t });
  const { changes } = run(q, 31, 10, clock);
  assert.equal(changes.length, 0);
  const phone = new AutoQuality({ startScale: 0.6, now: () => clock.t });
  assert.equal(phone.renderScale, 0.6);
});

test('disabled does nothing', () => {
  const clock = { t: 0 };
  const q = new AutoQuality({ now: () => clock.t });
  q.enabled = false;
  const { changes, last } = run(q, 200, 20, clock);
  assert.equal(changes.length, 0);
  assert.deepEqual(last, { renderScale: 1, lodBase: 8, changed: false });
});

test('the injected clock is used when frame() gets no time', () => {
  let t = 0;
  const q = new AutoQuality({ now: () => t });
  for (let k = 0; k < 40; k++) { t += 50; q.frame(50); }
  assert.ok(q.renderScale < 1);
});
