//! The run-time choice of the hot loops' AVX2 builds.
//!
//! A hot loop is written once, portably, as an `#[inline(always)]` function; its AVX2 twin is
//! the same function compiled inside a `#[target_feature(enable = "avx2", …)]` wrapper, chosen
//! at run time where [`avx2`] says the CPU has the instructions. The twin runs the same
//! operations in the same order (Rust never fuses a multiply and an add, and `sqrt` and division
//! are correctly rounded in every width), so it gives the same bits; the tests turn the twins
//! off ([`FORCE_PORTABLE`]) and compare.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set to run the portable loops in place of their AVX2 builds, for tests that compare the two
/// (other work running meanwhile takes the portable loops too, and gives the same bits: that is
/// the point). Not an option for users: the results are the same either way.
pub static FORCE_PORTABLE: AtomicBool = AtomicBool::new(false);

/// Whether the AVX2 builds run: x86-64 CPUs with AVX2, BMI1/2, LZCNT and POPCNT, unless
/// [`FORCE_PORTABLE`] is set. Always false on other architectures.
#[inline]
pub fn avx2() -> bool {
    if FORCE_PORTABLE.load(Ordering::Relaxed) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}
