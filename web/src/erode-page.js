// The live erosion page (erode.html): a terrain made in the page by the Rust generator
// (WebAssembly, in terrain-worker.js), eroded on the GPU by the browser's WebGPU kernels
// (gpu/lab.js) and drawn from the same buffer. URL parameters set the start: profile, seed,
// size, drops (droplets per step), thermal (iterations per step), talus, rate, water (pipe
// steps a frame), radius, inc (the rain brush), batch (droplets a batch: auto or a number), run
// (1 starts running). `window.bozkirLab` is the page's handle for tests and the console.
// bench=1 runs the benchmark of gpu/lab-bench.js instead (cases=…, report=1 posts the result to
// `bozkir bench-viewer --page erode`).

import init, { profiles } from '../pkg/bozkir_wasm.js';
import { checkDevice, webgpuDevice, webgpuUnavailable } from './gpu/device.js';
import { DROPLET_DEFAULTS, batchFor } from './gpu/droplets.js';
import { ErosionLab, LabView, heightPng16 } from './gpu/lab.js';
import { BENCH_CASES, benchLab, parseBenchCases } from './gpu/lab-bench.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
/** Metres across every terrain of the page (`bozkir terrain`'s default 512 cells of 10 m). */
const EXTENT_M = 5120;
const SIZES = [64, 128, 256, 512, 1024];

const state = { device: null, lab: null, view: null, running: false, steps: 0, seedNext: 1, busy: false, rate: 0, error: null };
let resolveReady;
const ready = new Promise((r) => {
  resolveReady = r;
});

function say(text) {
  $('lab-message').textContent = text || '';
}

function controls() {
  const num = (id, lo, hi) => {
    const v = Number($(id).value);
    if (!Number.isFinite(v) || v < lo || v > hi) throw new Error(`${id.slice(4)}: ${$(id).value} is outside ${lo}…${hi}`);
    return v;
  };
  return {
    drops: Math.round(num('lab-drops', 0, 4194304)),
    thermal: Math.round(num('lab-thermal', 0, 100)),
    talus: num('lab-talus', 0, 89),
    rate: num('lab-rate', 0.01, 1),
    water: Math.round(num('lab-water', 0, 64)),
    radius: Math.round(num('lab-radius', 1, 256)),
    inc: num('lab-inc', 0.001, 1),
  };
}

function status() {
  const lab = state.lab;
  if (!lab) return;
  const drops = lab.dropletCount();
  $('lab-status').textContent = `${lab.start.profile} seed ${lab.start.seed}, ${lab.size}² × ${lab.start.cell} m\n`
    + `steps ${state.steps}, droplets ${drops.toLocaleString('en')} (batches of ${lab.drops.batch.toLocaleString('en')})\n`
    + (state.rate ? `${state.rate.toFixed(1)} steps/s` : (state.running ? '' : 'paused'));
  $('lab-recipe').value = lab.recipe();
  $('lab-run').textContent = state.running ? 'pause' : 'run';
}

/**
 * Runs `fn` after the GPU work queued before it (steps, brush frames, reset, export), one at a
 * time; resolves to its value. A failure is shown on the page (and rejects when `rethrow`).
 */
let chain = Promise.resolve();
function serial(fn, rethrow = false) {
  const run = chain.then(async () => {
    state.busy = true;
    try {
      return await fn();
    } catch (e) {
      fail(e);
      if (rethrow) throw e;
      return undefined;
    } finally {
      state.busy = false;
      status();
    }
  });
  chain = run.catch(() => {});
  return run;
}

/** One step: a run of droplets, thermal iterations and water as the controls say, then a frame. */
function step() {
  return serial(async () => {
    const lab = state.lab;
    if (!lab) return;
    const c = controls();
    const water = lab.wet ? c.water : 0;
    if (c.drops > 0 || c.thermal > 0 || water > 0) lab.step(state.seedNext, c.drops, c.talus, c.rate, c.thermal, water);
    if (c.drops > 0) state.seedNext++;
    state.steps++;
    state.view.draw();
    await state.device.queue.onSubmittedWorkDone();
  });
}

function fail(e) {
  state.running = false;
  state.error = String(e.message || e);
  say(state.error);
}

/** While the brush is held on the terrain: rain there, `water` pipe steps a frame. */
async function paint() {
  while (state.painting) {
    const cell = state.painting.cell;
    if (state.lab && cell) {
      await serial(async () => {
        const c = controls();
        state.lab.rain(cell.x, cell.y, c.radius, c.inc, Math.max(1, c.water));
        state.view.draw();
        await state.device.queue.onSubmittedWorkDone();
      });
    }
    await new Promise((r) => requestAnimationFrame(r));
  }
}

async function loop() {
  let t0 = performance.now();
  let n = 0;
  while (state.running && !document.hidden) {
    await step();
    n++;
    const t = performance.now();
    if (t - t0 > 500) {
      state.rate = (1000 * n) / (t - t0);
      t0 = t;
      n = 0;
    }
    await new Promise((r) => requestAnimationFrame(r));
  }
  state.rate = 0;
  status();
}

function setRunning(on) {
  if (on === state.running || !state.lab) return;
  state.running = on;
  status();
  if (on) loop();
}

/** Generates the terrain in the worker and starts a lab on it. */
function makeTerrain(profile, seed, size) {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./terrain-worker.js', import.meta.url), { type: 'module' });
    w.onmessage = (e) => {
      if (e.data.progress) {
        const p = e.data.progress;
        say(`generating ${profile} ${size}²: ${p.stage} ${p.done}/${p.total}`);
        return;
      }
      w.terminate();
      if (e.data.error) reject(new Error(e.data.error));
      else resolve(e.data.heights);
    };
    w.onerror = (e) => {
      w.terminate();
      reject(new Error(e.message || 'the terrain worker failed'));
    };
    w.postMessage({ gen: profile, seed, size });
  });
}

/** Stops the run, keeps the session's log for `restore`, and says `why`. */
function stopForRestore(why) {
  state.running = false;
  state.lost = { log: state.lab ? state.lab.log.map((o) => ({ ...o })) : [], steps: state.steps, seedNext: state.seedNext };
  say(`${why} Press "restore" to replay the session on a new device (the same heights: the kernels are deterministic).`);
  $('lab-restore').hidden = false;
}

/**
 * On a lost device, or an error the GPU reports outside the kernels' own checks (out of memory
 * in the middle of a run, say): stop, say so, refuse the export (the heights may be wrong), and
 * offer to restore the session on a new device.
 */
function watchDevice() {
  const device = state.device;
  device.lost.then((info) => {
    if (state.device !== device) return;
    stopForRestore(`The GPU device was lost (${info.message || info.reason}).`);
  });
  device.addEventListener('uncapturederror', (ev) => {
    if (state.device !== device || state.lost) return;
    // Dawn's first line says what failed; the rest (the call chain) would push the panel's
    // buttons, restore among them, out of view.
    const why = (ev.error?.message || String(ev.error)).split('\n')[0].trim();
    if (state.lab) state.lab.tainted = why;
    stopForRestore(`The GPU reported an error (${why}), so the heights may be wrong and the export is refused.`);
  });
}

/** A new device, the start terrain on it, and the lost session's log replayed. */
async function restore() {
  const lost = state.lost;
  if (!lost) return;
  say('restoring on a new device…');
  const old = { device: state.device, lab: state.lab, view: state.view };
  state.device = await webgpuDevice();
  watchDevice();
  const lab = await ErosionLab.create(state.device, old.lab.start, { batch: old.lab.batchSetting });
  lab.replay(lost.log);
  state.lab = lab;
  // The old device's memory goes back (after an out-of-memory error it is what the new needs).
  old.view?.destroy();
  old.lab.destroy();
  old.device.destroy();
  state.view = new LabView(state.device, $('lab-view'), lab);
  state.view.exag = Number($('lab-exag').value);
  state.view.drainage = $('lab-drainage').checked;
  Object.assign(state, { steps: lost.steps, seedNext: lost.seedNext, lost: null, error: null });
  chain = Promise.resolve();
  $('lab-restore').hidden = true;
  resize();
  await state.device.queue.onSubmittedWorkDone();
  say(`restored: ${lab.log.length} logged runs replayed`);
  status();
}

async function start(profile, seed, size, batch = 'auto') {
  setRunning(false);
  say(`generating ${profile} ${size}²…`);
  const heights = await makeTerrain(profile, seed, size);
  // After the GPU work queued on the old terrain, whose buffers go now.
  await serial(async () => {
    const lab = await ErosionLab.create(state.device, { profile, seed, size, heights, cell: EXTENT_M / size }, { batch });
    state.view?.destroy();
    state.lab?.destroy();
    state.lab = lab;
    state.view = new LabView(state.device, $('lab-view'), lab);
    state.view.exag = Number($('lab-exag').value);
    state.view.drainage = $('lab-drainage').checked;
    state.steps = 0;
    state.seedNext = 1;
    resize();
    say('');
  }, true);
}

function resize() {
  const c = $('lab-view');
  const dpr = Math.min(window.devicePixelRatio || 1, 2);
  c.width = Math.max(1, Math.round(c.clientWidth * dpr));
  c.height = Math.max(1, Math.round(c.clientHeight * dpr));
  state.view?.draw();
}

/** Downloads the heights as the CLI's height PNG16; returns `{png, lo, hi, codes}`. */
function exportPng() {
  return serial(async () => {
    const lab = state.lab;
    const heights = await lab.read();
    const out = await heightPng16(heights, lab.size, lab.size);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([out.png], { type: 'image/png' }));
    a.download = `${lab.start.profile}-${lab.start.seed}-${lab.size}-height.png`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    say(`exported: heights ${out.lo.toFixed(2)} … ${out.hi.toFixed(2)} m over codes 0 … 65535`);
    return out;
  }, true);
}

function wire() {
  $('lab-run').onclick = () => setRunning(!state.running);
  $('lab-step').onclick = () => step();
  $('lab-reset').onclick = () => {
    setRunning(false);
    return serial(() => {
      state.lab?.reset();
      state.steps = 0;
      state.seedNext = 1;
      state.view?.draw();
    });
  };
  $('lab-export').onclick = () => exportPng().catch(() => {});
  $('lab-restore').onclick = () => restore().catch(fail);
  $('lab-new').onclick = () => start($('lab-profile').value, Number($('lab-seed').value) >>> 0, Number($('lab-size').value), $('lab-batch').value).catch(fail);
  $('lab-drainage').onchange = () => {
    if (state.view) {
      state.view.drainage = $('lab-drainage').checked;
      state.view.draw();
    }
  };
  $('lab-exag').oninput = () => {
    if (state.view) {
      state.view.exag = Number($('lab-exag').value);
      state.view.draw();
    }
  };
  window.addEventListener('resize', resize);
  window.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA') return;
    if (e.key === ' ') setRunning(!state.running);
    else if (e.key === 's') step();
    else if (e.key === 'r') $('lab-reset').click();
    else if (e.key === 'b') $('lab-brush').checked = !$('lab-brush').checked;
    else if (e.key === 'd') $('lab-drainage').click();
    else return;
    e.preventDefault();
  });
  document.addEventListener('visibilitychange', () => {
    // A hidden tab gets no frames: the loop stops and says so; it resumes when shown.
    if (document.hidden && state.running) {
      state.resume = true;
      say('paused while the tab is hidden');
    } else if (!document.hidden && state.resume) {
      state.resume = false;
      say('');
      state.running = false;
      setRunning(true);
    }
  });
  const c = $('lab-view');
  let drag = null;
  const cellAt = (e) => {
    const r = c.getBoundingClientRect();
    return state.view?.pick(((e.clientX - r.left) * c.width) / r.width, ((e.clientY - r.top) * c.height) / r.height);
  };
  c.addEventListener('pointerdown', (e) => {
    c.setPointerCapture(e.pointerId);
    if ($('lab-brush').checked && state.view) {
      state.painting = { cell: cellAt(e) };
      paint();
      return;
    }
    drag = { x: e.clientX, y: e.clientY };
  });
  c.addEventListener('pointerup', () => {
    drag = null;
    state.painting = null;
  });
  c.addEventListener('pointermove', (e) => {
    if (state.painting) {
      state.painting.cell = cellAt(e);
      return;
    }
    if (!drag || !state.view) return;
    const cam = state.view.cam;
    cam.az = (cam.az - 0.3 * (e.clientX - drag.x) + 360) % 360;
    cam.el = Math.min(89, Math.max(5, cam.el + 0.3 * (e.clientY - drag.y)));
    drag = { x: e.clientX, y: e.clientY };
    state.view.draw();
  });
  c.addEventListener('wheel', (e) => {
    if (!state.view) return;
    e.preventDefault();
    state.view.cam.dist = Math.min(4, Math.max(0.3, state.view.cam.dist * Math.exp(0.001 * e.deltaY)));
    state.view.draw();
  }, { passive: false });
}

/** The page's benchmark (bench=1): the cases of `cases=` timed, the table shown and posted. */
async function bench(why) {
  // The panel's controls drive a session, which the benchmark is not.
  $('lab-panel').querySelectorAll('button, input, select').forEach((b) => {
    b.disabled = true;
  });
  const post = (body) => params.get('report') === '1'
    && fetch('api/bench-report', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  let body;
  try {
    if (why) throw new Error(`no WebGPU: ${why}`);
    const cases = parseBenchCases(params.get('cases') || BENCH_CASES);
    const device = await webgpuDevice();
    state.device = device;
    // A figure measured across a lost device or a GPU error is no figure: either fails the run.
    let gpuError = null;
    device.addEventListener('uncapturederror', (ev) => {
      gpuError ??= ev.error?.message || String(ev.error);
    });
    const info = device.adapterInfo || {};
    const gpu = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ') || 'unknown adapter';
    const c = $('lab-view');
    c.width = c.clientWidth;
    c.height = c.clientHeight;
    const lines = [];
    const rows = await benchLab(device, c, cases, (r) => {
      checkDevice(device, `benchmark case ${r.case} ${r.size}²`);
      if (gpuError) throw new Error(`benchmark case ${r.case} ${r.size}²: the GPU reported an error (${gpuError})`);
      lines.push(`${r.case} ${r.size}²${r.drops ? `, ${r.drops} droplets (batch ${r.batch})` : ''}: ${r.steps_per_s.toFixed(1)} steps/s (${r.ms_per_step.toFixed(2)} ms a step)`);
      say(lines.join('\n'));
    });
    body = { gpu, canvas: `${c.width}x${c.height}`, rows, report: lines };
  } catch (e) {
    body = { error: String(e.message || e) };
    say(body.error);
  }
  window.bozkirLab.benchResult = body;
  try {
    await post(body);
  } catch (e) {
    say(`could not post the benchmark: ${e.message}`);
  }
  resolveReady({ error: body.error || null });
}

async function main() {
  const why = await webgpuUnavailable();
  if (params.get('bench') === '1') {
    await bench(why);
    return;
  }
  if (why) {
    say(`Live erosion needs WebGPU, and ${why}. The viewer (index.html) works without it.`);
    $('lab-panel').querySelectorAll('button, input, select').forEach((b) => {
      b.disabled = true;
    });
    resolveReady({ error: why });
    return;
  }
  await init();
  const names = profiles();
  const profile = params.get('profile') || 'alpine';
  if (!names.includes(profile)) throw new Error(`unknown profile "${profile}" (one of ${names.join(', ')})`);
  $('lab-profile').innerHTML = names.map((n) => `<option${n === profile ? ' selected' : ''}>${n}</option>`).join('');
  const seed = Number(params.get('seed') ?? 7) >>> 0;
  const size = Number(params.get('size') ?? 256);
  if (!SIZES.includes(size)) throw new Error(`size ${params.get('size')} is not one of ${SIZES.join(', ')}`);
  if (![...$('lab-size').options].some((o) => Number(o.value) === size)) $('lab-size').add(new Option(String(size), String(size)), 0);
  const batch = params.get('batch') ?? 'auto';
  batchFor(batch, size * size);
  if (![...$('lab-batch').options].some((o) => o.value === batch)) $('lab-batch').add(new Option(batch, batch));
  $('lab-batch').value = batch;
  $('lab-seed').value = seed;
  $('lab-size').value = String(size);
  $('lab-drops').value = params.get('drops') ?? String(Math.round(size * size * 0.0625));
  $('lab-radius').value = params.get('radius') ?? String(Math.max(2, Math.round(size / 32)));
  for (const k of ['thermal', 'talus', 'rate', 'water', 'inc']) if (params.has(k)) $(`lab-${k}`).value = params.get(k);
  state.device = await webgpuDevice();
  watchDevice();
  wire();
  await start(profile, seed, size, batch);
  if (params.get('run') === '1') setRunning(true);
  resolveReady({ error: null });
}

window.bozkirLab = {
  ready,
  state,
  defaults: DROPLET_DEFAULTS,
  step,
  /** Rain with the brush at cell (x, y) for one frame, as a drag there does. */
  rainAt(x, y) {
    return serial(async () => {
      const c = controls();
      state.lab.rain(x, y, c.radius, c.inc, Math.max(1, c.water));
      state.view.draw();
      await state.device.queue.onSubmittedWorkDone();
    });
  },
  exportPng,
  setRunning,
  /** The heights as PNG16 codes, lowest and highest (what exportPng downloads). */
  codes() {
    return serial(async () => {
      const h = await state.lab.read();
      const out = await heightPng16(h, state.lab.size, state.lab.size);
      return { lo: out.lo, hi: out.hi, codes: [...out.codes], pngBytes: out.png.length };
    }, true);
  },
  /** The restore button's work, awaited. */
  restore: () => restore(),
  /** The reset button's work, awaited. */
  reset: () => document.getElementById('lab-reset').onclick(),
};

main().catch((e) => {
  fail(e);
  resolveReady({ error: state.error });
});
