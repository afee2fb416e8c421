//! The 19 named profiles of the original bozkir generator, in five groups.
//!
//! Values are the original's (`bozkir/erosion.py`, `PROFILES`; restated in the project's
//! reference inventory §2.1). Parameters a profile does not name take [`ProfileParams::default`],
//! the original's generator defaults.

/// Every parameter of the bozkir generator, in the original's normalised units.
///
/// Heights are 0..1 times `relief`; time is in steps; drainage area is a fraction of the
/// simulated field (so the same `incision` means the same at every size).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfileParams {
    /// fBM / ridged octaves (≥ 1).
    pub octaves: u32,
    /// Lattice cells across the field for the first octave.
    pub freq: f64,
    /// Mix of ridged noise into fBM, 0..1.
    pub ridge: f64,
    /// Height multiplier applied before erosion.
    pub relief: f64,
    /// Stream-power iterations.
    pub iterations: u32,
    /// Incision coefficient K (per step, area as a fraction of the field).
    pub incision: f64,
    /// Hillslope diffusion D (per step, cells²).
    pub diffusion: f64,
    /// Uplift per step (times `relief` and the uplift map).
    pub uplift: f64,
    /// Number of terrace levels (0 = none).
    pub terraces: u32,
    /// Raise the middle against the border, 0..1.
    pub dome: f64,
    /// Lower the field towards the last row, 0..1.
    pub tilt: f64,
    /// Horizontal stretch of the noise lattice (< 1 gives long ridges along x).
    pub stretch: f64,
}

impl Default for ProfileParams {
    /// The original generator's defaults when no profile is named.
    fn default() -> Self {
        Self {
            octaves: 6,
            freq: 4.0,
            ridge: 0.5,
            relief: 1.0,
            iterations: 40,
            incision: 0.3,
            diffusion: 0.1,
            uplift: 0.0,
            terraces: 0,
            dome: 0.0,
            tilt: 0.0,
            stretch: 1.0,
        }
    }
}

/// Names of the parameters, in the order [`ProfileParams::get`]/[`ProfileParams::set`] accept.
pub const PARAM_NAMES: [&str; 12] = [
    "octaves",
    "freq",
    "ridge",
    "relief",
    "iterations",
    "incision",
    "diffusion",
    "uplift",
    "terraces",
    "dome",
    "tilt",
    "stretch",
];

impl ProfileParams {
    /// Value of the named parameter as f64.
    pub fn get(&self, name: &str) -> Option<f64> {
        Some(match name {
            "octaves" => self.octaves as f64,
            "freq" => self.freq,
            "ridge" => self.ridge,
            "relief" => self.relief,
            "iterations" => self.iterations as f64,
            "incision" => self.incision,
            "diffusion" => self.diffusion,
            "uplift" => self.uplift,
            "terraces" => self.terraces as f64,
            "dome" => self.dome,
            "tilt" => self.tilt,
            "stretch" => self.stretch,
            _ => return None,
        })
    }

    /// The range of the named parameter: `(lo, hi, whole number)`; `None` for an unknown name.
    /// The one table of the profile parameters' ranges, used by [`ProfileParams::set`] and
    /// [`ProfileParams::validate`].
    pub fn range_of(name: &str) -> Option<(f64, f64, bool)> {
        Some(match name {
            "octaves" => (1.0, 16.0, true),
            "freq" => (1e-6, 1e6, false),
            "ridge" => (0.0, 1.0, false),
            "relief" => (0.0, 1e6, false),
            "iterations" => (1.0, 100_000.0, true),
            "incision" => (0.0, 1e6, false),
            "diffusion" => (0.0, 0.25, false),
            "uplift" => (0.0, 1e6, false),
            "terraces" => (0.0, 1000.0, true),
            "dome" => (0.0, 1.0, false),
            "tilt" => (0.0, 1.0, false),
            "stretch" => (1e-6, 1e6, false),
            _ => return None,
        })
    }

    /// Checks value `v` of the named parameter against its range; the message names it.
    fn check_value(name: &str, v: f64) -> Result<(), String> {
        if !v.is_finite() {
            return Err(format!("parameter {name} must be finite, got {v}"));
        }
        match Self::range_of(name) {
            Some((lo, hi, true)) if v.fract() != 0.0 || v < lo || v > hi => {
                Err(format!("parameter {name} must be a whole number in {lo}..={hi}, got {v}"))
            }
            Some((lo, hi, false)) if v < lo || v > hi => {
                Err(format!("parameter {name} must be in {lo}..={hi}, got {v}"))
            }
            _ => Ok(()),
        }
    }

    /// Checks every parameter against its range ([`ProfileParams::range_of`]); the error names
    /// the first bad one.
    ///
    /// # Examples
    ///
    /// ```
    /// use bozkir_terrain::profiles::{profile, ProfileParams};
    ///
    /// let mut p: ProfileParams = profile("canyon").unwrap().params;
    /// assert!(p.validate().is_ok());
    /// p.diffusion = 0.5;
    /// let e = p.validate().unwrap_err();
    /// assert_eq!(e.param, "diffusion");
    /// assert_eq!(e.to_string(), "parameter diffusion must be in 0..=0.25, got 0.5");
    /// ```
    pub fn validate(&self) -> Result<(), crate::ParamError> {
        for name in PARAM_NAMES {
            let v = self.get(name).expect("every listed parameter has a value");
            Self::check_value(name, v).map_err(|m| crate::ParamError::new(name, m))?;
        }
        Ok(())
    }

    /// Set the named parameter. Errors name the parameter and the problem; the caller maps
    /// them to user messages. Integer parameters must be whole numbers.
    pub fn set(&mut self, name: &str, v: f64) -> Result<(), String> {
        Self::check_value(name, v)?;
        match name {
            "octaves" => self.octaves = v as u32,
            "freq" => self.freq = v,
            "ridge" => self.ridge = v,
            "relief" => self.relief = v,
            "iterations" => self.iterations = v as u32,
            "incision" => self.incision = v,
            "diffusion" => self.diffusion = v,
            "uplift" => self.uplift = v,
            "terraces" => self.terraces = v as u32,
            "dome" => self.dome = v,
            "tilt" => self.tilt = v,
            "stretch" => self.stretch = v,
            _ => return Err(format!("unknown parameter {name:?}; have {}", PARAM_NAMES.join(", "))),
        }
        Ok(())
    }
}

/// A named profile: its group and its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    pub name: &'static str,
    pub group: &'static str,
    /// One line on what it is for.
    pub summary: &'static str,
    pub params: ProfileParams,
}

/// The five groups in display order, each with its profiles in display order.
pub const GROUPS: [(&str, &[&str]); 5] = [
    ("lowlands", &["plains", "steppe", "rolling"]),
    ("hills", &["hills", "terraced", "foothills"]),
    ("desert", &["desert", "dunes", "badlands", "buttes"]),
    ("highlands", &["mesa", "plateau", "canyon", "gorge", "piedmont"]),
    ("mountains", &["ridges", "alpine", "crags", "scree"]),
];

#[allow(clippy::too_many_arguments)]
const fn p(
    dome: f64,
    octaves: u32,
    freq: f64,
    ridge: f64,
    relief: f64,
    iterations: u32,
    incision: f64,
    diffusion: f64,
    uplift: f64,
    terraces: u32,
    tilt: f64,
    stretch: f64,
) -> ProfileParams {
    ProfileParams {
        octaves,
        freq,
        ridge,
        relief,
        iterations,
        incision,
        diffusion,
        uplift,
        terraces,
        dome,
        tilt,
        stretch,
    }
}

/// All 19 profiles.
pub const PROFILES: [Profile; 19] = [
    Profile {
        name: "plains",
        group: "lowlands",
        summary: "low relief, wide valleys: open country",
        params: p(0.5, 5, 2.0, 0.0, 0.35, 40, 0.15, 0.20, 0.0, 0, 0.0, 1.0),
    },
    Profile {
        name: "steppe",
        group: "lowlands",
        summary: "wide, nearly level ground with long shallow draws",
        params: p(0.5, 5, 2.0, 0.1, 0.25, 45, 0.30, 0.12, 0.0, 0, 0.0, 1.0),
    },
    Profile {
        name: "rolling",
        group: "lowlands",
        summary: "gentle rolling country",
        params: p(0.5, 6, 3.0, 0.15, 0.6, 50, 0.25, 0.18, 0.0, 0, 0.0, 1.0),
    },
    Profile {
        name: "hills",
        group: "hills",
        summary: "rounded hills with a branching network",
        params: p(0.5, 6, 4.0, 0.3, 0.9, 60, 0.35, 0.14, 0.0, 0, 0.0, 1.0),
    },
    Profile {
        name: "terraced",
        group: "hills",
        summary: "hills cut into steps by resistant beds",
        params: p(0.45, 6, 3.0, 0.3, 0.9, 50, 0.35, 0.05, 0.0, 7, 0.0, 1.0),
    },
    Profile {
        name: "foothills",
        group: "hills",
        summary: "relief grown by uplift, valleys that emerge",
        params: p(0.0, 6, 3.0, 0.4, 0.3, 120, 0.35, 0.10, 0.012, 0, 0.0, 1.0),
    },
    Profile {
        name: "desert",
        group: "desert",
        summary: "mid relief with clear drainage",
        params: p(0.25, 6, 4.0, 0.6, 1.0, 60, 0.4, 0.10, 0.0, 0, 0.0, 1.0),
    },
    Profile {
        name: "dunes",
        group: "desert",
        summary: "long parallel ridges from stretched noise",
        params: p(0.3, 5, 5.0, 0.9, 0.5, 20, 0.1, 0.02, 0.0, 0, 0.0, 0.3),
    },
    Profile {
        name: "badlands",
        group: "desert",
        summary: "fine, dense gullies with little creep",
        params: p(0.45, 7, 6.0, 0.5, 1.0, 80, 0.8, 0.03, 0.0, 0, 0.0, 1.0),
    },
    Profile {
        name: "buttes",
        group: "desert",
        summary: "isolated flat-topped hills",
        params: p(0.35, 6, 4.0, 0.6, 1.0, 55, 0.7, 0.02, 0.0, 4, 0.0, 1.0),
    },
    Profile {
        name: "mesa",
        group: "highlands",
        summary: "flat tops with steep steps: bench, face, floor",
        params: p(0.4, 6, 3.0, 0.45, 1.0, 55, 0.5, 0.06, 0.0, 5, 0.0, 1.0),
    },
    Profile {
        name: "plateau",
        group: "highlands",
        summary: "high ground in two broad levels",
        params: p(0.35, 5, 2.0, 0.3, 1.0, 50, 0.45, 0.08, 0.0, 2, 0.0, 1.0),
    },
    Profile {
        name: "canyon",
        group: "highlands",
        summary: "one deep network cut into high ground",
        params: p(0.25, 7, 2.0, 0.85, 1.2, 90, 0.9, 0.05, 0.0, 0, 0.0, 1.0),
    },
    Profile {
        name: "gorge",
        group: "highlands",
        summary: "narrow, deeply incised valleys",
        params: p(0.2, 7, 3.0, 0.9, 1.3, 100, 1.2, 0.02, 0.0, 0, 0.0, 1.0),
    },
    Profile {
        name: "piedmont",
        group: "highlands",
        summary: "an apron draining one way: parallel valleys",
        params: p(0.0, 6, 3.0, 0.4, 1.0, 70, 0.45, 0.08, 0.0, 0, 0.55, 1.0),
    },
    Profile {
        name: "ridges",
        group: "mountains",
        summary: "ranges grown by uplift",
        params: p(0.0, 6, 3.0, 0.9, 0.3, 150, 0.45, 0.06, 0.02, 0, 0.0, 1.0),
    },
    Profile {
        name: "alpine",
        group: "mountains",
        summary: "high ranges with dendritic valleys",
        params: p(0.0, 7, 2.0, 0.75, 0.4, 180, 0.55, 0.04, 0.03, 0, 0.0, 1.0),
    },
    Profile {
        name: "crags",
        group: "mountains",
        summary: "rugged ground with sharp ridges and steps",
        params: p(0.3, 7, 5.0, 0.95, 1.1, 60, 0.6, 0.01, 0.0, 0, 0.0, 1.0),
    },
    Profile {
        name: "scree",
        group: "mountains",
        summary: "steep loose rock: fine dense ridges",
        params: p(0.35, 7, 7.0, 0.7, 1.0, 70, 0.9, 0.01, 0.0, 0, 0.0, 1.0),
    },
];

/// The profile called `name`, or an error naming it and listing every profile.
pub fn profile(name: &str) -> Result<&'static Profile, String> {
    PROFILES.iter().find(|p| p.name == name).ok_or_else(|| {
        let mut names = profile_names();
        names.sort_unstable();
        format!("unknown profile {name:?}; have {}", names.join(", "))
    })
}

/// Profile names in group order.
pub fn profile_names() -> Vec<&'static str> {
    GROUPS.iter().flat_map(|(_, names)| names.iter().copied()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nineteen_profiles_in_five_groups_match_the_table() {
        assert_eq!(PROFILES.len(), 19);
        let names = profile_names();
        assert_eq!(names.len(), 19);
        for p in &PROFILES {
            assert!(names.contains(&p.name));
            let (group, members) = GROUPS.iter().find(|(g, _)| *g == p.group).unwrap();
            assert!(members.contains(&p.name), "{} not listed in {group}", p.name);
        }
        let c = profile("canyon").unwrap().params;
        assert_eq!((c.octaves, c.freq, c.ridge, c.relief, c.iterations), (7, 2.0, 0.85, 1.2, 90));
        assert_eq!(profile("dunes").unwrap().params.stretch, 0.3);
        assert_eq!(profile("alpine").unwrap().params.uplift, 0.03);
    }

    #[test]
    fn unknown_profile_lists_all_names() {
        let e = profile("canyonn").unwrap_err();
        assert!(e.contains("\"canyonn\"") && e.contains("canyon") && e.contains("scree"), "{e}");
    }

    #[test]
    fn set_rejects_bad_values() {
        let mut p = ProfileParams::default();
        assert!(p.set("ridge", f64::NAN).is_err());
        assert!(p.set("octaves", 2.5).is_err());
        assert!(p.set("nope", 1.0).unwrap_err().contains("octaves"));
        p.set("ridge", 0.25).unwrap();
        assert_eq!(p.get("ridge"), Some(0.25));
        for n in PARAM_NAMES {
            assert!(p.get(n).is_some());
        }
    }
}
