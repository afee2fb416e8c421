// Shared setup of the browser tests: find the `bozkir` binary and Chromium, make a small data
// folder (one terrain made by `bozkir terrain`), start `bozkir serve` on it, launch Chromium
// (SwiftShader) through playwright-core, open pages, take pixel statistics and screenshots.
// Without the binary, Chromium or playwright-core the tests skip with a message, except under
// CI=true, where they fail.

import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBozkir } from '../bozkir-bin.mjs';

export const root = fileURLToPath(new URL('../../../', import.meta.url));
export const outDir = fileURLToPath(new URL('../../test-output/', import.meta.url));
const CI = process.env.CI === 'true';

export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
export const bin = findBozkir();
let playwright = null;
try {
  playwright = await import('playwright-core');
} catch {
  playwright = null;
}
const missing = [!bin && 'the bozkir binary (cargo build -p bozkir)', !existsSync(chromiumPath) && `Chromium at ${chromiumPath}`,
  !playwright && 'playwright-core (npm ci in web/)'].filter(Boolean);
if (missing.length && CI) throw new Error(`browser tests need ${missing.join(', ')}`);
/** `false`, or why the browser tests skip. */
export const skip = missing.length ? `missing ${missing.join(', ')}` : false;

/** Start `bozkir serve DIR --port 0` and read its URL line. */
export function serve(dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['serve', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`bozkir serve did not start: ${out}`)), 30000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1].endsWith('/') ? m[1] : `${m[1]}/` });
      }
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => reject(new Error(`bozkir serve exited ${code}: ${out}`)));
  });
}

/** Launch Chromium with WebGL2 on SwiftShader. */
export function launch() {
  return playwright.chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Launch Chromium with WebGPU on SwiftShader's Vulkan (bundled with Chromium: no GPU needed), for
 * the browser kernels (web/src/gpu/).
 */
export function launchWebGPU(extraArgs = []) {
  return playwright.chromium.launch({
    executablePath: chromiumPath,
    // SwiftShader's Vulkan for WebGPU and for ANGLE both: with ANGLE on its GL default, a WebGPU
    // canvas's first present loses the device ("A valid external Instance reference no longer
    // exists", Chromium 156 headless); compute alone works either way.
    args: ['--no-sandbox', '--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-webgpu-adapter=swiftshader',
      '--use-vulkan=swiftshader', '--use-angle=vulkan',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', ...extraArgs],
  });
}

/**
 * A served data folder (a 64² canyon terrain, `canyon64`, plus whatever `prepare(dir)` adds) and
 * a browser: `{base, browser, dir, open(query, viewport), shot(page, name)}`; null when skipping.
 */
export async function startViewer(prepare = () => {}) {
  if (skip) return null;
  mkdirSync(outDir, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'bozkir-web-'));
  execFileSync(bin, ['--quiet', 'terrain', '--profile', 'canyon', '--seed', '3', '--size', '64', '--out', join(dir, 'canyon64')], { stdio: 'ignore' });
  await prepare(dir);
  const s = await serve(dir);
  const browser = await launch();
  const ctx = { dir, base: s.url, server: s.child, browser };
  /** Open the viewer at `query`; collects console errors and page errors. */
  ctx.open = async (query = '', { width = 640, height = 420 } = {}) => {
    const page = await browser.newPage({ viewport: { width, height }, acceptDownloads: true });
    const errors = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.setDefaultTimeout(120000);
    await page.goto(`${ctx.base}${query}`, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => window.bozkir && window.bozkir.ready);
    const ok = await page.evaluate(() => window.bozkir.ready);
    return { page, errors, ok };
  };
  ctx.shot = (page, name) => page.screenshot({ path: join(outDir, `${name}.png`) });
  return ctx;
}

export async function stopViewer(ctx) {
  if (!ctx) return;
  await ctx.browser?.close();
  ctx.server?.kill();
  rmSync(ctx.dir, { recursive: true, force: true });
}

/** Render one frame now and return pixel statistics of the canvas. */
export async function pixelStats(page) {
  return page.evaluate(() => {
    window.bozkir.renderFrame();
    const { width, height, data } = window.bozkir.renderer.readPixels();
    let n = 0, sum = 0, sum2 = 0, bg = 0, amber = 0, blue = 0;
    const hist = new Set();
    for (let k = 0; k < data.length; k += 16) {
      const r = data[k], g = data[k + 1], b = data[k + 2];
      const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
      n += 1;
      sum += l;
      sum2 += l * l;
      hist.add((r >> 4) << 8 | (g >> 4) << 4 | (b >> 4));
      if (Math.abs(r - 158) < 6 && Math.abs(g - 179) < 6 && Math.abs(b - 199) < 6) bg += 1;
      if (r > b + 40) amber += 1;
      if (b > r + 40) blue += 1;
    }
    const mean = sum / n;
    return { width, height, mean, std: Math.sqrt(Math.max(0, sum2 / n - mean * mean)), colours: hist.size, background: bg / n, amber: amber / n, blue: blue / n };
  });
}

/**
 * Skips test `t` (or, under CI=true, fails it) when there is no browser, binary or playwright
 * (`skip`) or the browser has no WebGPU (`why`, the reason); true when skipped.
 */
export function withoutWebGPU(t, why) {
  if (skip) {
    t.skip(skip);
    return true;
  }
  if (why) {
    if (process.env.CI === 'true') assert.fail(`CI=true and Chromium has no WebGPU: ${why}`);
    t.skip(why);
    return true;
  }
  return false;
}
