//! The loosening strategy: the search run under ever looser settings, with its trail
//! ([`find_patches`], [`describe_trail`]).

use super::*;

pub(super) fn step(
    label: String,
    changed: Option<(String, f64)>,
    st: &SearchSettings,
    rej: &Rejections,
    ch: &Choice,
) -> TrailStep {
    let mut r = rej.clone();
    r.pool = ch.pool;
    r.impure = ch.impure;
    r.chosen = ch.total();
    TrailStep { label, changed, settings: st.clone(), rejections: r, chosen: ch.total() }
}

pub(super) fn worst(r: &Rejections) -> String {
    let mut v: Vec<(&str, usize)> =
        ["sparse", "buried", "tilt", "score", "holes", "rim", "impure"].iter().map(|&f| (f, r.get(f))).collect();
    v.retain(|x| x.1 > 0);
    v.sort_by_key(|x| std::cmp::Reverse(x.1));
    if v.is_empty() {
        return "no filter rejected anything; the capture is smaller than a few patches".into();
    }
    let parts: Vec<String> = v.iter().map(|(f, n)| format!("{f} {n}")).collect();
    format!("rejected: {}", parts.join(", "))
}

/// Search `s` (z-up) for patches with `settings`, loosening as described in the module
/// documentation. Deterministic.
pub fn find_patches(s: &Splats, settings: &SearchSettings) -> Result<PatchSearch, SearchFailure> {
    let fail = |kind, reason: String, trail: Vec<TrailStep>| Err(SearchFailure { kind, reason, trail });
    if let Err(e) = settings.check() {
        return fail(FailureKind::BadSettings, format!("bad settings: {e}"), Vec::new());
    }
    let index = PlaneIndex::new(s, settings.size / 2.0);
    let centres = search_centres(s, settings.size, settings.stride);
    let mut st = settings.clone();
    let mut relax: Vec<(&str, &str, Vec<f64>)> = RELAXATIONS.iter().map(|(f, k, v)| (*f, *k, v.to_vec())).collect();
    let mut sep_steps: Vec<f64> = SEPARATION_STEPS.to_vec();
    let (mut cands, mut rej) = scan(s, &index, &centres, &st);
    let mut trail: Vec<TrailStep> = Vec::new();
    let mut label = "defaults".to_string();
    let mut changed: Option<(String, f64)> = None;
    loop {
        let ch = choose(s, &index, &cands, &st);
        trail.push(step(label.clone(), changed.clone(), &st, &rej, &ch));
        if let Some(why) = ch.refusal {
            return fail(FailureKind::OneMaterial, why, trail);
        }
        let enough = ch.chosen.iter().all(|g| g.len() >= st.count);
        if enough {
            let mut candidates = cands;
            for (i, (class, purity)) in ch.labels.iter().enumerate() {
                candidates[i].class = *class;
                candidates[i].purity = *purity;
            }
            for g in &ch.chosen {
                for &i in g {
                    candidates[i].chosen = true;
                }
            }
            let rejections = trail.last().expect("one step at least").rejections.clone();
            return Ok(PatchSearch {
                settings: st,
                candidates,
                chosen: ch.chosen,
                class_separation: ch.separation,
                class_rgb: ch.class_rgb,
                rejections,
                trail,
            });
        }
        if trail.len() >= st.max_steps {
            return Err(give_up(trail, "the attempt limit was reached;", &st));
        }
        // 1. Closer patches, if more survived than could be chosen.
        if rej.viable > ch.total() {
            if let Some(pos) = sep_steps.iter().position(|&v| v < st.min_separation) {
                let v = sep_steps[pos];
                sep_steps.drain(..=pos);
                st.min_separation = v;
                label = format!("min_separation {v}");
                changed = Some(("min_separation".into(), v));
                continue;
            }
        }
        // 2. The filter that rejects most, one step looser.
        let tally = |f: &str| if f == "impure" { ch.impure } else { rej.get(f) };
        let mut pick: Option<usize> = None;
        for (k, (f, key, vals)) in relax.iter_mut().enumerate() {
            let cur = *setting_mut(&mut st, key);
            vals.retain(|&v| looser(key, cur, v));
            if vals.is_empty() || tally(f) == 0 {
                continue;
            }
            if pick.is_none_or(|p| tally(f) > tally(relax_name(p))) {
                pick = Some(k);
            }
        }
        let Some(k) = pick else {
            return Err(give_up(trail, "nothing left to loosen;", &st));
        };
        let (f, key, vals) = &mut relax[k];
        let v = vals.remove(0);
        *setting_mut(&mut st, key) = v;
        label = format!("{key} {v} ({f} rejected {})", tally(f));
        changed = Some(((*key).to_string(), v));
        if *f != "impure" {
            (cands, rej) = scan(s, &index, &centres, &st);
        }
    }
}

pub(super) fn give_up(trail: Vec<TrailStep>, why: &str, st: &SearchSettings) -> SearchFailure {
    let last = trail.last().expect("one step at least");
    let reason = format!(
        "not a tiling exemplar: {why} after {} attempt(s) only {} of {} patch(es){} found ({} positions, {} viable; {})",
        trail.len(),
        last.chosen,
        st.count * st.classes,
        if st.classes == 2 { format!(" ({} per class)", st.count) } else { String::new() },
        last.rejections.positions,
        last.rejections.viable,
        worst(&last.rejections)
    );
    SearchFailure { kind: FailureKind::NotATilingExemplar, reason, trail }
}

pub(super) fn relax_name(k: usize) -> &'static str {
    RELAXATIONS[k].0
}

/// The loosening trail as lines for people: each attempt with the flag to repeat it by hand.
pub fn describe_trail(trail: &[TrailStep]) -> Vec<String> {
    trail
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let flag = t.changed.as_ref().map(|(n, v)| format!(" → --{} {v}", n.replace('_', "-"))).unwrap_or_default();
            format!(
                "{}. {}{flag}: {} viable of {}, {} chosen",
                k + 1,
                t.label,
                t.rejections.viable,
                t.rejections.positions,
                t.chosen
            )
        })
        .collect()
}
