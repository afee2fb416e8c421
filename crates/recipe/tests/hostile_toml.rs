//! Hostile recipe TOML (issue 20, the parsers' part): the built-in recipes truncated at every
//! character and with each number replaced by hostile values. Each is refused with a
//! [`RecipeError`] naming the source (or accepted when still a valid recipe), never a panic.

use bozkir_recipe::parse::parse;

const RECIPES: [(&str, &str); 2] =
    [("ds2", include_str!("../recipes/ds2.toml")), ("island", include_str!("../recipes/island.toml"))];

#[test]
fn recipes_truncated_at_every_character_never_panic() {
    for (name, text) in RECIPES {
        assert!(parse(text, name).is_ok());
        for cut in (0..text.len()).filter(|&i| text.is_char_boundary(i)) {
            if let Err(e) = parse(&text[..cut], "cut.toml") {
                assert!(e.to_string().contains("cut.toml"), "{e}");
            }
        }
    }
}

#[test]
fn recipes_with_hostile_numbers_never_panic() {
    for (_, text) in RECIPES {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let at_number =
                (bytes[i].is_ascii_digit() || bytes[i] == b'-') && (i == 0 || b" =[,".contains(&bytes[i - 1]));
            if !at_number {
                i += 1;
                continue;
            }
            let start = i;
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || b"._eE+-".contains(&bytes[i])) {
                i += 1;
            }
            for v in [
                "nan",
                "inf",
                "-inf",
                "1e308",
                "-1e308",
                "0",
                "-1",
                "9223372036854775807",
                "99999999999999999999",
                "\"x\"",
                "[]",
            ] {
                let t = format!("{}{v}{}", &text[..start], &text[i..]);
                if let Err(e) = parse(&t, "hostile.toml") {
                    assert!(e.to_string().contains("hostile.toml"), "{e}");
                }
            }
        }
    }
    for garbage in ["", "[[stage]]", "format = 1e999", "\u{0}", "resolution = -1", "[[[", "a = \"\\u{110000}\""] {
        if let Err(e) = parse(garbage, "g.toml") {
            assert!(e.to_string().contains("g.toml"), "{e}");
        }
    }
}
