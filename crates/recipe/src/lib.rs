//! Terrain recipes: a declarative list of stages (TOML), each with its parameters and the
//! resolution it runs at ("simulate coarse, detail fine", seed 001 §2.2).
//!
//! [`parse()`] turns recipe text into a validated [`Recipe`] (unknown stages or parameters are
//! refused naming the line); [`State`] carries the height field and the masks between stages;
//! [`apply`] runs one stage and [`check`] verifies the result is finite and reports its range
//! (seed 001 §10: "NaN poisons silently"). Every stage is a struct implementing [`StageOp`],
//! listed once in [`stages`]. The caller times the stages: this crate never reads the clock,
//! the filesystem or the terminal. Built-in recipes are in [`builtin`]. The heavy stages offer
//! their kernel to a [`Kernels`] implementation first ([`run_with`]); this crate stays free of
//! any GPU dependency.
//!
//! # Examples
//!
//! ```
//! use bozkir_core::NoProgress;
//! use bozkir_recipe::{parse, run};
//!
//! let text = "size = 32\ncell_size = 10.0\nseed = 3\n\n[[stage]]\nop = \"profile\"\nprofile = \"hills\"\n\n[[stage]]\nop = \"fill\"\n";
//! let recipe = parse(text, "example.toml").unwrap();
//! let mut names = Vec::new();
//! let state = run(&recipe, 32, 10.0, recipe.seed, &NoProgress, |event| {
//!     if let bozkir_recipe::StageEvent::Start { op, .. } = event {
//!         names.push(op.to_string());
//!     }
//! })
//! .unwrap();
//! assert_eq!(names, ["profile", "fill"]);
//! assert_eq!(state.height.width(), 32);
//!
//! // Errors name the recipe, the line and the stage.
//! let e = parse("size = 32\n[[stage]]\nop = \"blur\"\nsigma = -1.0\n", "bad.toml").unwrap_err();
//! assert_eq!(e.to_string(), "bad.toml line 2: stage 1 (blur): sigma must be in 0..=1000000, got -1");
//! ```

pub mod builtin;
pub mod error;
pub mod parse;
pub mod run;
pub mod stages;
pub mod state;
pub mod tiled;

pub use bozkir_terrain::kernels::{Cpu, KernelError, KernelKind, Kernels};
pub use error::{ParamError, RecipeError, StageError};
pub use parse::{parse, Recipe, Stage};
pub use run::{run, run_with, StageEvent};
pub use stages::world::{soft_biome_masks, SOFT_BIOME_PREFIX};
pub use stages::{apply, apply_with, Op, StageCtx, StageOp};
pub use state::{check, StageReport, State};
