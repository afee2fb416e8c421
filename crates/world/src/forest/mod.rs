//! `forest` (seed 002, pyworldgen 0.1.8's `biomes/forest.py`): tree sites drawn by dart throwing
//! against an ecological density, crowns as a power diagram (weighted Voronoi; Aurenhammer 1987)
//! with one Lloyd relaxation, the canopy roof over the owned cells, the distance to each crown's
//! border, and one branch graph per tree inside its own crown cell ([`graph`]), of a species
//! drawn per site ([`species`]); [`validate_forest`] checks the invariants; [`mesh`] turns the
//! graphs into triangle meshes (bark tubes and leaf clusters).
//!
//! * **Fields** of (x, y) by value-noise fBM: terrain height, moisture, fertility, density
//!   `clip(0.25 + 0.55·fertility + 0.20·moisture, 0, 1)`, and the canopy base (terrain + mean
//!   canopy height + undulation + roughness).
//! * **Sites**: from `draws(seed + 2001)`, a dart (x, y) is kept with probability density(x, y);
//!   then age ~ Beta(2.2, 1.8), height `16 + 14·(0.35 + 0.65·age)`, crown radius
//!   `clip(0.18·height·U(0.82, 1.18), min, max)`; refused when closer than
//!   `spacing_factor·min(r, r')` to an earlier site; its weight (competition) grows with age,
//!   height, fertility and moisture.
//! * **Ownership**: each cell goes to the site of least `|p − s|² − weight` (ties to the earlier
//!   site), optionally on domain-warped coordinates (`canopy_diffusion`); `border` is the gap
//!   between the two least power distances' square roots.
//! * **Canopy**: each crown's cells are lifted by 0.55 of the gap between the mean of terrain +
//!   tree height and the mean canopy base over them.
//! * **Graphs** ([`graph`]): root → trunk → branches → terminals per tree, every node and edge
//!   inside the tree's owned cells, radii under `r_parentᵞ = Σ r_childᵞ`.
//!
//! Grids are `ny × nx`, row `j` at y = (j + ½)·res (row 0 south), as pyworldgen stores them.
//! The ground half is bit-equal to pyworldgen's in the compatibility path; the species draw
//! reads its own hash stream, so it moves nothing of it. Deterministic on any thread count
//! (the graphs are built in parallel, one tree per task, collected in site order).

pub mod graph;
pub mod mesh;
pub mod species;
pub mod validate;

pub use graph::{BranchEdge, NodeKind, TreeGraph, TreeNode};
pub use mesh::{forest_mesh, graphs_mesh, tree_mesh, ForestMeshParams};
pub use species::{CrownShape, Species};
pub use validate::{inspect_forest, validate_forest, ForestReport};

use rayon::prelude::*;

use serde::{Deserialize, Serialize};

use crate::error::{param, Result, WorldError};
use crate::random::{for_compat, Draws, Noise};
use crate::roads::np::pairwise_sum;
use crate::{Compat, Seed};

/// Parameters of the forest's sites, crowns, canopy and tree graphs, by pyworldgen's names and
/// defaults, plus the species table (our extension).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ForestParams {
    /// (width, depth) in metres. Default (120, 120).
    pub domain_size: (f64, f64),
    /// Cell size in metres. Default 1.5.
    pub resolution: f64,
    /// Sites wanted. Default 90.
    pub target_tree_count: usize,
    /// Sites stay `spacing_factor·min(r, r')` apart. Default 0.62.
    pub spacing_factor: f64,
    /// Darts thrown at most. Default 6000.
    pub max_sampling_attempts: usize,
    /// Least crown radius, metres. Default 3.
    pub min_crown_radius: f64,
    /// Largest crown radius, metres. Default 8.5.
    pub max_crown_radius: f64,
    /// Terrain relief, metres. Default 5.
    pub terrain_height: f64,
    /// Terrain noise frequency. Default 0.018.
    pub terrain_scale: f64,
    /// Terrain octaves. Default 4.
    pub terrain_octaves: u32,
    /// Moisture noise frequency. Default 0.025.
    pub moisture_scale: f64,
    /// Fertility noise frequency. Default 0.018.
    pub fertility_scale: f64,
    /// Mean canopy height above the terrain, metres. Default 24.
    pub canopy_height_mean: f64,
    /// Canopy undulation amplitude. Default 7.
    pub canopy_height_variation: f64,
    /// Canopy undulation frequency. Default 0.020.
    pub canopy_undulation_scale: f64,
    /// Canopy roughness amplitude. Default 1.2.
    pub canopy_roughness: f64,
    /// Scale of the competition weight. Default 14.
    pub competition_weight_strength: f64,
    /// Lloyd relaxations of the sites. Default 1.
    pub lloyd_iterations: u32,
    /// Crown-boundary warp as a share of the mean crown radius (0: hard power diagram).
    /// Default 0.
    pub canopy_diffusion: f64,
    /// Crown-boundary warp frequency. Default 0.06.
    pub canopy_diffusion_scale: f64,
    /// Trunk radius of a tree of age 0.64, metres (scaled by `0.55 + 0.70·age`). Default 0.44.
    pub trunk_radius: f64,
    /// Depth of the crown below the roof, metres: the trunk top sits `0.65·crown_depth` under
    /// the crown's mean canopy height. Default 9.
    pub crown_depth: f64,
    /// Deepest split before terminals are attached (the default species'). Default 5.
    pub max_branch_depth: u32,
    /// A terminal set this small is attached directly. Default 4.
    pub leaf_cluster_size: usize,
    /// Terminals per square metre of crown. Default 0.04.
    pub terminal_density: f64,
    /// Least terminals per tree (fewer if the crown has fewer candidate cells). Default 10.
    pub terminal_min: usize,
    /// Most terminals per tree (≤ 100,000). Default 44.
    pub terminal_max: usize,
    /// Least terminal radius, metres (the default species'). Default 0.035.
    pub twig_radius: f64,
    /// γ of the radius law (the default species'), in [1, 8]. Default 2.05.
    pub radius_gamma: f64,
    /// Terminal candidates are the cells at least `max(cell_margin, terminal_boundary_margin)`
    /// metres (border distance) inside the crown. Default 0.75.
    pub cell_margin: f64,
    /// See `cell_margin`. Default 0.75.
    pub terminal_boundary_margin: f64,
    /// Terminals sit `U(0.15, terminal_depth_jitter)` metres under the roof. Default 1.8.
    pub terminal_depth_jitter: f64,
    /// Share of the way a branch steps toward its terminals' mean (before decay). Default 0.56.
    pub branch_step_fraction: f64,
    /// Hashed jitter of branch nodes, metres per axis (terminals: a fifth). Default 0.65.
    pub graph_jitter: f64,
    /// Lengthens the branch step by `0.75 + 0.25·apical_dominance`. Default 0.4.
    pub apical_dominance: f64,
    /// Branch step factor per level below the first. Default 0.72.
    pub branch_length_decay: f64,
    /// Graphs for the first this many sites only (`None`: all). Default `None`.
    pub max_trees_for_graphs: Option<usize>,
    /// Species table (at most 64); empty (the default) means one species, "broadleaf", with a
    /// round crown and the `max_branch_depth`, `twig_radius` and `radius_gamma` above:
    /// pyworldgen's single species.
    pub species: Vec<Species>,
}

impl Default for ForestParams {
    fn default() -> Self {
        Self {
            domain_size: (120.0, 120.0),
            resolution: 1.5,
            target_tree_count: 90,
            spacing_factor: 0.62,
            max_sampling_attempts: 6000,
            min_crown_radius: 3.0,
            max_crown_radius: 8.5,
            terrain_height: 5.0,
            terrain_scale: 0.018,
            terrain_octaves: 4,
            moisture_scale: 0.025,
            fertility_scale: 0.018,
            canopy_height_mean: 24.0,
            canopy_height_variation: 7.0,
            canopy_undulation_scale: 0.020,
            canopy_roughness: 1.2,
            competition_weight_strength: 14.0,
            lloyd_iterations: 1,
            canopy_diffusion: 0.0,
            canopy_diffusion_scale: 0.06,
            trunk_radius: 0.44,
            crown_depth: 9.0,
            max_branch_depth: 5,
            leaf_cluster_size: 4,
            terminal_density: 0.04,
            terminal_min: 10,
            terminal_max: 44,
            twig_radius: 0.035,
            radius_gamma: 2.05,
            cell_margin: 0.75,
            terminal_boundary_margin: 0.75,
            terminal_depth_jitter: 1.8,
            branch_step_fraction: 0.56,
            graph_jitter: 0.65,
            apical_dominance: 0.4,
            branch_length_decay: 0.72,
            max_trees_for_graphs: None,
            species: Vec::new(),
        }
    }
}

/// Most cells a forest grid may hold.
pub const MAX_CELLS: usize = 1 << 28;

impl ForestParams {
    /// Parameters from a JSON object of overrides, validated; unknown keys refused.
    pub fn from_json(value: &serde_json::Value) -> Result<Self> {
        let p: Self = serde_json::from_value(value.clone()).map_err(|e| WorldError::Invalid(format!("forest: {e}")))?;
        p.validate()?;
        Ok(p)
    }

    /// Finite numbers, a positive cell and domain, ordered crown radii, at most 1e6 sites and
    /// 1e8 darts, a grid under [`MAX_CELLS`], `terminal_min ≤ terminal_max ≤ 100,000`, valid
    /// species (at most [`species::MAX_SPECIES`], shares summing above 0).
    pub fn validate(&self) -> Result<()> {
        let nums = [
            ("domain_size", self.domain_size.0),
            ("domain_size", self.domain_size.1),
            ("resolution", self.resolution),
            ("spacing_factor", self.spacing_factor),
            ("min_crown_radius", self.min_crown_radius),
            ("max_crown_radius", self.max_crown_radius),
            ("terrain_height", self.terrain_height),
            ("terrain_scale", self.terrain_scale),
            ("moisture_scale", self.moisture_scale),
            ("fertility_scale", self.fertility_scale),
            ("canopy_height_mean", self.canopy_height_mean),
            ("canopy_height_variation", self.canopy_height_variation),
            ("canopy_undulation_scale", self.canopy_undulation_scale),
            ("canopy_roughness", self.canopy_roughness),
            ("competition_weight_strength", self.competition_weight_strength),
            ("canopy_diffusion", self.canopy_diffusion),
            ("canopy_diffusion_scale", self.canopy_diffusion_scale),
            ("trunk_radius", self.trunk_radius),
            ("crown_depth", self.crown_depth),
            ("terminal_density", self.terminal_density),
            ("twig_radius", self.twig_radius),
            ("radius_gamma", self.radius_gamma),
            ("cell_margin", self.cell_margin),
            ("terminal_boundary_margin", self.terminal_boundary_margin),
            ("terminal_depth_jitter", self.terminal_depth_jitter),
            ("branch_step_fraction", self.branch_step_fraction),
            ("graph_jitter", self.graph_jitter),
            ("apical_dominance", self.apical_dominance),
            ("branch_length_decay", self.branch_length_decay),
        ];
        if let Some((n, v)) = nums.iter().find(|(_, v)| !v.is_finite()) {
            return Err(param(n, v, "must be a finite number"));
        }
        if self.resolution <= 0.0 {
            return Err(param("resolution", self.resolution, "must be positive"));
        }
        if self.domain_size.0 <= 0.0 || self.domain_size.1 <= 0.0 {
            return Err(param("domain_size", format!("{:?}", self.domain_size), "both sides must be positive"));
        }
        if self.min_crown_radius > self.max_crown_radius {
            return Err(param(
                "min_crown_radius",
                self.min_crown_radius,
                &format!("must not exceed max_crown_radius = {}", self.max_crown_radius),
            ));
        }
        if self.target_tree_count > 1_000_000 {
            return Err(param("target_tree_count", self.target_tree_count, "must be ≤ 1,000,000"));
        }
        if self.max_sampling_attempts > 100_000_000 {
            return Err(param("max_sampling_attempts", self.max_sampling_attempts, "must be ≤ 100,000,000"));
        }
        if self.lloyd_iterations > 100 {
            return Err(param("lloyd_iterations", self.lloyd_iterations, "must be ≤ 100"));
        }
        if self.terminal_max > 100_000 {
            return Err(param("terminal_max", self.terminal_max, "must be ≤ 100,000"));
        }
        if self.terminal_min > self.terminal_max {
            return Err(param(
                "terminal_min",
                self.terminal_min,
                &format!("must not exceed terminal_max = {}", self.terminal_max),
            ));
        }
        if self.species.len() > species::MAX_SPECIES {
            return Err(param("species", self.species.len(), &format!("at most {} species", species::MAX_SPECIES)));
        }
        if self.species.is_empty() {
            // The flat parameters, by their own names.
            self.species_table()[0].check("")?;
        }
        for (k, s) in self.species.iter().enumerate() {
            s.validate(k)?;
        }
        if self.species_table().iter().map(|s| s.share).sum::<f64>() <= 0.0 {
            return Err(param("species", "all shares 0", "the shares must sum above 0"));
        }
        let (nx, ny) = self.shape();
        if nx == 0 || ny == 0 || (nx as f64) * (ny as f64) > MAX_CELLS as f64 {
            return Err(param(
                "resolution",
                self.resolution,
                &format!("gives a {nx}×{ny} grid; it needs 1..={MAX_CELLS} cells"),
            ));
        }
        Ok(())
    }

    /// The species in use: `species`, or when it is empty the one species the flat parameters
    /// describe (pyworldgen's).
    pub fn species_table(&self) -> Vec<Species> {
        if !self.species.is_empty() {
            return self.species.clone();
        }
        vec![Species {
            name: "broadleaf".into(),
            share: 1.0,
            max_branch_depth: self.max_branch_depth,
            twig_radius: self.twig_radius,
            radius_gamma: self.radius_gamma,
            crown: CrownShape::Round,
        }]
    }

    /// (nx, ny): `round(width / res)`, `round(depth / res)`, half to even.
    pub fn shape(&self) -> (usize, usize) {
        let r = |v: f64| crate::field::cells(v, self.resolution);
        (r(self.domain_size.0), r(self.domain_size.1))
    }
}

/// A tree site.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeSite {
    /// Index in the site list.
    pub id: usize,
    /// Position (x east, y north), metres.
    pub xy: (f64, f64),
    /// Tree height, metres.
    pub height: f64,
    /// Crown radius, metres.
    pub crown_radius: f64,
    /// Power-diagram weight (competition).
    pub weight: f64,
    /// Age in [0, 1].
    pub age: f64,
    /// Trunk radius, metres.
    pub trunk_radius: f64,
    /// Index into the forest's species table.
    pub species: usize,
}

/// A forest: sites after relaxation, the owner of each cell (−1: none), the distance to the
/// crown border, the terrain and the canopy roof (f32, as pyworldgen keeps them), the species
/// table and one branch graph per tree that owns cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Forest {
    /// Columns.
    pub nx: usize,
    /// Rows.
    pub ny: usize,
    /// Cell size, metres.
    pub resolution: f64,
    /// The sites.
    pub sites: Vec<TreeSite>,
    /// Owning site per cell, `ny × nx`, row 0 south; −1 when there is no site.
    pub owner: Vec<i32>,
    /// Gap between the two least power distances' square roots, per cell.
    pub border: Vec<f32>,
    /// Square root of the least power distance, per cell.
    pub nearest: Vec<f32>,
    /// Terrain height, per cell.
    pub terrain: Vec<f32>,
    /// Canopy roof height, per cell.
    pub canopy: Vec<f32>,
    /// The species table the sites index.
    pub species: Vec<Species>,
    /// Branch graphs in site order (sites owning no cell, or past `max_trees_for_graphs`, have
    /// none).
    pub graphs: Vec<TreeGraph>,
}

/// The ecological fields of a forest.
struct Fields<'a> {
    p: &'a ForestParams,
    n: &'a dyn Noise,
    seed: i64,
}

impl Fields<'_> {
    fn s(&self, k: i64) -> i64 {
        self.seed.wrapping_add(k)
    }
    fn terrain(&self, x: f64, y: f64) -> f64 {
        let p = self.p;
        let base = self.n.fbm2(x * p.terrain_scale, y * p.terrain_scale, p.terrain_octaves, self.s(101));
        let detail = self.n.signed_fbm2(x * p.terrain_scale * 3.0, y * p.terrain_scale * 3.0, 2, self.s(103));
        p.terrain_height * base + 0.6 * detail
    }
    fn moisture(&self, x: f64, y: f64) -> f64 {
        let p = self.p;
        self.n.fbm2(x * p.moisture_scale + 17.0, y * p.moisture_scale - 9.0, 3, self.s(111))
    }
    fn fertility(&self, x: f64, y: f64) -> f64 {
        let p = self.p;
        self.n.fbm2(x * p.fertility_scale - 23.0, y * p.fertility_scale + 31.0, 3, self.s(121))
    }
    fn density(&self, x: f64, y: f64) -> f64 {
        (0.25 + 0.55 * self.fertility(x, y) + 0.20 * self.moisture(x, y)).clamp(0.0, 1.0)
    }
    fn canopy_base(&self, x: f64, y: f64) -> f64 {
        let p = self.p;
        let u = p.canopy_undulation_scale;
        let und = self.n.signed_fbm2(x * u, y * u, 3, self.s(131));
        let rough = self.n.signed_fbm2(x * u * 3.0, y * u * 3.0, 2, self.s(137));
        self.terrain(x, y) + p.canopy_height_mean + p.canopy_height_variation * und + p.canopy_roughness * rough
    }
    /// Domain-warped query coordinates (amplitude 0: unchanged).
    fn warp(&self, x: f64, y: f64, scale: f64, amplitude: f64) -> (f64, f64) {
        let dx = self.n.signed_fbm2(x * scale + 41.0, y * scale - 17.0, 3, self.s(141));
        let dy = self.n.signed_fbm2(x * scale - 29.0, y * scale + 53.0, 3, self.s(143));
        (x + amplitude * dx, y + amplitude * dy)
    }
}

/// Dart-thrown sites (pyworldgen's `sample_tree_sites`).
fn sample_sites(f: &Fields<'_>, draws: &mut dyn Draws) -> Vec<TreeSite> {
    let p = f.p;
    let (w, h) = p.domain_size;
    let mut sites: Vec<TreeSite> = Vec::new();
    let mut attempts = 0;
    while sites.len() < p.target_tree_count && attempts < p.max_sampling_attempts {
        attempts += 1;
        let x = draws.uniform(0.0, w);
        let y = draws.uniform(0.0, h);
        if draws.random() > f.density(x, y) {
            continue;
        }
        let age = draws.beta(2.2, 1.8);
        let ht = 16.0 + 14.0 * (0.35 + 0.65 * age);
        let crown = (0.18 * ht * draws.uniform(0.82, 1.18)).max(p.min_crown_radius).min(p.max_crown_radius);
        let clear = sites.iter().all(|s| {
            let (dx, dy) = (x - s.xy.0, y - s.xy.1);
            let req = p.spacing_factor * crown.min(s.crown_radius);
            dx * dx + dy * dy >= req * req
        });
        if !clear {
            continue;
        }
        let (fert, moist) = (f.fertility(x, y), f.moisture(x, y));
        let mut comp = p.competition_weight_strength * (0.55 * age + 0.25 * ht / 30.0 + 0.20 * fert);
        comp *= 0.75 + 0.25 * moist;
        sites.push(TreeSite {
            id: sites.len(),
            xy: (x, y),
            height: ht,
            crown_radius: crown,
            weight: comp,
            age,
            trunk_radius: p.trunk_radius * (0.55 + 0.70 * age),
            species: 0,
        });
    }
    sites
}

/// Power-diagram ownership: (owner, nearest, border), pyworldgen's `weighted_voronoi_grid`.
fn power_diagram(f: &Fields<'_>, sites: &[TreeSite], amplitude: f64) -> (Vec<i32>, Vec<f32>, Vec<f32>) {
    let p = f.p;
    let (nx, ny) = p.shape();
    let res = p.resolution;
    if sites.is_empty() {
        return (vec![-1; nx * ny], vec![f32::INFINITY; nx * ny], vec![f32::INFINITY; nx * ny]);
    }
    let warp = p.canopy_diffusion > 0.0 && amplitude > 0.0;
    let mut owner = vec![-1i32; nx * ny];
    let (mut nearest, mut border) = (vec![0f32; nx * ny], vec![0f32; nx * ny]);
    for j in 0..ny {
        for i in 0..nx {
            let (x, y) = ((i as f64 + 0.5) * res, (j as f64 + 0.5) * res);
            let (qx, qy) =
                if warp { f.warp(x, y, p.canopy_diffusion_scale, p.canopy_diffusion * amplitude) } else { (x, y) };
            let (mut best, mut second, mut who) = (f64::INFINITY, f64::INFINITY, -1i32);
            for s in sites {
                let (dx, dy) = (qx - s.xy.0, qy - s.xy.1);
                let d = dx * dx + dy * dy - s.weight;
                if d < best {
                    second = best;
                    best = d;
                    who = s.id as i32;
                } else {
                    second = second.min(d);
                }
            }
            let c = j * nx + i;
            owner[c] = who;
            let b = second.max(0.0).sqrt() - best.max(0.0).sqrt();
            border[c] = if b.is_finite() { b as f32 } else { 0.0 };
            nearest[c] = best.max(0.0).sqrt() as f32;
        }
    }
    (owner, nearest, border)
}

/// Cell centres owned by each site, in row-major order.
fn owned(owner: &[i32], n: usize) -> Vec<Vec<usize>> {
    let mut cells = vec![Vec::new(); n];
    for (c, &o) in owner.iter().enumerate() {
        if o >= 0 {
            cells[o as usize].push(c);
        }
    }
    cells
}

fn mean(v: &[f64]) -> f64 {
    pairwise_sum(v) / v.len() as f64
}

/// The forest for `seed` (pyworldgen's `generate_forest`): the ground half, then the species
/// draw and the graphs.
pub fn generate_forest(seed: &Seed, compat: Compat, p: &ForestParams) -> Result<Forest> {
    p.validate()?;
    let rnd = for_compat(compat);
    let seed_int = match compat {
        Compat::Pyworldgen => seed.pyworldgen_int(),
        Compat::Canonical => seed.canonical() as i64,
    };
    let f = Fields { p, n: rnd.noise(), seed: seed_int };
    let mut draws = rnd.draws(seed_int.wrapping_add(2001));
    let mut sites = sample_sites(&f, draws.as_mut());
    let crowns: Vec<f64> = sites.iter().map(|s| s.crown_radius).collect();
    let amplitude = if sites.is_empty() { 0.5 * (p.min_crown_radius + p.max_crown_radius) } else { mean(&crowns) };
    let (nx, ny) = p.shape();
    let res = p.resolution;
    let centre = |c: usize| ((c % nx) as f64 + 0.5) * res;
    let centre_y = |c: usize| ((c / nx) as f64 + 0.5) * res;
    let (mut owner, mut nearest, mut border) = power_diagram(&f, &sites, amplitude);
    for _ in 0..p.lloyd_iterations {
        let cells = owned(&owner, sites.len());
        for (s, cs) in sites.iter_mut().zip(&cells) {
            if cs.is_empty() {
                continue;
            }
            let xs: Vec<f64> = cs.iter().map(|&c| centre(c)).collect();
            let ys: Vec<f64> = cs.iter().map(|&c| centre_y(c)).collect();
            let (cx, cy) = (mean(&xs), mean(&ys));
            let k = 0.55;
            s.xy = ((1.0 - k) * s.xy.0 + k * cx, (1.0 - k) * s.xy.1 + k * cy);
        }
        (owner, nearest, border) = power_diagram(&f, &sites, amplitude);
    }
    let terrain: Vec<f64> = (0..nx * ny).map(|c| f.terrain(centre(c), centre_y(c))).collect();
    let mut canopy: Vec<f64> = (0..nx * ny).map(|c| f.canopy_base(centre(c), centre_y(c))).collect();
    for (s, cs) in sites.iter().zip(owned(&owner, sites.len())) {
        if cs.is_empty() {
            continue;
        }
        let want: Vec<f64> = cs.iter().map(|&c| terrain[c] + s.height).collect();
        let have: Vec<f64> = cs.iter().map(|&c| canopy[c]).collect();
        let lift = 0.55 * (mean(&want) - mean(&have));
        for &c in &cs {
            canopy[c] += lift;
        }
    }
    let terrain: Vec<f32> = terrain.iter().map(|&v| v as f32).collect();
    let canopy: Vec<f32> = canopy.iter().map(|&v| v as f32).collect();

    let table = p.species_table();
    let drawn = species::draw_species(&table, sites.len(), f.n, seed_int);
    for (s, k) in sites.iter_mut().zip(drawn) {
        s.species = k;
    }
    let cells = owned(&owner, sites.len());
    let ctx = graph::GraphContext {
        p,
        noise: f.n,
        seed: seed_int,
        grid: graph::OwnerGrid { nx, ny, res, owner: &owner },
        border: &border,
        terrain: &terrain,
        canopy: &canopy,
    };
    let limit = p.max_trees_for_graphs.unwrap_or(usize::MAX).min(sites.len());
    let graphs: Vec<TreeGraph> = sites[..limit]
        .par_iter()
        .filter_map(|s| {
            let mut d = rnd.draws(seed_int.wrapping_add(3000).wrapping_add(17 * s.id as i64));
            graph::build_tree_graph(&ctx, s, &table[s.species], s.species, &cells[s.id], d.as_mut())
        })
        .collect();
    Ok(Forest { nx, ny, resolution: res, sites, owner, border, nearest, terrain, canopy, species: table, graphs })
}
