//! The run-time choice of the hot loops' AVX2 builds.
//!
//! A hot loop is written once, portably, as an `#[inline(always)]` function; its AVX2 twin is
//! the same function compiled inside a `#[target_feature(enable = "avx2", …)]` wrapper, chosen
//! at run time where [`avx2`] says the CPU has the instructions. The twin runs the same
//! operations in the same order (Rust never fuses a multiply and an add, and `sqrt` and division
//! are correctly rounded in every width), so it gives the same bits; the tests turn the twins
//! off ([`PORTABLE`]) and compare.

/// Whether the AVX2 builds run: x86-64 CPUs with AVX2, BMI1/2, LZCNT and POPCNT.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn avx2() -> bool {
    #[cfg(test)]
    if PORTABLE.load(std::sync::atomic::Ordering::Relaxed) {
        return false;
    }
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("popcnt")
}

/// Set while a test runs the portable loops in place of their AVX2 builds (other tests running
/// meanwhile take the portable loops too, and give the same bits: that is the point).
#[cfg(test)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) static PORTABLE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
