// 3-D worlds (issue 22) in the mesh look: a chunked voxel world or the implicit cave, generated
// and meshed in the page by the WebAssembly core (`openVoxelWorld`, crates/wasm/src/voxels.rs)
// around the camera, drawn with the mesh look's sky, sun and fog, with a walk mode that collides
// with the voxels.
//
// Each frame the view (1) streams: `update(viewer)` generates the nearest missing chunks (a
// budget per call) and drops the far ones (their GPU buffers are freed); (2) meshes the chunks
// whose neighbours have arrived, nearest first, within a time budget; (3) draws every chunk
// mesh. Positions arrive in the view frame (metres, x east, y north, z up), so the chunks
// share the camera, light and fog of the other looks.
//
// The walker (`walk` of the module: a box 0.6 m wide and 1.8 m tall, gravity, step-up onto
// ledges, jumps) is stepped by the page with the held keys; the eye is 1.62 m above its feet.

import { MeshView, MESH_DEFAULTS, sunDirection } from './mesh.js';
import { cameraBasis, viewProjection } from './camera.js';
import { program as link, uploadBatch } from './gl-util.js';
import { OVERLAY_VS, OVERLAY_FS } from './world-shaders.js';

/** 3-D worlds the viewer opens (pyworldgen's names). */
export const VOXEL_GENERATORS = ['implicit_cave', 'voxels'];

/** Walking speed (m/s), run multiplier, turn and look rates (degrees/s). */
export const VOXEL_WALK = { speed: 4.3, run: 2.5, turn: 90, look: 60 };

/** Chunk key. */
export const chunkKey = (x, y, z) => `${x},${y},${z}`;

/**
 * Split `update`'s answer `[nLoaded, nUnloaded, loaded xyz…, unloaded xyz…]` into
 * {loaded: [[x, y, z]…], unloaded: [[x, y, z]…]}; throws on a malformed array.
 */
export function splitUpdate(a) {
  const nl = a[0], nu = a[1];
  if (!(Number.isInteger(nl) && Number.isInteger(nu) && nl >= 0 && nu >= 0) || a.length !== 2 + 3 * (nl + nu)) {
    throw new Error(`voxel update: ${a.length} values for ${nl} loaded and ${nu} unloaded chunks`);
  }
  const triples = (from, n) => Array.from({ length: n }, (_, k) => [a[from + 3 * k], a[from + 3 * k + 1], a[from + 3 * k + 2]]);
  return { loaded: triples(2, nl), unloaded: triples(2 + 3 * nl, nu) };
}

/**
 * The wanted walking velocity (east, north) in m/s for the held keys (`w a s d` / arrows, `shift`
 * runs) looking along azimuth `az` (degrees, 0 = north, clockwise), and the turned and tilted
 * view: returns {vx, vy, az, el, jump}.
 */
export function walkIntent(keys, az, el, dt, o = VOXEL_WALK) {
  const has = (k) => keys.has(k);
  const fwd = (has('w') || has('arrowup') ? 1 : 0) - (has('s') || has('arrowdown') ? 1 : 0);
  const side = (has('d') || has('arrowright') ? 1 : 0) - (has('a') || has('arrowleft') ? 1 : 0);
  let a = az + ((has('e') ? 1 : 0) - (has('q') ? 1 : 0)) * o.turn * dt;
  a = ((a % 360) + 360) % 360;
  const e = Math.max(-85, Math.min(85, el + ((has('z') ? 1 : 0) - (has('x') ? 1 : 0)) * o.look * dt));
  const v = o.speed * (has('shift') ? o.run : 1);
  const r = (a * Math.PI) / 180;
  const len = Math.hypot(fwd, side) || 1;
  return {
    vx: ((fwd * Math.sin(r) + side * Math.cos(r)) / len) * v,
    vy: ((fwd * Math.cos(r) - side * Math.sin(r)) / len) * v,
    az: a, el: e, jump: has(' '),
  };
}

export class VoxelView {
  /**
   * @param {WebGL2RenderingContext} gl the page's context
   * @param {object} vw the WebAssembly `VoxelWorld` (owned: freed by dispose)
   */
  constructor(gl, vw) {
    this.gl = gl;
    this.vw = vw;
    this.mesh = new MeshView(gl); // no terrain: its render draws the sky
    this.prog = link(gl, OVERLAY_VS, OVERLAY_FS, 'voxels');
    this.chunks = new Map();
    this.blockSize = vw.blockSize;
    this.reach = (vw.radius + 1) * vw.chunkSize * vw.blockSize;
    const b = vw.bounds;
    this.bounds = b.length === 6 ? { lo: [b[0], b[1], b[2]], hi: [b[3], b[4], b[5]] } : null;
    this.counts = { loaded: 0, meshed: 0, triangles: 0, pending: 0, loading: true, generateMs: 0, meshMs: 0 };
  }

  /**
   * Stream around `at` (view frame, metres) and mesh due chunks for up to `budgetMs`
   * milliseconds (at least one). Returns whether work remains.
   */
  step(at, budgetMs = 8) {
    const t0 = performance.now();
    const { loaded, unloaded } = splitUpdate(this.vw.update(at[0], at[1], at[2]));
    const t1 = performance.now();
    this.counts.generateMs += t1 - t0;
    for (const [x, y, z] of unloaded) this.drop(chunkKey(x, y, z));
    let pending = this.vw.pending(64);
    let k = 0;
    while (k < pending.length && (k === 0 || performance.now() - t1 < budgetMs)) {
      const [x, y, z] = [pending[k], pending[k + 1], pending[k + 2]];
      const m = this.vw.mesh(x, y, z);
      try {
        const key = chunkKey(x, y, z);
        this.drop(key);
        const geo = { positions: m.positions, colors: m.colors, normals: m.normals, indices: m.indices };
        if (geo.indices.length) this.chunks.set(key, uploadBatch(this.gl, geo));
      } finally {
        m.free?.();
      }
      k += 3;
    }
    this.counts.meshMs += performance.now() - t1;
    pending = this.vw.pending(1);
    this.counts.loaded = this.vw.loadedCount;
    this.counts.meshed = this.chunks.size;
    this.counts.triangles = [...this.chunks.values()].reduce((s, c) => s + c.count / 3, 0);
    this.counts.pending = pending.length / 3;
    // Still streaming while this call loaded chunks (the next may load more).
    this.counts.loading = loaded.length > 0;
    return this.counts.loading || pending.length > 0;
  }

  drop(key) {
    const c = this.chunks.get(key);
    if (!c) return;
    this.gl.deleteVertexArray(c.vao);
    for (const b of c.bufs) this.gl.deleteBuffer(b);
    this.chunks.delete(key);
  }

  /** An orbit camera: the cave's mouth from outside, or the unbounded world's origin from above. */
  frameCamera(fov = 50) {
    if (this.bounds) {
      const { lo, hi } = this.bounds;
      const w = hi[0] - lo[0], h = hi[2] - lo[2];
      // The tunnel runs south (−y) from its mouth at y = 0; look at its sunlit southern mouth
      // from the south-south-west.
      return { target: [0.5 * (lo[0] + hi[0]), lo[1], 0.45 * (lo[2] + hi[2])], az: 20, el: 12, dist: 1.25 * Math.max(w, h), fov };
    }
    const g = this.vw.surface(0, 0);
    const z = Number.isFinite(g) ? g : 10;
    return { target: [0, 0, z], az: 320, el: 28, dist: 0.55 * this.reach, fov };
  }

  /** Draw one frame: the sky, then every chunk mesh in the sun's light with distance fog. */
  render(camera, opts = {}) {
    const stats = this.mesh.render(camera, opts);
    const o = { ...MESH_DEFAULTS, ...opts };
    const gl = this.gl, p = this.prog, u = p.u;
    const basis = cameraBasis(camera);
    const W = Math.max(1, gl.drawingBufferWidth), H = Math.max(1, gl.drawingBufferHeight);
    const far = 3 * this.reach + (camera.dist ?? 0);
    const vp = viewProjection(basis, W, H, 0.05, far);
    this.mesh.saveState();
    try {
      gl.bindFramebuffer(gl.FRAMEBUFFER, null);
      gl.viewport(0, 0, W, H);
      gl.enable(gl.DEPTH_TEST);
      gl.depthFunc(gl.LEQUAL);
      gl.depthMask(true);
      gl.disable(gl.BLEND);
      gl.disable(gl.CULL_FACE);
      gl.useProgram(p.p);
      this.mesh.atmosphere(u, o, sunDirection(o.sunEl, o.sunAz));
      gl.uniformMatrix4fv(u.uViewProj, false, vp);
      gl.uniform1f(u.uExag, 1);
      gl.uniform3fv(u.uEye, basis.eye);
      // Fog from a third of the stream radius, nearly opaque at its edge: chunks appear in the
      // haze. A bounded world is all there: its fog starts beyond its far side.
      const R = this.reach;
      const b = this.bounds;
      const start = b ? Math.hypot(b.hi[0] - b.lo[0], b.hi[1] - b.lo[1], b.hi[2] - b.lo[2]) * 1.5 : 0.45 * R;
      gl.uniform2f(u.uFog, start, o.fog > 0 ? (b ? 1 : 1.4) / R : 0);
      gl.uniform1f(u.uFogAmount, o.fog > 0 ? 1 : 0);
      gl.uniform3fv(u.uSkyAmbient, [0.2, 0.26, 0.38]);
      gl.uniform3fv(u.uBounce, [0.16, 0.13, 0.1]);
      gl.uniform1i(u.uWater, 0);
      for (const c of this.chunks.values()) {
        gl.bindVertexArray(c.vao);
        gl.drawElements(gl.TRIANGLES, c.count, gl.UNSIGNED_INT, 0);
        stats.drawCalls += 1;
        stats.triangles += c.count / 3;
      }
      gl.bindVertexArray(null);
    } finally {
      this.mesh.restoreState();
    }
    return stats;
  }

  readPixels() {
    return this.mesh.readPixels();
  }

  dispose() {
    for (const k of [...this.chunks.keys()]) this.drop(k);
    this.gl.deleteProgram(this.prog.p);
    this.mesh.dispose();
    this.vw.free?.();
    this.vw = null;
  }
}

/** Open a 3-D world in the page: `bz` the WebAssembly module, `spec` from `parseWorldParams`. */
export function openVoxelWorld(bz, spec) {
  const params = {};
  if (spec.compat) params.compat = spec.compat;
  if (spec.radius != null) params.radius = spec.radius;
  return bz.openVoxelWorld(spec.generator, String(spec.seed), JSON.stringify(params));
}

/**
 * Show a 3-D world in the page's mesh look (as world.js attachWorld does for height fields):
 * the mesh mode's hooks are replaced (detachWorld in world.js puts them back), `app.world` =
 * {spec, view, counts, label, own, voxel: true, walking, toggleWalk, walkStep}. `vw` is the
 * WebAssembly `VoxelWorld`; `app.held` the page's held keys.
 */
export function attachVoxelWorld(app, vw, spec) {
  const mesh = app.mesh;
  if (!mesh) throw new Error('world: the mesh look is not attached');
  if (app.world) app.world.view.dispose();
  const view = new VoxelView(mesh.view.gl, vw);
  const own = app.world?.own ?? { sync: mesh.sync, frame: mesh.frame, render: mesh.render, status: mesh.status };
  const kind = vw.generator === 'implicit_cave' ? 'cave' : 'voxel world';
  const label = `world ${vw.generator} seed ${vw.seed} · ${kind}, ${vw.blockSize} m blocks, chunks of ${vw.chunkSize}`;
  let last = 0;
  const w = {
    spec, view, counts: view.counts, label, own, voxel: true, walking: false, cam: null,
    /** Enter or leave the walk: the walker is placed where the orbit camera looks (the start for a cave). */
    toggleWalk() {
      if (!w.walking) {
        const t = vw.generator === 'implicit_cave' ? vw.start : mesh.cam.target;
        view.step(t, 50);
        const eye = vw.placeWalker(t[0], t[1], t[2] + 0.5);
        w.cam = { eye: Array.from(eye), az: mesh.cam.az, el: 0 };
        w.walking = true;
      } else {
        w.walking = false;
        const e = w.cam.eye;
        mesh.cam = { ...mesh.cam, target: [e[0], e[1], e[2] - 1.62] };
      }
      app.dirty = true;
      return w.walking;
    },
    /** One walk step of `dt` seconds with the held keys; returns the walk camera. */
    walkStep(keys, dt) {
      const i = walkIntent(keys, w.cam.az, w.cam.el, dt);
      const eye = vw.walk(dt, i.vx, i.vy, 0, i.jump, false);
      w.cam = { eye: Array.from(eye), az: i.az, el: i.el };
      // Fallen out of a bounded world: back to its start.
      const lo = view.bounds?.lo[2];
      if (lo !== undefined && eye[2] < lo - 20) {
        const s = vw.start;
        w.cam.eye = Array.from(vw.placeWalker(s[0], s[1], s[2]));
      }
      return w.cam;
    },
  };
  mesh.sync = async () => {};
  mesh.frame = () => {
    mesh.cam = view.frameCamera(app.state?.fov ?? 50);
    app.dirty = true;
  };
  mesh.render = (cam = mesh.cam) => {
    const now = performance.now();
    const dt = last ? Math.min(0.1, (now - last) / 1000) : 1 / 60;
    last = now;
    const fov = cam.fov ?? app.state?.fov ?? 50;
    let c = cam;
    if (w.walking) {
      c = { ...w.walkStep(app.held ?? new Set(), dt), fov };
      if (!vw.onGround || (app.held?.size ?? 0) > 0) app.dirty = true;
    }
    const at = c.eye ?? c.target;
    if (view.step(at)) app.dirty = true;
    const o = { ...mesh.opts };
    if (app.state && Number.isFinite(app.state.exposure)) o.exposure = app.state.exposure * mesh.opts.exposure;
    return view.render(c, o);
  };
  mesh.cam = view.frameCamera(app.state?.fov ?? 50);
  mesh.status = { terrain: label, albedo: true, normal: false, error: null };
  app.world = w;
  app.dirty = true;
  return w;
}
