//! The material rule as data: positions on a hillside, each a weighted sum of terrain terms plus
//! a height term, and the positions used for 2, 3 and 4 classes.
//!
//! The built-in rule is `crates/material/rule.json`, embedded at compile time; the viewer loads
//! the same file. A user's rule file has the same shape and is checked here: unknown terms or
//! height kinds, non-finite weights and class lists naming missing positions are refused with a
//! message that names them. The order of terms inside a position is kept as written, because the
//! score sums them in that order (floating-point sums are not associative, and parity with the
//! viewer is to the last bit).

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

/// The built-in rule file's text.
pub const RULE_JSON: &str = include_str!("../rule.json");

/// A shape term of a position's score (all are unit-normalised maps, 0..1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    /// Drainage (log flow accumulation), or the erosion's sediment record where there is one.
    Drive,
    /// 1 − topographic position.
    Hollow,
    /// Topographic position.
    Ridge,
    /// Slope.
    Slope,
    /// 1 − slope.
    Flat,
    /// Nearness to the middle of the topographic-position range: 1 − 2|tpi − 0.5|.
    Midpos,
}

impl Term {
    pub const NAMES: [&'static str; 6] = ["drive", "hollow", "ridge", "slope", "flat", "midpos"];

    pub fn parse(name: &str) -> Option<Term> {
        Some(match name {
            "drive" => Term::Drive,
            "hollow" => Term::Hollow,
            "ridge" => Term::Ridge,
            "slope" => Term::Slope,
            "flat" => Term::Flat,
            "midpos" => Term::Midpos,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        Term::NAMES[self as usize]
    }

    /// Human label used in reports (what the cue means to a reader).
    pub fn label(self) -> &'static str {
        match self {
            Term::Drive => "drainage",
            Term::Hollow => "hollows",
            Term::Ridge => "ridges",
            Term::Slope => "slope",
            Term::Flat => "flat ground",
            Term::Midpos => "mid-slope",
        }
    }
}

/// The height term of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeightTerm {
    /// 1 − elevation.
    Low,
    /// Elevation.
    High,
    /// Nearness to mid elevation: 1 − 2|e − 0.5|.
    Middle,
}

impl HeightTerm {
    pub fn parse(name: &str) -> Option<HeightTerm> {
        Some(match name {
            "low" => HeightTerm::Low,
            "high" => HeightTerm::High,
            "middle" => HeightTerm::Middle,
            _ => return None,
        })
    }
}

/// One position: ordered `(term, weight)` pairs and a height term.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    pub name: String,
    pub terms: Vec<(Term, f64)>,
    pub height: HeightTerm,
}

/// The whole rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Positions by name (file order is irrelevant here; term order inside each is kept).
    pub positions: BTreeMap<String, Position>,
    /// Position names for a class count ("2", "3", "4", …).
    pub classes: BTreeMap<usize, Vec<String>>,
}

/// A rule file that cannot be used, with the reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("material rule: {0}")]
pub struct RuleError(pub String);

/// `{"a": 1, "b": 2}` read as pairs in file order.
struct Ordered(Vec<(String, f64)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of term name to weight")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, f64>()? {
                    out.push((k, v));
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPosition {
    terms: Ordered,
    height: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    #[serde(default, alias = "_about")]
    #[allow(dead_code)]
    about: Option<String>,
    positions: BTreeMap<String, RawPosition>,
    classes: BTreeMap<String, Vec<String>>,
}

impl Rule {
    /// The built-in rule (`rule.json`).
    pub fn builtin() -> Rule {
        Rule::from_json(RULE_JSON).expect("the built-in rule.json is valid")
    }

    /// Parse and check a rule file's text.
    pub fn from_json(text: &str) -> Result<Rule, RuleError> {
        let raw: RawRule = serde_json::from_str(text).map_err(|e| RuleError(e.to_string()))?;
        let mut positions = BTreeMap::new();
        for (name, p) in raw.positions {
            if p.terms.0.is_empty() {
                return Err(RuleError(format!("position '{name}' has no terms")));
            }
            let mut terms = Vec::new();
            for (t, w) in p.terms.0 {
                let term = Term::parse(&t).ok_or_else(|| {
                    RuleError(format!("position '{name}': unknown term '{t}' (known: {})", Term::NAMES.join(", ")))
                })?;
                if !w.is_finite() {
                    return Err(RuleError(format!("position '{name}': weight of '{t}' is not finite")));
                }
                terms.push((term, w));
            }
            let height = HeightTerm::parse(&p.height).ok_or_else(|| {
                RuleError(format!("position '{name}': unknown height '{}' (known: low, high, middle)", p.height))
            })?;
            positions.insert(name.clone(), Position { name, terms, height });
        }
        let mut classes = BTreeMap::new();
        for (k, names) in raw.classes {
            let count: usize = k
                .parse()
                .ok()
                .filter(|&c| c >= 2)
                .ok_or_else(|| RuleError(format!("class count '{k}' is not an integer >= 2")))?;
            if names.len() != count {
                return Err(RuleError(format!("classes '{k}' lists {} positions, expected {count}", names.len())));
            }
            for n in &names {
                if !positions.contains_key(n) {
                    return Err(RuleError(format!("classes '{k}' names unknown position '{n}'")));
                }
            }
            classes.insert(count, names);
        }
        if !classes.contains_key(&2) {
            return Err(RuleError("no position list for 2 classes (\"2\": [...])".into()));
        }
        Ok(Rule { positions, classes })
    }

    /// The positions used for `count` classes: the list written for that count, otherwise the
    /// first `count` of the longest list (at least two). Errors when the rule cannot supply them.
    pub fn positions_for(&self, count: usize) -> Result<Vec<&Position>, RuleError> {
        if count < 2 {
            return Err(RuleError(format!("{count} classes: the rule needs at least 2")));
        }
        let names: Vec<&String> = match self.classes.get(&count) {
            Some(v) => v.iter().collect(),
            None => {
                let longest = self.classes.values().max_by_key(|v| v.len()).expect("checked: has 2");
                if longest.len() < count {
                    return Err(RuleError(format!(
                        "{count} classes: the rule names at most {} positions",
                        longest.len()
                    )));
                }
                longest.iter().take(count).collect()
            }
        };
        Ok(names.into_iter().map(|n| &self.positions[n]).collect())
    }

    /// The largest class count this rule supports.
    pub fn max_classes(&self) -> usize {
        self.classes.iter().map(|(&k, v)| k.max(v.len())).max().unwrap_or(2)
    }

    /// What each cue is worth for the collecting class (position of class 0) at an altitude
    /// setting: `(label, weight)` for each term, then `("height", altitude)`. Sums to 1 when the
    /// position's weights do.
    pub fn cue_weights(&self, altitude: f64) -> Vec<(String, f64)> {
        let a = altitude.clamp(0.0, 1.0);
        let first = self.positions_for(2).expect("checked: has 2")[0];
        let mut out: Vec<(String, f64)> =
            first.terms.iter().map(|&(t, w)| (t.label().to_string(), (1.0 - a) * w)).collect();
        out.push(("height".into(), a));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rule_has_the_published_weights_in_order() {
        let r = Rule::builtin();
        let p = r.positions_for(2).unwrap();
        assert_eq!(p[0].name, "collected");
        assert_eq!(p[0].terms, vec![(Term::Drive, 0.6), (Term::Hollow, 0.4)]);
        assert_eq!(p[0].height, HeightTerm::Low);
        assert_eq!(p[1].name, "exposed");
        // File order, not alphabetical: slope before ridge.
        assert_eq!(p[1].terms, vec![(Term::Slope, 0.5), (Term::Ridge, 0.5)]);
        let names: Vec<&str> = r.positions_for(4).unwrap().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["collected", "bench", "face", "exposed"]);
        assert_eq!(r.max_classes(), 4);
        assert!(r.positions_for(5).is_err());
        assert!(r.positions_for(1).is_err());
    }

    #[test]
    fn cue_weights_sum_to_one_and_height_is_altitude() {
        let r = Rule::builtin();
        for a in [0.0, 0.4, 1.0] {
            let w = r.cue_weights(a);
            let s: f64 = w.iter().map(|x| x.1).sum();
            assert!((s - 1.0).abs() < 1e-12);
            assert_eq!(w.last().unwrap(), &("height".to_string(), a));
        }
    }

    #[test]
    fn bad_rules_are_refused_by_name() {
        let bad_term = r#"{"positions":{"a":{"terms":{"wetness":1},"height":"low"}},"classes":{"2":["a","a"]}}"#;
        assert!(Rule::from_json(bad_term).unwrap_err().0.contains("wetness"));
        let bad_height = r#"{"positions":{"a":{"terms":{"drive":1},"height":"up"}},"classes":{"2":["a","a"]}}"#;
        assert!(Rule::from_json(bad_height).unwrap_err().0.contains("'up'"));
        let missing = r#"{"positions":{"a":{"terms":{"drive":1},"height":"low"}},"classes":{"2":["a","b"]}}"#;
        assert!(Rule::from_json(missing).unwrap_err().0.contains("'b'"));
        let no_two = r#"{"positions":{"a":{"terms":{"drive":1},"height":"low"}},"classes":{"3":["a","a","a"]}}"#;
        assert!(Rule::from_json(no_two).is_err());
        let extra = r#"{"positions":{},"classes":{},"colour":1}"#;
        assert!(Rule::from_json(extra).unwrap_err().0.contains("colour"));
        assert!(Rule::from_json("{").is_err());
    }
}
