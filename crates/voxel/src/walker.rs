//! A first-person walker that collides with voxels: the body of the viewer's walk mode in voxel
//! worlds and caves, advanced once per frame.
//!
//! **Frame.** The crate's ([`crate::coords`]): y up, units are blocks, block `(x, y, z)` is the
//! unit cube `[x, x+1) × [y, y+1) × [z, z+1)`. Solidity comes from a closure
//! `solid(x, y, z) -> bool` over `i32` block coordinates, so any storage (a [`crate::ChunkMap`],
//! a dense grid, a cave function) can be walked.
//!
//! **Body.** The walker is an axis-aligned box: with feet centre `pos = (x, y, z)`, half width
//! `w` and height `h` it is `[x-w, x+w] × [y, y+h] × [z-w, z+w]`. It *overlaps* block `(i, j, k)`
//! when the open intervals meet on every axis (`i < x+w && i+1 > x-w`, the same on y and z), so
//! a box whose face lies on a block face touches it without overlapping: a walker standing on a
//! floor has its feet exactly at the floor's integer top. [`overlaps_solid`] is this test.
//!
//! **Step.** [`Walker::step`] advances by `dt` seconds, capped at [`MAX_DT`] (0.25 s: after a
//! stalled frame the world slows down instead of the walker jumping far). The horizontal
//! velocity is the input's, applied at once (no acceleration). Walking: a jump on the ground
//! sets the vertical velocity to `jump_speed`; gravity pulls it down to `-max_fall_speed`,
//! integrated exactly for constant gravity (`y += v·t − g·t²/2`, piecewise at the fall speed
//! cap), so a jump peaks at `jump_speed² / (2·gravity)` whatever the frame rate. Flying: the
//! vertical velocity is the input's `up`, no gravity, the same collisions.
//!
//! The step is cut into `n` equal substeps so that no substep moves more than
//! [`MAX_SUBSTEP_MOVE`] (a quarter block) along any axis, at most [`MAX_SUBSTEPS`]. Each substep
//! moves along y, then x, then z (axis separation: a wall stops one axis and the walker slides
//! along it on the others). Each axis move is *swept*: the layers of blocks that the box's
//! leading face newly enters are checked nearest first over the box's cross-section, and at the
//! first solid one the box stops with its face on the block's face (a floor's top, a wall's
//! side). The stopping position is corrected by a few ulps where the floating-point sum
//! `x + w` would round past the face, so the overlap test above holds exactly, at any
//! coordinate. Hence:
//!
//! * a box that starts a step free of solid blocks ends it free (only newly entered layers can
//!   add overlaps, and those are checked) — no tunnelling through a floor or wall of any
//!   thickness at any speed or `dt`;
//! * landing puts the feet exactly on the integer top of the floor (`on_ground` becomes true and
//!   the vertical velocity 0); a ceiling stops a rise (vertical velocity 0).
//!
//! A box that starts overlapping solid blocks is not pushed out (it can only move to places that
//! add no overlap): spawn it with [`settle`].
//!
//! **Step-up.** When walking (not flying) on the ground and a horizontal move is stopped, the
//! walker tries to lift onto the obstacle: for each level `L = floor(y) + 1, floor(y) + 2, …`
//! with `L − y ≤ step_height`, it sweeps up to `L` over its current column (a ceiling there
//! ends the attempt: no head room), repeats the horizontal move from there, and if that gets
//! strictly further than the stopped move, drops back down (at most to the original height)
//! onto what lies below and keeps that position. With the default `step_height` 1 the walker
//! climbs 1-block ledges without jumping and never a 2-block wall; the lift is instantaneous
//! (a viewer may smooth its camera). Every part of it is a swept move, so it keeps the box free.
//!
//! **Cost.** A substep checks the blocks of at most a few layers of the box's cross-section
//! (about 2 × 3 for the default body); a frame at walking speed is one or two substeps.
//!
//! **Errors.** [`VoxelError::Param`] naming the value: parameters out of range
//! ([`WalkerParams::validate`]), a non-finite or negative `dt`, non-finite or too large input
//! velocities (above [`MAX_SPEED`] blocks/s), a walker whose position is not finite or beyond
//! [`MAX_COORD`] or whose velocity is not finite or above [`MAX_SPEED`]. On error the walker is
//! unchanged. Nothing panics.
//!
//! **Determinism.** Only `+ − × ÷`, `floor` and `ceil` on `f64`, no transcendental functions, no
//! fused operations: the same inputs give the same bits on every platform, WebAssembly included.
//!
//! ```
//! use bozkir_voxel::walker::{settle, WalkInput, Walker, WalkerParams};
//!
//! let p = WalkerParams::default();
//! // a floor of stone: every block below y = 0 is solid
//! let solid = |_x: i32, y: i32, _z: i32| y < 0;
//! let spawn = settle(&p, [0.5, 3.7, 0.5], solid, 8).unwrap().unwrap();
//! assert_eq!(spawn, [0.5, 0.0, 0.5]);
//! let mut w = Walker::new(spawn);
//! let input = WalkInput { velocity: [4.0, 0.0], ..Default::default() };
//! for _ in 0..60 {
//!     w.step(&p, input, 1.0 / 60.0, solid).unwrap();
//! }
//! assert!((w.pos[0] - 4.5).abs() < 1e-9 && w.pos[1] == 0.0 && w.on_ground);
//! ```

use crate::error::{Result, VoxelError};

/// Longest step [`Walker::step`] simulates, in seconds; a longer `dt` is treated as this.
pub const MAX_DT: f64 = 0.25;
/// Longest move of one substep along any axis, in blocks.
pub const MAX_SUBSTEP_MOVE: f64 = 0.25;
/// Most substeps of one step (not reached within the limits on speeds and `dt`).
pub const MAX_SUBSTEPS: u32 = 4096;
/// Largest speed accepted anywhere (input velocities, the walker's velocity, `jump_speed`,
/// `max_fall_speed`), in blocks per second.
pub const MAX_SPEED: f64 = 1000.0;
/// Largest absolute coordinate of a walker's position or a settle start, in blocks (all blocks
/// touched then have `i32` coordinates with room to spare).
pub const MAX_COORD: f64 = 1.0e9;
/// Largest `max_search` of [`settle`].
pub const MAX_SETTLE_SEARCH: i32 = 256;

/// The walker's body and motion parameters. Lengths in blocks, times in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WalkerParams {
    /// Half the box's width on x and z (default 0.3); in `(0, 4]`.
    pub half_width: f64,
    /// Box height (default 1.8); in `(0, 16]`.
    pub height: f64,
    /// Eye height above the feet (default 1.62); in `[0, height]`.
    pub eye: f64,
    /// Gravity in blocks/s² (default 25); in `[0, 1000]`.
    pub gravity: f64,
    /// Vertical speed of a jump in blocks/s (default 8, a jump of 1.28 blocks); in `[0, 1000]`.
    pub jump_speed: f64,
    /// Highest ledge climbed without jumping (default 1); in `[0, height]`.
    pub step_height: f64,
    /// Fastest fall in blocks/s (default 60); in `(0, 1000]`.
    pub max_fall_speed: f64,
    /// Fly mode: no gravity, no jumps, no step-up; the input's `up` moves the walker vertically
    /// (default false). Collisions are the same.
    pub fly: bool,
}

impl Default for WalkerParams {
    fn default() -> Self {
        WalkerParams {
            half_width: 0.3,
            height: 1.8,
            eye: 1.62,
            gravity: 25.0,
            jump_speed: 8.0,
            step_height: 1.0,
            max_fall_speed: 60.0,
            fly: false,
        }
    }
}

/// `Ok` when `v` is finite and `ok`, else [`VoxelError::Param`] naming `name` and `v`.
fn check(name: &'static str, v: f64, ok: bool, allowed: &'static str) -> Result<()> {
    if v.is_finite() && ok {
        Ok(())
    } else {
        Err(VoxelError::Param { name, value: format!("{v}"), allowed })
    }
}

/// `Ok` when every component is finite with absolute value at most `max`.
fn check3(name: &'static str, v: &[f64], max: f64, allowed: &'static str) -> Result<()> {
    if v.iter().all(|c| c.is_finite() && c.abs() <= max) {
        Ok(())
    } else {
        Err(VoxelError::Param { name, value: format!("{v:?}"), allowed })
    }
}

impl WalkerParams {
    /// Checks every parameter against its range (see the fields); the error names the first one
    /// refused and its value. NaN and infinities are always refused.
    pub fn validate(&self) -> Result<()> {
        let p = self;
        check("half_width", p.half_width, p.half_width > 0.0 && p.half_width <= 4.0, "finite, in (0, 4]")?;
        check("height", p.height, p.height > 0.0 && p.height <= 16.0, "finite, in (0, 16]")?;
        check("eye", p.eye, p.eye >= 0.0 && p.eye <= p.height, "finite, in [0, height]")?;
        check("gravity", p.gravity, (0.0..=1000.0).contains(&p.gravity), "finite, in [0, 1000]")?;
        check("jump_speed", p.jump_speed, (0.0..=MAX_SPEED).contains(&p.jump_speed), "finite, in [0, 1000]")?;
        check(
            "step_height",
            p.step_height,
            p.step_height >= 0.0 && p.step_height <= p.height,
            "finite, in [0, height]",
        )?;
        check(
            "max_fall_speed",
            p.max_fall_speed,
            p.max_fall_speed > 0.0 && p.max_fall_speed <= MAX_SPEED,
            "finite, in (0, 1000]",
        )
    }
}

/// One frame's input.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WalkInput {
    /// Desired horizontal velocity `(x, z)` in blocks/s; each component finite with absolute
    /// value at most [`MAX_SPEED`].
    pub velocity: [f64; 2],
    /// Fly mode's vertical velocity in blocks/s (ignored when walking); finite, `|up| ≤`
    /// [`MAX_SPEED`].
    pub up: f64,
    /// Jump (walking, on the ground only; ignored otherwise).
    pub jump: bool,
}

/// What happened during one [`Walker::step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepReport {
    /// Per axis `(x, y, z)`: a move along it was stopped by a solid block in some substep (a
    /// horizontal move resolved by a step-up does not count; standing on the ground counts on y).
    pub blocked: [bool; 3],
    /// The walker was in the air before the step and is on the ground after it.
    pub landed: bool,
    /// A step-up lifted the walker onto a ledge.
    pub stepped_up: bool,
    /// Substeps simulated (0 when `dt` was 0).
    pub substeps: u32,
}

/// A first-person walker: an axis-aligned box with a velocity (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Walker {
    /// Feet centre: the middle of the box's bottom face, in blocks.
    pub pos: [f64; 3],
    /// Velocity in blocks/s; x and z are the last input's, y the vertical velocity.
    pub vel: [f64; 3],
    /// Standing on a solid block (set by the last vertical move).
    pub on_ground: bool,
}

/// The box's extent around the feet centre, per axis: `[pos + lo, pos + hi]`.
#[derive(Debug, Clone, Copy)]
struct Body {
    lo: [f64; 3],
    hi: [f64; 3],
}

impl Body {
    fn new(p: &WalkerParams) -> Body {
        let w = p.half_width;
        Body { lo: [-w, 0.0, -w], hi: [w, p.height, w] }
    }

    /// Inclusive range of cells on axis `a` whose interiors meet the box's: `floor(min) ..=
    /// ceil(max) - 1`.
    fn cover(&self, pos: &[f64; 3], a: usize) -> (i64, i64) {
        ((pos[a] + self.lo[a]).floor() as i64, (pos[a] + self.hi[a]).ceil() as i64 - 1)
    }

    fn is_free<F: Fn(i32, i32, i32) -> bool>(&self, pos: &[f64; 3], solid: &F) -> bool {
        let (x0, x1) = self.cover(pos, 0);
        let (y0, y1) = self.cover(pos, 1);
        let (z0, z1) = self.cover(pos, 2);
        for y in y0..=y1 {
            for z in z0..=z1 {
                for x in x0..=x1 {
                    if solid(x as i32, y as i32, z as i32) {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// Whether the walker's box with feet centre `pos` overlaps a solid block (open-interval overlap,
/// see the module docs). `p` is not validated; `pos` must be finite and within [`MAX_COORD`]
/// (otherwise the answer is `true`, as for a place the walker cannot be).
pub fn overlaps_solid(p: &WalkerParams, pos: [f64; 3], solid: impl Fn(i32, i32, i32) -> bool) -> bool {
    if !pos.iter().all(|c| c.is_finite() && c.abs() <= MAX_COORD) {
        return true;
    }
    !Body::new(p).is_free(&pos, &solid)
}

/// Whether block layer `k` of axis `a` holds a solid block within the cross-section ranges
/// `r1` (axis `o1`) and `r2` (axis `o2`).
fn layer_hits<F: Fn(i32, i32, i32) -> bool>(
    solid: &F,
    a: usize,
    k: i64,
    (o1, r1): (usize, (i64, i64)),
    (o2, r2): (usize, (i64, i64)),
) -> bool {
    let mut c = [0i64; 3];
    c[a] = k;
    for i in r1.0..=r1.1 {
        c[o1] = i;
        for j in r2.0..=r2.1 {
            c[o2] = j;
            if solid(c[0] as i32, c[1] as i32, c[2] as i32) {
                return true;
            }
        }
    }
    false
}

/// A coordinate `x >= start`, as close to `plane - off` as floating point allows, with
/// `x + off <= plane` exactly (`start` itself satisfies it).
fn snap_below(plane: f64, off: f64, start: f64) -> f64 {
    let mut x = plane - off;
    let mut s = (x.abs() * f64::EPSILON).max(f64::MIN_POSITIVE);
    for _ in 0..64 {
        if x + off <= plane {
            return x.max(start);
        }
        x -= s;
        s *= 2.0;
    }
    start
}

/// A coordinate `x <= start`, as close to `plane - off` as floating point allows, with
/// `x + off >= plane` exactly (`start` itself satisfies it).
fn snap_above(plane: f64, off: f64, start: f64) -> f64 {
    let mut x = plane - off;
    let mut s = (x.abs() * f64::EPSILON).max(f64::MIN_POSITIVE);
    for _ in 0..64 {
        if x + off >= plane {
            return x.min(start);
        }
        x += s;
        s *= 2.0;
    }
    start
}

/// Moves `pos` by `d` along axis `a`, stopping at the face of the first solid block layer the
/// box's leading face newly enters. Returns whether it was stopped.
fn sweep<F: Fn(i32, i32, i32) -> bool>(body: &Body, pos: &mut [f64; 3], a: usize, d: f64, solid: &F) -> bool {
    if d == 0.0 {
        return false;
    }
    let (o1, o2) = match a {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    let r1 = (o1, body.cover(pos, o1));
    let r2 = (o2, body.cover(pos, o2));
    let start = pos[a];
    let target = start + d;
    if d > 0.0 {
        let off = body.hi[a];
        let first = (start + off).ceil() as i64;
        let last = (target + off).ceil() as i64 - 1;
        for k in first..=last {
            if layer_hits(solid, a, k, r1, r2) {
                pos[a] = snap_below(k as f64, off, start);
                return true;
            }
        }
    } else {
        let off = body.lo[a];
        let first = (start + off).floor() as i64 - 1;
        let last = (target + off).floor() as i64;
        for k in (last..=first).rev() {
            if layer_hits(solid, a, k, r1, r2) {
                pos[a] = snap_above((k + 1) as f64, off, start);
                return true;
            }
        }
    }
    pos[a] = target;
    false
}

/// Step-up after the horizontal move along `a` by `d` from `before` was stopped at `pos` (see
/// the module docs). On success writes the new position and returns true.
fn step_up<F: Fn(i32, i32, i32) -> bool>(
    body: &Body,
    step_height: f64,
    before: &[f64; 3],
    pos: &mut [f64; 3],
    a: usize,
    d: f64,
    solid: &F,
) -> bool {
    let progress0 = (pos[a] - before[a]).abs();
    let y0 = before[1];
    let mut raised = *before;
    let mut level = y0.floor() + 1.0;
    while level - y0 <= step_height {
        let lift = level - raised[1];
        if sweep(body, &mut raised, 1, lift, solid) {
            return false;
        }
        let mut moved = raised;
        sweep(body, &mut moved, a, d, solid);
        if (moved[a] - before[a]).abs() > progress0 {
            let drop = moved[1] - y0;
            sweep(body, &mut moved, 1, -drop, solid);
            *pos = moved;
            return true;
        }
        level += 1.0;
    }
    false
}

impl Walker {
    /// A walker at rest (velocity 0, not on the ground) with feet centre `pos`.
    pub fn new(pos: [f64; 3]) -> Walker {
        Walker { pos, vel: [0.0; 3], on_ground: false }
    }

    /// The eye position: `eye` above the feet centre.
    pub fn eye_pos(&self, p: &WalkerParams) -> [f64; 3] {
        [self.pos[0], self.pos[1] + p.eye, self.pos[2]]
    }

    /// Advances the walker by `dt` seconds (capped at [`MAX_DT`]) under `input`, colliding with
    /// the blocks for which `solid` is true (see the module docs for the rules and guarantees).
    /// Errors leave the walker unchanged: invalid `p`, `dt` not finite or negative, input
    /// velocities not finite or above [`MAX_SPEED`], a walker state out of range.
    pub fn step(
        &mut self,
        p: &WalkerParams,
        input: WalkInput,
        dt: f64,
        solid: impl Fn(i32, i32, i32) -> bool,
    ) -> Result<StepReport> {
        p.validate()?;
        check("dt", dt, dt >= 0.0, "finite, at least 0 (seconds; above 0.25 is treated as 0.25)")?;
        check3("input.velocity", &input.velocity, MAX_SPEED, "finite, each |component| <= 1000 blocks/s")?;
        check3("input.up", &[input.up], MAX_SPEED, "finite, |up| <= 1000 blocks/s")?;
        check3("walker.pos", &self.pos, MAX_COORD, "finite, each |coordinate| <= 1e9")?;
        check3("walker.vel", &self.vel, MAX_SPEED, "finite, each |component| <= 1000 blocks/s")?;

        let dt = dt.min(MAX_DT);
        let body = Body::new(p);
        let mut rep = StepReport::default();
        let was_on_ground = self.on_ground;
        self.vel[0] = input.velocity[0];
        self.vel[2] = input.velocity[1];
        let g = p.gravity;
        let mf = p.max_fall_speed;
        if p.fly {
            self.vel[1] = input.up;
        } else {
            if input.jump && self.on_ground {
                self.vel[1] = p.jump_speed;
                self.on_ground = false;
            }
            self.vel[1] = self.vel[1].max(-mf);
        }
        if dt == 0.0 {
            rep.landed = !was_on_ground && self.on_ground;
            return Ok(rep);
        }

        let vy = self.vel[1].abs();
        let vy_bound = if p.fly { vy } else { (vy + g * dt).min(vy.max(mf)) };
        let fastest = self.vel[0].abs().max(self.vel[2].abs()).max(vy_bound);
        let n = ((fastest * dt / MAX_SUBSTEP_MOVE).ceil() as u32).clamp(1, MAX_SUBSTEPS);
        let h = dt / n as f64;
        rep.substeps = n;

        for _ in 0..n {
            // Vertical: exact motion under constant gravity, capped at the fall speed.
            let v = self.vel[1];
            let (dy, v1) = if p.fly || g == 0.0 {
                (v * h, v)
            } else if v <= -mf {
                (-mf * h, -mf)
            } else {
                let t1 = (v + mf) / g;
                if t1 >= h {
                    (v * h - 0.5 * g * h * h, (v - g * h).max(-mf))
                } else {
                    (v * t1 - 0.5 * g * t1 * t1 - mf * (h - t1), -mf)
                }
            };
            self.vel[1] = v1;
            let hit = sweep(&body, &mut self.pos, 1, dy, &solid);
            if hit {
                self.vel[1] = 0.0;
                rep.blocked[1] = true;
            }
            if dy < 0.0 {
                self.on_ground = hit;
            } else if dy > 0.0 {
                self.on_ground = false;
            }

            // Horizontal: x then z, each with step-up.
            for a in [0, 2] {
                let d = self.vel[a] * h;
                let before = self.pos;
                if sweep(&body, &mut self.pos, a, d, &solid) {
                    let can_step = !p.fly && self.on_ground && p.step_height > 0.0;
                    if can_step && step_up(&body, p.step_height, &before, &mut self.pos, a, d, &solid) {
                        rep.stepped_up = true;
                    } else {
                        rep.blocked[a] = true;
                    }
                }
            }
        }
        rep.landed = !was_on_ground && self.on_ground;
        Ok(rep)
    }
}

/// A free standing position near `start` for spawning a walker, or `None`.
///
/// Rule. Columns are visited in rings of Chebyshev radius `r = 0, 1, …, max_search` around
/// `start`'s column, each ring in order of `(dx² + dz², dx, dz)`; the centre column uses
/// `start`'s own x and z, the others the column centre `(floor(start.x) + dx + 0.5,
/// floor(start.z) + dz + 0.5)`. In a column the levels `start.y + k`, `k = 0, 1, …, max_search`,
/// are tried upward; at the first level where the box is free, the box is dropped (a swept move)
/// by at most `max_search` blocks: if it lands, the landing spot is the answer (feet on a
/// block's integer top, box free). If it does not, higher levels of the column are tried.
/// So a start inside rock comes out on the rock's top (or a cave's floor) in its column when
/// there is one within `max_search` blocks above; a start in the air drops to the ground below.
///
/// Cost: at most `(2·max_search + 1)²` columns of `max_search + 1` box tests and a few drops.
/// Errors: invalid `p`, `start` not finite or beyond [`MAX_COORD`], `max_search` outside
/// `[1, 256]`.
pub fn settle(
    p: &WalkerParams,
    start: [f64; 3],
    solid: impl Fn(i32, i32, i32) -> bool,
    max_search: i32,
) -> Result<Option<[f64; 3]>> {
    p.validate()?;
    check3("start", &start, MAX_COORD, "finite, each |coordinate| <= 1e9")?;
    if !(1..=MAX_SETTLE_SEARCH).contains(&max_search) {
        return Err(VoxelError::Param { name: "max_search", value: max_search.to_string(), allowed: "in [1, 256]" });
    }
    let body = Body::new(p);
    let (cx, cz) = (start[0].floor(), start[2].floor());
    let mut ring: Vec<(i32, i32)> = Vec::new();
    for r in 0..=max_search {
        ring.clear();
        for dx in -r..=r {
            for dz in -r..=r {
                if dx.abs().max(dz.abs()) == r {
                    ring.push((dx, dz));
                }
            }
        }
        ring.sort_by_key(|&(dx, dz)| (dx * dx + dz * dz, dx, dz));
        for &(dx, dz) in &ring {
            let (x, z) =
                if r == 0 { (start[0], start[2]) } else { (cx + f64::from(dx) + 0.5, cz + f64::from(dz) + 0.5) };
            if let Some(y) = settle_column(&body, x, start[1], z, max_search, &solid) {
                return Ok(Some([x, y, z]));
            }
        }
    }
    Ok(None)
}

/// The landing height in one column of [`settle`], or `None`.
fn settle_column<F: Fn(i32, i32, i32) -> bool>(
    body: &Body,
    x: f64,
    y0: f64,
    z: f64,
    max_search: i32,
    solid: &F,
) -> Option<f64> {
    // Free levels y and y + 1 make the box free at every height between (on each axis the cells
    // covered at a height in [y, y + 1] lie in [floor(y), ceil(y + h)], the union of the two
    // levels' ranges), so a free level right above a free level that found no ground is a part
    // of that level's drop and finds none either: it is skipped.
    let mut prev_free_no_ground = false;
    for k in 0..=max_search {
        let pos = [x, y0 + f64::from(k), z];
        if !body.is_free(&pos, solid) {
            prev_free_no_ground = false;
            continue;
        }
        if prev_free_no_ground {
            continue;
        }
        let mut q = pos;
        if sweep(body, &mut q, 1, -f64::from(max_search), solid) {
            return Some(q[1]);
        }
        prev_free_no_ground = true;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use bozkir_core::hash::hash3_i32;
    use bozkir_core::rng::Rng;

    /// Brute force, independent of the module's range arithmetic: every block within a generous
    /// margin is tested for open-interval overlap with the box. Returns the first overlapping
    /// solid block.
    fn overlap_brute(p: &WalkerParams, pos: [f64; 3], solid: &impl Fn(i32, i32, i32) -> bool) -> Option<[i32; 3]> {
        let lo = [pos[0] - p.half_width, pos[1], pos[2] - p.half_width];
        let hi = [pos[0] + p.half_width, pos[1] + p.height, pos[2] + p.half_width];
        let r = |a: usize| (lo[a] as i64 - 2)..=(hi[a] as i64 + 2);
        for x in r(0) {
            for y in r(1) {
                for z in r(2) {
                    let c = [x, y, z];
                    let meets = (0..3).all(|a| (c[a] as f64) < hi[a] && ((c[a] + 1) as f64) > lo[a]);
                    if meets && solid(x as i32, y as i32, z as i32) {
                        return Some([x as i32, y as i32, z as i32]);
                    }
                }
            }
        }
        None
    }

    fn walk(v: [f64; 2]) -> WalkInput {
        WalkInput { velocity: v, ..Default::default() }
    }

    #[test]
    fn free_fall_lands_exactly_on_the_floor_top() {
        let p = WalkerParams::default();
        let solid = |_: i32, y: i32, _: i32| y == 3; // a floor whose top is y = 4
        for (start_y, dt) in [(10.37, 1.0 / 60.0), (57.1, 0.25), (4.9, 0.013), (200.0, 0.1)] {
            let mut w = Walker::new([0.21, start_y, -7.77]);
            let mut landed = 0;
            for _ in 0..2000 {
                let rep = w.step(&p, WalkInput::default(), dt, solid).unwrap();
                landed += rep.landed as u32;
                assert!(w.pos[1] >= 4.0, "below the floor top: {:?}", w.pos);
            }
            assert_eq!(w.pos[1], 4.0, "start {start_y}, dt {dt}");
            assert!(w.on_ground);
            assert_eq!(w.vel[1], 0.0);
            assert_eq!(landed, 1, "landed reported once");
            assert_eq!((w.pos[0], w.pos[2]), (0.21, -7.77));
        }
    }

    #[test]
    fn fall_speed_is_capped_and_exact() {
        // With a low cap the fall reaches -max_fall_speed and then moves linearly.
        let p = WalkerParams { max_fall_speed: 5.0, ..Default::default() };
        let mut w = Walker::new([0.5, 100.0, 0.5]);
        w.step(&p, WalkInput::default(), 0.2, |_, _, _| false).unwrap(); // reaches -5 after 0.2 s
        let y1 = 100.0 - 0.5 * 25.0 * 0.04;
        assert!((w.pos[1] - y1).abs() < 1e-12, "{}", w.pos[1]);
        assert_eq!(w.vel[1], -5.0);
        w.step(&p, WalkInput::default(), 0.25, |_, _, _| false).unwrap();
        assert!((w.pos[1] - (y1 - 1.25)).abs() < 1e-12);
    }

    #[test]
    fn walking_into_a_two_high_wall_never_passes_it() {
        let p = WalkerParams::default();
        // floor below y = 0; a wall at x = 5, 2 blocks high (y = 0, 1)
        let solid = |x: i32, y: i32, _: i32| y < 0 || (x == 5 && y <= 1);
        for (speed, dt) in [(4.0, 1.0 / 60.0), (13.0, 0.07), (1000.0, 0.25), (0.3, 0.25)] {
            let mut w = Walker::new([0.5, 0.0, 0.5]);
            w.on_ground = true;
            let mut blocked = false;
            for _ in 0..400 {
                let rep = w.step(&p, walk([speed, 0.0]), dt, solid).unwrap();
                blocked |= rep.blocked[0];
                assert!(!rep.stepped_up);
                assert!(w.pos[0] + p.half_width <= 5.0, "passed the wall: {:?}", w.pos);
                assert_eq!(overlap_brute(&p, w.pos, &solid), None);
                assert_eq!(w.pos[1], 0.0);
            }
            assert!(blocked);
            assert!(5.0 - (w.pos[0] + p.half_width) < 1e-12, "stops on the face: {:?}", w.pos);
        }
    }

    #[test]
    fn sliding_along_a_wall_keeps_the_free_axis() {
        let p = WalkerParams::default();
        let solid = |x: i32, y: i32, _: i32| y < 0 || x == 3;
        let mut w = Walker::new([2.0, 0.0, 0.5]);
        for _ in 0..60 {
            let rep = w.step(&p, walk([3.0, 3.0]), 1.0 / 60.0, solid).unwrap();
            assert_eq!(overlap_brute(&p, w.pos, &solid), None);
            assert!(!rep.blocked[2]);
        }
        assert!(3.0 - (w.pos[0] + p.half_width) < 1e-12);
        assert!((w.pos[2] - 3.5).abs() < 1e-9, "z moved freely: {}", w.pos[2]);
    }

    #[test]
    fn one_block_ledge_is_stepped_up_two_blocks_are_not() {
        let p = WalkerParams::default();
        let one = |x: i32, y: i32, _: i32| y < 0 || (x >= 5 && y == 0);
        let two = |x: i32, y: i32, _: i32| y < 0 || (x >= 5 && y <= 1);
        // ledge with a ceiling over it too low to stand under (top at 1, ceiling at 2.5..)
        let low_roof = |x: i32, y: i32, _: i32| y < 0 || (x >= 5 && y == 0) || (x >= 5 && y == 2);
        for dt in [1.0 / 60.0, 0.1, 0.25] {
            let mut w = Walker::new([0.5, 0.0, 0.5]);
            let mut stepped = false;
            for _ in 0..(3.0 / dt) as usize {
                let rep = w.step(&p, walk([4.0, 0.0]), dt, one).unwrap();
                stepped |= rep.stepped_up;
                assert_eq!(overlap_brute(&p, w.pos, &one), None);
            }
            assert!(stepped, "dt {dt}");
            assert_eq!(w.pos[1], 1.0);
            assert!(w.pos[0] > 6.0 && w.on_ground);

            for world in [&two as &dyn Fn(i32, i32, i32) -> bool, &low_roof] {
                let mut w = Walker::new([0.5, 0.0, 0.5]);
                for _ in 0..(3.0 / dt) as usize {
                    let rep = w.step(&p, walk([4.0, 0.0]), dt, world).unwrap();
                    assert!(!rep.stepped_up);
                    assert_eq!(overlap_brute(&p, w.pos, &world), None);
                }
                assert_eq!(w.pos[1], 0.0);
                assert!(w.pos[0] + p.half_width <= 5.0);
            }
        }
        // step_height 0: no step-up even onto one block
        let p0 = WalkerParams { step_height: 0.0, ..p };
        let mut w = Walker::new([0.5, 0.0, 0.5]);
        for _ in 0..120 {
            w.step(&p0, walk([4.0, 0.0]), 1.0 / 60.0, one).unwrap();
        }
        assert_eq!(w.pos[1], 0.0);
        assert!(w.pos[0] + p.half_width <= 5.0);
        // and a jump gets onto it (apex 1.28 > 1)
        let mut jumped = false;
        for i in 0..120 {
            let input = WalkInput { velocity: [4.0, 0.0], jump: i == 0, up: 0.0 };
            jumped |= w.step(&p0, input, 1.0 / 60.0, one).unwrap().landed;
        }
        assert!(jumped && w.pos[1] == 1.0 && w.pos[0] > 5.0, "{:?}", w.pos);
    }

    #[test]
    fn thin_floor_and_wall_are_never_tunnelled() {
        for max_fall in [60.0, 1000.0] {
            let p = WalkerParams { max_fall_speed: max_fall, gravity: 1000.0, ..Default::default() };
            let floor = |_: i32, y: i32, _: i32| y == 0;
            let mut w = Walker::new([0.5, 300.0, 0.5]);
            w.vel[1] = -max_fall;
            for _ in 0..100 {
                w.step(&p, WalkInput::default(), 0.25, floor).unwrap();
                assert!(w.pos[1] >= 1.0, "tunnelled: {:?}", w.pos);
            }
            assert_eq!(w.pos[1], 1.0);
        }
        // a 1-block-thick wall at 1000 blocks/s, dt 0.25, both directions
        let p = WalkerParams { fly: true, ..Default::default() };
        let wall = |x: i32, _: i32, _: i32| x == 0;
        for (x0, v) in [(-100.0, 1000.0), (100.0, -1000.0)] {
            let mut w = Walker::new([x0, 0.0, 0.0]);
            for _ in 0..10 {
                w.step(&p, walk([v, 0.0]), 0.25, wall).unwrap();
                assert_eq!(overlap_brute(&p, w.pos, &wall), None);
            }
            if v > 0.0 {
                assert!(w.pos[0] + p.half_width <= 0.0 && w.pos[0] > -0.31);
            } else {
                assert!(w.pos[0] - p.half_width >= 1.0 && w.pos[0] < 1.31);
            }
        }
    }

    #[test]
    fn jump_height_matches_v_squared_over_2g() {
        for (v, g, dt) in [(8.0, 25.0, 1.0 / 60.0), (8.0, 25.0, 1.0 / 144.0), (12.0, 32.0, 1.0 / 30.0)] {
            let p = WalkerParams { jump_speed: v, gravity: g, height: 1.8, ..Default::default() };
            let solid = |_: i32, y: i32, _: i32| y < 0;
            let mut w = Walker::new([0.5, 0.0, 0.5]);
            w.on_ground = true;
            let mut top: f64 = 0.0;
            let mut airborne = 0;
            for i in 0..1000 {
                let input = WalkInput { jump: i == 0, ..Default::default() };
                w.step(&p, input, dt, solid).unwrap();
                top = top.max(w.pos[1]);
                airborne += !w.on_ground as u32;
            }
            let apex = v * v / (2.0 * g);
            // sampled maximum of an exact parabola: within g·(dt/2)²/2 below the apex
            assert!(top <= apex + 1e-9 && apex - top <= g * dt * dt / 8.0 + 1e-9, "top {top} apex {apex}");
            // time in the air ≈ 2v/g
            let t_air = airborne as f64 * dt;
            assert!((t_air - 2.0 * v / g).abs() <= dt + 1e-9, "t_air {t_air}");
            assert_eq!(w.pos[1], 0.0);
        }
        // a jump needs the ground
        let p = WalkerParams::default();
        let mut w = Walker::new([0.5, 10.0, 0.5]);
        w.step(&p, WalkInput { jump: true, ..Default::default() }, 0.01, |_, _, _| false).unwrap();
        assert!(w.vel[1] < 0.0);
    }

    #[test]
    fn fly_mode_ignores_gravity_and_collides_with_the_ceiling() {
        let p = WalkerParams { fly: true, ..Default::default() };
        let solid = |_: i32, y: i32, _: i32| !(0..10).contains(&y); // floor below 0, ceiling at 10
        let mut w = Walker::new([0.5, 4.25, 0.5]);
        for _ in 0..100 {
            w.step(&p, WalkInput { jump: true, ..Default::default() }, 1.0 / 60.0, solid).unwrap();
        }
        assert_eq!(w.pos[1], 4.25, "hovering");
        let mut hit = false;
        for _ in 0..100 {
            hit |= w.step(&p, WalkInput { up: 6.0, ..Default::default() }, 1.0 / 60.0, solid).unwrap().blocked[1];
            assert_eq!(overlap_brute(&p, w.pos, &solid), None);
        }
        assert!(hit);
        assert!(w.pos[1] + p.height <= 10.0 && 10.0 - (w.pos[1] + p.height) < 1e-12, "{:?}", w.pos);
        for _ in 0..200 {
            w.step(&p, WalkInput { up: -6.0, ..Default::default() }, 1.0 / 60.0, solid).unwrap();
        }
        assert_eq!(w.pos[1], 0.0);
        assert!(w.on_ground);
    }

    fn random_world(seed: u32, origin: [i32; 3]) -> impl Fn(i32, i32, i32) -> bool {
        move |x, y, z| {
            let (x, y, z) = (x.wrapping_sub(origin[0]), y.wrapping_sub(origin[1]), z.wrapping_sub(origin[2]));
            if !(-6..=12).contains(&y) {
                return true; // bedrock and a lid
            }
            // blobs: a block is solid with probability ~0.3, more near the floor
            let q = (hash3_i32(x, y, z, seed) >> 8) as f64 / (1u32 << 24) as f64;
            q < 0.22 + 0.05 * f64::from((-y).max(0))
        }
    }

    #[test]
    fn random_worlds_never_end_a_step_overlapping_solid() {
        let mut checked = 0u32;
        let mut events = [0u32; 5]; // blocked x, y (in the air), z; stepped up; landed
        for origin in [[0, 0, 0], [123_456_789, -7_654_321, 987_654_321], [-999_000_000, 5, 3]] {
            for seed in 0..24u32 {
                let mut rng = Rng::with_stream(seed, 11);
                let world = random_world(seed, origin);
                let base = WalkerParams {
                    half_width: rng.range(0.1, 0.6),
                    height: rng.range(0.7, 2.6),
                    gravity: rng.range(5.0, 60.0),
                    jump_speed: rng.range(0.0, 15.0),
                    step_height: rng.range(0.0, 1.5),
                    max_fall_speed: rng.range(5.0, 200.0),
                    ..Default::default()
                };
                let mut p =
                    WalkerParams { eye: base.height * 0.9, step_height: base.step_height.min(base.height), ..base };
                let start = [
                    origin[0] as f64 + rng.range(-4.0, 4.0),
                    origin[1] as f64 + rng.range(-5.0, 5.0),
                    origin[2] as f64 + rng.range(-4.0, 4.0),
                ];
                let Some(spawn) = settle(&p, start, &world, 16).unwrap() else { continue };
                assert_eq!(overlap_brute(&p, spawn, &world), None, "settle gave an overlapping spot");
                let mut w = Walker::new(spawn);
                for _ in 0..300 {
                    p.fly ^= rng.chance(0.1);
                    let speed = if rng.chance(0.05) { 300.0 } else { 9.0 };
                    let input = WalkInput {
                        velocity: [rng.range(-speed, speed), rng.range(-speed, speed)],
                        up: rng.range(-10.0, 10.0),
                        jump: rng.chance(0.2),
                    };
                    let dt = if rng.chance(0.1) { 0.25 } else { rng.range(0.0, 0.3) };
                    let before = w;
                    let rep = w.step(&p, input, dt, &world).unwrap();
                    events[0] += rep.blocked[0] as u32;
                    events[1] += (rep.blocked[1] && !w.on_ground) as u32;
                    events[2] += rep.blocked[2] as u32;
                    events[3] += rep.stepped_up as u32;
                    events[4] += rep.landed as u32;
                    if let Some(b) = overlap_brute(&p, w.pos, &world) {
                        panic!("overlap with {b:?}: {before:?} -> {w:?}, {input:?}, dt {dt}, {p:?}");
                    }
                    // no step moves further than its speeds allow (plus a step-up)
                    let dtc = dt.min(MAX_DT);
                    for a in [0, 2] {
                        assert!((w.pos[a] - before.pos[a]).abs() <= speed * dtc + 1e-9);
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked} steps checked");
        // collisions of every kind happened many times
        assert!(events.iter().all(|&e| e > 100), "{events:?}");
    }

    /// The rule of [`settle`] written out by brute force: the same column order, and in a column
    /// the first free level whose straight drop (every cell the box passes through empty) meets
    /// a solid block under its footprint within `max_search` blocks.
    fn settle_brute(
        p: &WalkerParams,
        start: [f64; 3],
        solid: &impl Fn(i32, i32, i32) -> bool,
        m: i32,
    ) -> Option<[f64; 3]> {
        let mut cols = Vec::new();
        for dx in -m..=m {
            for dz in -m..=m {
                cols.push((dx.abs().max(dz.abs()), dx * dx + dz * dz, dx, dz));
            }
        }
        cols.sort();
        for (r, _, dx, dz) in cols {
            let (x, z) = if r == 0 {
                (start[0], start[2])
            } else {
                (start[0].floor() + f64::from(dx) + 0.5, start[2].floor() + f64::from(dz) + 0.5)
            };
            let xs = (x - p.half_width).floor() as i32..=(x + p.half_width).ceil() as i32 - 1;
            let zs = (z - p.half_width).floor() as i32..=(z + p.half_width).ceil() as i32 - 1;
            let any = |y0: i32, y1: i32| (y0..=y1).any(|y| xs.clone().any(|xx| zs.clone().any(|zz| solid(xx, y, zz))));
            for k in 0..=m {
                let y = start[1] + f64::from(k);
                if overlap_brute(p, [x, y, z], solid).is_some() {
                    continue;
                }
                let top = (y + p.height).ceil() as i32 - 1;
                let lowest = (y - f64::from(m)).floor() as i32 + 1;
                let mut t = y.floor() as i32;
                // the landing top t: the box free over [t, y] and a solid block at layer t - 1
                while t >= lowest && !any(t, top) {
                    if any(t - 1, t - 1) {
                        return Some([x, f64::from(t), z]);
                    }
                    t -= 1;
                }
            }
        }
        None
    }

    #[test]
    fn settle_matches_its_rule_by_brute_force() {
        let mut found = 0;
        for seed in 0..60u32 {
            let mut rng = Rng::with_stream(seed, 5);
            let world = random_world(seed, [0, 0, 0]);
            let sparse = |x: i32, y: i32, z: i32| y < -30 || (y < 14 && hash3_i32(x, y, z, seed).is_multiple_of(23));
            let h = if seed % 2 == 0 { rng.range(0.5, 1.0) } else { rng.range(1.0, 2.5) };
            let p = WalkerParams {
                half_width: rng.range(0.1, 0.7),
                height: h,
                eye: 0.0,
                step_height: 0.0,
                ..Default::default()
            };
            let start = [rng.range(-5.0, 5.0), rng.range(-10.0, 15.0), rng.range(-5.0, 5.0)];
            let m = rng.range_u32(1, 7) as i32;
            for w in [&world as &dyn Fn(i32, i32, i32) -> bool, &sparse] {
                let got = settle(&p, start, w, m).unwrap();
                assert_eq!(got, settle_brute(&p, start, &w, m), "seed {seed} {p:?} {start:?} m {m}");
                found += got.is_some() as u32;
            }
        }
        assert!(found > 40, "{found}");
    }

    #[test]
    fn deterministic_bits() {
        let run = || {
            let world = random_world(7, [3, 0, -2]);
            let p = WalkerParams::default();
            let mut rng = Rng::new(99);
            let mut w = Walker::new(settle(&p, [0.3, 0.0, 0.7], &world, 16).unwrap().unwrap());
            let mut trace = Vec::new();
            for _ in 0..500 {
                let input = WalkInput {
                    velocity: [rng.range(-6.0, 6.0), rng.range(-6.0, 6.0)],
                    up: 0.0,
                    jump: rng.chance(0.1),
                };
                let rep = w.step(&p, input, rng.range(0.0, 0.1), &world).unwrap();
                trace.extend(w.pos.iter().chain(&w.vel).map(|v| v.to_bits()));
                trace.push(u64::from(rep.substeps) | (u64::from(rep.stepped_up) << 40) | (u64::from(rep.landed) << 41));
            }
            trace
        };
        let a = run();
        assert_eq!(a, run());
        // the walk went somewhere
        assert!(a.chunks(7).map(|c| c[0]).collect::<std::collections::BTreeSet<_>>().len() > 100);
    }

    #[test]
    fn settle_inside_rock_in_a_cave_and_nowhere() {
        let p = WalkerParams::default();
        // rock below 20
        let rock = |_: i32, y: i32, _: i32| y < 20;
        assert_eq!(settle(&p, [5.25, 3.2, -5.5], rock, 32).unwrap(), Some([5.25, 20.0, -5.5]));
        // in the air above it: dropped to the ground
        assert_eq!(settle(&p, [5.25, 27.9, -5.5], rock, 8).unwrap(), Some([5.25, 20.0, -5.5]));
        // too far above the ground: nothing within the drop
        assert_eq!(settle(&p, [5.25, 40.0, -5.5], rock, 8).unwrap(), None);
        // surface out of reach above: all solid
        assert_eq!(settle(&p, [5.25, 3.2, -5.5], rock, 16).unwrap(), None);
        assert_eq!(settle(&p, [0.0, 0.0, 0.0], |_, _, _| true, 10).unwrap(), None);
        // a cave pocket x, z in 10..=13, y in 5..=7 inside solid rock
        let cave = |x: i32, y: i32, z: i32| !((10..=13).contains(&x) && (5..=7).contains(&y) && (10..=13).contains(&z));
        let s = settle(&p, [4.5, 6.0, 4.5], cave, 8).unwrap().unwrap();
        assert_eq!(s, [10.5, 5.0, 10.5]);
        assert_eq!(overlap_brute(&p, s, &cave), None);
        assert!(cave(10, 4, 10), "ground below");
        // a spot that is free and standing is returned unchanged
        assert_eq!(settle(&p, [11.7, 5.0, 12.2], cave, 4).unwrap(), Some([11.7, 5.0, 12.2]));
        // and the walker stays put there
        let mut w = Walker::new(s);
        let rep = w.step(&p, WalkInput::default(), 0.1, cave).unwrap();
        assert!(rep.landed && w.pos == s);
    }

    #[test]
    fn bad_values_are_refused_and_leave_the_walker_unchanged() {
        let ok = WalkerParams::default();
        assert!(ok.validate().is_ok());
        let cases: Vec<(&str, WalkerParams)> = vec![
            ("half_width", WalkerParams { half_width: f64::NAN, ..ok }),
            ("half_width", WalkerParams { half_width: 0.0, ..ok }),
            ("height", WalkerParams { height: -1.0, ..ok }),
            ("height", WalkerParams { height: f64::INFINITY, ..ok }),
            ("eye", WalkerParams { eye: 2.0, ..ok }),
            ("gravity", WalkerParams { gravity: f64::NAN, ..ok }),
            ("gravity", WalkerParams { gravity: 1e9, ..ok }),
            ("jump_speed", WalkerParams { jump_speed: -8.0, ..ok }),
            ("step_height", WalkerParams { step_height: f64::NAN, ..ok }),
            ("step_height", WalkerParams { step_height: 3.0, ..ok }),
            ("max_fall_speed", WalkerParams { max_fall_speed: 0.0, ..ok }),
        ];
        let air = |_: i32, _: i32, _: i32| false;
        let w0 = Walker { pos: [1.5, 2.5, 3.5], vel: [1.0, -2.0, 3.0], on_ground: false };
        for (name, p) in cases {
            match p.validate() {
                Err(VoxelError::Param { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}: {other:?}"),
            }
            let mut w = w0;
            assert!(w.step(&p, WalkInput::default(), 0.1, air).is_err());
            assert_eq!(w, w0);
            assert!(settle(&p, [0.0; 3], air, 4).is_err());
        }
        let bad_inputs = [
            ("input.velocity", WalkInput { velocity: [f64::NAN, 0.0], ..Default::default() }, 0.1),
            ("input.velocity", WalkInput { velocity: [0.0, 1e6], ..Default::default() }, 0.1),
            ("input.up", WalkInput { up: f64::NEG_INFINITY, ..Default::default() }, 0.1),
            ("dt", WalkInput::default(), f64::NAN),
            ("dt", WalkInput::default(), -0.01),
            ("dt", WalkInput::default(), f64::INFINITY),
        ];
        for (name, input, dt) in bad_inputs {
            let mut w = w0;
            match w.step(&ok, input, dt, air) {
                Err(VoxelError::Param { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}: {other:?}"),
            }
            assert_eq!(w, w0);
        }
        for (name, w) in [
            ("walker.pos", Walker { pos: [f64::NAN, 0.0, 0.0], ..w0 }),
            ("walker.pos", Walker { pos: [0.0, 2e9, 0.0], ..w0 }),
            ("walker.vel", Walker { vel: [0.0, f64::NAN, 0.0], ..w0 }),
        ] {
            let mut w1 = w;
            match w1.step(&ok, WalkInput::default(), 0.1, air) {
                Err(VoxelError::Param { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}: {other:?}"),
            }
            assert_eq!(w1.pos.map(f64::to_bits), w.pos.map(f64::to_bits));
        }
        for (start, m, name) in
            [([f64::NAN, 0.0, 0.0], 4, "start"), ([0.0; 3], 0, "max_search"), ([0.0; 3], 257, "max_search")]
        {
            match settle(&ok, start, air, m) {
                Err(VoxelError::Param { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}: {other:?}"),
            }
        }
        // dt above the cap is the cap; dt 0 does nothing
        let mut a = w0;
        let mut b = w0;
        a.step(&ok, WalkInput::default(), 10.0, air).unwrap();
        b.step(&ok, WalkInput::default(), MAX_DT, air).unwrap();
        assert_eq!(a, b);
        let mut c = w0;
        let rep = c.step(&ok, walk([1.0, 1.0]), 0.0, air).unwrap();
        assert_eq!((c.pos, rep.substeps), (w0.pos, 0));
    }

    #[test]
    fn one_sweep_crosses_many_layers_and_stops_at_the_first_solid() {
        // The swept move itself (without substeps) checks every layer it enters.
        let p = WalkerParams::default();
        let body = Body::new(&p);
        let wall = |x: i32, _: i32, _: i32| x == 7 || x == 9;
        let mut pos = [0.5, 0.0, 0.5];
        assert!(sweep(&body, &mut pos, 0, 30.0, &wall));
        assert!(pos[0] + 0.3 <= 7.0 && pos[0] > 6.69, "{pos:?}");
        let mut pos = [20.5, 0.0, 0.5];
        assert!(sweep(&body, &mut pos, 0, -30.0, &wall));
        assert!(pos[0] - 0.3 >= 10.0 && pos[0] < 10.31, "{pos:?}");
        let floor = |_: i32, y: i32, _: i32| y == -40;
        let mut pos = [0.5, 0.0, 0.5];
        assert!(sweep(&body, &mut pos, 1, -100.0, &floor));
        assert_eq!(pos[1], -39.0);
        let mut pos = [0.5, -39.0, 0.5];
        assert!(!sweep(&body, &mut pos, 2, -50.0, &floor));
        assert_eq!(pos, [0.5, -39.0, -49.5]);
    }

    #[test]
    fn substeps_bound_the_move() {
        let p = WalkerParams::default();
        let mut w = Walker::new([0.5, 100.0, 0.5]);
        let rep = w.step(&p, walk([40.0, -3.0]), 0.25, |_, _, _| false).unwrap();
        // 40 blocks/s × 0.25 s = 10 blocks → 40 substeps of a quarter block
        assert_eq!(rep.substeps, 40);
        assert!((w.pos[0] - 10.5).abs() < 1e-12);
        assert!(overlaps_solid(&p, [0.5, 0.5, 0.5], |_, y, _| y == 1));
        assert!(!overlaps_solid(&p, [0.5, 0.0, 0.5], |_, y, _| y == -1 || y == 2));
        assert!(!overlaps_solid(&p, [0.7, 0.0, 0.5], |x, _, _| x == 1));
        assert!(overlaps_solid(&p, [0.71, 0.0, 0.5], |x, _, _| x == 1));
    }
}
