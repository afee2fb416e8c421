//! Large work buffers backed by transparent huge pages where the system offers them.
//!
//! A freshly allocated buffer is mapped page by page as it is first written. With 4 KiB pages a
//! 1024² `f64` grid takes 2048 page faults (a 10-step `bozkir erode` at 1024² took 54 000 faults,
//! and the kernel's page clearing was 23 % of a one-step run's profile). Linux maps
//! 2 MiB pages instead for memory marked `MADV_HUGEPAGE` (when
//! `/sys/kernel/mm/transparent_hugepage/enabled` is `always` or `madvise`, the usual default):
//! 512 times fewer faults. Contents and results do not change; elsewhere, or for small buffers,
//! these functions only allocate.

/// Buffers smaller than this are left alone (a huge page would be mostly empty).
const MIN_BYTES: usize = 4 << 20;
#[cfg(target_os = "linux")]
const HUGE: usize = 2 << 20;

/// `vec![0.0; n]`, its pages marked for huge pages before anything touches them.
pub fn zeroed_f64(n: usize) -> Vec<f64> {
    let v = vec![0.0f64; n];
    advise_huge_pages(&v);
    v
}

/// `vec![0u8; n]`, its pages marked for huge pages before anything touches them.
pub fn zeroed_u8(n: usize) -> Vec<u8> {
    let v = vec![0u8; n];
    advise_huge_pages(&v);
    v
}

/// `vec![0u32; n]`, its pages marked for huge pages before anything touches them.
pub fn zeroed_u32(n: usize) -> Vec<u32> {
    let v = vec![0u32; n];
    advise_huge_pages(&v);
    v
}

/// `vec![0u64; n]`, its pages marked for huge pages before anything touches them.
pub fn zeroed_u64(n: usize) -> Vec<u64> {
    let v = vec![0u64; n];
    advise_huge_pages(&v);
    v
}

/// Maps every page of `v` now, by writing a zero byte at the start of each 4 KiB page: `v`
/// must hold only zero bytes (a buffer of the `zeroed_*` functions not yet written), so no value
/// changes. For a thread with nothing else to do (a core idle while another fills a DEM): the
/// page faults of a fresh buffer otherwise fall on the first pass that writes it.
pub fn prefault_zeroed<T: Copy>(v: &mut [T]) {
    let bytes = std::mem::size_of_val(v);
    let p = v.as_mut_ptr().cast::<u8>();
    for off in (0..bytes).step_by(4096) {
        // SAFETY: `off` lies inside `v`'s bytes, and a zero byte is written where the caller
        // promises a zero byte already is; volatile so the writes are not elided.
        unsafe { std::ptr::write_volatile(p.add(off), 0) };
    }
}

/// Asks the cache for element `i` of the array at `base`, ahead of a load the caller knows is
/// coming (walks in an order that jumps about a grid: drainage trees, stacks; measured gains in
/// docs/benchmarks.md). A
/// hint: it never faults, whatever the address, and changes no value. On other architectures it
/// does nothing.
#[inline(always)]
pub fn prefetch_at<T>(base: *const T, i: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint that never faults and reads nothing into registers; the
    // address is formed with wrapping arithmetic, never dereferenced.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(base.wrapping_add(i).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (base, i);
}

/// Marks the whole 2 MiB pages inside `v`'s allocation for transparent huge pages (Linux; a hint
/// the kernel may ignore). Only pages not yet touched are affected.
pub fn advise_huge_pages<T>(v: &[T]) {
    advise_range(v.as_ptr() as usize, std::mem::size_of_val(v));
}

/// [`advise_huge_pages`] for the `bytes` bytes at address `start` (of one live allocation).
fn advise_range(start: usize, bytes: usize) {
    if bytes < MIN_BYTES || start == 0 {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let first = start.next_multiple_of(HUGE);
        let end = (start + bytes) / HUGE * HUGE;
        if end > first {
            // SAFETY: the range lies inside one live allocation; MADV_HUGEPAGE changes how the
            // kernel backs it, never its contents, and a failure (EINVAL without THP) is ignored.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// The system allocator, with every block of 4 MiB or more marked for transparent huge pages
/// as it is allocated (before anything touches it) or grown. A program installs it with
/// `#[global_allocator]` (the `bozkir` binary does); the library crates never depend on it.
///
/// Why: at 8192² every grid is 512 MiB, and with 4 KiB pages a `terrain --recipe ds2` run
/// took 10.8 million page faults on the H200 host (THP in `madvise` mode there, as on most
/// distributions), each one a trip into the kernel (the run took 1.15–1.25× less wall time with
/// the hint, in the same call; where the time went inside the kernel was not measured). The hint changes how memory is backed, never what it holds.
pub struct HugePageAlloc;

// SAFETY: every call is forwarded to `System` with the same arguments; the only addition is
// an madvise hint on the returned block, which neither moves nor changes it.
unsafe impl std::alloc::GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let p = std::alloc::System.alloc(layout);
        advise_range(p as usize, layout.size());
        p
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        let p = std::alloc::System.alloc_zeroed(layout);
        advise_range(p as usize, layout.size());
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        std::alloc::System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let p = std::alloc::System.realloc(ptr, layout, new_size);
        advise_range(p as usize, new_size);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefaulting_keeps_a_zeroed_buffer_zero() {
        for n in [0, 1, 511, 512, 513, 3 << 19] {
            let mut v = zeroed_f64(n);
            prefault_zeroed(&mut v);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|x| x.to_bits() == 0), "{n}");
            let mut b = zeroed_u8(n + 7);
            prefault_zeroed(&mut b[3..]);
            assert!(b.iter().all(|&x| x == 0));
        }
    }

    #[test]
    fn the_allocator_hands_back_what_was_asked() {
        use std::alloc::{GlobalAlloc, Layout};
        let a = HugePageAlloc;
        for (size, align) in [(8, 8), (4 << 20, 64), ((6 << 20) + 3, 4096)] {
            let l = Layout::from_size_align(size, align).unwrap();
            // SAFETY: non-zero sizes, freed with the layout they were allocated with.
            unsafe {
                let z = a.alloc_zeroed(l);
                assert!(!z.is_null() && (z as usize).is_multiple_of(align));
                assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                z.write_bytes(7, size);
                let g = a.realloc(z, l, size * 2);
                assert!(std::slice::from_raw_parts(g, size).iter().all(|&b| b == 7));
                a.dealloc(g, Layout::from_size_align(size * 2, align).unwrap());
            }
        }
    }

    #[test]
    fn buffers_are_zero_and_keep_their_length() {
        for n in [0, 1, 1000, 1 << 20] {
            let (a, b, c, d) = (zeroed_f64(n), zeroed_u32(n), zeroed_u64(n), zeroed_u8(n));
            assert_eq!((a.len(), b.len(), c.len(), d.len()), (n, n, n, n));
            assert!(a.iter().all(|&v| v.to_bits() == 0) && b.iter().all(|&v| v == 0) && c.iter().all(|&v| v == 0));
            assert!(d.iter().all(|&v| v == 0));
        }
    }
}
