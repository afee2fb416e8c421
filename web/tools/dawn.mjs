// Dawn's Node binding (npm `webgpu`, not a dependency of web/) set up as the page's browser
// would be: `navigator.gpu` and the WebGPU globals, and a `fetch` that reads file: URLs (the
// page's modules fetch their WGSL and data beside themselves; Node's fetch has no file: URLs).
// Used by bench-lab-node.mjs and bench-splat-node.mjs.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Loads Dawn from the `webgpu` package folder `dir` (null: `import('webgpu')`) and installs it;
 * relative fetches resolve against `base` (a URL; default none). Returns the `GPU` object.
 * Throws with the install command when the binding cannot be loaded.
 */
export async function installDawn(dir, base = undefined) {
  const dawn = await import(dir ? pathToFileURL(join(resolve(dir), 'index.js')).href : 'webgpu').catch((e) => {
    throw new Error(`cannot load Dawn's Node binding (${e.message}); install it with \`npm install --prefix /tmp/dawn webgpu@0.6.2\` and pass --dawn /tmp/dawn/node_modules/webgpu`);
  });
  Object.assign(globalThis, dawn.globals);
  const gpu = dawn.create([]);
  Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });
  const netFetch = globalThis.fetch;
  globalThis.fetch = async (url, init) => {
    const u = new URL(String(url), base);
    if (u.protocol !== 'file:') return netFetch(url, init);
    try {
      return new Response(readFileSync(fileURLToPath(u)), { status: 200 });
    } catch {
      return new Response('', { status: 404 });
    }
  };
  return gpu;
}
