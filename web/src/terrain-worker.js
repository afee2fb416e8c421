// Module worker: generates a terrain with the Rust generator (WebAssembly) off the page's thread.
import init, { generate } from '../pkg/bozkir_wasm.js';

const ready = init();

self.onmessage = async (e) => {
  const { gen, seed, size } = e.data;
  try {
    await ready;
    // The erosion's iterations as they complete, a few per second at most (posting every
    // iteration of a small terrain would cost more than the work).
    let last = 0;
    const t = generate(gen, seed, size, (stage, done, total) => {
      const now = performance.now();
      if (done < total && now - last < 100) return;
      last = now;
      self.postMessage({ progress: { stage, done, total } });
    });
    const heights = t.heights;
    const unit = t.unitHeights;
    const sediment = t.sediment;
    self.postMessage({ width: t.width, height: t.height, heights, unit, sediment }, [heights.buffer, unit.buffer, sediment.buffer]);
  } catch (err) {
    self.postMessage({ error: String(err && err.message ? err.message : err) });
  }
};
