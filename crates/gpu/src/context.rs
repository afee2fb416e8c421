//! The GPU context: adapter selection, feature and limit checks, buffers, pipelines, errors.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use wgpu::util::DeviceExt;

/// Threads per workgroup of every kernel (`@workgroup_size(256)` in the WGSL).
pub const WG: u32 = 256;

/// What went wrong while getting or using a GPU. Every variant says what to do next in its
/// message; callers in `auto` mode print it and run the CPU path instead.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GpuError {
    /// No Vulkan adapter at all (no driver, no ICD, a container without the device).
    #[error("no GPU adapter found (Vulkan): {0}")]
    NoAdapter(String),
    /// An adapter lacks a feature the kernels need (e.g. `shader-f64`).
    #[error("GPU adapter {adapter:?} lacks the feature {feature}, which the kernels need")]
    MissingFeature { adapter: String, feature: &'static str },
    /// An adapter's limits are below what the kernels need.
    #[error("GPU adapter {adapter:?}: limit {limit} is {have}, the kernels need at least {need}")]
    Limits { adapter: String, limit: &'static str, have: u64, need: u64 },
    /// A grid needs a buffer larger than the device allows.
    #[error(
        "grid of {width}x{height} needs a {bytes}-byte GPU buffer, over the device's limit of {max} bytes \
         ({adapter:?})"
    )]
    GridTooLarge { width: usize, height: usize, bytes: u64, max: u64, adapter: String },
    /// The device refused a request or was lost (validation, out of memory, driver reset).
    #[error("GPU device error: {0}")]
    Device(String),
    /// A kernel's parameters are outside what the GPU path supports (the CPU path does).
    #[error("not supported on the GPU path: {0}")]
    Unsupported(String),
}

/// `--gpu` of the command line: `off` (CPU only), `auto` (GPU when one works, else CPU with a
/// message saying why) or `require` (GPU or a clear error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GpuMode {
    #[default]
    Off,
    Auto,
    Require,
}

impl FromStr for GpuMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" | "cpu" | "false" | "no" => Ok(Self::Off),
            "auto" | "" | "true" | "on" | "yes" => Ok(Self::Auto),
            "require" | "required" | "force" => Ok(Self::Require),
            _ => Err(format!("--gpu must be auto, require or off, got {s:?}")),
        }
    }
}

impl fmt::Display for GpuMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Off => "off",
            Self::Auto => "auto",
            Self::Require => "require",
        })
    }
}

/// Which backend produced a result (recorded in sidecars).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    Cpu,
    /// The GPU, with the adapter's name and driver.
    Gpu(String),
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Cpu => f.write_str("cpu"),
            Self::Gpu(name) => write!(f, "gpu ({name})"),
        }
    }
}

/// The limits the kernels need (every kernel binds at most 10 storage buffers, 256 threads
/// per workgroup).
const NEED_STORAGE_BUFFERS: u32 = 10;

/// A wgpu device and queue with the kernels' pipelines, created once and reused.
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    name: String,
    max_buffer: u64,
    pipelines: Mutex<HashMap<(&'static str, &'static str), Arc<wgpu::ComputePipeline>>>,
    errors: Arc<Mutex<Vec<String>>>,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu").field("adapter", &self.name).field("max_buffer", &self.max_buffer).finish()
    }
}

impl Gpu {
    /// The best Vulkan adapter (discrete over integrated over virtual over CPU) that has
    /// `shader-f64`. `BOZKIR_GPU_ADAPTER=substring` picks one by name instead.
    pub fn new() -> Result<Self, GpuError> {
        pollster::block_on(Self::new_async())
    }

    async fn new_async() -> Result<Self, GpuError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN;
        let instance = wgpu::Instance::new(desc);
        let adapters = instance.enumerate_adapters(wgpu::Backends::VULKAN).await;
        if adapters.is_empty() {
            return Err(GpuError::NoAdapter(
                "no Vulkan driver answered (install a Vulkan ICD, e.g. mesa-vulkan-drivers for the software \
                 lavapipe, or the GPU vendor's driver)"
                    .into(),
            ));
        }
        let want = std::env::var("BOZKIR_GPU_ADAPTER").ok().filter(|s| !s.is_empty());
        let rank = |t: wgpu::DeviceType| match t {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Other => 3,
            wgpu::DeviceType::Cpu => 4,
        };
        let mut cands: Vec<wgpu::Adapter> = adapters
            .into_iter()
            .filter(|a| want.as_ref().is_none_or(|w| a.get_info().name.to_lowercase().contains(&w.to_lowercase())))
            .collect();
        if cands.is_empty() {
            return Err(GpuError::NoAdapter(format!("no adapter's name contains BOZKIR_GPU_ADAPTER={want:?}")));
        }
        cands.sort_by_key(|a| (!a.features().contains(wgpu::Features::SHADER_F64), rank(a.get_info().device_type)));
        let adapter = cands.swap_remove(0);
        let info = adapter.get_info();
        let name =
            format!("{} ({:?}, {} {})", info.name, info.backend, info.driver, info.driver_info).trim().to_string();
        if !adapter.features().contains(wgpu::Features::SHADER_F64) {
            return Err(GpuError::MissingFeature { adapter: name, feature: "shader-f64 (64-bit floats in shaders)" });
        }
        let al = adapter.limits();
        let checks: [(&'static str, u64, u64); 4] = [
            (
                "max_storage_buffers_per_shader_stage",
                al.max_storage_buffers_per_shader_stage as u64,
                NEED_STORAGE_BUFFERS as u64,
            ),
            ("max_compute_invocations_per_workgroup", al.max_compute_invocations_per_workgroup as u64, WG as u64),
            ("max_compute_workgroup_size_x", al.max_compute_workgroup_size_x as u64, WG as u64),
            ("max_compute_workgroups_per_dimension", al.max_compute_workgroups_per_dimension as u64, 1024),
        ];
        for (limit, have, need) in checks {
            if have < need {
                return Err(GpuError::Limits { adapter: name, limit, have, need });
            }
        }
        let limits = wgpu::Limits {
            max_storage_buffers_per_shader_stage: al.max_storage_buffers_per_shader_stage,
            max_storage_buffer_binding_size: al.max_storage_buffer_binding_size,
            max_buffer_size: al.max_buffer_size,
            max_compute_invocations_per_workgroup: WG,
            max_compute_workgroup_size_x: WG,
            max_compute_workgroups_per_dimension: al.max_compute_workgroups_per_dimension,
            ..wgpu::Limits::downlevel_defaults()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("bozkir-gpu"),
                required_features: wgpu::Features::SHADER_F64,
                required_limits: limits,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::Device(format!("{name}: {e}")))?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock().unwrap().push(e.to_string());
        }));
        let max_buffer = al.max_buffer_size.min(al.max_storage_buffer_binding_size as u64);
        Ok(Self { device, queue, name, max_buffer, pipelines: Mutex::new(HashMap::new()), errors })
    }

    /// The adapter's name, backend and driver.
    pub fn adapter_name(&self) -> &str {
        &self.name
    }

    /// The largest storage buffer one kernel can bind, bytes.
    pub fn max_buffer(&self) -> u64 {
        self.max_buffer
    }

    /// `Ok` when a `w × h` grid with `bytes_per_cell` in its largest buffer fits the device.
    pub fn check_grid(&self, w: usize, h: usize, bytes_per_cell: u64) -> Result<(), GpuError> {
        let cells = (w as u64) * (h as u64);
        let bytes = cells.saturating_mul(bytes_per_cell);
        if cells >= u32::MAX as u64 / 2 || bytes > self.max_buffer {
            return Err(GpuError::GridTooLarge {
                width: w,
                height: h,
                bytes,
                max: self.max_buffer,
                adapter: self.name.clone(),
            });
        }
        Ok(())
    }

    /// Returns (and clears) the errors the device reported since the last call.
    pub(crate) fn take_errors(&self) -> Result<(), GpuError> {
        let mut e = self.errors.lock().unwrap();
        if e.is_empty() {
            Ok(())
        } else {
            let msg = e.join("; ");
            e.clear();
            Err(GpuError::Device(msg))
        }
    }

    /// The pipeline of `entry` in the WGSL module `src` (`name` is its file), compiled once.
    pub(crate) fn pipeline(
        &self,
        name: &'static str,
        src: &'static str,
        entry: &'static str,
    ) -> Result<Arc<wgpu::ComputePipeline>, GpuError> {
        if let Some(p) = self.pipelines.lock().unwrap().get(&(name, entry)) {
            return Ok(p.clone());
        }
        let module = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl(src.into()),
        });
        let p = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        });
        self.take_errors().map_err(|e| GpuError::Device(format!("{name}:{entry}: {e}")))?;
        // Another thread may have compiled the same entry meanwhile: keep the first, since bind
        // groups made from a pipeline's layout only fit that pipeline.
        Ok(self.pipelines.lock().unwrap().entry((name, entry)).or_insert_with(|| Arc::new(p)).clone())
    }

    /// A storage buffer holding `data` (copyable both ways).
    pub(crate) fn buffer<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> wgpu::Buffer {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.is_empty() {
            return self.zeroed(label, 16);
        }
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        })
    }

    /// A zero-filled storage buffer of `bytes` (at least 16).
    pub(crate) fn zeroed(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes.max(16).next_multiple_of(8),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// A uniform buffer holding `value`.
    pub(crate) fn uniform<T: bytemuck::Pod>(&self, label: &str, value: &T) -> wgpu::Buffer {
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::bytes_of(value),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        })
    }

    /// A bind group of `pipeline`'s group 0 with each `(binding, buffer)` of `buffers`.
    pub(crate) fn bind(&self, pipeline: &wgpu::ComputePipeline, buffers: &[(u32, &wgpu::Buffer)]) -> wgpu::BindGroup {
        let layout = pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .map(|&(i, b)| wgpu::BindGroupEntry { binding: i, resource: b.as_entire_binding() })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &layout, entries: &entries })
    }

    /// Submits `encoder` and waits for the queue to finish.
    pub(crate) fn submit_wait(&self, encoder: wgpu::CommandEncoder) -> Result<(), GpuError> {
        let idx = self.queue.submit([encoder.finish()]);
        self.device
            .poll(wgpu::PollType::Wait { submission_index: Some(idx), timeout: None })
            .map_err(|e| GpuError::Device(e.to_string()))?;
        self.take_errors()
    }

    pub(crate) fn encoder(&self) -> wgpu::CommandEncoder {
        self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
    }

    /// Reads `len` values of `T` back from `buf` (waits for all submitted work).
    pub(crate) fn read<T: bytemuck::Pod>(&self, buf: &wgpu::Buffer, len: usize) -> Result<Vec<T>, GpuError> {
        let bytes = (len * std::mem::size_of::<T>()) as u64;
        if bytes == 0 {
            return Ok(Vec::new());
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: bytes.next_multiple_of(8),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.encoder();
        enc.copy_buffer_to_buffer(buf, 0, &staging, 0, bytes.next_multiple_of(8).min(buf.size()));
        self.submit_wait(enc)?;
        let slice = staging.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device
            .poll(wgpu::PollType::Wait { submission_index: None, timeout: None })
            .map_err(|e| GpuError::Device(e.to_string()))?;
        rx.recv().map_err(|e| GpuError::Device(e.to_string()))?.map_err(|e| GpuError::Device(format!("map: {e}")))?;
        let view = slice.get_mapped_range().map_err(|e| GpuError::Device(format!("map: {e}")))?;
        let out = bytemuck::cast_slice::<u8, T>(&view[..bytes as usize]).to_vec();
        drop(view);
        staging.unmap();
        Ok(out)
    }
}

/// The uniform of the kernels that take a grid's shape, a round (or iteration) number and one
/// `f64` parameter, plus the zero their `mulr` adds (`fma(a, b, zero)`, a zero the shader
/// compiler cannot see): thermal (`x` = half the rate) and the fill (`x` unused).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GridUniform {
    pub w: u32,
    pub h: u32,
    pub n: u32,
    pub k: u32,
    pub x: f64,
    pub zero: f64,
}

/// Workgroup counts `(x, y)` for `threads` invocations of [`WG`] threads; kernels rebuild the
/// linear index as `(wid.y · nwg.x + wid.x) · WG + lid.x` and return past the end.
pub(crate) fn groups(threads: u64) -> (u32, u32) {
    let g = threads.div_ceil(WG as u64).max(1);
    let x = g.min(32768);
    (x as u32, g.div_ceil(x) as u32)
}

/// Records one dispatch of `pipeline` with `bind` over `groups` workgroups (one per tile).
pub(crate) fn dispatch_groups(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    groups: (u32, u32),
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind, &[]);
    pass.dispatch_workgroups(groups.0, groups.1, 1);
}

/// Records one dispatch of `pipeline` with `bind` sized on the device: the workgroup counts are
/// in `args` (a pass over the list of the tiles' roots, `roots_args` in `roots.wgsl`).
pub(crate) fn dispatch_indirect(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    args: &wgpu::Buffer,
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind, &[]);
    pass.dispatch_workgroups_indirect(args, 0);
}

/// Records one dispatch of `pipeline` with `bind` over `threads` invocations.
pub(crate) fn dispatch(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    threads: u64,
) {
    let (x, y) = groups(threads);
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind, &[]);
    pass.dispatch_workgroups(x, y, 1);
}
