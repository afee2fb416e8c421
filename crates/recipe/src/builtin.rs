//! Built-in recipes: `ds2` (seed 001 §2.2 with its §9 values), `ds2-rivers` (the same stages,
//! the fine fluvial one last, so the result drains into trunk rivers), `island` (seed 003), `highlands`
//! (a world meant to be tiled, see [`crate::tiled`]), and one
//! per profile (`canyon`, `alpine`, …: the original generator alone).

use crate::error::RecipeError;
use crate::parse::{parse, Recipe};
use bozkir_terrain::profiles::{profile, profile_names};

/// The built-in recipes' TOML sources.
pub const SOURCES: [(&str, &str); 4] = [
    ("ds2", include_str!("../recipes/ds2.toml")),
    ("ds2-rivers", include_str!("../recipes/ds2-rivers.toml")),
    ("island", include_str!("../recipes/island.toml")),
    ("highlands", include_str!("../recipes/highlands.toml")),
];

/// Names of every built-in recipe.
pub fn names() -> Vec<String> {
    let mut v: Vec<String> = SOURCES.iter().map(|(n, _)| n.to_string()).collect();
    v.extend(profile_names().iter().map(|s| s.to_string()));
    v
}

/// The TOML text of built-in recipe `name`, if there is one.
pub fn source(name: &str) -> Option<String> {
    if let Some((_, s)) = SOURCES.iter().find(|(n, _)| *n == name) {
        return Some(s.to_string());
    }
    profile(name).ok().map(|p| {
        format!(
            "format = 1\nname = \"{0}\"\ndescription = \"the {0} profile ({1}): the original bozkir generator\"\nsize = 512\ncell_size = 10.0\n\n[[stage]]\nop = \"profile\"\nprofile = \"{0}\"\nheight_range = 1000.0\n",
            p.name, p.summary
        )
    })
}

/// Parse built-in recipe `name`.
pub fn builtin(name: &str) -> Result<Recipe, RecipeError> {
    let text = source(name).ok_or_else(|| RecipeError::Invalid {
        source_name: name.to_string(),
        message: format!("no built-in recipe {name:?}; have {}", names().join(", ")),
    })?;
    parse(&text, &format!("builtin:{name}"))
}
