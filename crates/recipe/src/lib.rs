//! Terrain recipes: a declarative list of stages (TOML), each with its parameters and the
//! resolution it runs at ("simulate coarse, detail fine", seed 001 §2.2).
//!
//! [`parse()`] turns recipe text into a validated [`Recipe`] (unknown stages or parameters are
//! refused naming the line); [`State`] carries the height field and the masks between stages;
//! [`apply`] runs one stage and [`check`] verifies the result is finite and reports its range
//! (seed 001 §10: "NaN poisons silently"). The caller times the stages: this crate never reads the
//! clock, the filesystem or the terminal. Built-in recipes are in [`builtin`].

pub mod builtin;
pub mod detail;
pub mod erosion;
pub mod kernels;
pub mod parse;
pub mod run;
pub mod stage;
pub mod state;

pub use kernels::{Cpu, Kernels};
pub use parse::{parse, Recipe, RecipeError, Stage};
pub use run::{run, run_with, StageEvent};
pub use stage::{apply, apply_with, Op};
pub use state::{check, StageReport, State};
