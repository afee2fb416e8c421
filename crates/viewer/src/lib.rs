//! The browser viewer as a library: the embedded page ([`assets`]: `build.rs` puts every file of
//! `web/` into [`ASSETS`]), the scene a folder holds ([`catalogue`]: tilesets and terrains,
//! converted to the layout the page reads, see `docs/formats.md` "Viewer catalogue and data"),
//! and a small HTTP/1.1 server for them ([`server`]), shared by `bozkir serve`, `bozkir demo`,
//! `bozkir site` and `bozkir bench-viewer`, and open to any other face.
//!
//! Everything is local: the server listens where the caller says (the CLI: loopback unless told
//! otherwise) and never makes a request of its own. It reads only files that resolve inside the
//! served folder, checks `Host`/`Origin` on loopback, streams files with `Range`, and serves at
//! most [`MAX_CONNECTIONS`] connections with deadlines on every request ([`Limits`]). The library never prints and never reads the
//! clock: warnings come back as strings, failures as [`ViewerError`].
//!
//! # Examples
//!
//! ```
//! use bozkir_viewer::{Scene, State};
//!
//! let state = State::new(Scene::default(), None);
//! let reply = state.handle("GET", "/catalogue.json", None);
//! assert_eq!((reply.status, reply.content_type), (200, "application/json"));
//! ```

pub mod assets;
pub mod catalogue;
mod confine;
mod error;
pub mod server;
pub mod store;

pub use assets::{asset, content_type, ASSETS};
pub use catalogue::{
    load_scene, terrain_entry, Body, Scene, TerrainEntry, TilesetEntry, TilesetSource, CATALOGUE_FORMAT_VERSION, CHUNK,
};
pub use error::{report, Result, ViewerError};
pub use server::{
    clean_path, resolve, start, Limits, Reply, Running, State, BODY_DEADLINE, HEAD_DEADLINE, IDLE, MAX_CONNECTIONS,
    WRITE_TIMEOUT,
};
