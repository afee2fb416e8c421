//! Grids whose `f64` buffers pass the device's binding limit, bound in two halves.
//!
//! A storage binding holds at most `max_storage_buffer_binding_size` bytes (2 GiB − 4 on
//! NVIDIA's Vulkan driver, whatever the card's memory), while one buffer may be far larger. A
//! 16384² terrain's `f64` heights are 2 GiB, the profile generator's field with its margin
//! (21 300²) 3.63 GB. Rather than a second code path for large grids, a module's split variant
//! is generated from the same WGSL text:
//!
//! * every `var<storage, …> NAME: array<T>` of a scalar `T` (`R`, `f64`, `u32`, `i32`, or an
//!   atomic `u32`/`i32`) gets a twin `NAME_hi` at binding `N +` [`HI`], bound to the same buffer
//!   from byte [`SplitPlan::at_bytes`] on;
//! * every `NAME[i]` read becomes `NAME_ld(u32(i))`, every `NAME[i] = v` (and `+=`, `-=`, `*=`,
//!   `/=`) `NAME_st(u32(i), v)`, every `atomicOp(&NAME[i], …)` `NAME_atomicOp(u32(i), …)`; the
//!   generated functions pick the half by comparing `i` with `SPLIT_AT8` or `SPLIT_AT4`, the
//!   first half's length in 8- or 4-byte elements.
//!
//! The arithmetic is untouched, so a split run gives the unsplit run's bits (held by
//! `tests/split.rs` with a lowered limit on small grids). A buffer not larger than the first half
//! (a per-tile list, a counter) is bound whole at both bindings, and only its first binding is
//! ever indexed. Two halves hold twice the limit, about 4 GiB a buffer on NVIDIA (23 170² cells
//! of `f64`); a larger grid is refused ([`crate::GpuError::GridTooLarge`]).

use std::collections::BTreeSet;

/// The binding number of a split buffer's second half: its first half's plus this.
pub const HI: u32 = 100;

/// Where a device splits its large `f64` buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitPlan {
    /// Bytes in the first half (a multiple of the storage offset alignment and of 8).
    pub at_bytes: u64,
}

impl SplitPlan {
    /// The plan for a binding limit of `limit` bytes and an offset alignment of `align`.
    pub fn new(limit: u64, align: u64) -> Self {
        let unit = align.max(8).next_multiple_of(8);
        Self { at_bytes: (limit / unit) * unit }
    }

    /// Elements of 8 bytes in the first half.
    pub fn at_elements(&self) -> u64 {
        self.at_bytes / 8
    }

    /// The largest buffer two bindings can hold, bytes.
    pub fn capacity(&self, limit: u64) -> u64 {
        self.at_bytes + limit
    }
}

/// A module's split variant: its source and the bindings that got a second half.
#[derive(Debug, Clone)]
pub struct SplitModule {
    pub source: String,
    pub bindings: BTreeSet<u32>,
}

/// One `var<storage, MODE> NAME: array<T>` declaration of a scalar (or atomic scalar) array.
struct Decl {
    binding: u32,
    mode: String,
    name: String,
    /// The scalar: `R`, `f64`, `u32` or `i32`.
    elem: String,
    atomic: bool,
}

impl Decl {
    /// The constant holding the first half's length in this array's elements.
    fn split_const(&self) -> &'static str {
        if matches!(self.elem.as_str(), "R" | "f64") {
            "SPLIT_AT8"
        } else {
            "SPLIT_AT4"
        }
    }
}

/// The storage declarations of scalar arrays in `src`.
fn declarations(src: &str) -> Vec<Decl> {
    let mut out = Vec::new();
    for line in src.lines() {
        let l = line.trim();
        let Some(rest) = l.strip_prefix("@group(0) @binding(") else { continue };
        let Some((num, rest)) = rest.split_once(')') else { continue };
        let Some(rest) = rest.trim_start().strip_prefix("var<storage") else { continue };
        let Some((mode, rest)) = rest.split_once('>') else { continue };
        let mode = match mode.trim_start_matches(',').trim() {
            "" => "read".to_string(),
            m => m.to_string(),
        };
        let Some((name, ty)) = rest.split_once(':') else { continue };
        let ty: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
        let Some(inner) = ty.strip_prefix("array<").and_then(|t| t.strip_suffix(">;")) else { continue };
        let (elem, atomic) = match inner.strip_prefix("atomic<").and_then(|t| t.strip_suffix('>')) {
            Some(t) => (t, true),
            None => (inner, false),
        };
        if !matches!(elem, "R" | "f64" | "u32" | "i32") {
            continue;
        }
        if let Ok(binding) = num.trim().parse() {
            out.push(Decl { binding, mode, name: name.trim().to_string(), elem: elem.to_string(), atomic });
        }
    }
    out
}

/// The split variant of `src` whose first halves hold `at_bytes` bytes (a multiple of 8).
/// Fails, naming the buffer, where a split array is used in a way the rewrite cannot follow
/// (a pointer to it outside an atomic call, `arrayLength`, a compare-exchange).
pub fn split_module(src: &str, at_bytes: u64) -> Result<SplitModule, String> {
    let decls = declarations(src);
    let names: Vec<&str> = decls.iter().map(|d| d.name.as_str()).collect();
    let mut body = String::with_capacity(src.len() * 5 / 4);
    let mut atomics = BTreeSet::new();
    rewrite(src, &names, &mut body, &mut atomics)?;
    body.push_str("\n// The split variant's second halves and accessors (crates/gpu/src/split.rs).\n");
    body.push_str(&format!("const SPLIT_AT8: u32 = {}u;\nconst SPLIT_AT4: u32 = {}u;\n", at_bytes / 8, at_bytes / 4));
    for d in &decls {
        let (n, b, m, t, k) = (&d.name, d.binding, &d.mode, &d.elem, d.split_const());
        let hi = b + HI;
        let ty = if d.atomic { format!("atomic<{t}>") } else { t.clone() };
        body.push_str(&format!("@group(0) @binding({hi}) var<storage, {m}> {n}_hi: array<{ty}>;\n"));
        if d.atomic {
            for (name, op) in atomics.iter().filter(|(a, _)| a == n) {
                body.push_str(&match op.as_str() {
                    "atomicLoad" => format!(
                        "fn {name}_{op}(i: u32) -> {t} {{ if (i < {k}) {{ return {op}(&{n}[i]); }} \
                         return {op}(&{n}_hi[i - {k}]); }}\n"
                    ),
                    "atomicStore" => format!(
                        "fn {name}_{op}(i: u32, v: {t}) {{ if (i < {k}) {{ {op}(&{n}[i], v); }} \
                         else {{ {op}(&{n}_hi[i - {k}], v); }} }}\n"
                    ),
                    "atomicCompareExchangeWeak" => return Err(format!("{n}: {op} cannot be split")),
                    _ => format!(
                        "fn {name}_{op}(i: u32, v: {t}) -> {t} {{ if (i < {k}) {{ return {op}(&{n}[i], v); }} \
                         return {op}(&{n}_hi[i - {k}], v); }}\n"
                    ),
                });
            }
            continue;
        }
        body.push_str(&format!(
            "fn {n}_ld(i: u32) -> {t} {{ if (i < {k}) {{ return {n}[i]; }} return {n}_hi[i - {k}]; }}\n"
        ));
        if m.contains("write") {
            body.push_str(&format!(
                "fn {n}_st(i: u32, v: {t}) {{ if (i < {k}) {{ {n}[i] = v; }} else {{ {n}_hi[i - {k}] = v; }} }}\n"
            ));
        }
    }
    Ok(SplitModule { source: body, bindings: decls.iter().map(|d| d.binding).collect() })
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The index of the bracket or parenthesis closing the one at `open`.
fn closing(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, &c) in s.iter().enumerate().skip(open) {
        match c {
            b'[' | b'(' => depth += 1,
            b']' | b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first byte at or after `k` that is not white space.
fn skip_space(s: &[u8], mut k: usize) -> usize {
    while k < s.len() && s[k].is_ascii_whitespace() {
        k += 1;
    }
    k
}

/// The identifier starting at `k` (empty when none).
fn ident_at(src: &str, k: usize) -> &str {
    let s = src.as_bytes();
    let mut e = k;
    while e < s.len() && is_ident(s[e]) {
        e += 1;
    }
    &src[k..e]
}

type Atomics = BTreeSet<(String, String)>;

/// Copies `src` to `out` with the accesses to `names` rewritten (comments copied as they are);
/// the atomic functions called on split arrays go into `atomics` as (array, function).
fn rewrite(src: &str, names: &[&str], out: &mut String, atomics: &mut Atomics) -> Result<(), String> {
    let s = src.as_bytes();
    let mut i = 0;
    let mut copied = 0;
    let sub = |text: &str, atomics: &mut Atomics| -> Result<String, String> {
        let mut o = String::new();
        rewrite(text, names, &mut o, atomics)?;
        Ok(o)
    };
    while i < s.len() {
        if s[i..].starts_with(b"//") {
            i += s[i..].iter().position(|&c| c == b'\n').unwrap_or(s.len() - i);
            continue;
        }
        if s[i..].starts_with(b"/*") {
            i += s[i..].windows(2).position(|w| w == b"*/").map_or(s.len() - i, |p| p + 2);
            continue;
        }
        if !(s[i].is_ascii_alphabetic() || s[i] == b'_') || (i > 0 && is_ident(s[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        let word = ident_at(src, i);
        i += word.len();
        // `atomicOp(&NAME[index], args)` on a split array: `NAME_atomicOp(u32(index), args)`.
        if word.starts_with("atomic") {
            let open = skip_space(s, i);
            let amp = skip_space(s, open + 1);
            if open < s.len() && s[open] == b'(' && amp < s.len() && s[amp] == b'&' {
                let at = skip_space(s, amp + 1);
                let name = ident_at(src, at);
                let lb = skip_space(s, at + name.len());
                if names.contains(&name) && lb < s.len() && s[lb] == b'[' {
                    let rb = closing(s, lb).ok_or_else(|| format!("{name}: unbalanced brackets"))?;
                    let rp = closing(s, open).ok_or_else(|| format!("{name}: unbalanced parentheses"))?;
                    let idx = sub(&src[lb + 1..rb], atomics)?;
                    let rest = sub(&src[rb + 1..rp], atomics)?;
                    out.push_str(&src[copied..start]);
                    out.push_str(&format!("{name}_{word}(u32({idx}){rest})"));
                    atomics.insert((name.to_string(), word.to_string()));
                    i = rp + 1;
                    copied = i;
                }
            }
            continue;
        }
        if !names.contains(&word) {
            continue;
        }
        // What precedes on the same line (a comment on an earlier line ends with anything).
        let line = src[..start].rfind('\n').map_or(0, |p| p + 1);
        let before = src[line..start].trim_end();
        if before.ends_with('&') && !before.ends_with("&&") {
            return Err(format!("{word}: a pointer to a split array (arrayLength, a variable) cannot be split"));
        }
        let j = skip_space(s, i);
        if j >= s.len() || s[j] != b'[' || before.ends_with('.') {
            continue;
        }
        let close = closing(s, j).ok_or_else(|| format!("{word}: unbalanced brackets"))?;
        let idx = sub(&src[j + 1..close], atomics)?;
        out.push_str(&src[copied..start]);
        // What follows the access: an assignment (plain or compound) or a read.
        let mut k = close + 1;
        while k < s.len() && s[k] == b' ' {
            k += 1;
        }
        let op = if k >= s.len() || s[k..].starts_with(b"==") {
            None
        } else if s[k] == b'=' {
            Some((1, ""))
        } else if s.len() > k + 1 && s[k + 1] == b'=' && matches!(s[k], b'+' | b'-' | b'*' | b'/') {
            Some((2, &src[k..k + 1]))
        } else {
            None
        };
        match op {
            Some((len, arith)) => {
                let semi = k + s[k..].iter().position(|&c| c == b';').ok_or_else(|| format!("{word}: no ';'"))?;
                let rhs = sub(src[k + len..semi].trim(), atomics)?;
                if arith.is_empty() {
                    out.push_str(&format!("{word}_st(u32({idx}), {rhs})"));
                } else {
                    out.push_str(&format!("{word}_st(u32({idx}), {word}_ld(u32({idx})) {arith} ({rhs}))"));
                }
                i = semi;
            }
            None => {
                out.push_str(&format!("{word}_ld(u32({idx}))"));
                i = close + 1;
            }
        }
        copied = i;
    }
    out.push_str(&src[copied..]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "alias R = f64;
@group(0) @binding(4) var<storage, read_write> hh: array<R>;
@group(0) @binding(5) var<storage, read> umap: array<R>;
@group(0) @binding(1) var<storage, read> rcv: array<u32>;
@group(0) @binding(6) var<storage, read_write> cnt: array<atomic<u32>>;
fn f(i: u32) {
    _ = atomicAdd(&cnt[2u * i + 1u], 1u);
    atomicStore(&cnt[i], 0u);
    // hh[i] = 3.0; a comment is left alone
    hh[i] = max(hh[rcv[i]], umap[i - 1u]);
    hh[i] += umap[hh2[i]];
    let same = hh[i] == 0.0;
}
";

    #[test]
    fn reads_and_writes_go_through_the_accessors() {
        let m = split_module(SRC, 768).unwrap();
        assert_eq!(m.bindings.iter().copied().collect::<Vec<_>>(), vec![1, 4, 5, 6]);
        let s = &m.source;
        assert!(s.contains("// hh[i] = 3.0; a comment is left alone"), "{s}");
        assert!(s.contains("hh_st(u32(i), max(hh_ld(u32(rcv_ld(u32(i)))), umap_ld(u32(i - 1u))));"), "{s}");
        assert!(s.contains("hh_st(u32(i), hh_ld(u32(i)) + (umap_ld(u32(hh2[i]))));"), "{s}");
        assert!(s.contains("let same = hh_ld(u32(i)) == 0.0;"), "{s}");
        assert!(s.contains("const SPLIT_AT8: u32 = 96u;\nconst SPLIT_AT4: u32 = 192u;"));
        assert!(s.contains(
            "fn rcv_ld(i: u32) -> u32 { if (i < SPLIT_AT4) { return rcv[i]; } return rcv_hi[i - SPLIT_AT4]; }"
        ));
        assert!(s.contains("_ = cnt_atomicAdd(u32(2u * i + 1u), 1u);"), "{s}");
        assert!(s.contains("cnt_atomicStore(u32(i), 0u);"), "{s}");
        assert!(s.contains("fn cnt_atomicAdd(i: u32, v: u32) -> u32 { if (i < SPLIT_AT4) { return atomicAdd(&cnt[i], v); } return atomicAdd(&cnt_hi[i - SPLIT_AT4], v); }"), "{s}");
        assert!(s.contains("@group(0) @binding(106) var<storage, read_write> cnt_hi: array<atomic<u32>>;"));
        assert!(!s.contains("cnt_atomicLoad"), "only the functions used are written");
        assert!(s.contains("@group(0) @binding(104) var<storage, read_write> hh_hi: array<R>;"));
        assert!(s.contains("@group(0) @binding(105) var<storage, read> umap_hi: array<R>;"));
        // A read-only buffer gets no store.
        assert!(s.contains("fn hh_st(") && !s.contains("fn umap_st("));
    }

    #[test]
    fn pointers_to_split_arrays_are_refused_by_name() {
        let src = "alias R = f64;\n@group(0) @binding(2) var<storage, read_write> out: array<R>;\n\
                   fn f() { let n = arrayLength(&out); }\n";
        let e = split_module(src, 64).unwrap_err();
        assert!(e.starts_with("out:"), "{e}");
    }

    #[test]
    fn the_plan_keeps_the_offset_aligned() {
        let p = SplitPlan::new((1u64 << 31) - 4, 256);
        assert_eq!(p.at_bytes, (1u64 << 31) - 256);
        assert_eq!(p.at_elements() * 8, p.at_bytes);
        assert_eq!(SplitPlan::new(1000, 4).at_bytes, 1000);
    }

    #[test]
    fn every_module_of_the_crate_splits() {
        for (name, src) in crate::SHADERS {
            let m = split_module(src, 1 << 23).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!m.bindings.is_empty(), "{name} has f64 buffers");
        }
    }
}
