// Correctly rounded f64 division and square root from the device's own, and next_up
// (bozkir-gpu).
//
// Appended to the kernels that need them (droplets, thermal, stream_power, fill) when they are
// compiled:
// `SHADERS` in crates/gpu/src/lib.rs holds the composed sources; a browser concatenates the two
// files the same way. The including module defines `alias R = f64` and `fn mulr(a: R, b: R) -> R`
// (the product a·b rounded on its own, an fma with a zero the compiler cannot see).

// 2^-53 + 2^-105: a + a·NUDGE is the next f64 above a normal a > 0, a − a·NUDGE the one below
// (the step is more than half and less than one and a half of the ulp it moves by).
const NUDGE: f64 = 1.0 / 9007199254740992.0 + 1.0 / 40564819207303340847894502572032.0;

// The neighbour of the normal, non-zero, finite q towards +inf (up) or -inf.
fn nudge(q: R, up: bool) -> R {
    let a = abs(q);
    let s = mulr(a, NUDGE);
    let m = select(a - s, a + s, (q > 0.0) == up);
    return select(-m, m, q > 0.0);
}

// The next f64 above the finite x, as Rust's f64::next_up (zero and subnormals by adding the
// smallest subnormal, which the f64 units of the devices in use do not flush).
fn next_up(x: R) -> R {
    if (abs(x) < 2.2250738585072014e-308) { return x + 4.9406564584124654e-324; }
    return nudge(x, true);
}

// Veltkamp's split of a into a high half of 26 bits and the rest (a = hi + lo exactly):
// hi = c − (c − a). Written so, an optimiser that treats sums as associative may return a and
// a zero low half (Mesa's does that to such patterns elsewhere; docs/gpu.md); each difference is
// therefore an fma by a 1 the compiler cannot see (the product of two 1s rounded with the
// uniform zero), a different one for each use of c, which rounds it as the subtraction would.
fn split(a: R) -> vec2<R> {
    let c = mulr(134217729.0, a);
    let one = mulr(1.0, 1.0);
    let one_ = mulr(-1.0, -1.0);
    let hi = fma(c, one, -fma(c, one_, -a));
    return vec2<R>(hi, fma(a, one, -hi));
}

// a − q·b exactly, for q within a few ulp of a / b (so a − fl(q·b) is exact), by Dekker's
// product: the error of fl(q·b) from the split halves, every product rounded on its own. A
// fused `fma(-q, b, a)` would give it in one step, but a driver may compute `fma` as a multiply
// and an add: lavapipe does for f64 on some hosts (an AMD EPYC VM with Mesa 22.3.6, where the
// residual then picked the wrong neighbour of a correctly rounded quotient now and then).
fn residual(a: R, q: R, b: R) -> R {
    let p = mulr(q, b);
    let x = split(q);
    let y = split(b);
    let e = ((mulr(x.x, y.x) - p) + mulr(x.x, y.y) + mulr(x.y, y.x)) + mulr(x.y, y.y);
    return (a - p) - e;
}

// a / b correctly rounded (the device's quotient, moved one ulp when the residual says so).
fn div_fix(a: R, b: R, q: R) -> R {
    let r = residual(a, q, b);
    if (r == 0.0) { return q; }
    let q2 = nudge(q, (r > 0.0) == (b > 0.0));
    let r2 = residual(a, q2, b);
    return select(q, q2, abs(r2) < abs(r));
}

// a / b correctly rounded from the device's quotient (two corrections: within 2 ulp suffices).
fn div_rn(a: R, b: R) -> R {
    let q = a / b;
    if (q == 0.0 || !(abs(q) < 1.7976931348623157e308)) { return q; }
    return div_fix(a, b, div_fix(a, b, q));
}

// sqrt(a) correctly rounded.
fn sqrt_fix(a: R, s: R) -> R {
    let r = residual(a, s, s);
    if (r == 0.0) { return s; }
    let s2 = nudge(s, r > 0.0);
    let r2 = residual(a, s2, s2);
    return select(s, s2, abs(r2) < abs(r));
}

fn sqrt_rn(a: R) -> R {
    let s = sqrt(a);
    if (s == 0.0 || !(s < 1.7976931348623157e308)) { return s; }
    return sqrt_fix(a, sqrt_fix(a, s));
}
