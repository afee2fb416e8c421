// The panel: lil-gui folders built from the control table (controls.js), the scene and terrain
// menus, the terrain window with previews of every profile, camera buttons, messages, stats and
// the benchmark table. Every input carries its control's id, so presets, the URL state and the
// browser tests address the same element a hand would.

import GUI from '../vendor/lil-gui.esm.min.js';
import { CONTROLS } from './controls.js';
import { GEN_SIZES } from './controls.js';
import { DETAIL_MODES } from './mesh.js';

/** Hillshade of a height field into an ImageData-sized RGBA buffer (preview only). */
export function hillshade(heights, w, h) {
  let lo = Infinity, hi = -Infinity;
  for (const v of heights) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const span = hi - lo || 1;
  const out = new Uint8ClampedArray(w * h * 4);
  const at = (x, y) => (heights[Math.min(h - 1, Math.max(0, y)) * w + Math.min(w - 1, Math.max(0, x))] - lo) / span;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const gx = (at(x + 1, y) - at(x - 1, y)) * w * 0.25;
      const gy = (at(x, y + 1) - at(x, y - 1)) * h * 0.25;
      // light from the north-west, 45° up
      const nz = 1 / Math.hypot(gx, gy, 1);
      const shade = Math.max(0, (-gx * -0.5 + gy * -0.5) * nz + 0.707 * nz);
      const z = at(x, y);
      const k = (y * w + x) * 4;
      out[k] = 70 + 150 * shade * (0.7 + 0.3 * z);
      out[k + 1] = 66 + 140 * shade * (0.7 + 0.3 * z);
      out[k + 2] = 60 + 120 * shade;
      out[k + 3] = 255;
    }
  }
  return out;
}

/** The terrain menu's entry while a world is shown. */
const WORLD_OPTION = 'world';

export class Panel {
  /**
   * @param {object} app the page state (main.js)
   * @param {object} cb callbacks: set(id, v), view(name), chooseScene(name), chooseTerrain({terrain}|{gen,seed,size}),
   *   profiles (names), terrainPreview(profile, seed) -> {width,height,heights}, drop(file)
   */
  constructor(app, cb) {
    this.app = app;
    this.cb = cb;
    this.ctrls = new Map();
    this.gui = new GUI({ title: 'bozkir' });
    this.gui.domElement.id = 'panel';
    const menu = { scene: 'starter', terrain: 'generated', gen: app.gen.gen, seed: app.gen.seed, size: app.gen.size };
    this.menu = menu;
    const fs = this.gui.addFolder('Scene');
    this.sceneCtrl = fs.add(menu, 'scene', ['starter']).name('tileset').onChange((v) => cb.chooseScene(v));
    this.terrainOptions = ['generated'];
    this.terrainCtrl = fs.add(menu, 'terrain', this.terrainOptions).name('terrain').onChange((v) => this.pickTerrain(v));
    this.genCtrl = fs.add(menu, 'gen', cb.profiles).name('profile').onChange((v) => cb.chooseTerrain({ gen: v }));
    this.seedCtrl = fs.add(menu, 'seed', 0, 9999, 1).name('seed').onFinishChange((v) => cb.chooseTerrain({ seed: Math.round(v) }));
    this.sizeCtrl = fs.add(menu, 'size', GEN_SIZES).name('size').onChange((v) => cb.chooseTerrain({ size: Number(v) }));
    this.presetMenu = { preset: '' };
    this.presetCtrl = fs.add(this.presetMenu, 'preset', { '(choose a view)': '' }).name('view preset').onChange((v) => {
      if (v) cb.preset(v);
    });
    this.presetCtrl.$select.id = 'preset';
    const actions = {
      terrains: () => this.openTerrainWindow(),
      mesh: () => cb.mesh(),
      open: () => this.fileInput.click(),
      ground: () => cb.view('ground'),
      survey: () => cb.view('survey'),
      top: () => cb.view('top'),
      link: () => this.copyLink(),
      walk: () => cb.walk(),
      figure: () => cb.figure(),
      png: () => cb.png(),
      text: () => this.showText(cb.settingsText()),
      capture: () => cb.capture(),
      next: () => cb.chapter(Math.min(this.storyLength || 4, (app.chapter || 0) + 1)),
      prev: () => cb.chapter(Math.max(1, (app.chapter || 2) - 1)),
    };
    fs.add(actions, 'terrains').name('terrain window…');
    this.meshCtrl = fs.add(actions, 'mesh').name('terrain look (mesh, no splats)');
    // The mesh look's ground photos and their anti-tiling mode (mesh.js DETAIL_MODES).
    this.detailMenu = { detail: 'hex-vp' };
    const modes = ['off', ...DETAIL_MODES];
    this.detailCtrl = fs.add(this.detailMenu, 'detail', modes)
      .name('ground photo tiling').onChange((v) => cb.detail?.(v));
    this.detailCtrl.$select.id = 'detail';
    this.detailCtrl.hide(); // shown in the mesh look (setMesh)
    // A/B view: another mode on the right half of the picture (same geometry and light).
    this.detailMenu.compare = '';
    this.compareCtrl = fs.add(this.detailMenu, 'compare', { '(none)': '', ...Object.fromEntries(modes.map((m) => [m, m])) })
      .name('compare (right half)').onChange((v) => cb.detailCompare?.(v));
    this.compareCtrl.$select.id = 'detail-compare';
    this.compareCtrl.hide();
    fs.add(actions, 'open').name('open tileset (.zip)…');
    const cam = this.gui.addFolder('Camera');
    cam.add(actions, 'ground').name('ground view');
    cam.add(actions, 'survey').name('survey view');
    cam.add(actions, 'top').name('top view');
    this.walkCtrl = cam.add(actions, 'walk').name('walk on the ground (G)');
    cam.add(actions, 'link').name('copy link to this view');
    cam.add(actions, 'text').name('settings as text');
    cam.add(actions, 'figure').name('figure mode (F)');
    cam.add(actions, 'png').name('save PNG (P)');
    const story = this.gui.addFolder('Story');
    story.add(actions, 'prev').name('◀ previous chapter');
    story.add(actions, 'next').name('next chapter ▶');
    this.storyFolder = story;
    this.folderNames = new Map([[fs, 'Scene'], [cam, 'Camera'], [story, 'Story']]);
    for (const [el, id] of [[this.sceneCtrl.$select, 'scene'], [this.terrainCtrl.$select, 'terrain'], [this.genCtrl.$select, 'gen'],
      [this.seedCtrl.$input, 'seed'], [this.sizeCtrl.$select, 'size']]) el.id = id;

    const folders = new Map();
    for (const c of CONTROLS) {
      if (!folders.has(c.section)) folders.set(c.section, this.gui.addFolder(c.section));
      const f = folders.get(c.section);
      let ctrl;
      if (c.kind === 'range') ctrl = f.add(app.state, c.id, c.min, c.max, c.step);
      else if (c.kind === 'select') ctrl = f.add(app.state, c.id, c.options);
      else ctrl = f.add(app.state, c.id);
      ctrl.name(c.label);
      ctrl.onChange((v) => cb.set(c.id, v));
      const input = ctrl.$input || ctrl.$select;
      if (input) input.id = c.id;
      ctrl.domElement.dataset.control = c.id;
      this.ctrls.set(c.id, ctrl);
    }
    folders.get('Look')?.close();
    this.folders = folders;
    for (const [name, f] of folders) this.folderNames.set(f, name);
    folders.get('Measure')?.add(actions, 'capture').name('capture sweep (zip of frames)');
    this.modeCtrl = this.gui.add(app, 'mode', ['explore', 'research']).name('mode (M)').onChange((v) => this.setMode(v));
    this.modeCtrl.$select.id = 'mode';
    this.gui.children.unshift(this.gui.children.pop());
    this.gui.$children.prepend(this.modeCtrl.domElement);
    // Notes: an ⓘ on every section and control (info.json); I over a control shows its note.
    this.hover = null;
    fetch('info.json').then((r) => r.json()).then((info) => this.installNotes(info)).catch(() => {});
    this.setMode('explore');

    // info line, messages, stats
    this.info = document.getElementById('info');
    this.msgs = document.getElementById('messages');
    this.statsEl = document.getElementById('stats');
    this.fileInput = document.createElement('input');
    this.fileInput.type = 'file';
    this.fileInput.accept = '.zip,application/zip';
    this.fileInput.id = 'tileset-file';
    this.fileInput.style.display = 'none';
    this.fileInput.addEventListener('change', () => {
      const f = this.fileInput.files?.[0];
      if (f) cb.drop(f);
      this.fileInput.value = '';
    });
    document.body.appendChild(this.fileInput);
    this.fields = { gpu: '', tileset: '', terrain: '', rule: '' };
  }

  installNotes(info) {
    this.info_ = info;
    const button = (title, show, tag = 'button') => {
      const b = document.createElement(tag);
      b.className = 'note-btn';
      if (tag === 'button') b.type = 'button';
      else b.setAttribute('role', 'button');
      b.textContent = 'i';
      b.title = title;
      b.addEventListener('click', (e) => {
        e.stopPropagation();
        e.preventDefault();
        show();
      });
      return b;
    };
    for (const [f, name] of this.folderNames) {
      if (info.sections[name]) f.$title.appendChild(button(`about ${name}`, () => this.showNote(name, info.sections[name]), 'span'));
    }
    for (const [id, ctrl] of this.ctrls) {
      const n = info.controls[id];
      ctrl.domElement.addEventListener('mouseenter', () => {
        this.hover = id;
      });
      if (n) ctrl.$name.appendChild(button(`about ${id}`, () => this.showNote(id, n), 'span'));
    }
  }

  /** The note drawer: what the control does, what was measured, where it comes from. */
  showNote(title, n) {
    const d = document.getElementById('note');
    d.querySelector('h3').textContent = title;
    d.querySelector('.text').textContent = n.note;
    d.querySelector('.measured').textContent = n.measured ? `Measured: ${n.measured}` : '';
    d.querySelector('.sources').textContent = n.sources?.length ? `Sources: ${n.sources.join('; ')}` : '';
    d.hidden = false;
    this.noteShown = title;
  }

  showHoveredNote() {
    const n = this.hover && this.info_?.controls[this.hover];
    if (n) this.showNote(this.hover, n);
  }

  /** Explore shows the controls for using the viewer; Research adds the renderer's switches, ordering, measuring and live numbers. */
  setMode(mode) {
    this.app.mode = mode;
    this.modeCtrl?.updateDisplay();
    const research = mode === 'research';
    for (const c of CONTROLS) if (c.research) this.ctrls.get(c.id)?.show(research);
    for (const name of ['Render', 'Measure']) this.folders?.get(name)?.show(research);
    document.body.classList.toggle('research', research);
    this.cb.modeChanged?.();
  }

  setMesh(on) {
    this.meshOn = on;
    this.meshCtrl?.name(on ? 'back to the splats' : 'terrain look (mesh, no splats)');
    // The mesh look draws no splats: the material rule, the world grid and the tileset do not
    // make it, so their sections and info lines leave while it is on; the ground-photo tiling
    // only applies to it.
    for (const name of ['Rule', 'World']) this.folders?.get(name)?.show(!on);
    this.detailCtrl?.show(on);
    this.compareCtrl?.show(on);
    this.renderInfo();
  }

  setDetail(mode) {
    this.detailMenu.detail = mode;
    this.detailCtrl?.updateDisplay();
  }

  setWalk(on) {
    this.walkCtrl?.name(on ? 'back to orbit (G)' : 'walk on the ground (G)');
  }

  setPresets(names) {
    this.presetCtrl.options({ '(choose a view)': '', ...Object.fromEntries(names.map((n) => [n, n])) }).onChange((v) => {
      if (v) this.cb.preset(v);
    });
    this.presetCtrl.$select.id = 'preset';
  }

  setCaption(label, caption, n, total) {
    this.storyLength = total;
    const el = document.getElementById('caption');
    el.querySelector('b').textContent = `${label} (${n}/${total})`;
    el.querySelector('span').textContent = caption;
    el.hidden = false;
  }

  /** A note beside the relief scale when it no longer follows the grid (null clears it). */
  setReliefFlag(text) {
    const c = this.ctrls.get('reliefscale');
    if (!c) return;
    c.domElement.classList.toggle('flagged', Boolean(text) && text.includes('repeats'));
    c.domElement.title = text || '';
    this.reliefFlag = text;
  }

  showText(text) {
    const d = document.getElementById('settings-text');
    d.querySelector('pre').textContent = text;
    d.showModal();
  }

  /** Push a control's value (set from code, a preset or a link) back into the panel. */
  refresh(id) {
    this.ctrls.get(id)?.updateDisplay();
  }

  refreshAll() {
    for (const c of this.ctrls.values()) c.updateDisplay();
  }

  setCatalogue(cat) {
    this.sceneCtrl.options(['starter', ...cat.tilesets.map((t) => t.name)]).onChange((v) => this.cb.chooseScene(v));
    this.sceneCtrl.$select.id = 'scene';
    this.terrainOptions = ['generated', ...cat.terrains.map((t) => t.name)];
    this.setTerrainOptions(this.worldLabel ? [WORLD_OPTION, ...this.terrainOptions] : this.terrainOptions);
  }

  /** The terrain menu's entries (lil-gui's options() replaces the controller's handlers). */
  setTerrainOptions(list) {
    this.terrainCtrl.options(list).onChange((v) => this.pickTerrain(v));
    this.terrainCtrl.$select.id = 'terrain';
  }

  pickTerrain(v) {
    if (v === WORLD_OPTION) return;
    const m = this.menu;
    this.cb.chooseTerrain(v === 'generated' ? { gen: m.gen, seed: m.seed, size: m.size } : { terrain: v });
  }

  /**
   * A world is shown (`label`) or left (`null`): the terrain menu shows "world" and the profile,
   * seed and size of generated terrains are disabled while it is, as they do not make it.
   */
  setWorld(label) {
    this.worldLabel = label;
    this.setTerrainOptions(label ? [WORLD_OPTION, ...this.terrainOptions] : this.terrainOptions);
    if (label) this.menu.terrain = WORLD_OPTION;
    for (const c of [this.genCtrl, this.seedCtrl, this.sizeCtrl]) c.enable(!label);
    this.terrainCtrl.updateDisplay();
    if (label) this.fields.terrain = label;
    this.renderInfo();
  }

  setGpu(name) {
    this.fields.gpu = name;
    this.renderInfo();
  }

  setTilesetInfo(text) {
    this.fields.tileset = text;
    if (this.app.sceneName && this.sceneCtrl) {
      const opts = [...this.sceneCtrl.$select.options].map((o) => o.value);
      if (opts.includes(this.app.sceneName)) {
        this.menu.scene = this.app.sceneName;
        this.sceneCtrl.updateDisplay();
      }
    }
    this.renderInfo();
  }

  setTerrainInfo(label, terrainName, gen) {
    this.fields.terrain = label;
    this.menu.terrain = terrainName || 'generated';
    Object.assign(this.menu, { gen: gen.gen, seed: gen.seed, size: gen.size });
    for (const c of [this.terrainCtrl, this.genCtrl, this.seedCtrl, this.sizeCtrl]) c.updateDisplay();
    // A catalogue terrain is not made by the generator's profile, seed and size: they are hidden
    // while it is shown (they read "rolling, seed 0" beside a loaded canyon once), and come back
    // with "generated".
    for (const c of [this.genCtrl, this.seedCtrl, this.sizeCtrl]) c.show(!terrainName);
    this.renderInfo();
  }

  setRuleInfo(text) {
    this.fields.rule = text;
    this.renderInfo();
  }

  renderInfo() {
    const f = this.fields;
    // A world is the whole scene: the tileset and the material rule do not make it.
    const lines = this.worldLabel || this.meshOn ? [`terrain: ${f.terrain}`] : [f.tileset, `terrain: ${f.terrain}`, f.rule];
    this.info.textContent = [...lines, `GPU: ${f.gpu}`].filter(Boolean).join('\n');
  }

  status(text, { busy = true, fraction = null } = {}) {
    this.statsEl.dataset.status = text;
    if (text) this.statsEl.textContent = text;
    this.busy(busy ? text : '', fraction);
  }

  /**
   * The busy indicator over the canvas while something long runs (a terrain generating, a
   * capture): the status text, the seconds elapsed and a bar — filled to `fraction` (0..1) when
   * the work reports how far it is (the generator's erosion iterations), a moving "working" bar
   * when it does not (null); hidden with an empty text. The same text again only moves the bar.
   */
  busy(text, fraction = null) {
    const el = document.getElementById('busy');
    if (!el) return;
    if (!text) {
      clearInterval(this.busyTimer);
      el.hidden = true;
      return;
    }
    const label = el.querySelector('.label');
    const bar = el.querySelector('.bar');
    const known = Number.isFinite(fraction);
    bar.classList.toggle('determinate', known);
    bar.querySelector('i').style.width = known ? `${(100 * Math.min(Math.max(fraction, 0), 1)).toFixed(1)}%` : '';
    el.setAttribute('aria-valuenow', known ? String(Math.round(100 * fraction)) : '');
    this.busyFraction = known ? fraction : null;
    if (!el.hidden && label.textContent === text) return;
    clearInterval(this.busyTimer);
    const t0 = performance.now();
    label.textContent = text;
    const tick = () => {
      const pct = this.busyFraction === null ? '' : `${Math.floor(100 * this.busyFraction)} % · `;
      el.querySelector('.elapsed').textContent = `${pct}${((performance.now() - t0) / 1000).toFixed(1)} s`;
    };
    tick();
    this.busyTimer = setInterval(tick, 100);
    el.hidden = false;
  }

  setStats(s, dt) {
    if (!s) return;
    const fps = dt > 0 ? (1000 / dt).toFixed(0) : '–';
    const q = this.app.quality;
    if (s.mesh) {
      this.statsEl.textContent = `${fps} fps · mesh ${(s.triangles ?? 0).toLocaleString('en')} triangles · ${s.drawCalls} draws`;
      return;
    }
    let t = `${fps} fps · ${s.splats.toLocaleString('en')} splats · ${s.drawCalls} draws · `
      + `${s.cells} cells · sort ${s.renderer === 'webgpu' ? 'on the GPU' : `${(s.sortMs || 0).toFixed(1)} ms`} · `
      + `scale ${q.renderScale.toFixed(2)}`;
    if (this.app.mode === 'research') {
      t += `\nlogic ${(s.logicMs ?? 0).toFixed(1)} ms · cpu ${(s.cpuMs ?? 0).toFixed(1)} ms · far cells ${s.farCells} · `
        + `LOD ${JSON.stringify(s.lodCounts)} · merged ${s.merged} in ${s.groups} groups · cycles ${s.cycles} · `
        + `pop ${s.pop == null ? '–' : s.pop.toFixed(4)}/° · LOD base ${q.lodBase}`;
    }
    this.statsEl.textContent = t;
  }

  showMessage(text, kind) {
    const p = document.createElement('p');
    p.className = `msg ${kind}`;
    p.textContent = text;
    const close = document.createElement('button');
    close.textContent = '×';
    close.title = 'dismiss';
    close.onclick = () => p.remove();
    p.appendChild(close);
    this.msgs.appendChild(p);
    while (this.msgs.children.length > 6) this.msgs.firstChild.remove();
    if (kind !== 'error') setTimeout(() => p.remove(), 8000);
    return p;
  }

  showBench(body) {
    const pre = document.getElementById('bench');
    const rows = body.rows.map((r) => `grid ${String(r.grid).padStart(3)}  ${String(r.splats).padStart(9)} splats  `
      + `${r.fps.toFixed(1).padStart(6)} fps  p50 ${r.p50.toFixed(1)}  p95 ${r.p95.toFixed(1)}  p99 ${r.p99.toFixed(1)} ms  `
      + `sort ${r.sort_ms.toFixed(1)} ms  ${r.draw_calls} draws`);
    pre.textContent = [`benchmark on ${body.gpu}`, ...rows, ...body.report].join('\n');
    pre.hidden = false;
  }

  async copyLink() {
    const url = location.href;
    try {
      await navigator.clipboard.writeText(url);
      this.showMessage('link copied', 'info');
    } catch {
      this.showMessage(url, 'info');
    }
  }

  /** The terrain window: every profile at the current seed, click one to use it. */
  openTerrainWindow() {
    const dlg = document.getElementById('terrains');
    const grid = dlg.querySelector('.grid');
    grid.textContent = '';
    const seed = this.menu.seed;
    dlg.querySelector('.seed').textContent = String(seed);
    for (const p of this.cb.profiles) {
      const fig = document.createElement('figure');
      fig.dataset.profile = p;
      const cv = document.createElement('canvas');
      cv.width = 64;
      cv.height = 64;
      const cap = document.createElement('figcaption');
      cap.textContent = p;
      fig.append(cv, cap);
      fig.onclick = () => {
        dlg.close();
        this.cb.chooseTerrain({ gen: p, seed });
      };
      grid.appendChild(fig);
    }
    dlg.showModal();
    // Previews one per task so the window appears at once.
    const figs = [...grid.children];
    const draw = (k) => {
      if (k >= figs.length || !dlg.open) return;
      const p = figs[k].dataset.profile;
      const t = this.cb.terrainPreview(p, seed);
      const img = new ImageData(hillshade(t.heights, t.width, t.height), t.width, t.height);
      figs[k].querySelector('canvas').getContext('2d').putImageData(img, 0, 0);
      figs[k].dataset.ready = '1';
      setTimeout(() => draw(k + 1), 0);
    };
    draw(0);
  }
}
