//! Named presets of the patch search: each a JSON object holding the [`SearchSettings`] that
//! differ from the defaults (`{"name": {"key": value, …}, …}`). A preset applies over the
//! defaults; saving one keeps only what differs. Where the presets file lives is the caller's.

use super::SearchSettings;
use serde_json::{Map, Value};

/// Why presets could not be read or a preset applied.
#[derive(Debug, thiserror::Error)]
pub enum PresetError {
    /// The text is JSON but not an object of named presets.
    #[error("presets file is not a JSON object of named presets")]
    NotAnObject,
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Json(serde_json::Error),
    /// No preset of that name (or one that is not an object).
    #[error("no preset named {name:?} (presets: {names:?})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The names there are.
        names: Vec<String>,
    },
    /// A preset holding a value of the wrong type for its key.
    #[error("preset {name:?} holds a value of the wrong type")]
    WrongType {
        /// The preset.
        name: String,
        /// What the settings' reader found.
        #[source]
        source: serde_json::Error,
    },
}

/// A set of named presets.
///
/// # Examples
///
/// ```
/// use bozkir_splat::capture::patches::preset::Presets;
/// use bozkir_splat::capture::patches::SearchSettings;
///
/// let mut presets = Presets::parse(r#"{"loose": {"max_tilt": 20.0, "colour": 1}}"#).unwrap();
/// let mut skipped = Vec::new();
/// let st = presets.from_name("loose", &mut |k| skipped.push(k.to_string())).unwrap();
/// assert_eq!((st.max_tilt, st.size), (20.0, 1.0));
/// assert_eq!(skipped, ["colour"]);
/// presets.insert("small", &SearchSettings { size: 0.5, ..SearchSettings::default() });
/// assert_eq!(presets.names(), ["loose", "small"]);
/// assert_eq!(presets.from_name("small", &mut |_| {}).unwrap().size, 0.5);
/// assert!(presets.from_name("nope", &mut |_| {}).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Presets {
    all: Map<String, Value>,
}

impl Presets {
    /// Presets from the text of a presets file.
    pub fn parse(text: &str) -> Result<Presets, PresetError> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(all)) => Ok(Presets { all }),
            Ok(_) => Err(PresetError::NotAnObject),
            Err(e) => Err(PresetError::Json(e)),
        }
    }

    /// The presets' names, in the file's order.
    pub fn names(&self) -> Vec<&str> {
        self.all.keys().map(String::as_str).collect()
    }

    /// The defaults with the preset `name` applied; `skipped` is told each key of the preset
    /// that is not a setting (and is skipped).
    pub fn from_name(&self, name: &str, skipped: &mut dyn FnMut(&str)) -> Result<SearchSettings, PresetError> {
        let Some(Value::Object(p)) = self.all.get(name) else {
            let names = self.all.keys().cloned().collect();
            return Err(PresetError::Unknown { name: name.to_string(), names });
        };
        let mut v = defaults();
        let o = v.as_object_mut().expect("settings are an object");
        for (k, val) in p {
            if o.contains_key(k) {
                o.insert(k.clone(), val.clone());
            } else {
                skipped(k);
            }
        }
        serde_json::from_value(v).map_err(|source| PresetError::WrongType { name: name.to_string(), source })
    }

    /// Stores `st` as the preset `name` (replacing one of that name): the settings that differ
    /// from the defaults.
    pub fn insert(&mut self, name: &str, st: &SearchSettings) {
        let def = defaults();
        let cur = serde_json::to_value(st).expect("settings serialise");
        let mut diff = Map::new();
        for (k, v) in cur.as_object().expect("settings are an object") {
            if def.get(k) != Some(v) {
                diff.insert(k.clone(), v.clone());
            }
        }
        self.all.insert(name.to_string(), Value::Object(diff));
    }

    /// The text of the presets file (pretty JSON and a newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.all).expect("JSON values serialise") + "\n"
    }
}

fn defaults() -> Value {
    serde_json::to_value(SearchSettings::default()).expect("settings serialise")
}
