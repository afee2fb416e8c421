import { serve, launch } from './browser/setup.mjs';
const s = await serve('/tmp/demo1');
const b = await launch();
for (const [name, under] of [['under-off', false], ['under-on', true]]) {
  const page = await b.newPage({ viewport: { width: 900, height: 500 } });
  page.on('pageerror', (e) => console.log('PAGEERR', String(e)));
  await page.goto(`${s.url}?scene=starter&terrain=terrain-canyon`);
  await page.waitForFunction(() => window.bozkir && window.bozkir.ready, null, { timeout: 120000 });
  await page.evaluate((under) => {
    const b = window.bozkir; const r = b.renderer; const orig = r.render.bind(r);
    r.render = (c, o) => orig(c, { ...o, underlay: under });
    b.cam.el = 25; b.cam.dist = 6 * b.tileset.size; b.dirty = true; b.renderFrame();
  }, under);
  await page.waitForTimeout(2500);
  await page.evaluate(() => window.bozkir.renderFrame());
  await page.screenshot({ path: `/tmp/${name}.png`, timeout: 120000, clip: { x: 0, y: 120, width: 730, height: 380 } });
  await page.close();
}
await b.close(); s.child.kill();
