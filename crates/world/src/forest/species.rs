//! Tree species of a forest (seed 002's named extension: "several species, per-species depth,
//! radii, γ, crown shape"; pyworldgen 0.1.8 folds its species table into one broadleaf and leaves
//! this as an extension point).
//!
//! A species carries the graph knobs that differ between kinds of tree: the deepest split
//! (`max_branch_depth`), the terminal (twig) radius, the exponent γ of the radius law
//! `r_parentᵞ = Σ r_childᵞ`, and the crown shape, which decides where the terminals sit
//! ([`CrownShape`]).
//!
//! **Draw.** Site `i` takes species `k`, the first whose cumulative share exceeds
//! `u · Σ share`, where `u = hashf2(i, 0, seed + 4300)` of the world's [`Noise`]. The draw reads
//! no sequential stream: the ground half (sites, crowns, canopy) and every other tree's graph
//! are unchanged by the species list, and a tree's species depends only on (seed, its id, the
//! shares). With one species (the default) nothing is drawn.

use serde::{Deserialize, Serialize};

use crate::error::{param, Result};
use crate::random::Noise;

/// Seed offset of the species draw (no pyworldgen stream uses it).
pub const SPECIES_SEED_OFFSET: i64 = 4300;

/// Most species a forest may list.
pub const MAX_SPECIES: usize = 64;

/// Where a species puts its terminals (its leaf clusters) inside its owned cell.
///
/// `ρ` is a cell's horizontal distance from the top of the trunk divided by the largest such
/// distance in the crown (0 at the axis, 1 at the farthest owned cell).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CrownShape {
    /// pyworldgen's broadleaf: terminals drawn by border distance, hugging the canopy roof
    /// (0.15 m to `terminal_depth_jitter` below it).
    #[default]
    Round,
    /// A cone: as round, then lowered by `0.8·crown_depth·ρ`, so the crown slopes from a high
    /// centre to low sides.
    Conical,
    /// A column: the draw weights are multiplied by `(1 − ρ)² + 0.05`, pulling terminals to the
    /// axis, and each is lowered by `0.6·crown_depth·h`, `h` a hash of (tree, terminal) in
    /// [0, 1), so leaves spread down a narrow column.
    Columnar,
}

/// One species.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Species {
    /// Name (free text). Default "broadleaf".
    pub name: String,
    /// Relative share of the sites, ≥ 0 (the shares need not sum to 1). Default 1.
    pub share: f64,
    /// Deepest split of the terminal set before terminals are attached (pyworldgen's
    /// `max_branch_depth`). Default 5.
    pub max_branch_depth: u32,
    /// Least terminal radius, metres (pyworldgen's `twig_radius`). Default 0.035.
    pub twig_radius: f64,
    /// Exponent γ of the radius law `r_parentᵞ = Σ r_childᵞ` (pyworldgen's `radius_gamma`).
    /// Default 2.05.
    pub radius_gamma: f64,
    /// Crown shape. Default round.
    pub crown: CrownShape,
}

impl Default for Species {
    fn default() -> Self {
        Self {
            name: "broadleaf".into(),
            share: 1.0,
            max_branch_depth: 5,
            twig_radius: 0.035,
            radius_gamma: 2.05,
            crown: CrownShape::Round,
        }
    }
}

impl Species {
    /// Finite positive radius and γ in [1, 8], depth ≤ 32, a finite share ≥ 0; errors name the
    /// species' index (`species[2].radius_gamma`).
    pub fn validate(&self, index: usize) -> Result<()> {
        self.check(&format!("species[{index}]."))
    }

    /// [`Species::validate`] with errors naming `prefix` + the field.
    pub(crate) fn check(&self, prefix: &str) -> Result<()> {
        let name = |f: &str| format!("{prefix}{f}");
        if !(self.share.is_finite() && self.share >= 0.0) {
            return Err(param(&name("share"), self.share, "must be a finite number ≥ 0"));
        }
        if !(self.twig_radius.is_finite() && self.twig_radius > 0.0) {
            return Err(param(&name("twig_radius"), self.twig_radius, "must be a finite number > 0"));
        }
        if !(self.radius_gamma.is_finite() && (1.0..=8.0).contains(&self.radius_gamma)) {
            return Err(param(&name("radius_gamma"), self.radius_gamma, "must be in [1, 8]"));
        }
        if self.max_branch_depth > 32 {
            return Err(param(&name("max_branch_depth"), self.max_branch_depth, "must be ≤ 32"));
        }
        Ok(())
    }
}

/// Species index of every site id in `0..n` (see the module doc).
pub(crate) fn draw_species(table: &[Species], n: usize, noise: &dyn Noise, seed: i64) -> Vec<usize> {
    if table.len() <= 1 {
        return vec![0; n];
    }
    let total: f64 = table.iter().map(|s| s.share).sum();
    (0..n)
        .map(|i| {
            let u = noise.hashf2(i as i64, 0, seed.wrapping_add(SPECIES_SEED_OFFSET)) * total;
            let mut acc = 0.0;
            for (k, s) in table.iter().enumerate() {
                acc += s.share;
                if u < acc {
                    return k;
                }
            }
            // Rounding at the top end: the last species with a positive share.
            table.iter().rposition(|s| s.share > 0.0).unwrap_or(0)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::Canonical;

    #[test]
    fn shares_are_followed_and_zero_shares_never_drawn() {
        let table = vec![
            Species { name: "a".into(), share: 3.0, ..Species::default() },
            Species { name: "b".into(), share: 0.0, ..Species::default() },
            Species { name: "c".into(), share: 1.0, ..Species::default() },
        ];
        let draws = draw_species(&table, 4000, &Canonical, 7);
        let count = |k| draws.iter().filter(|&&d| d == k).count() as f64;
        assert_eq!(count(1), 0.0);
        assert!((count(0) / 4000.0 - 0.75).abs() < 0.04, "{}", count(0));
        assert!((count(2) / 4000.0 - 0.25).abs() < 0.04, "{}", count(2));
        // A site's species does not depend on how many sites there are.
        assert_eq!(draw_species(&table, 10, &Canonical, 7), draws[..10]);
    }

    #[test]
    fn bad_species_named() {
        let e = Species { radius_gamma: 0.5, ..Species::default() }.validate(2).unwrap_err().to_string();
        assert!(e.contains("species[2].radius_gamma"), "{e}");
        let e = Species { twig_radius: f64::NAN, ..Species::default() }.validate(0).unwrap_err().to_string();
        assert!(e.contains("twig_radius"), "{e}");
    }
}
