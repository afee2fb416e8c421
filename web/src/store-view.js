// The tiled-world page (store.html?store=NAME): a world written by `bozkir tiled` streamed from
// `bozkir serve` as a quadtree of height nodes (store-lod.js picks them), each a 129² float
// texture drawn as a grid with a skirt, lit by a sun with slope/height colours and fog.
// Drag to orbit, shift-drag or right-drag to pan, wheel to zoom. `window.storeView` exposes the
// state for tests: {ready, stats(), setCamera(cam), settle()}.

import { cameraBasis, viewProjection, frustumPlanes, DEG } from './camera.js';
import { program } from './gl-util.js';
import { selectNodes } from './store-lod.js';

const VS = `#version 300 es
precision highp float;
precision highp sampler2D;
layout(location = 0) in vec2 a_ij;
uniform sampler2D u_h;
uniform mat4 u_vp;
uniform vec3 u_node; // x, y of sample (0, 0) in metres, metres per sample
uniform float u_zscale, u_skirt, u_low;
out vec3 v_pos;
out vec3 v_n;
out float v_h;
float hat(ivec2 p) {
  float h = texelFetch(u_h, clamp(p, ivec2(0), ivec2(128)), 0).r;
  return isnan(h) ? u_low : h;
}
void main() {
  ivec2 ij = clamp(ivec2(a_ij), ivec2(0), ivec2(128));
  bool skirt = a_ij.x < 0.0 || a_ij.x > 128.0 || a_ij.y < 0.0 || a_ij.y > 128.0;
  float h = hat(ij);
  float s = u_node.z;
  float dzdx = (hat(ij + ivec2(1, 0)) - hat(ij - ivec2(1, 0))) * u_zscale / (2.0 * s);
  float dzdy = (hat(ij - ivec2(0, 1)) - hat(ij + ivec2(0, 1))) * u_zscale / (2.0 * s);
  v_n = normalize(vec3(-dzdx, -dzdy, 1.0));
  v_h = h;
  vec3 p = vec3(u_node.x + float(ij.x) * s, u_node.y - float(ij.y) * s, h * u_zscale - (skirt ? u_skirt : 0.0));
  v_pos = p;
  gl_Position = u_vp * vec4(p, 1.0);
}`;

const FS = `#version 300 es
precision highp float;
in vec3 v_pos;
in vec3 v_n;
in float v_h;
uniform vec3 u_eye, u_sun, u_sky;
uniform float u_low, u_high, u_fog;
out vec4 o;
void main() {
  vec3 n = normalize(v_n);
  float slope = acos(clamp(n.z, 0.0, 1.0)) / ${DEG.toFixed(9)};
  float t = clamp((v_h - u_low) / max(u_high - u_low, 1e-3), 0.0, 1.0);
  vec3 grass = mix(vec3(0.30, 0.38, 0.20), vec3(0.46, 0.44, 0.30), smoothstep(0.2, 0.6, t));
  vec3 rock = vec3(0.42, 0.40, 0.37);
  vec3 c = mix(grass, rock, smoothstep(28.0, 40.0, slope));
  c = mix(c, vec3(0.92, 0.93, 0.95), smoothstep(0.78, 0.86, t) * (1.0 - smoothstep(30.0, 45.0, slope)));
  float lambert = max(dot(n, u_sun), 0.0);
  vec3 lit = c * (0.28 * u_sky + 1.05 * lambert * vec3(1.0, 0.95, 0.86));
  float d = length(v_pos - u_eye);
  float fog = 1.0 - exp(-d * u_fog);
  o = vec4(pow(mix(lit, u_sky, fog), vec3(1.0 / 2.2)), 1.0);
}`;

const SKY = [0.62, 0.74, 0.88];
const MAX_NODES = 768;
const MAX_IN_FLIGHT = 6;

function gridMesh(gl) {
  // (129 + 2)² vertices: the samples and a one-vertex skirt ring (−1 and 129).
  const n = 131, ij = new Float32Array(n * n * 2);
  for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) ij.set([i - 1, j - 1], (j * n + i) * 2);
  const idx = new Uint32Array((n - 1) * (n - 1) * 6);
  let k = 0;
  for (let j = 0; j < n - 1; j++) {
    for (let i = 0; i < n - 1; i++) {
      const a = j * n + i, b = a + 1, c = a + n, d = c + 1;
      idx.set([a, c, b, b, c, d], k);
      k += 6;
    }
  }
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const vb = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, vb);
  gl.bufferData(gl.ARRAY_BUFFER, ij, gl.STATIC_DRAW);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
  const ib = gl.createBuffer();
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  return { vao, count: idx.length };
}

export class StoreView {
  constructor(canvas, base, meta, opts = {}) {
    this.canvas = canvas;
    this.base = base; // e.g. data/stores/NAME/
    this.meta = meta;
    this.zscale = opts.zscale ?? 1;
    this.lod = opts.lod ?? 1.5;
    const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
    if (!gl) throw new Error('this browser has no WebGL2');
    this.gl = gl;
    this.prog = program(gl, VS, FS, 'tiled world');
    this.grid = gridMesh(gl);
    this.nodes = new Map(); // key → {tex, used}
    this.inFlight = new Map();
    this.failed = new Set();
    this.fetched = 0;
    this.frameNo = 0;
    this.last = { draw: [], want: [] };
    const extent = (meta.size - 1) * meta.cell_m;
    const mid = (meta.low_m + meta.high_m) / 2;
    this.cam = { target: [0, 0, mid * this.zscale], az: 20, el: 35, dist: extent * 0.9, fov: 55 };
    this.dirty = true;
  }

  loaded = (key) => this.nodes.has(key);

  upload(key, heights) {
    const gl = this.gl;
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32F, 129, 129, 0, gl.RED, gl.FLOAT, heights);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    this.nodes.set(key, { tex, used: this.frameNo });
    if (this.nodes.size > MAX_NODES) {
      // Forget the nodes unused the longest (never the root).
      const old = [...this.nodes.entries()].filter(([k]) => k !== '0/0/0').sort((a, b) => a[1].used - b[1].used);
      for (const [k, v] of old.slice(0, this.nodes.size - MAX_NODES)) {
        gl.deleteTexture(v.tex);
        this.nodes.delete(k);
      }
    }
  }

  request(want) {
    for (const w of want) {
      if (this.inFlight.size >= MAX_IN_FLIGHT) break;
      if (this.inFlight.has(w.key) || this.failed.has(w.key)) continue;
      const p = fetch(`${this.base}${w.key}.f32`)
        .then(async (r) => {
          if (!r.ok) throw new Error(`${w.key}: ${r.status} ${(await r.text()).trim()}`);
          const buf = await r.arrayBuffer();
          if (buf.byteLength !== 129 * 129 * 4) throw new Error(`${w.key}: ${buf.byteLength} bytes, a node holds ${129 * 129 * 4}`);
          this.upload(w.key, new Float32Array(buf));
          this.fetched++;
        })
        .catch((e) => {
          this.failed.add(w.key);
          this.onError?.(e);
        })
        .finally(() => {
          this.inFlight.delete(w.key);
          this.dirty = true;
        });
      this.inFlight.set(w.key, p);
    }
  }

  /** Draw one frame; returns whether more frames are needed (nodes in flight or wanted). */
  frame() {
    const gl = this.gl, c = this.canvas;
    const w = Math.max(1, Math.round(c.clientWidth * (window.devicePixelRatio || 1)));
    const h = Math.max(1, Math.round(c.clientHeight * (window.devicePixelRatio || 1)));
    if (c.width !== w || c.height !== h) {
      c.width = w;
      c.height = h;
    }
    this.frameNo++;
    const basis = cameraBasis(this.cam);
    const planes = frustumPlanes(basis, w / h);
    const lo = this.meta.low_m * this.zscale, hi = this.meta.high_m * this.zscale;
    const visible = (b) => {
      const corners = [];
      for (const x of [b.x0, b.x1]) for (const y of [b.y0, b.y1]) for (const z of [lo, hi]) corners.push([x, y, z]);
      return planes.every(({ n, d }) => corners.some((p) => n[0] * p[0] + n[1] * p[1] + n[2] * p[2] + d >= 0));
    };
    const sel = selectNodes(this.meta, basis.eye, { lod: this.lod, zscale: this.zscale, loaded: this.loaded, visible });
    this.last = sel;
    this.request(sel.want);
    const extent = (this.meta.size - 1) * this.meta.cell_m;
    const near = Math.max(0.2, this.cam.dist * 0.002), far = this.cam.dist * 4 + extent * 3;
    gl.viewport(0, 0, w, h);
    gl.clearColor(...SKY.map((v) => v ** (1 / 2.2)), 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.disable(gl.BLEND);
    gl.disable(gl.CULL_FACE);
    const { p, u } = this.prog;
    gl.useProgram(p);
    gl.uniformMatrix4fv(u.u_vp, false, viewProjection(basis, w, h, near, far));
    const sun = [Math.cos(35 * DEG) * Math.sin(225 * DEG), Math.cos(35 * DEG) * Math.cos(225 * DEG), Math.sin(35 * DEG)];
    gl.uniform3fv(u.u_sun, sun); // toward the sun
    gl.uniform3fv(u.u_eye, basis.eye);
    gl.uniform3fv(u.u_sky, SKY);
    gl.uniform1f(u.u_low, this.meta.low_m);
    gl.uniform1f(u.u_high, this.meta.high_m);
    gl.uniform1f(u.u_zscale, this.zscale);
    gl.uniform1f(u.u_fog, 0.25 / extent);
    gl.uniform1i(u.u_h, 0);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindVertexArray(this.grid.vao);
    const half = ((this.meta.size - 1) * this.meta.cell_m) / 2;
    for (const d of sel.draw) {
      const node = this.nodes.get(d.key);
      node.used = this.frameNo;
      const span = ((this.meta.size - 1) * this.meta.cell_m) / 2 ** d.level;
      const step = span / 128;
      gl.uniform3f(u.u_node, -half + d.x * span, half - d.y * span, step);
      gl.uniform1f(u.u_skirt, Math.max(step * 4, (this.meta.high_m - this.meta.low_m) * 0.01) * this.zscale);
      gl.bindTexture(gl.TEXTURE_2D, node.tex);
      gl.drawElements(gl.TRIANGLES, this.grid.count, gl.UNSIGNED_INT, 0);
    }
    gl.bindVertexArray(null);
    return this.inFlight.size > 0 || sel.want.some((x) => !this.failed.has(x.key));
  }

  stats() {
    const levels = this.last.draw.map((d) => d.level);
    return {
      drawn: this.last.draw.length,
      minLevel: levels.length ? Math.min(...levels) : null,
      maxLevel: levels.length ? Math.max(...levels) : null,
      loaded: this.nodes.size,
      fetched: this.fetched,
      inFlight: this.inFlight.size,
      failed: this.failed.size,
      wanted: this.last.want.length,
    };
  }
}

/** Orbit, pan and zoom with the mouse. */
export function installControls(view, onChange) {
  const c = view.canvas;
  let drag = null;
  c.addEventListener('contextmenu', (e) => e.preventDefault());
  c.addEventListener('pointerdown', (e) => {
    drag = { x: e.clientX, y: e.clientY, pan: e.shiftKey || e.button === 2 };
    c.setPointerCapture(e.pointerId);
  });
  c.addEventListener('pointerup', () => (drag = null));
  c.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    drag.x = e.clientX;
    drag.y = e.clientY;
    const cam = view.cam;
    if (drag.pan) {
      const k = (cam.dist * 1.5) / c.clientHeight, a = cam.az * DEG;
      cam.target[0] += -dx * k * Math.cos(a) + dy * k * Math.sin(a);
      cam.target[1] += dx * k * Math.sin(a) + dy * k * Math.cos(a);
    } else {
      cam.az = (cam.az + dx * 0.3) % 360;
      cam.el = Math.min(89, Math.max(3, cam.el + dy * 0.3));
    }
    onChange();
  });
  c.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const extent = (view.meta.size - 1) * view.meta.cell_m;
      view.cam.dist = Math.min(extent * 4, Math.max(view.meta.cell_m * 20, view.cam.dist * Math.exp(e.deltaY * 0.001)));
      onChange();
    },
    { passive: false },
  );
}

async function start() {
  const info = document.getElementById('info');
  const params = new URLSearchParams(location.search);
  const say = (t) => (info.textContent = t);
  const api = { ready: null, view: null };
  window.storeView = api;
  api.ready = (async () => {
    const cat = await (await fetch('catalogue.json')).json();
    const stores = cat.stores ?? [];
    const name = params.get('store') ?? stores[0]?.name;
    const entry = stores.find((s) => s.name === name);
    if (!entry) {
      throw new Error(
        stores.length
          ? `no tiled world "${name}" here (have ${stores.map((s) => s.name).join(', ')})`
          : 'no tiled world here: serve a folder holding a store written by `bozkir tiled`',
      );
    }
    const r = await fetch(`${entry.path}meta.json`);
    if (!r.ok) throw new Error(`${entry.path}meta.json: ${r.status} ${(await r.text()).trim()}`);
    const meta = await r.json();
    const num = (k, d) => (params.has(k) && Number.isFinite(Number(params.get(k))) ? Number(params.get(k)) : d);
    const view = new StoreView(document.getElementById('view'), entry.path, meta, { zscale: num('zscale', 1), lod: num('lod', 1.5) });
    view.onError = (e) => console.warn(e.message);
    api.view = view;
    let scheduled = false;
    const schedule = () => {
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(loop);
    };
    const loop = () => {
      scheduled = false;
      const more = view.frame();
      const s = view.stats();
      const w = meta.world ?? {};
      say(
        `${meta.name}: ${meta.size}² cells of ${+meta.cell_m.toFixed(4)} m (${(((meta.size - 1) * meta.cell_m) / 1000).toFixed(1)} km), ` +
          `${w.recipe ?? '?'} seed ${w.seed ?? '?'}, ${meta.low_m.toFixed(0)}–${meta.high_m.toFixed(0)} m\n` +
          `${s.drawn} nodes drawn (levels ${s.minLevel}–${s.maxLevel} of 0–${meta.levels - 1}), ${s.loaded} on the GPU, ${s.inFlight} loading` +
          (s.failed ? `, ${s.failed} failed` : '') +
          `\ndrag: orbit · shift/right-drag: pan · wheel: zoom`,
      );
      if (more) schedule();
    };
    installControls(view, schedule);
    window.addEventListener('resize', schedule);
    api.stats = () => view.stats();
    api.setCamera = (cam) => {
      Object.assign(view.cam, cam);
      schedule();
    };
    api.settle = async (timeoutMs = 60000) => {
      const t0 = performance.now();
      for (;;) {
        const more = view.frame();
        if (!more) return view.stats();
        if (performance.now() - t0 > timeoutMs) throw new Error(`nodes still loading after ${timeoutMs} ms: ${JSON.stringify(view.stats())}`);
        await new Promise((res) => setTimeout(res, 20));
      }
    };
    schedule();
    return meta;
  })();
  api.ready.catch((e) => say(`cannot open the tiled world: ${e.message}`));
}

if (typeof document !== 'undefined' && document.getElementById('view')) start();
