// The viewer's controls: one table that the panel, the URL state, the presets and the tests
// all read. Each control has an id (stable: URLs and presets name it), a section, a label, a
// kind and its range. Pure module: no DOM.

/** @typedef {{id:string, section:string, label:string, kind:'range'|'bool'|'select', min?:number, max?:number, step?:number, value:any, options?:string[], scene?:boolean, research?:boolean, help?:string}} Control */

/** @type {Control[]} */
export const CONTROLS = [
  // world: how the tiles lie over the terrain (changes rebuild the scene)
  { id: 'grid', section: 'World', label: 'grid (tiles a side)', kind: 'range', min: 1, max: 256, step: 1, value: 24, scene: true },
  { id: 'relief', section: 'World', label: 'relief', kind: 'range', min: 0, max: 2, step: 0.02, value: 1.2, scene: true },
  { id: 'reliefscale', section: 'World', label: 'relief scale (tiles)', kind: 'range', min: 2, max: 256, step: 1, value: 24, scene: true,
    help: 'tiles the terrain spans; follows the grid until moved' },
  { id: 'gridangle', section: 'World', label: 'grid angle°', kind: 'range', min: 0, max: 45, step: 1, value: 0, scene: true },
  { id: 'detailon', section: 'World', label: 'detail relief', kind: 'bool', value: true, scene: true },
  { id: 'detailamt', section: 'World', label: 'detail strength', kind: 'range', min: 0.25, max: 3, step: 0.05, value: 1, scene: true },
  { id: 'compat', section: 'World', research: true, label: 'detail grain', kind: 'select', options: ['original', 'canonical'], value: 'original', scene: true },
  // the rule
  { id: 'classrule', section: 'Rule', label: 'materials by the ground', kind: 'bool', value: true, scene: true },
  { id: 'classbalance', section: 'Rule', label: 'share (collected)', kind: 'range', min: 0.05, max: 0.95, step: 0.01, value: 0.3, scene: true },
  { id: 'classsharp', section: 'Rule', label: 'decisiveness', kind: 'range', min: 0.5, max: 6, step: 0.5, value: 3, scene: true },
  { id: 'classaltitude', section: 'Rule', label: 'follows height', kind: 'range', min: 0, max: 1, step: 0.01, value: 0.4, scene: true },
  { id: 'classcoherence', section: 'Rule', label: 'coherence', kind: 'range', min: 0, max: 6, step: 1, value: 3, scene: true },
  { id: 'classblend', section: 'Rule', label: 'blend at boundaries', kind: 'bool', value: true, scene: true },
  { id: 'blendwidth', section: 'Rule', label: 'blend band', kind: 'range', min: 0.05, max: 1, step: 0.01, value: 0.35, scene: true },
  { id: 'classedges', section: 'Rule', label: 'edges inside tiles', kind: 'bool', value: true, scene: true,
    help: 'class boundaries follow the ground within a tile (both tiles drawn, each splat on its side), not tile by tile' },
  { id: 'classview', section: 'Rule', label: 'class overlay', kind: 'range', min: 0, max: 1, step: 0.05, value: 0 },
  // look
  { id: 'exposure', section: 'Look', label: 'exposure', kind: 'range', min: 0.5, max: 2, step: 0.01, value: 1 },
  { id: 'saturation', section: 'Look', label: 'saturation', kind: 'range', min: 0, max: 2, step: 0.01, value: 1 },
  { id: 'shade', section: 'Look', label: 'ground shading', kind: 'range', min: 0, max: 1, step: 0.01, value: 0.4 },
  { id: 'macro', section: 'Look', label: 'macro variation', kind: 'range', min: 0, max: 1, step: 0.01, value: 0.5 },
  { id: 'tilelevel', section: 'Look', label: 'tile levelling', kind: 'range', min: 0, max: 1, step: 0.05, value: 1 },
  { id: 'fog', section: 'Look', label: 'fog', kind: 'range', min: 0, max: 3, step: 0.05, value: 0 },
  // rendering
  { id: 'farfield', section: 'Render', research: true, label: 'far field', kind: 'bool', value: true },
  { id: 'underlay', section: 'Render', research: true, label: 'far field under the splats', kind: 'bool', value: true },
  { id: 'horizon', section: 'Look', label: 'land to the horizon', kind: 'bool', value: true },
  { id: 'water', section: 'Look', label: 'surface water', kind: 'bool', value: true },
  { id: 'lodbase', section: 'Render', research: true, label: 'LOD distance (tiles)', kind: 'range', min: 2, max: 40, step: 1, value: 8 },
  { id: 'autoquality', section: 'Render', research: true, label: 'auto quality', kind: 'bool', value: true },
  { id: 'ordering', section: 'Render', research: true, label: 'ordering', kind: 'select', options: ['topological', 'depth'], value: 'topological' },
  { id: 'mergethr', section: 'Render', research: true, label: 'merge threshold (tiles)', kind: 'range', min: 0.05, max: 1, step: 0.05, value: 0.5 },
  { id: 'fov', section: 'Render', label: 'field of view°', kind: 'range', min: 20, max: 100, step: 1, value: 60 },
  // measuring (Research mode)
  { id: 'caparc', section: 'Measure', research: true, label: 'capture arc°', kind: 'range', min: 4, max: 360, step: 1, value: 30 },
  { id: 'capframes', section: 'Measure', research: true, label: 'capture frames', kind: 'range', min: 12, max: 180, step: 1, value: 24 },
];

/** Control by id. */
export const BY_ID = new Map(CONTROLS.map((c) => [c.id, c]));

/** A fresh state object with every control at its default. */
export function defaults() {
  const s = {};
  for (const c of CONTROLS) s[c.id] = c.value;
  return s;
}

/**
 * Check and coerce a value for control `id`. Returns `{value}` or `{error}` naming the control
 * and its range; never throws.
 */
export function coerce(id, v) {
  const c = BY_ID.get(id);
  if (!c) return { error: `unknown control "${id}"` };
  if (c.kind === 'bool') {
    if (v === true || v === false) return { value: v };
    if (v === 1 || v === '1' || v === 'true' || v === 'on') return { value: true };
    if (v === 0 || v === '0' || v === 'false' || v === 'off') return { value: false };
    return { error: `${id}: expected on or off, got ${JSON.stringify(v)}` };
  }
  if (c.kind === 'select') {
    if (c.options.includes(v)) return { value: v };
    return { error: `${id}: expected one of ${c.options.join(', ')}, got ${JSON.stringify(v)}` };
  }
  const x = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(x)) return { error: `${id}: expected a number, got ${JSON.stringify(v)}` };
  if (x < c.min || x > c.max) return { error: `${id}: ${x} outside ${c.min}..${c.max}` };
  return { value: x };
}

/** The controls that differ from their defaults (what a share link carries). */
export function changed(state) {
  const out = {};
  for (const c of CONTROLS) if (state[c.id] !== c.value) out[c.id] = state[c.id];
  return out;
}

/** base64url of a UTF-8 JSON value, and back (throws a clear error on bad input). */
export function encodeState(obj) {
  const bytes = new TextEncoder().encode(JSON.stringify(obj));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function decodeState(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('the view link (v=) is not base64url');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  let bin;
  try {
    bin = atob(b64);
  } catch {
    throw new Error('the view link (v=) is not base64url');
  }
  const bytes = Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  let obj;
  try {
    obj = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new Error('the view link (v=) does not hold JSON');
  }
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('the view link (v=) does not hold an object');
  return obj;
}

/** URL parameters the viewer knows. */
export const URL_PARAMS = ['scene', 'terrain', 'gen', 'seed', 'size', 'v', 'preset', 'chapter', 'mode', 'look', 'bench', 'report', 'grids', 'frames', 'nointro', 'sorter', 'renderer', 'present'];

/**
 * Check a named view (views.json preset or story chapter): every key is a control (or a meta
 * key), every value is in range. Returns the list of problems (empty = fine).
 */
export const VIEW_META = ['label', 'short', 'caption', 'camera', 'view', 'research', 'controls'];
export const CAMERA_VIEWS = ['ground', 'survey', 'top'];
export function checkView(name, view) {
  const problems = [];
  if (!view || typeof view !== 'object') return [`${name}: not an object`];
  for (const k of Object.keys(view)) if (!VIEW_META.includes(k)) problems.push(`${name}: unknown key "${k}"`);
  for (const [id, v] of Object.entries(view.controls || {})) {
    if (id === 'reliefscale' && v === 'grid') continue;
    const r = coerce(id, v);
    if (r.error) problems.push(`${name}: ${r.error}`);
  }
  if (view.view !== undefined && !CAMERA_VIEWS.includes(view.view)) problems.push(`${name}: unknown camera view "${view.view}"`);
  const cam = view.camera;
  if (cam !== undefined) {
    for (const [k, v] of Object.entries(cam)) {
      if (!['az', 'el', 'd'].includes(k)) problems.push(`${name}: unknown camera key "${k}"`);
      else if (typeof v !== 'number' || !Number.isFinite(v)) problems.push(`${name}: camera ${k} is not a number`);
    }
    if (cam.el !== undefined && (cam.el < 1 || cam.el > 89)) problems.push(`${name}: camera el ${cam.el} outside 1..89`);
    if (cam.d !== undefined && cam.d <= 0) problems.push(`${name}: camera d ${cam.d} must be positive`);
  }
  return problems;
}

/** Terrain sizes the page generates. */
export const GEN_SIZES = [64, 128, 256, 512, 1024];

/**
 * Parse the page's URL parameters: `{params, errors}` where errors name each unknown or bad
 * parameter; bad values fall back to defaults (so the viewer keeps working).
 */
export function parseParams(search, profiles) {
  const q = new URLSearchParams(search);
  const params = {};
  const errors = [];
  for (const [k, v] of q) {
    if (!URL_PARAMS.includes(k)) {
      errors.push(`unknown URL parameter "${k}" (known: ${URL_PARAMS.join(', ')})`);
      continue;
    }
    params[k] = v;
  }
  if (params.gen !== undefined && profiles && !profiles.includes(params.gen)) {
    errors.push(`unknown terrain profile "${params.gen}" (have ${profiles.join(', ')})`);
    delete params.gen;
  }
  if (params.seed !== undefined) {
    const s = Number(params.seed);
    if (!Number.isInteger(s) || s < 0 || s > 0xffffffff) {
      errors.push(`seed "${params.seed}" must be a whole number 0..4294967295`);
      delete params.seed;
    } else params.seed = s;
  }
  if (params.size !== undefined) {
    const s = Number(params.size);
    if (!GEN_SIZES.includes(s)) {
      errors.push(`terrain size "${params.size}" must be one of ${GEN_SIZES.join(', ')}`);
      delete params.size;
    } else params.size = s;
  }
  return { params, errors };
}
