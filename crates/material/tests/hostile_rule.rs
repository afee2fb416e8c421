//! Hostile rule JSON (issue 20, the parsers' part): the built-in `rule.json` truncated at every
//! character and with each number replaced by hostile values. Each is refused with a
//! [`RuleError`] (or, for a value the rule may hold, accepted), never a panic.

use bozkir_material::rule::{Rule, RULE_JSON};

#[test]
fn rule_json_truncated_at_every_character_is_refused() {
    let body = RULE_JSON.trim_end();
    for cut in (0..body.len()).filter(|&i| body.is_char_boundary(i)) {
        assert!(Rule::from_json(&body[..cut]).is_err(), "{cut} of {} characters accepted", body.len());
    }
    assert!(Rule::from_json(body).is_ok());
}

#[test]
fn rule_json_with_hostile_values_never_panics() {
    // Every number token, in turn, replaced.
    let bytes = RULE_JSON.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'-' || bytes[i].is_ascii_digit() {
            let start = i;
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || b".eE+-".contains(&bytes[i])) {
                i += 1;
            }
            spans.push((start, i));
        } else {
            i += 1;
        }
    }
    assert!(!spans.is_empty());
    for &(a, b) in &spans {
        for v in [
            "1e999",
            "-1e999",
            "NaN",
            "null",
            "\"x\"",
            "[]",
            "{}",
            "1e308",
            "-1e308",
            "0",
            "-0",
            "18446744073709551616",
        ] {
            let text = format!("{}{v}{}", &RULE_JSON[..a], &RULE_JSON[b..]);
            if let Err(e) = Rule::from_json(&text) {
                assert!(!e.to_string().is_empty());
            }
        }
    }
    for garbage in ["", "null", "[]", "{}", "\u{feff}{}", "{\"positions\": 1}", "{{{{{{{{{{{{{{{{"] {
        assert!(Rule::from_json(garbage).is_err(), "{garbage:?}");
    }
    // Deep nesting is refused by the parser's recursion limit, not by a stack overflow.
    let deep = "[".repeat(100_000);
    assert!(Rule::from_json(&deep).is_err());
}
