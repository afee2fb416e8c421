//! Scoring the rule against a truth map: the validation protocol of bozkir seed 000.
//!
//! The rule is given the true share (its threshold is a rank, so it always places exactly that
//! many cells); the truth labels are the top `round(share·n²)` cells by true fraction. Scores:
//! accuracy, **Cohen's κ** `(p_o − p_e)/(1 − p_e)`, IoU of class 0, Spearman's ρ (average ranks)
//! between the rule's lead and the true fraction. Chance is measured, not assumed: κ against
//! every circular shift `(dy, dx)` of the truth around the torus, except shifts with both
//! `min(d, n − d) < 2` (too close to the unshifted map); the report gives the null mean, its 95th
//! percentile and `p = (1 + #{null ≥ κ}) / (1 + #null)`.
//!
//! [`evaluate`] runs the rule, the rule without altitude, the rule flipped (the other class as
//! the collecting one) and single cues as two-class rules, so a reader sees whether the whole
//! rule beats its parts and chance. [`caveats`] prints what limits the reading: a surface that
//! one plane explains, truths that disagree on the share, and the smallest p against the number
//! of comparisons (Bonferroni).

use crate::classify::{classify, Balance, ClassifyError, ClassifyOptions};
use crate::cues;
use crate::rule::{HeightTerm, Position, Rule, Term};
use std::collections::BTreeMap;

/// Scores of one prediction against one truth.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// True share of class 0 (mean fraction).
    pub share: f64,
    pub accuracy: f64,
    pub kappa: f64,
    pub iou: f64,
    pub spearman: f64,
    pub null_mean: f64,
    pub null_p95: f64,
    pub p: f64,
    /// Number of shifts in the null.
    pub null_count: usize,
}

/// Top `round(share·N)` cells by value (index tie-break) are `true`.
pub fn top_share(values: &[f64], share: f64) -> Vec<bool> {
    let nn = values.len();
    let take = ((share * nn as f64 + 0.5).floor().max(0.0) as usize).min(nn);
    let mut o: Vec<usize> = (0..nn).collect();
    o.sort_by(|&a, &b| values[b].total_cmp(&values[a]).then(a.cmp(&b)));
    let mut out = vec![false; nn];
    for &i in &o[..take] {
        out[i] = true;
    }
    out
}

/// Cohen's κ of two binary labelings (1 when identical and not constant; 0 when `p_e = 1`).
pub fn kappa(pred: &[bool], truth: &[bool]) -> f64 {
    let n = pred.len() as f64;
    let (mut p1, mut t1, mut agree) = (0.0, 0.0, 0.0);
    for (&p, &t) in pred.iter().zip(truth) {
        if p {
            p1 += 1.0;
        }
        if t {
            t1 += 1.0;
        }
        if p == t {
            agree += 1.0;
        }
    }
    let po = agree / n;
    let pe = (p1 / n) * (t1 / n) + (1.0 - p1 / n) * (1.0 - t1 / n);
    if (1.0 - pe).abs() < 1e-15 {
        0.0
    } else {
        (po - pe) / (1.0 - pe)
    }
}

/// Intersection over union of the `true` cells (1 when both are empty).
pub fn iou(pred: &[bool], truth: &[bool]) -> f64 {
    let inter = pred.iter().zip(truth).filter(|(p, t)| **p && **t).count();
    let uni = pred.iter().zip(truth).filter(|(p, t)| **p || **t).count();
    if uni == 0 {
        1.0
    } else {
        inter as f64 / uni as f64
    }
}

/// Average ranks (ties share the mean of their positions), 0-based.
pub fn ranks(v: &[f64]) -> Vec<f64> {
    let r = cues::rank_unit(v);
    let scale = (v.len().max(2) - 1) as f64;
    r.iter().map(|x| x * scale).collect()
}

/// Pearson correlation (0 when either side is constant).
pub fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let ma = a.iter().sum::<f64>() / n;
    let mb = b.iter().sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    if saa <= 0.0 || sbb <= 0.0 {
        0.0
    } else {
        sab / (saa * sbb).sqrt()
    }
}

/// Spearman's ρ: Pearson correlation of average ranks.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    pearson(&ranks(a), &ranks(b))
}

/// Circular shift of an `n × n` labeling by `(dy, dx)`.
fn shifted(t: &[bool], n: usize, dy: usize, dx: usize) -> Vec<bool> {
    let mut out = vec![false; n * n];
    for r in 0..n {
        for c in 0..n {
            out[((r + dy) % n) * n + (c + dx) % n] = t[r * n + c];
        }
    }
    out
}

/// κ against every admissible torus shift of the truth.
pub fn torus_null(pred: &[bool], truth: &[bool], n: usize) -> Vec<f64> {
    let mut out = Vec::new();
    for dy in 0..n {
        for dx in 0..n {
            let near = |d: usize| d.min(n - d) < 2;
            if near(dy) && near(dx) {
                continue;
            }
            out.push(kappa(pred, &shifted(truth, n, dy, dx)));
        }
    }
    out
}

/// Score a prediction (`pred[i]` = cell is class 0) and its ranking `lead` against the true
/// fraction of class 0 per cell, on an `n × n` grid.
pub fn score(pred: &[bool], lead: &[f64], truth_frac: &[f64], n: usize) -> Score {
    let share = truth_frac.iter().sum::<f64>() / truth_frac.len() as f64;
    let truth = top_share(truth_frac, share);
    let accuracy = pred.iter().zip(&truth).filter(|(p, t)| p == t).count() as f64 / pred.len() as f64;
    let k = kappa(pred, &truth);
    let null = torus_null(pred, &truth, n);
    let null_mean = if null.is_empty() { 0.0 } else { null.iter().sum::<f64>() / null.len() as f64 };
    let null_p95 = cues::quantile(&null, 0.95);
    let ge = null.iter().filter(|&&v| v >= k).count();
    Score {
        share,
        accuracy,
        kappa: k,
        iou: iou(pred, &truth),
        spearman: spearman(lead, truth_frac),
        null_mean,
        null_p95,
        p: (1 + ge) as f64 / (1 + null.len()) as f64,
        null_count: null.len(),
    }
}

/// Share of the height variance a least-squares plane explains (r²; 0 for a constant field).
pub fn plane_fit_r2(z: &[f64], w: usize, h: usize) -> f64 {
    // Normal equations for z = a + b·x + c·y with centred coordinates (then they decouple).
    let n = (w * h) as f64;
    let (cx, cy) = ((w as f64 - 1.0) / 2.0, (h as f64 - 1.0) / 2.0);
    let mean = z.iter().sum::<f64>() / n;
    let (mut sxx, mut syy, mut sxy, mut sxz, mut syz, mut szz) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for r in 0..h {
        for c in 0..w {
            let (x, y, v) = (c as f64 - cx, r as f64 - cy, z[r * w + c] - mean);
            sxx += x * x;
            syy += y * y;
            sxy += x * y;
            sxz += x * v;
            syz += y * v;
            szz += v * v;
        }
    }
    if szz <= 0.0 {
        return 0.0;
    }
    let det = sxx * syy - sxy * sxy;
    let (b, c) =
        if det.abs() > 0.0 { ((sxz * syy - syz * sxy) / det, (syz * sxx - sxz * sxy) / det) } else { (0.0, 0.0) };
    let explained = b * sxz + c * syz;
    (explained / szz).clamp(0.0, 1.0)
}

/// A two-class rule from one cue: class 0 scores the cue, class 1 scores nothing, or for the
/// height cue (altitude 1) high ground, whose difference `(1 − e) − e` ranks cells as `1 − e`
/// does (a thresholded two-class decision depends only on the ranking of `w₀ − w₁`).
fn cue_rule(term: Option<Term>, height: HeightTerm) -> Rule {
    let mut positions = BTreeMap::new();
    let (t, w) = match term {
        Some(t) => (t, 1.0),
        None => (Term::Drive, 0.0),
    };
    positions.insert("cue".into(), Position { name: "cue".into(), terms: vec![(t, w)], height });
    positions.insert(
        "rest".into(),
        Position { name: "rest".into(), terms: vec![(Term::Drive, 0.0)], height: HeightTerm::High },
    );
    let mut classes = BTreeMap::new();
    classes.insert(2, vec!["cue".into(), "rest".into()]);
    Rule { positions, classes }
}

/// Options of [`evaluate`].
#[derive(Debug, Clone, PartialEq)]
pub struct EvalOptions {
    pub spacing: f64,
    pub altitude: f64,
    pub coherence: usize,
    pub sharpness: f64,
}

impl EvalOptions {
    /// The two-class decision these options make at a given share of class 0.
    pub fn classify_options(&self, share: f64) -> ClassifyOptions {
        ClassifyOptions {
            classes: 2,
            spacing: self.spacing,
            radius: None,
            sharpness: self.sharpness,
            altitude: self.altitude,
            coherence: self.coherence,
            balance: Balance::Share(share),
        }
    }
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions { spacing: 1.0, altitude: 0.4, coherence: 2, sharpness: 2.0 }
    }
}

/// Run the rule and its comparisons on heights sampled on an `(n·over)²` grid against the true
/// fraction of the collecting class per cell. Returns `(name, score)` in a fixed order: `rule`,
/// `rule, no altitude`, `rule, flipped`, `low ground`, `drainage`, `hollows (low TPI)`,
/// `gentle slope`.
pub fn evaluate(
    z: &[f64],
    n: usize,
    truth_frac: &[f64],
    rule: &Rule,
    o: &EvalOptions,
) -> Result<Vec<(String, Score)>, ClassifyError> {
    if truth_frac.len() != n * n {
        return Err(ClassifyError::Input(format!("truth has {} cells, grid {}", truth_frac.len(), n * n)));
    }
    if truth_frac.iter().any(|v| !(v.is_finite() && (0.0..=1.0).contains(v))) {
        return Err(ClassifyError::Input("truth fractions must lie in 0..1".into()));
    }
    let share = truth_frac.iter().sum::<f64>() / truth_frac.len() as f64;
    let base = o.classify_options(share);
    let run = |rule: &Rule, opts: &ClassifyOptions, flip: bool| -> Result<Score, ClassifyError> {
        let d = classify(z, n, None, rule, opts)?;
        let (pred, lead): (Vec<bool>, Vec<f64>) = if flip {
            (d.class.iter().map(|&c| c == 1).collect(), d.lead.iter().map(|v| -v).collect())
        } else {
            (d.class.iter().map(|&c| c == 0).collect(), d.lead.clone())
        };
        Ok(score(&pred, &lead, truth_frac, n))
    };
    let mut out = Vec::new();
    out.push(("rule".to_string(), run(rule, &base, false)?));
    out.push(("rule, no altitude".to_string(), run(rule, &ClassifyOptions { altitude: 0.0, ..base.clone() }, false)?));
    out.push((
        "rule, flipped".to_string(),
        run(rule, &ClassifyOptions { balance: Balance::Share(1.0 - share), ..base.clone() }, true)?,
    ));
    let cues: [(&str, Option<Term>, HeightTerm, f64); 4] = [
        ("low ground", None, HeightTerm::Low, 1.0),
        ("drainage", Some(Term::Drive), HeightTerm::Low, 0.0),
        ("hollows (low TPI)", Some(Term::Hollow), HeightTerm::Low, 0.0),
        ("gentle slope", Some(Term::Flat), HeightTerm::Low, 0.0),
    ];
    for (name, term, height, alt) in cues {
        let r = cue_rule(term, height);
        out.push((name.to_string(), run(&r, &ClassifyOptions { altitude: alt, ..base.clone() }, false)?));
    }
    Ok(out)
}

/// The caveats a reader needs beside the scores: `plane_r2` (share of height variance one plane
/// explains), the shares of each truth used, and every p-value reported (`alpha` = 0.05).
pub fn caveats(plane_r2: f64, truth_shares: &[(String, f64)], ps: &[f64], alpha: f64) -> Vec<String> {
    let mut out = Vec::new();
    if plane_r2 > 0.8 {
        out.push(format!(
            "one plane explains {:.0} % of the height variance: the window is mostly a tilted plane, so \
             the landform cues carry little information",
            plane_r2 * 100.0
        ));
    }
    let shares: Vec<f64> = truth_shares.iter().map(|s| s.1).filter(|s| *s > 0.0).collect();
    if shares.len() >= 2 {
        let (lo, hi) = shares.iter().fold((f64::INFINITY, 0.0f64), |(a, b), &s| (a.min(s), b.max(s)));
        if hi > 2.0 * lo {
            let list: Vec<String> = truth_shares.iter().map(|(n, s)| format!("{n} {:.0} %", s * 100.0)).collect();
            out.push(format!(
                "the truths disagree on how much ground is covered ({}): they measure different things",
                list.join(", ")
            ));
        }
    }
    if !ps.is_empty() {
        let min = ps.iter().copied().fold(f64::INFINITY, f64::min);
        let m = ps.len();
        let bonf = alpha / m as f64;
        if min < alpha && min >= bonf {
            out.push(format!(
                "the smallest p ({min:.3}) is below {alpha} but not below {bonf:.4} = {alpha}/{m} comparisons \
                 (Bonferroni): not significant once the {m} comparisons are counted"
            ));
        } else if min >= alpha {
            out.push(format!("no comparison beats chance: the smallest p of {m} comparisons is {min:.3}"));
        } else {
            out.push(format!("the smallest p ({min:.4}) survives the Bonferroni bound {bonf:.4} for {m} comparisons"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_known_values() {
        let a = [true, true, false, false];
        assert_eq!(kappa(&a, &a), 1.0);
        let b = [false, false, true, true];
        assert_eq!(kappa(&a, &b), -1.0);
        // po = 0.5, pe = 0.5 → 0.
        assert_eq!(kappa(&a, &[true, false, true, false]), 0.0);
        assert_eq!(iou(&a, &[true, false, false, false]), 0.5);
    }

    #[test]
    fn spearman_is_rank_correlation() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [1.0, 4.0, 9.0, 16.0, 100.0];
        assert!((spearman(&a, &b) - 1.0).abs() < 1e-12);
        let c: Vec<f64> = b.iter().map(|v| -v).collect();
        assert!((spearman(&a, &c) + 1.0).abs() < 1e-12);
        assert_eq!(top_share(&[0.1, 0.9, 0.5, 0.9], 0.5), vec![false, true, false, true]);
    }

    #[test]
    fn torus_null_excludes_near_shifts_and_p_is_small_for_structure() {
        let n = 16;
        // A blob truth and the identical prediction: κ = 1, every shift scores lower.
        let frac: Vec<f64> = (0..n * n)
            .map(|i| {
                let (x, y) = ((i % n) as f64 - 5.0, (i / n) as f64 - 6.0);
                if x.hypot(y) < 4.0 {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let pred: Vec<bool> = frac.iter().map(|&v| v > 0.5).collect();
        let s = score(&pred, &frac, &frac, n);
        assert_eq!(s.kappa, 1.0);
        assert_eq!(s.null_count, n * n - 9);
        assert!(s.p < 0.01, "{}", s.p);
        assert!(s.null_p95 < 0.5);
    }

    #[test]
    fn plane_r2_for_plane_and_hills() {
        let (w, h) = (20, 15);
        let plane: Vec<f64> = (0..w * h).map(|i| 0.3 * (i % w) as f64 - 0.2 * (i / w) as f64).collect();
        assert!(plane_fit_r2(&plane, w, h) > 0.999);
        let hills: Vec<f64> = (0..w * h).map(|i| ((i % w) as f64 * 0.9).sin() * ((i / w) as f64 * 1.1).cos()).collect();
        assert!(plane_fit_r2(&hills, w, h) < 0.2);
    }

    #[test]
    fn caveats_fire_as_documented() {
        let c = caveats(0.99, &[("colour".into(), 0.18), ("height".into(), 0.03)], &[0.03, 0.5, 0.7, 0.9], 0.05);
        assert_eq!(c.len(), 3, "{c:?}");
        assert!(c[0].contains("plane"));
        assert!(c[1].contains("disagree"));
        assert!(c[2].contains("4 comparisons"));
        let quiet = caveats(0.1, &[("colour".into(), 0.2), ("height".into(), 0.25)], &[0.001], 0.05);
        assert_eq!(quiet.len(), 1);
        assert!(quiet[0].contains("survives"));
    }

    #[test]
    fn planted_low_ground_truth_is_found_and_unrelated_truth_is_not() {
        // A rolling surface; the truth is the lowest 30 % of cells (what "collected" should find).
        let n = 24;
        let over = 4;
        let m = n * over;
        let z: Vec<f64> = (0..m * m)
            .map(|i| {
                let (x, y) = ((i % m) as f64 / m as f64, (i / m) as f64 / m as f64);
                (x * 7.0).sin() * (y * 5.0).cos() + 0.6 * (x * 3.0 + y * 2.0).sin()
            })
            .collect();
        let elev = cues::downsample(&z, m, n, cues::Pool::Mean);
        let low = top_share(&elev.iter().map(|v| -v).collect::<Vec<_>>(), 0.3);
        let frac: Vec<f64> = low.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect();
        let rule = Rule::builtin();
        let res = evaluate(&z, n, &frac, &rule, &EvalOptions::default()).unwrap();
        let get = |name: &str| res.iter().find(|r| r.0 == name).unwrap().1.clone();
        let r = get("rule");
        assert!((r.share - 173.0 / 576.0).abs() < 1e-12, "round(0.3·576) = 173 cells");
        assert!(r.p < 0.05 && r.kappa > get("rule, flipped").kappa, "{r:?}");
        assert!(get("low ground").kappa > 0.8);
        // An unrelated truth (a hash pattern) is not found.
        let noise: Vec<f64> =
            (0..n * n).map(|i| if cues::tie_hash(i as u64 * 7 + 3) < 0.3 { 1.0 } else { 0.0 }).collect();
        let u = evaluate(&z, n, &noise, &rule, &EvalOptions::default()).unwrap();
        assert!(u[0].1.p > 0.01, "{:?}", u[0].1);
    }
}
