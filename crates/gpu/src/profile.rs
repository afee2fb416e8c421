//! Per-kernel GPU times from timestamp queries, a diagnostic (`BOZKIR_GPU_PROFILE=1`).
//!
//! With the variable set, [`crate::Gpu::new`] asks for timestamp queries inside compute passes
//! where the adapter has them, and every dispatch recorded through the crate's dispatch helpers
//! is bracketed by two timestamps, labelled with its entry point, and
//! [`crate::Gpu::profile_dispatches`] returns them in order. The timestamps measure each dispatch from
//! the device's point of view, barrier wait included; the sum over a step can differ from the
//! step's wall time by the host's submission gaps. Without the variable (or the feature) nothing
//! is recorded and the helpers pay one atomic load per dispatch.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Dispatches one report can hold (two timestamps each); later ones are not recorded.
const PAIRS: u32 = 2048;

struct Profiler {
    set: wgpu::QuerySet,
    /// Entry point of each compiled pipeline, by the pipeline's address.
    names: HashMap<usize, &'static str>,
    /// Entry point of each recorded pair.
    labels: Vec<&'static str>,
}

static PROFILER: Mutex<Option<Profiler>> = Mutex::new(None);
/// Whether `PROFILER` holds one (read before taking the lock on every dispatch).
static ON: AtomicBool = AtomicBool::new(false);

/// The features to ask for: the timestamp ones when the variable is set and the adapter has them.
pub(crate) fn features(adapter: &wgpu::Adapter) -> wgpu::Features {
    let want = wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES;
    if std::env::var_os("BOZKIR_GPU_PROFILE").is_some() && adapter.features().contains(want) {
        want
    } else {
        wgpu::Features::empty()
    }
}

/// Starts recording on `device` when it has the features (the last device made wins).
pub(crate) fn start(device: &wgpu::Device) {
    let mut p = PROFILER.lock().unwrap();
    *p = device.features().contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES).then(|| Profiler {
        set: device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("profile"),
            ty: wgpu::QueryType::Timestamp,
            count: 2 * PAIRS,
        }),
        names: HashMap::new(),
        labels: Vec::new(),
    });
    ON.store(p.is_some(), Ordering::Relaxed);
}

/// Names the pipeline at `addr` (its entry point).
pub(crate) fn name(addr: usize, entry: &'static str) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    if let Some(p) = PROFILER.lock().unwrap().as_mut() {
        p.names.insert(addr, entry);
    }
}

/// Records `record` (one dispatch of `pipeline` into `pass`) between two timestamps.
pub(crate) fn timed(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    record: impl FnOnce(&mut wgpu::ComputePass<'_>),
) {
    if !ON.load(Ordering::Relaxed) {
        record(pass);
        return;
    }
    let mut guard = PROFILER.lock().unwrap();
    let Some(p) = guard.as_mut().filter(|p| (p.labels.len() as u32) < PAIRS) else {
        drop(guard);
        record(pass);
        return;
    };
    let k = p.labels.len() as u32;
    p.labels.push(p.names.get(&(pipeline as *const _ as usize)).copied().unwrap_or("?"));
    pass.write_timestamp(&p.set, 2 * k);
    record(pass);
    pass.write_timestamp(&p.set, 2 * k + 1);
}

/// The dispatches recorded (and submitted) since the last call, in the order recorded: entry
/// point and device milliseconds; `None` when not profiling.
pub(crate) fn take(gpu: &crate::Gpu) -> Result<Option<Vec<crate::DispatchTime>>, crate::GpuError> {
    let (labels, buf) = {
        let mut guard = PROFILER.lock().unwrap();
        let Some(p) = guard.as_mut() else { return Ok(None) };
        let labels = std::mem::take(&mut p.labels);
        if labels.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let buf = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("profile resolve"),
            size: 16 * labels.len() as u64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut enc = gpu.encoder();
        enc.resolve_query_set(&p.set, 0..2 * labels.len() as u32, &buf, 0);
        gpu.queue.submit([enc.finish()]);
        (labels, buf)
    };
    let ts: Vec<u64> = gpu.read(&buf, 2 * labels.len())?;
    let period = gpu.queue.get_timestamp_period() as f64;
    Ok(Some(
        labels
            .iter()
            .enumerate()
            .map(|(k, &l)| (l, ts[2 * k + 1].saturating_sub(ts[2 * k]) as f64 * period * 1e-6))
            .collect(),
    ))
}

/// Profiled dispatches summed by entry point: (entry, dispatches, milliseconds), the most
/// expensive first.
pub fn by_kernel(raw: &[crate::DispatchTime]) -> Vec<(&'static str, usize, f64)> {
    let mut by: Vec<(&'static str, usize, f64)> = Vec::new();
    for &(k, ms) in raw {
        match by.iter_mut().find(|b| b.0 == k) {
            Some(b) => (b.1, b.2) = (b.1 + 1, b.2 + ms),
            None => by.push((k, 1, ms)),
        }
    }
    by.sort_by(|a, b| b.2.total_cmp(&a.2));
    by
}
