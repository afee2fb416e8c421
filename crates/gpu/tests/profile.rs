//! The timestamp profile (`BOZKIR_GPU_PROFILE=1`, set here before this process's `Gpu` is made).
mod common;

#[test]
fn profile_names_each_dispatch_in_order() {
    std::env::set_var("BOZKIR_GPU_PROFILE", "1");
    let Some(gpu) = common::gpu() else { return };
    let Some(first) = gpu.profile_dispatches().unwrap() else {
        eprintln!("no timestamp queries inside passes on {}: nothing to check", gpu.adapter_name());
        return;
    };
    assert!(first.is_empty(), "{first:?}");
    let g = common::hills(70, 50, 100.0, 1.0, 1.0);
    bozkir_gpu::flow::accumulate_cells(gpu, &g).unwrap();
    let got = gpu.profile_dispatches().unwrap().unwrap();
    let names: Vec<&str> = got.iter().map(|d| d.0).collect();
    // Routing, then the accumulation's first kernels in the order recorded.
    assert_eq!(&names[..4], ["d8", "acc_tile_local", "roots_args", "acc_link"], "{names:?}");
    assert_eq!(names.last(), Some(&"acc_tile_final"));
    assert!(got.iter().all(|d| d.1.is_finite() && d.1 >= 0.0), "{got:?}");
    // Taken: the next call starts afresh.
    assert!(gpu.profile_dispatches().unwrap().unwrap().is_empty());
}
