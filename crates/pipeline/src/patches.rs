//! The `patches` workflow's reports: what a patch search ([`bozkir_splat::capture::patches`])
//! found or why it failed, as the JSON of `patches.json` and as summary lines. The search itself
//! and its cache are called by the face (the cache lives on the face's side).

use bozkir_splat::capture::patches::{describe_trail, FailureKind, PatchSearch, SearchFailure, SearchSettings};
use serde_json::{json, Value};

/// `patches.json` of a search that succeeded: the capture, `cache` (`off`, `hit` or `miss`),
/// whether the patches were picked by hand, the settings, the choice, the tallies, the trail and
/// every candidate with its `id`.
///
/// # Examples
///
/// ```
/// use bozkir_splat::capture::patches::{find_patches, SearchSettings};
/// use bozkir_splat::capture::{synth, Material, SynthParams};
/// let p = SynthParams { side_m: 4.0, density: 4000.0, materials: vec![Material::sand()], ..SynthParams::default() };
/// let c = synth(&p).unwrap().splats;
/// let r = find_patches(&c, &SearchSettings { size: 0.5, ..SearchSettings::default() }).unwrap();
/// let v = bozkir_pipeline::patches::search_report("cap.ply", "off", false, &r);
/// assert_eq!((v["verdict"].as_str(), v["picked_by"].as_str()), (Some("ok"), Some("search")));
/// assert_eq!(v["candidates"][0]["id"], 0);
/// let lines = bozkir_pipeline::patches::summary_lines("cap.ply", c.len(), &r, "off");
/// assert!(lines[0].ends_with("cache off"));
/// ```
pub fn search_report(capture: &str, cache: &str, by_hand: bool, r: &PatchSearch) -> Value {
    let candidates: Vec<Value> = r
        .candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut v = serde_json::to_value(c).expect("a candidate serialises");
            v.as_object_mut().expect("an object").insert("id".into(), i.into());
            v
        })
        .collect();
    json!({
        "capture": capture,
        "verdict": "ok",
        "cache": cache,
        "picked_by": if by_hand { "hand" } else { "search" },
        "settings": r.settings,
        "chosen": r.chosen,
        "class_separation": r.class_separation,
        "class_rgb": r.class_rgb,
        "rejected": r.rejections,
        "trail": r.trail,
        "trail_text": describe_trail(&r.trail),
        "candidates": candidates,
    })
}

/// `patches.json` of a search that failed with `settings`: the verdict (`bad_settings`,
/// `one_material` or `not_a_tiling_exemplar`), the reason and the trail.
pub fn failure_report(capture: &str, settings: &SearchSettings, cache: &str, e: &SearchFailure) -> Value {
    let verdict = match e.kind {
        FailureKind::BadSettings => "bad_settings",
        FailureKind::OneMaterial => "one_material",
        FailureKind::NotATilingExemplar => "not_a_tiling_exemplar",
    };
    json!({
        "capture": capture,
        "verdict": verdict,
        "reason": e.reason,
        "settings": settings,
        "cache": cache,
        "trail": e.trail,
        "trail_text": describe_trail(&e.trail),
    })
}

/// The search's summary: the tallies, the trail (indented), the class separation and the
/// chosen candidates of each class.
pub fn summary_lines(capture: &str, splats: usize, r: &PatchSearch, cache: &str) -> Vec<String> {
    let rj = &r.rejections;
    let mut out = vec![format!(
        "{capture}: {} splats, {} positions, {} viable (rejected: sparse {}, buried {}, tilt {}, score {}, holes {}, rim {}{}), cache {cache}",
        splats,
        rj.positions,
        rj.viable,
        rj.sparse,
        rj.buried,
        rj.tilt,
        rj.score,
        rj.holes,
        rj.rim,
        if r.settings.classes == 2 { format!(", impure {}", rj.impure) } else { String::new() },
    )];
    out.extend(describe_trail(&r.trail).into_iter().map(|line| format!("  {line}")));
    if let Some(sep) = r.class_separation {
        out.push(format!("  class separation {sep:.2}"));
    }
    for (k, g) in r.chosen.iter().enumerate() {
        let ids: Vec<String> = g.iter().map(|i| i.to_string()).collect();
        out.push(format!("  class {k}: {}", ids.join(", ")));
    }
    out
}
