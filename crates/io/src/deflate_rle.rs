//! A Deflate compressor for PNG strips: runs and literals under dynamic Huffman codes.
//!
//! RFC 1951 blocks of type 2 (dynamic Huffman). The only matches are runs: a byte repeating the
//! one before it three or more times is coded as a length with distance 1 (zlib calls this
//! strategy `Z_RLE`); every other byte is a literal. PNG rows after the Sub filter are mostly
//! short-range noise (where a match search finds little and costs much) and flat stretches
//! (which become runs), so this keeps most of what a full search gains at a fraction of its time.
//!
//! Each block covers [`BLOCK`] input bytes: one pass makes the tokens and counts them, the codes
//! are built from the counts (lengths at most 15 bits, 7 for the code-length code; where a code
//! would be longer the counts are halved and the code rebuilt), a second pass writes the bits.
//! No block is final; the stream ends with an empty stored block (a sync flush), so it ends on a
//! byte boundary and another stream's blocks can follow it.

/// Input bytes per block.
const BLOCK: usize = 1 << 17;
/// Longest and shortest run a match codes.
const MAX_RUN: usize = 258;
const MIN_RUN: usize = 3;
/// Literal/length symbols: 256 literals, end of block, 29 length codes.
const NLIT: usize = 286;
const END: usize = 256;

/// First length of each length code 257..=285 and its extra bits.
const LEN_BASE: [u16; 29] =
    [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA: [u8; 29] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
/// The order in which the code-length code's lengths are sent.
const CL_ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/// [`len_code`] of every length 0..=258 (0 below 3).
const LEN_CODE: [u8; 259] = {
    let mut t = [0u8; 259];
    let mut c = 0;
    while c < 29 {
        let base = LEN_BASE[c] as usize;
        let span = if c == 28 { 1 } else { 1usize << LEN_EXTRA[c] };
        let mut k = 0;
        while k < span && base + k <= 258 {
            t[base + k] = c as u8;
            k += 1;
        }
        c += 1;
    }
    t[258] = 28;
    t
};

/// The length code (index into [`LEN_BASE`]) of a run of `len` bytes (3..=258).
#[inline(always)]
fn len_code(len: usize) -> usize {
    usize::from(LEN_CODE[len])
}

/// Bits written least significant first, as Deflate packs them.
struct Bits<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    n: u32,
}

impl<'a> Bits<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        Self { out, acc: 0, n: 0 }
    }

    /// Appends the low `n` bits of `v` (`n` ≤ 32).
    #[inline(always)]
    fn put(&mut self, v: u32, n: u32) {
        debug_assert!(n <= 32 && (n == 32 || v >> n == 0));
        self.acc |= u64::from(v) << self.n;
        self.n += n;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.n -= 32;
        }
    }

    /// Pads to a byte boundary with zero bits and writes what is held.
    fn align(&mut self) {
        while self.n > 0 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n = self.n.saturating_sub(8);
        }
        self.acc = 0;
    }
}

/// Huffman code lengths for `freq` (0 for unused symbols), none longer than `limit`. With fewer
/// than two used symbols, two symbols get length 1 (a complete code, which every decoder takes).
fn code_lengths(freq: &[u32], limit: u8) -> Vec<u8> {
    let mut f: Vec<u32> = freq.to_vec();
    loop {
        let lens = huffman_lengths(&f);
        if lens.iter().all(|&l| l <= limit) {
            return lens;
        }
        // Too deep: flatten the counts (used symbols stay used) and build again.
        for v in f.iter_mut().filter(|v| **v > 0) {
            *v = (*v >> 1).max(1);
        }
    }
}

/// Unlimited Huffman code lengths (see [`code_lengths`] for the cases of 0 or 1 used symbol).
fn huffman_lengths(freq: &[u32]) -> Vec<u8> {
    let n = freq.len();
    let mut lens = vec![0u8; n];
    let used: Vec<usize> = (0..n).filter(|&i| freq[i] > 0).collect();
    if used.len() < 2 {
        let first = used.first().copied().unwrap_or(0);
        lens[first] = 1;
        lens[if first == 0 { 1 } else { 0 }] = 1;
        return lens;
    }
    // Nodes: leaves 0..m, then internal ones; a min-heap by (weight, node) for a fixed outcome.
    let m = used.len();
    let mut parent = vec![usize::MAX; 2 * m - 1];
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> =
        used.iter().enumerate().map(|(k, &s)| std::cmp::Reverse((u64::from(freq[s]), k))).collect();
    let mut next = m;
    while heap.len() > 1 {
        let std::cmp::Reverse((wa, a)) = heap.pop().expect("two nodes");
        let std::cmp::Reverse((wb, b)) = heap.pop().expect("two nodes");
        parent[a] = next;
        parent[b] = next;
        heap.push(std::cmp::Reverse((wa + wb, next)));
        next += 1;
    }
    // Depths: parents are numbered after their children, so walk from the root down.
    let mut depth = vec![0u32; 2 * m - 1];
    for k in (0..2 * m - 2).rev() {
        depth[k] = depth[parent[k]] + 1;
    }
    for (k, &s) in used.iter().enumerate() {
        lens[s] = depth[k].min(255) as u8;
    }
    lens
}

/// Canonical codes of `lens`, bit-reversed for [`Bits::put`].
fn codes(lens: &[u8]) -> Vec<u32> {
    let mut count = [0u32; 16];
    for &l in lens {
        count[usize::from(l)] += 1;
    }
    count[0] = 0;
    let mut next = [0u32; 16];
    let mut code = 0u32;
    for bits in 1..16 {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
    }
    lens.iter()
        .map(|&l| {
            if l == 0 {
                return 0;
            }
            let c = next[usize::from(l)];
            next[usize::from(l)] += 1;
            c.reverse_bits() >> (32 - u32::from(l))
        })
        .collect()
}

/// Tokens of `data[start..end]` into `toks` (a literal byte 0..=255, or a run of `t − 253`
/// bytes for `t` in 256..=511, runs of 3..=258 repeating the byte before them), counted into
/// `lit` as literal/length symbols. `data[start − 1]` may start a run.
fn tokens(data: &[u8], start: usize, end: usize, toks: &mut Vec<u16>, lit: &mut [u32; NLIT]) {
    toks.clear();
    let mut i = start;
    if i == 0 && i < end {
        toks.push(u16::from(data[0]));
        lit[usize::from(data[0])] += 1;
        i = 1;
    }
    while i < end {
        let prev = data[i - 1];
        let b = data[i];
        if b == prev && i + 2 < end && data[i + 1] == prev && data[i + 2] == prev {
            let max = (end - i).min(MAX_RUN);
            let mut r = MIN_RUN;
            let pat = u64::from_ne_bytes([prev; 8]);
            while r + 8 <= max && u64::from_ne_bytes(data[i + r..i + r + 8].try_into().expect("8 bytes")) == pat {
                r += 8;
            }
            while r < max && data[i + r] == prev {
                r += 1;
            }
            toks.push((r + 253) as u16);
            lit[257 + len_code(r)] += 1;
            i += r;
        } else {
            toks.push(u16::from(b));
            lit[usize::from(b)] += 1;
            i += 1;
        }
    }
}

/// Compresses `data` as raw Deflate blocks (none final) followed by an empty stored block,
/// appending to `out`: see the module documentation.
pub(crate) fn compress(data: &[u8], out: &mut Vec<u8>) {
    let mut bits = Bits::new(out);
    let mut toks: Vec<u16> = Vec::with_capacity(BLOCK.min(data.len()));
    let mut start = 0;
    while start < data.len() {
        let end = (start + BLOCK).min(data.len());
        let mut lit = [0u32; NLIT];
        tokens(data, start, end, &mut toks, &mut lit);
        block(&toks, lit, &mut bits);
        start = end;
    }
    // Sync flush: a stored block, not final, of no bytes.
    bits.put(0, 3);
    bits.align();
    bits.out.extend_from_slice(&[0, 0, 0xFF, 0xFF]);
}

/// Writes one dynamic-Huffman block of `toks`.
fn block(toks: &[u16], mut lit: [u32; NLIT], bits: &mut Bits) {
    lit[END] = 1;
    let lit_lens = code_lengths(&lit, 15);
    // Distance 1 is code 0; codes 0 and 1 of length 1 make a complete distance code.
    let dist_lens = [1u8, 1];
    let hlit = (257..=NLIT).rev().find(|&k| lit_lens[k - 1] != 0).unwrap_or(257).max(257);

    // The code lengths, run-length coded with symbols 16 (repeat the previous 3-6 times),
    // 17 (3-10 zeros) and 18 (11-138 zeros): (symbol, extra value).
    let all: Vec<u8> = lit_lens[..hlit].iter().chain(dist_lens.iter()).copied().collect();
    let mut cl: Vec<(u8, u8)> = Vec::new();
    let mut k = 0;
    while k < all.len() {
        let v = all[k];
        let mut run = 1;
        while k + run < all.len() && all[k + run] == v {
            run += 1;
        }
        let mut left = run;
        if v == 0 {
            while left >= 11 {
                let r = left.min(138);
                cl.push((18, (r - 11) as u8));
                left -= r;
            }
            if left >= 3 {
                cl.push((17, (left - 3) as u8));
                left = 0;
            }
        } else {
            cl.push((v, 0));
            left -= 1;
            while left >= 3 {
                let r = left.min(6);
                cl.push((16, (r - 3) as u8));
                left -= r;
            }
        }
        for _ in 0..left {
            cl.push((v, 0));
        }
        k += run;
    }
    let mut cl_freq = [0u32; 19];
    for &(s, _) in &cl {
        cl_freq[usize::from(s)] += 1;
    }
    let cl_lens = code_lengths(&cl_freq, 7);
    let cl_codes = codes(&cl_lens);
    let hclen = (4..=19).rev().find(|&n| cl_lens[CL_ORDER[n - 1]] != 0).unwrap_or(4).max(4);

    // Header: not final, type 2; HLIT, HDIST, HCLEN; the code-length code; the lengths.
    bits.put(0b100, 3);
    bits.put((hlit - 257) as u32, 5);
    bits.put((dist_lens.len() - 1) as u32, 5);
    bits.put((hclen - 4) as u32, 4);
    for &s in &CL_ORDER[..hclen] {
        bits.put(u32::from(cl_lens[s]), 3);
    }
    for &(s, e) in &cl {
        let s = usize::from(s);
        bits.put(cl_codes[s], u32::from(cl_lens[s]));
        match s {
            16 => bits.put(u32::from(e), 2),
            17 => bits.put(u32::from(e), 3),
            18 => bits.put(u32::from(e), 7),
            _ => {}
        }
    }

    // The tokens, then the end of the block. A run: its length code and extra bits, then
    // distance code 0 (one bit, 0).
    let lit_codes = codes(&lit_lens);
    // Every token's whole bit string: a literal's code, or a run's length code, extra bits and
    // the one-bit distance code 0; at most 15 + 5 + 1 bits.
    let mut table = [(0u32, 0u32); 512];
    for t in 0..256 {
        table[t] = (lit_codes[t], u32::from(lit_lens[t]));
    }
    for len in MIN_RUN..=MAX_RUN {
        let lc = len_code(len);
        let (c, n) = (lit_codes[257 + lc], u32::from(lit_lens[257 + lc]));
        let extra = u32::from(LEN_EXTRA[lc]);
        let e = (len - usize::from(LEN_BASE[lc])) as u32;
        table[len + 253] = (c | e << n, n + extra + 1);
    }
    // At most 21 bits a token: room for all of them at once.
    bits.out.reserve(toks.len() * 3 + 8);
    for &t in toks {
        let (c, n) = table[usize::from(t) & 511];
        bits.put(c, n);
    }
    bits.put(lit_codes[END], u32::from(lit_lens[END]));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `data` compressed, then inflated by flate2 as a raw stream (a final empty block added).
    fn round_trip(data: &[u8]) -> Vec<u8> {
        let mut z = Vec::new();
        compress(data, &mut z);
        // A final fixed block with only the end code: bits 1, 01, 0000000.
        z.extend_from_slice(&[0x03, 0x00]);
        let mut back = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::DeflateDecoder::new(&z[..]), &mut back).unwrap();
        back
    }

    /// The last length code whose base is at most `len`: the table's definition, by search.
    fn len_code_search(len: usize) -> usize {
        if len == MAX_RUN {
            return 28;
        }
        LEN_BASE[..28].partition_point(|&b| usize::from(b) <= len) - 1
    }

    #[test]
    fn run_lengths_map_to_their_codes() {
        for len in MIN_RUN..=MAX_RUN {
            assert_eq!(len_code(len), len_code_search(len), "{len}");
        }
        assert_eq!(len_code(3), 0);
        assert_eq!(len_code(10), 7);
        assert_eq!(len_code(11), 8);
        assert_eq!(len_code(12), 8);
        assert_eq!(len_code(13), 9);
        assert_eq!(len_code(257), 27);
        assert_eq!(len_code(258), 28);
        for len in MIN_RUN..=MAX_RUN {
            let c = len_code(len);
            let span = 1usize << LEN_EXTRA[c];
            assert!(len >= usize::from(LEN_BASE[c]) && (len < usize::from(LEN_BASE[c]) + span || c == 28), "{len}");
        }
    }

    #[test]
    fn codes_are_complete_and_within_their_limits() {
        // Skewed counts (Fibonacci-like) that a plain Huffman code would make 30 deep.
        let mut f = vec![0u32; NLIT];
        let (mut a, mut b) = (1u32, 1u32);
        for v in f.iter_mut().take(40) {
            *v = a;
            (a, b) = (b, a.saturating_add(b));
        }
        for (freq, limit) in [(f.clone(), 15u8), (f[..19].to_vec(), 7), (vec![0, 5, 0], 15), (vec![0; 19], 7)] {
            let lens = code_lengths(&freq, limit);
            assert!(lens.iter().all(|&l| l <= limit));
            let kraft: f64 = lens.iter().filter(|&&l| l > 0).map(|&l| 0.5f64.powi(i32::from(l))).sum();
            assert!((kraft - 1.0).abs() < 1e-12, "{kraft}");
            assert!(freq.iter().zip(&lens).all(|(&c, &l)| c == 0 || l > 0));
        }
    }

    #[test]
    fn round_trips_runs_noise_and_edges() {
        let mut x = 0x2545_F491u32;
        let mut noise = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    (x >> 24) as u8
                })
                .collect()
        };
        let mut cases: Vec<Vec<u8>> = vec![vec![], vec![7], vec![7, 7], vec![7, 7, 7], vec![7; 4], vec![0; 1000]];
        cases.push(vec![9; MAX_RUN + 1]);
        cases.push(vec![9; 3 * MAX_RUN + 2]);
        cases.push(vec![1; 2 * BLOCK + 5]);
        cases.push(noise(BLOCK + 3));
        // Runs of every length 1..=300 between changing bytes, across block ends.
        let mut mixed = Vec::new();
        for len in 1..=300 {
            mixed.extend(std::iter::repeat_n((len % 251) as u8, len));
        }
        mixed.extend(noise(5000));
        mixed.extend(std::iter::repeat_n(0u8, BLOCK));
        cases.push(mixed);
        for (k, data) in cases.iter().enumerate() {
            assert!(round_trip(data) == *data, "case {k} ({} bytes)", data.len());
        }
    }

    #[test]
    fn flat_data_shrinks_and_noise_stays_near_its_size() {
        let mut z = Vec::new();
        compress(&vec![0u8; 1 << 20], &mut z);
        assert!(z.len() < 2000, "{}", z.len());
        let mut x = 1u32;
        let noise: Vec<u8> = (0..1 << 20)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
            .collect();
        let mut z = Vec::new();
        compress(&noise, &mut z);
        assert!(z.len() <= noise.len() + noise.len() / 100, "{}", z.len());
    }
}
