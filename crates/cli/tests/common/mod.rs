//! Shared helpers of the CLI's integration tests.

/// Whether a GPU adapter works here. Without one the GPU tests skip with a message, except under
/// `CI=true`, where CI installs lavapipe and a missing adapter is a broken setup: they fail.
pub fn gpu_available() -> bool {
    if !cfg!(feature = "gpu") {
        eprintln!("skipping: this build of bozkir has no GPU support (the `gpu` feature is off)");
        return false;
    }
    match bozkir_gpu::Gpu::new() {
        Ok(_) => true,
        Err(e) => {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            assert!(!ci, "CI=true and no GPU adapter: {e}");
            eprintln!("skipping: no GPU ({e})");
            false
        }
    }
}
