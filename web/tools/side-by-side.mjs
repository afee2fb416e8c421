// The side-by-side figure of issue 25 (docs/figures/side_by_side_rmnp.png): the RMNP DEM in the
// mesh look twice, same camera, light and geometry — left with bozkir's own albedo (`bozkir bake`:
// the palette by slope, height and the erosion masks, the ground photos at hex-vp), right with
// the satellite image of the same ground laid as the albedo (`bozkir bake --albedo-from`, photos
// off): the reference is the place itself rather than a hand-tuned look.
// Usage: node web/tools/side-by-side.mjs OUT.png   (needs the bozkir binary and Chromium, as the
// browser tests do; scripts/side_by_side.sh builds and runs it)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, serve, launch, root, skip } from '../tests/browser/setup.mjs';

const out = process.argv[2];
if (!out) throw new Error('usage: node web/tools/side-by-side.mjs OUT.png');
if (skip) throw new Error(`cannot render: ${skip}`);
const dir = mkdtempSync(join(tmpdir(), 'bozkir-sbs-'));
const run = (...args) => execFileSync(bin, ['--quiet', ...args], { stdio: 'ignore' });
const dem = join(root, 'data/dem/rmnp-dem.tif'), rgb = join(root, 'data/dem/rmnp-rgb.tif');
run('analyze', dem, '--out', join(dir, 'rmnp-bozkir'));
run('bake', join(dir, 'rmnp-bozkir'), '--scale', '4');
run('analyze', dem, '--out', join(dir, 'rmnp-satellite'));
run('bake', join(dir, 'rmnp-satellite'), '--scale', '4', '--albedo-from', rgb);
const s = await serve(dir);
const browser = await launch();
const devPage = readFileSync(join(root, 'web/dev/mesh.html'));
const W = 800, H = 520;
const shots = [];
try {
  for (const [terrain, detail] of [['rmnp-bozkir', 'hex-vp'], ['rmnp-satellite', 'off']]) {
    const page = await browser.newPage({ viewport: { width: W, height: H } });
    await page.route('**/dev/mesh.html*', (r) => r.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: devPage }));
    await page.goto(`${s.url}dev/mesh.html?terrain=${terrain}&hud=0&detail=${detail}`);
    if (!(await page.evaluate(() => window.meshDev.ready))) throw new Error(await page.evaluate(() => window.meshDev.error));
    await page.evaluate(() => {
      const d = window.meshDev;
      d.cam = { ...d.view.frameCamera(d.opts.exaggeration, 50), az: 200, el: 24 };
      d.cam.dist *= 0.75;
      d.render();
    });
    shots.push((await page.screenshot()).toString('base64'));
    await page.close();
  }
  // Side by side with captions, drawn in a page's canvas.
  const page = await browser.newPage({ viewport: { width: 2 * W + 12, height: H + 36 } });
  await page.setContent('<body style="margin:0;background:#fff"><canvas id="c"></canvas></body>');
  const png = await page.evaluate(async ({ shots, W, H }) => {
    const c = document.getElementById('c');
    c.width = 2 * W + 12;
    c.height = H + 36;
    const x = c.getContext('2d');
    x.fillStyle = '#fff';
    x.fillRect(0, 0, c.width, c.height);
    const caps = ['bozkir bake: materials from the ground\'s shape, ground photos (hex-vp)', 'reference: the satellite image of the same ground (bake --albedo-from)'];
    for (let k = 0; k < 2; k++) {
      const img = new Image();
      img.src = `data:image/png;base64,${shots[k]}`;
      await img.decode();
      x.drawImage(img, k * (W + 12), 0);
      x.fillStyle = '#222';
      x.font = '15px sans-serif';
      x.fillText(caps[k], k * (W + 12) + 8, H + 24);
    }
    return c.toDataURL('image/png').split(',')[1];
  }, { shots, W, H });
  writeFileSync(out, Buffer.from(png, 'base64'));
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  s.child.kill();
  rmSync(dir, { recursive: true, force: true });
}
