// Automatic quality: holds the frame time near a budget by moving the render
// scale first and the LOD distance second.
//
// Policy (the original viewer's):
//   * frame time is smoothed by an exponential moving average, α = 0.1;
//   * panic: 5 consecutive frames slower than 1.5 × budget cut the render
//     scale at once by × 0.8 (never below minScale);
//   * every 250 ms, with ms = the average and
//     fit = clamp(scale·√(0.9·budget/ms), minScale, 1):
//       - ms > 1.05·budget: above minScale, scale += 0.8·(fit − scale);
//         at minScale, once slow for more than 1.5 s, lodBase −= 1 (≥ 3);
//       - ms < 0.85·budget: below 1, scale += max(0.02, 0.5·(fit − scale))
//         up to 1; at 1, once under 0.6·budget for more than 4 s,
//         lodBase += 1 (never above the user's value);
//   * a LOD change holds the next one off for 3 s.
//
// Times are in milliseconds; `now` is injectable so tests drive the clock.

const ALPHA = 0.1;
const TICK_MS = 250;
const LOD_HOLD_MS = 3000;
const SLOW_LOD_MS = 1500;
const FAST_LOD_MS = 4000;
const MIN_LOD = 3;

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

/**
 * Render-scale and LOD controller fed with frame times.
 */
export class AutoQuality {
  /**
   * @param {object} [opts]
   * @param {number} [opts.budgetMs=33.3] target frame time (≈ 30 fps)
   * @param {number} [opts.minScale=0.5] lowest render scale
   * @param {number} [opts.startScale=1] initial render scale (phones: 0.6)
   * @param {number} [opts.lodBase=8] the user's LOD distance in tiles (also the ceiling)
   * @param {() => number} [opts.now] clock in ms, used when frame() gets no time
   */
  constructor({
    budgetMs = 33.3, minScale = 0.5, startScale = 1, lodBase = 8,
    now = () => performance.now(),
  } = {}) {
    this.budgetMs = budgetMs;
    this.minScale = minScale;
    this.startScale = clamp(startScale, minScale, 1);
    this.now = now;
    /** When false, frame() changes nothing. */
    this.enabled = true;
    this.userLodBase = lodBase;
    this.reset();
  }

  /** Back to the start scale and the user's LOD, forgetting the history. */
  reset() {
    this.renderScale = this.startScale;
    this.lodBase = this.userLodBase;
    this.avgMs = null;
    this.slowFrames = 0;
    this.lastTick = null;
    this.slowSince = null;
    this.fastSince = null;
    this.lastLodChange = -Infinity;
  }

  /**
   * The user moved the LOD slider: it becomes both the current value and the
   * ceiling the controller may return to.
   * @param {number} v LOD distance in tiles
   */
  setUserLodBase(v) {
    this.userLodBase = v;
    this.lodBase = v;
    this.slowSince = null;
    this.fastSince = null;
  }

  /**
   * Feeds one frame's time.
   * @param {number} frameMs duration of the frame
   * @param {number} [nowMs] the time now (default: the injected clock)
   * @returns {{renderScale: number, lodBase: number, changed: boolean}}
   */
  frame(frameMs, nowMs = this.now()) {
    if (!this.enabled || !(frameMs >= 0) || !Number.isFinite(frameMs)) {
      return { renderScale: this.renderScale, lodBase: this.lodBase, changed: false };
    }
    const scale0 = this.renderScale, lod0 = this.lodBase;
    const budget = this.budgetMs;
    this.avgMs = this.avgMs === null ? frameMs : this.avgMs + ALPHA * (frameMs - this.avgMs);

    // Panic: a run of very slow frames cannot wait for the next tick.
    this.slowFrames = frameMs > 1.5 * budget ? this.slowFrames + 1 : 0;
    if (this.slowFrames >= 5) {
      this.renderScale = Math.max(this.minScale, this.renderScale * 0.8);
      this.slowFrames = 0;
    }

    if (this.lastTick === null) this.lastTick = nowMs;
    if (nowMs - this.lastTick >= TICK_MS) {
      this.lastTick = nowMs;
      this._tick(nowMs);
    }
    const changed = this.renderScale !== scale0 || this.lodBase !== lod0;
    return { renderScale: this.renderScale, lodBase: this.lodBase, changed };
  }

  _tick(nowMs) {
    const budget = this.budgetMs, ms = this.avgMs;
    const atMin = this.renderScale <= this.minScale + 1e-9;
    const fit = clamp(this.renderScale * Math.sqrt((0.9 * budget) / Math.max(ms, 1e-3)), this.minScale, 1);
    const lodFree = nowMs - this.lastLodChange >= LOD_HOLD_MS;

    if (ms > 1.05 * budget) {
      this.fastSince = null;
      if (this.slowSince === null) this.slowSince = nowMs;
      if (!atMin) {
        this.renderScale = clamp(this.renderScale + 0.8 * (fit - this.renderScale), this.minScale, 1);
      } else if (nowMs - this.slowSince > SLOW_LOD_MS && lodFree && this.lodBase > MIN_LOD) {
        this.lodBase = Math.max(MIN_LOD, this.lodBase - 1);
        this.lastLodChange = nowMs;
      }
      return;
    }
    this.slowSince = null;
    if (ms < 0.6 * budget) {
      if (this.fastSince === null) this.fastSince = nowMs;
    } else {
      this.fastSince = null;
    }
    if (ms < 0.85 * budget) {
      if (this.renderScale < 1) {
        this.renderScale = Math.min(1, this.renderScale + Math.max(0.02, 0.5 * (fit - this.renderScale)));
      } else if (this.fastSince !== null && nowMs - this.fastSince > FAST_LOD_MS && lodFree
                 && this.lodBase < this.userLodBase) {
        this.lodBase = Math.min(this.userLodBase, this.lodBase + 1);
        this.lastLodChange = nowMs;
      }
    }
  }
}
