// Presets, story chapters, the viewer guide, the walk and figure names (issue 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONTROLS, BY_ID, checkView, defaults } from '../../src/controls.js';
import { guideMarkdown, GUIDE_PATH } from '../../tools/guide.mjs';
import { standAt, walkStep, WALK } from '../../src/walk.js';
import { figureName, settingsText } from '../../src/figure.js';

const views = JSON.parse(readFileSync(new URL('../../views.json', import.meta.url)));
const info = JSON.parse(readFileSync(new URL('../../info.json', import.meta.url)));

test('every preset and chapter names real controls with values in range', () => {
  const names = Object.keys(views.presets);
  for (const want of ['readme', 'vista', 'heights', 'plain', 'proof-on', 'proof-off']) assert.ok(names.includes(want), want);
  for (const [name, p] of Object.entries(views.presets)) assert.deepEqual(checkView(`preset ${name}`, p), []);
  assert.equal(views.story.length, 4);
  views.story.forEach((ch, i) => assert.deepEqual(checkView(`chapter ${i + 1}`, ch), []));
});

test('the rule on/off pair differs only in the rule', () => {
  const on = views.presets['proof-on'], off = views.presets['proof-off'];
  const diff = Object.keys({ ...on.controls, ...off.controls }).filter((k) => on.controls[k] !== off.controls[k]);
  assert.deepEqual(diff, ['classrule']);
  assert.deepEqual(on.camera, off.camera);
});

test('checkView catches unknown controls, values out of range and bad cameras', () => {
  assert.match(checkView('x', { controls: { nope: 1 } }).join(), /unknown control "nope"/);
  assert.match(checkView('x', { controls: { grid: 999 } }).join(), /grid: 999 outside 1\.\.256/);
  assert.match(checkView('x', { controls: { classrule: 'maybe' } }).join(), /expected on or off/);
  assert.match(checkView('x', { camera: { el: 120 } }).join(), /outside 1\.\.89/);
  assert.match(checkView('x', { view: 'sideways' }).join(), /unknown camera view/);
  assert.match(checkView('x', { colour: 1 }).join(), /unknown key "colour"/);
});

test('every control and section has a note, and every note names a real control', () => {
  for (const c of CONTROLS) assert.ok(info.controls[c.id]?.note, `note for ${c.id}`);
  for (const id of Object.keys(info.controls)) assert.ok(BY_ID.has(id), `${id} is a control`);
  for (const s of new Set(CONTROLS.map((c) => c.section))) assert.ok(info.sections[s]?.note, `section ${s}`);
});

test('docs/viewer-guide.md is the guide generated from info.json, controls and views', () => {
  assert.equal(readFileSync(GUIDE_PATH, 'utf8'), guideMarkdown(), 'run: node web/tools/guide.mjs');
});

test('the walk keeps the eye at eye height above the terrain along a scripted path', () => {
  const heightAt = (x, y) => 3 * Math.sin(x / 7) * Math.cos(y / 5) + 0.02 * x * y;
  let cam = standAt(0, 0, 30, 0, 60, heightAt);
  const script = [
    [['w'], 40], [['w', 'd'], 30], [['q'], 20], [['w', 'shift'], 30], [['s', 'a'], 25], [['e', 'w'], 30],
  ];
  let travelled = 0;
  for (const [keys, frames] of script) {
    for (let k = 0; k < frames; k++) {
      const before = cam.eye;
      cam = walkStep(cam, new Set(keys), 1 / 60, heightAt, { bounds: 50 });
      travelled += Math.hypot(cam.eye[0] - before[0], cam.eye[1] - before[1]);
      assert.ok(Math.abs(cam.eye[2] - heightAt(cam.eye[0], cam.eye[1]) - WALK.eye) < 1e-12);
    }
  }
  // 40+30+30+25+30 moving frames at 1.4 m/s (the 30 shifted ones ×3)
  const want = (1.4 * (40 + 30 + 25 + 30) + 1.4 * 3 * 30) / 60;
  assert.ok(Math.abs(travelled - want) < 1e-9, `${travelled} vs ${want}`);
});

test('the walk stays inside the world', () => {
  let cam = standAt(9, 9, 45, 0, 60, () => 0);
  for (let k = 0; k < 600; k++) cam = walkStep(cam, new Set(['w', 'shift']), 1 / 30, () => 0, { bounds: 10 });
  assert.ok(cam.eye[0] <= 10 && cam.eye[1] <= 10);
});

test('figure names carry scene, grid, rule, camera and size', () => {
  const n = figureName({ scene: 'tileset starter', grid: 24, rule: true, cam: { az: 45.4, el: 25, dist: 32.4 }, tile: 1.5, width: 1280, height: 720 });
  assert.equal(n, 'bozkir_tileset-starter_g24_rule-on_az45_el25_d21.6_1280x720.png');
  const w = figureName({ scene: 'x', grid: 8, rule: false, cam: { eye: [0, 0, 2], az: 10, el: -3 }, width: 10, height: 20 });
  assert.equal(w, 'bozkir_x_g8_rule-off_az10_el-3_walk_10x20.png');
});

test('settings as text lists every control and marks what differs', () => {
  const state = { ...defaults(), grid: 12 };
  const t = settingsText({ state, controls: CONTROLS, cam: { target: [0, 0, 0], az: 1, el: 2, dist: 3, fov: 60 }, scene: 's', terrain: 't' });
  for (const c of CONTROLS) assert.ok(t.includes(`  ${c.id} = `), c.id);
  assert.match(t, /grid = 12 {3}\(default 24\)/);
});
