// Measuring the viewer: the capture sweep (frames for `bozkir pop-metric`) and the in-page pop
// meter. The sweep holds elevation and distance, steps the azimuth over `arc` degrees in
// `frames` frames, waits for the sorter and merged streams to settle before each frame, and
// zips the frames as f0000.png … (tileset.js's zip writer).

import { writeZip } from './tileset.js';

/** Whether the renderer still waits for an order or a merged stream. */
export function settling(renderer) {
  if (renderer.sortPending) return true;
  for (const s of renderer.streams?.values?.() ?? []) if (s.pending) return true;
  return false;
}

const nextFrame = () => new Promise((r) => requestAnimationFrame(() => r()));

async function canvasPng(canvas) {
  const blob = await new Promise((r) => canvas.toBlob(r, 'image/png'));
  return new Uint8Array(await blob.arrayBuffer());
}

/**
 * Run a capture sweep on the page `app` (main.js): returns the zip bytes.
 * @param {{arc:number, frames:number, patience?:number, onProgress?:(k:number, n:number)=>void}} o
 */
export async function captureSweep(app, { arc, frames, patience = 90, onProgress = () => {} }) {
  const files = new Map();
  const az0 = app.cam.az;
  for (let k = 0; k < frames; k++) {
    app.cam.az = (az0 + (arc * k) / Math.max(1, frames - 1) + 360) % 360;
    app.renderFrame();
    for (let w = 0; w < patience && settling(app.renderer); w++) {
      await nextFrame();
      app.renderFrame();
    }
    app.renderFrame(); // one settled frame
    files.set(`f${String(k).padStart(4, '0')}.png`, await canvasPng(app.renderer.canvas));
    onProgress(k + 1, frames);
  }
  app.cam.az = az0;
  return writeZip(files);
}

/**
 * The pop meter: mean absolute difference of a 192 × 108 centre read-back between consecutive
 * frames, per degree the camera turned (pairs that turned less than 0.05° are ignored).
 */
export class PopMeter {
  constructor() {
    this.prev = null;
    this.prevAz = null;
    this.value = null;
    this.buf = new Uint8Array(192 * 108 * 4);
  }

  sample(gl, az) {
    const w = Math.min(192, gl.drawingBufferWidth), h = Math.min(108, gl.drawingBufferHeight);
    const x = Math.floor((gl.drawingBufferWidth - w) / 2), y = Math.floor((gl.drawingBufferHeight - h) / 2);
    const px = this.buf.subarray(0, w * h * 4);
    gl.readPixels(x, y, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    if (this.prev && this.prev.length === px.length && this.prevAz !== null) {
      const turned = Math.abs(((az - this.prevAz + 540) % 360) - 180);
      if (turned >= 0.05) {
        let sum = 0;
        for (let k = 0; k < px.length; k += 4) {
          sum += Math.abs(px[k] - this.prev[k]) + Math.abs(px[k + 1] - this.prev[k + 1]) + Math.abs(px[k + 2] - this.prev[k + 2]);
        }
        this.value = sum / (3 * 255 * (px.length / 4)) / turned;
      }
    }
    this.prev = px.slice();
    this.prevAz = az;
    return this.value;
  }
}
