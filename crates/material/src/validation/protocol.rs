//! The protocol: every grid scored against every truth, with caveats; the per-grid figure.

use super::{Site, Truth, ALPHA, OVER};
use crate::classify::{classify, ClassifyError, ClassifyOptions};
use crate::rule::{Rule, RuleError};
use crate::validate::{caveats, evaluate, plane_fit_r2, top_share, EvalOptions, Score};
use bozkir_core::Grid;

/// Why the protocol refused its settings or inputs. Messages name the option as the `bozkir
/// validate-rule` command spells it where one is at fault.
#[derive(Debug, thiserror::Error)]
pub enum ValidationError {
    /// A setting is out of range.
    #[error("{0}")]
    Setting(String),
    /// The rule cannot make a two-class decision.
    #[error("the rule needs two classes")]
    Rule(#[source] RuleError),
    /// The inputs cannot carry the requested grids.
    #[error("{0}")]
    Input(String),
    /// The rule's evaluation on one grid and truth failed.
    #[error("grid {n}, truth {truth}")]
    Evaluate {
        /// The grid.
        n: usize,
        /// The truth's name.
        truth: &'static str,
        /// Why.
        #[source]
        source: ClassifyError,
    },
    /// The rule's decision failed.
    #[error(transparent)]
    Classify(#[from] ClassifyError),
}

/// The protocol's options.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Grid sizes (cells per side, 4..=256) to score.
    pub grids: Vec<usize>,
    /// Reference colour of vegetation, r,g,b in 0..1 ([`super::SCRUB_RGB`] by default).
    pub veg_rgb: [f64; 3],
    /// Reference colour of bare ground ([`super::SAND_RGB`] by default).
    pub bare_rgb: [f64; 3],
    /// Height above the DTM (metres, ≥ 0) from which a surface counts as vegetation.
    pub veg_height: f64,
    /// The rule's "follows height" (0..1).
    pub altitude: f64,
    /// The rule's coherence (median radius, 0..=16 cells).
    pub coherence: usize,
    /// The rule's decisiveness (0.5..6).
    pub sharpness: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            grids: vec![16, 24, 32],
            veg_rgb: super::SCRUB_RGB,
            bare_rgb: super::SAND_RGB,
            veg_height: 0.25,
            altitude: 0.4,
            coherence: 2,
            sharpness: 2.0,
        }
    }
}

impl Settings {
    /// Refuse settings out of range, naming the option (checked in this order).
    pub fn check(&self) -> Result<(), ValidationError> {
        let bad = |m: String| Err(ValidationError::Setting(m));
        if self.grids.is_empty() {
            return bad("--grids: give at least one grid size".into());
        }
        if let Some(&g) = self.grids.iter().find(|&&g| !(4..=256).contains(&g)) {
            return bad(format!("--grids: {g} cells per side is outside 4..=256"));
        }
        if !self.veg_height.is_finite() || self.veg_height < 0.0 {
            return bad(format!("--veg-height must be a finite number ≥ 0, got {}", self.veg_height));
        }
        // The rule's ranges are ClassifyOptions'; the message names the option.
        let flag = |e: crate::ParamError| ValidationError::Setting(format!("--{e}"));
        ClassifyOptions::check_altitude(self.altitude).map_err(flag)?;
        ClassifyOptions::check_coherence(self.coherence).map_err(flag)?;
        ClassifyOptions::check_sharpness(self.sharpness).map_err(flag)?;
        if self.veg_rgb == self.bare_rgb {
            return bad("--veg-rgb and --bare-rgb are the same colour".into());
        }
        Ok(())
    }

    /// Refuse a rule that cannot make a two-class decision.
    pub fn check_rule(rule: &Rule) -> Result<(), ValidationError> {
        rule.positions_for(2).map(|_| ()).map_err(ValidationError::Rule)
    }
}

/// One truth's results on one grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// The truth.
    pub truth: Truth,
    /// Its share of vegetation (mean fraction).
    pub share: f64,
    /// `None` when the truth has no contrast (share 0 or 1).
    pub comparisons: Option<Vec<(String, Score)>>,
    /// The rule's decision for this share (class 0 per cell).
    pub decision: Option<Vec<bool>>,
}

/// One grid's results and notes.
#[derive(Debug, Clone, PartialEq)]
pub struct GridResult {
    /// Cells per side.
    pub n: usize,
    /// Per truth.
    pub scored: Vec<Scored>,
    /// Caveats of this grid.
    pub notes: Vec<String>,
}

/// The protocol's results.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    /// Share of the window's DTM height variance one plane explains.
    pub plane_r2: f64,
    /// Per grid, in the order of [`Settings::grids`].
    pub grids: Vec<GridResult>,
    /// Caveats over all grids.
    pub overall: Vec<String>,
}

/// Score the rule on every grid of `s` against every truth of `site` (see the module
/// documentation of [`crate::validation`]). `s` should have passed [`Settings::check`].
pub fn score(site: &Site, rule: &Rule, s: &Settings) -> Result<Validation, ValidationError> {
    let win = &site.window;
    let (_, _, dw, dh) = win.dtm_cells;
    let dtm_side = dw.min(dh);
    if let Some(&g) = s.grids.iter().find(|&&g| g > dtm_side) {
        return Err(ValidationError::Input(format!(
            "the window ({dw}×{dh} DTM cells, {:.0} m) is smaller than the grid {g}: each grid cell needs at least one DTM cell",
            win.side_m
        )));
    }
    let d = site.dtm();
    if let Some(i) = d.data().iter().position(|v| !v.is_finite()) {
        return Err(ValidationError::Input(format!(
            "the DTM window has no valid height at cell {} (NaN-only or holed window)",
            i
        )));
    }
    let plane_r2 = plane_fit_r2(d.data(), d.width(), d.height());
    let mut grids = Vec::new();
    let mut all_ps = Vec::new();
    for &n in &s.grids {
        let g = score_grid(site, rule, s, n, plane_r2)?;
        all_ps.extend(g.scored.iter().filter_map(|s| s.comparisons.as_ref()).flatten().map(|(_, s)| s.p));
        grids.push(g);
    }
    let overall = if all_ps.is_empty() {
        vec!["no truth had any contrast: nothing was scored".to_string()]
    } else {
        caveats(plane_r2, &[], &all_ps, ALPHA)
    };
    Ok(Validation { plane_r2, grids, overall })
}

/// One grid: heights, truths, the rule's scores and decisions, and the grid's notes.
fn score_grid(site: &Site, rule: &Rule, s: &Settings, n: usize, plane_r2: f64) -> Result<GridResult, ValidationError> {
    let win = &site.window;
    let z = site.heights(n * OVER);
    if let Some(i) = z.iter().position(|v| !v.is_finite()) {
        return Err(ValidationError::Input(format!("grid {n}: height sample {i} is not finite")));
    }
    let o = EvalOptions {
        spacing: win.side_m / n as f64,
        altitude: s.altitude,
        coherence: s.coherence,
        sharpness: s.sharpness,
    };
    let mut scored = Vec::new();
    for t in site.truths(n, &z, s.veg_rgb, s.bare_rgb, s.veg_height) {
        let share = t.frac.iter().sum::<f64>() / t.frac.len() as f64;
        let labels = top_share(&t.frac, share);
        let positive = labels.iter().filter(|&&b| b).count();
        if positive == 0 || positive == n * n {
            scored.push(Scored { truth: t, share, comparisons: None, decision: None });
            continue;
        }
        let res = evaluate(&z, n, &t.frac, rule, &o).map_err(|source| ValidationError::Evaluate {
            n,
            truth: t.name,
            source,
        })?;
        let d = classify(&z, n, None, rule, &o.classify_options(share))?;
        let decision: Vec<bool> = d.class.iter().map(|&c| c == 0).collect();
        scored.push(Scored { truth: t, share, comparisons: Some(res), decision: Some(decision) });
    }
    let notes = grid_notes(&scored, n, win.side_m / n as f64, plane_r2);
    Ok(GridResult { n, scored, notes })
}

/// The caveats of one grid, then which comparison the smallest p belongs to, the scale, and the
/// truths not scored or with empty cells.
fn grid_notes(scored: &[Scored], n: usize, cell_m: f64, plane_r2: f64) -> Vec<String> {
    let shares: Vec<(String, f64)> =
        scored.iter().filter(|s| s.comparisons.is_some()).map(|s| (s.truth.name.to_string(), s.share)).collect();
    let ps: Vec<f64> = scored.iter().filter_map(|s| s.comparisons.as_ref()).flatten().map(|(_, s)| s.p).collect();
    let mut notes = caveats(plane_r2, &shares, &ps, ALPHA);
    // Which comparison the smallest p belongs to: a flipped rule or a single cue beating
    // chance says something different from the rule beating it.
    let best = scored
        .iter()
        .filter_map(|s| s.comparisons.as_ref().map(|c| (s.truth.name, c)))
        .flat_map(|(t, c)| c.iter().map(move |(name, sc)| (t, name, sc)))
        .min_by(|a, b| a.2.p.total_cmp(&b.2.p).then(b.2.kappa.total_cmp(&a.2.kappa)));
    if let Some((t, name, sc)) = best {
        notes.push(format!("the smallest p ({:.4}) is {name:?} on truth {t:?} (κ {:.3})", sc.p, sc.kappa));
    }
    if cell_m > 10.0 {
        notes.push(format!(
            "grid cells are {cell_m:.0} m: the rule was made for tiles of about 0.6 m (the original's 15 m \
             plot on 24 tiles); at this scale its cues read valleys and ridges, not micro-relief"
        ));
    }
    for s in scored {
        if s.comparisons.is_none() {
            notes.push(format!(
                "truth {:?} has no contrast on this grid (share {:.3}): not scored",
                s.truth.name, s.share
            ));
        }
        if s.truth.empty > 0 {
            notes.push(format!(
                "truth {:?}: {} of {} cells had no sample and count as bare",
                s.truth.name,
                s.truth.empty,
                n * n
            ));
        }
    }
    notes
}

const FRAC_LO: [f64; 3] = [0.85, 0.78, 0.66];
const FRAC_HI: [f64; 3] = [0.20, 0.45, 0.18];

/// Figure of one grid: per scored truth a row `fraction | truth labels | rule decision`
/// (green = vegetation), `max(192 / n, 2)` pixels per cell.
pub fn figure(scored: &[Scored], n: usize) -> Grid<[u8; 3]> {
    let px = (192 / n).max(2);
    let gap = 4;
    let side = n * px;
    let rows: Vec<&Scored> = scored.iter().filter(|s| s.decision.is_some()).collect();
    let (w, h) = (3 * side + 4 * gap, rows.len().max(1) * (side + gap) + gap);
    let to8 = |c: [f64; 3]| c.map(|v| (v * 255.0).round().clamp(0.0, 255.0) as u8);
    let mix = |t: f64| to8([0, 1, 2].map(|k| FRAC_LO[k] + (FRAC_HI[k] - FRAC_LO[k]) * t));
    let labels: Vec<Vec<bool>> = rows.iter().map(|s| top_share(&s.truth.frac, s.share)).collect();
    Grid::from_fn(w, h, |x, y| {
        let (row, yy) = (y.saturating_sub(gap) / (side + gap), y.saturating_sub(gap) % (side + gap));
        if y < gap || yy >= side || row >= rows.len() {
            return [255, 255, 255];
        }
        let panel = x.saturating_sub(gap) / (side + gap);
        let xx = x.saturating_sub(gap) % (side + gap);
        if x < gap || xx >= side || panel >= 3 {
            return [255, 255, 255];
        }
        let i = (yy / px) * n + xx / px;
        let s = rows[row];
        match panel {
            0 => mix(s.truth.frac[i]),
            1 => mix(if labels[row][i] { 1.0 } else { 0.0 }),
            _ => mix(if s.decision.as_ref().unwrap()[i] { 1.0 } else { 0.0 }),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked_in_order_naming_the_option() {
        assert!(Settings::default().check().is_ok());
        let e = |s: Settings| s.check().unwrap_err().to_string();
        assert_eq!(e(Settings { grids: vec![], ..Default::default() }), "--grids: give at least one grid size");
        assert!(e(Settings { grids: vec![16, 3], ..Default::default() }).contains("3 cells per side"));
        assert!(e(Settings { veg_height: -1.0, altitude: 2.0, ..Default::default() }).starts_with("--veg-height"));
        let same = Settings { bare_rgb: super::super::SCRUB_RGB, ..Default::default() };
        assert_eq!(e(same), "--veg-rgb and --bare-rgb are the same colour");
        assert!(Settings::check_rule(&Rule::builtin()).is_ok());
    }
}
