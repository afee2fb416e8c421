// The vendored lil-gui (web/vendor, served by `bozkir serve` and embedded in the binary) is the
// npm package's own file, byte for byte: package.json pins the version, `npm ci` fetches it,
// and this test fails if the two drift. Refresh with:
//   cp web/node_modules/lil-gui/dist/lil-gui.esm.min.js web/vendor/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

const vendored = new URL('../../vendor/lil-gui.esm.min.js', import.meta.url);
const installed = new URL('../../node_modules/lil-gui/dist/lil-gui.esm.min.js', import.meta.url);

test('vendored lil-gui equals the installed npm package', (t) => {
  if (!existsSync(installed)) {
    if (process.env.CI === 'true') assert.fail('web/node_modules/lil-gui is missing: run npm ci in web/');
    t.skip('web/node_modules not installed (npm ci in web/)');
    return;
  }
  assert.ok(readFileSync(vendored).equals(readFileSync(installed)), 'web/vendor/lil-gui.esm.min.js differs from node_modules');
  const pkg = JSON.parse(readFileSync(new URL('../../node_modules/lil-gui/package.json', import.meta.url)));
  const want = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url))).dependencies['lil-gui'];
  assert.ok(want.endsWith(pkg.version), `package.json wants ${want}, installed ${pkg.version}`);
});
