//! The GPU context: adapter selection, feature and limit checks, buffers, pipelines, errors.

use std::collections::HashMap;
use std::fmt;
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
/// message saying why) or `require` (GPU or a clear error). See [`crate::GpuKernels`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GpuMode {
    /// The CPU only.
    #[default]
    Off,
    /// The GPU when one works, else the CPU with a message.
    Auto,
    /// The GPU, or an error.
    Require,
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

/// A kernel family, by the erosion or hydrology operation it runs ([`Gpu::warm`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// The stream-power step, with its ε fill and routing.
    StreamPower,
    Droplets,
    ShallowWater,
    Thermal,
    Fill,
    Flow,
    /// The sky-view factor of the analysis.
    SkyView,
    /// Slope and TPI of the analysis.
    Landform,
}

impl Kernel {
    /// Every kernel family.
    pub const ALL: [Kernel; 8] = [
        Kernel::StreamPower,
        Kernel::Droplets,
        Kernel::ShallowWater,
        Kernel::Thermal,
        Kernel::Fill,
        Kernel::Flow,
        Kernel::SkyView,
        Kernel::Landform,
    ];

    /// The WGSL modules (file name, composed source) the operation compiles.
    pub fn modules(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Kernel::StreamPower => &[
                (crate::stream_power::NAME, crate::stream_power::SRC),
                (crate::fill::NAME, crate::fill::SRC),
                (crate::flow::NAME, crate::flow::SRC),
            ],
            Kernel::Droplets => &[(crate::droplets::NAME, crate::droplets::SRC)],
            Kernel::ShallowWater => &[(crate::shallow_water::NAME, crate::shallow_water::SRC)],
            Kernel::Thermal => &[(crate::thermal::NAME, crate::thermal::SRC)],
            Kernel::Fill => &[(crate::fill::NAME, crate::fill::SRC)],
            Kernel::Flow => {
                &[(crate::flow::NAME, crate::flow::SRC), (crate::flow::OUTLETS_NAME, crate::flow::OUTLETS_SRC)]
            }
            Kernel::SkyView => &[(crate::sky_view::NAME, crate::sky_view::SRC)],
            Kernel::Landform => &[(crate::landform::NAME, crate::landform::SRC)],
        }
    }
}

impl From<bozkir_terrain::kernels::KernelKind> for Kernel {
    fn from(k: bozkir_terrain::kernels::KernelKind) -> Self {
        use bozkir_terrain::kernels::KernelKind as K;
        match k {
            K::StreamPower => Kernel::StreamPower,
            K::Droplets => Kernel::Droplets,
            K::ShallowWater => Kernel::ShallowWater,
            K::Thermal => Kernel::Thermal,
            K::Fill => Kernel::Fill,
            K::SkyView => Kernel::SkyView,
            K::Landform => Kernel::Landform,
            K::Drainage => Kernel::Flow,
        }
    }
}

/// The names of the `@compute` entry points of a WGSL source, in order.
pub fn entry_points(src: &'static str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(at) = rest.find("@compute") {
        rest = &rest[at + "@compute".len()..];
        let Some(f) = rest.find("fn ") else { break };
        let name = rest[f + 3..].trim_start();
        let end = name.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(name.len());
        out.push(&name[..end]);
        rest = &name[end..];
    }
    out
}

type PipelineSlot = Arc<Mutex<Option<Arc<wgpu::ComputePipeline>>>>;

/// A compiled module and the bindings its variant splits (none for the plain one).
type Module = (wgpu::ShaderModule, Arc<std::collections::BTreeSet<u32>>);

/// A wgpu device and queue with the kernels' pipelines, created once and reused.
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    name: String,
    max_buffer: u64,
    /// The adapter's largest buffer (one buffer, bound whole or not).
    max_buffer_size: u64,
    /// The largest storage binding (the adapter's, or `BOZKIR_GPU_BINDING_LIMIT` when lower).
    binding_limit: u64,
    /// Storage buffers one kernel may bind (the split variants bind twice as many).
    storage_buffers: u32,
    /// Where large buffers are split ([`crate::split`]).
    split: crate::split::SplitPlan,
    /// Set for good once a grid needed its buffers split: from then on every pipeline is made
    /// from its module's split variant (which also runs any smaller grid, bit for bit).
    split_on: std::sync::atomic::AtomicBool,
    /// The split bindings of each split pipeline, by the pipeline's address ([`Gpu::bind`]).
    split_bindings: Mutex<HashMap<usize, Arc<std::collections::BTreeSet<u32>>>>,
    /// Each entry's pipeline, behind a lock of its own: a thread asking for an entry another
    /// is compiling (the warm-up) waits for it instead of compiling it twice.
    pipelines: Mutex<HashMap<(&'static str, &'static str, bool), PipelineSlot>>,
    /// The parsed and validated WGSL modules, by file name and split variant (parsed once, not
    /// per entry point), with the variant's split bindings.
    modules: Mutex<HashMap<(&'static str, bool), Module>>,
    errors: Arc<Mutex<Vec<String>>>,
    /// The read-back staging buffers, reused ([`Gpu::read`]).
    staging: Mutex<Vec<wgpu::Buffer>>,
    /// The upload staging buffers, reused ([`Gpu::buffer`]).
    upload_staging: Mutex<Vec<wgpu::Buffer>>,
    /// Their size ([`Gpu::set_transfer_chunk`]).
    chunk: std::sync::atomic::AtomicU64,
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
        pollster::block_on(Self::new_async(None))
    }

    /// [`Gpu::new`] with the storage binding limit lowered to `bytes` (at least 1024), as if the
    /// device could bind no more: grids past it take the split path of [`crate::split`] on small
    /// sizes (its tests; `BOZKIR_GPU_BINDING_LIMIT` does the same for the command line).
    pub fn with_binding_limit(bytes: u64) -> Result<Self, GpuError> {
        pollster::block_on(Self::new_async(Some(bytes)))
    }

    async fn new_async(lower: Option<u64>) -> Result<Self, GpuError> {
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
            // Storage and uniform buffers of one stage together (the split variants bind each
            // large buffer twice).
            max_buffers_and_acceleration_structures_per_shader_stage: al
                .max_buffers_and_acceleration_structures_per_shader_stage,
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
                required_features: wgpu::Features::SHADER_F64 | crate::profile::features(&adapter),
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
        let mut binding_limit = al.max_storage_buffer_binding_size as u64;
        let lower = match (lower, std::env::var("BOZKIR_GPU_BINDING_LIMIT").ok().filter(|v| !v.is_empty())) {
            (Some(b), _) => Some(b),
            (None, Some(v)) => Some(v.parse::<u64>().map_err(|_| {
                GpuError::Device(format!("BOZKIR_GPU_BINDING_LIMIT={v:?}: a whole number of bytes, at least 1024"))
            })?),
            (None, None) => None,
        };
        if let Some(b) = lower {
            if b < 1024 {
                return Err(GpuError::Device(format!("binding limit of {b} bytes: at least 1024")));
            }
            binding_limit = binding_limit.min(b);
        }
        let max_buffer = al.max_buffer_size.min(binding_limit);
        // The device's alignment, not the adapter's: bind groups are checked against the limits
        // the device was created with (256 bytes from the downlevel defaults where the adapter
        // offers 16 or 32), and a second half starting off that alignment is refused.
        let split =
            crate::split::SplitPlan::new(binding_limit, device.limits().min_storage_buffer_offset_alignment as u64);
        crate::profile::start(&device);
        Ok(Self {
            device,
            queue,
            name,
            max_buffer,
            max_buffer_size: al.max_buffer_size,
            binding_limit,
            storage_buffers: al
                .max_storage_buffers_per_shader_stage
                .min(al.max_buffers_and_acceleration_structures_per_shader_stage),
            split,
            split_on: std::sync::atomic::AtomicBool::new(false),
            split_bindings: Mutex::new(HashMap::new()),
            pipelines: Mutex::new(HashMap::new()),
            modules: Mutex::new(HashMap::new()),
            errors,
            staging: Mutex::new(Vec::new()),
            upload_staging: Mutex::new(Vec::new()),
            chunk: std::sync::atomic::AtomicU64::new(TRANSFER_CHUNK),
        })
    }

    /// The adapter's name, backend and driver.
    pub fn adapter_name(&self) -> &str {
        &self.name
    }

    /// The largest storage buffer one kernel can bind, bytes.
    pub fn max_buffer(&self) -> u64 {
        self.max_buffer
    }

    /// The dispatches recorded since the last call, in order (entry point, device milliseconds),
    /// when profiling: `BOZKIR_GPU_PROFILE=1` when the `Gpu` was made, on an adapter with
    /// timestamp queries inside compute passes; `None` otherwise. A diagnostic (`gpu_bench`
    /// prints a stream-power step's, summed by kernel).
    pub fn profile_dispatches(&self) -> Result<Option<Vec<DispatchTime>>, GpuError> {
        crate::profile::take(self)
    }

    /// Sets the size of the host-visible staging buffers that uploads and read-backs go through
    /// (two of each, kept between calls; default [`TRANSFER_CHUNK`], 32 MiB; rounded up to 8
    /// bytes). Smaller chunks use less host memory; the transfers' results do not depend on it.
    pub fn set_transfer_chunk(&self, bytes: u64) {
        self.chunk.store(bytes.max(8).next_multiple_of(8), std::sync::atomic::Ordering::Relaxed);
    }

    /// The staging buffers' size ([`Gpu::set_transfer_chunk`]).
    pub fn transfer_chunk(&self) -> u64 {
        self.chunk.load(std::sync::atomic::Ordering::Relaxed)
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

    /// `Ok` when a `w × h` grid whose largest buffers hold `bytes_per_cell` fits the device,
    /// splitting buffers past the binding limit in two bindings ([`crate::split`]); for the
    /// kernels written for it (the stream power, the fills). The first grid that needs it turns
    /// the split variants on for good.
    pub fn check_grid_split(&self, w: usize, h: usize, bytes_per_cell: u64) -> Result<(), GpuError> {
        let cells = (w as u64) * (h as u64);
        let bytes = cells.saturating_mul(bytes_per_cell);
        let needs_split = bytes > self.max_buffer;
        let fits = cells < u32::MAX as u64 / 2
            && bytes <= self.split_capacity()
            && (!needs_split || self.storage_buffers >= 2 * NEED_STORAGE_BUFFERS);
        if !fits {
            return Err(GpuError::GridTooLarge {
                width: w,
                height: h,
                bytes,
                max: self.split_capacity(),
                adapter: self.name.clone(),
            });
        }
        if needs_split {
            self.split_on.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }

    /// The largest buffer a split kernel can use: two bindings' worth, within the adapter's
    /// largest buffer.
    pub fn split_capacity(&self) -> u64 {
        self.split.capacity(self.binding_limit).min(self.max_buffer_size)
    }

    /// The largest storage binding, bytes (the adapter's, or the lowered one).
    pub fn binding_limit(&self) -> u64 {
        self.binding_limit
    }

    /// Whether pipelines are made from the split variants ([`Gpu::check_grid_split`]).
    pub fn split_active(&self) -> bool {
        self.split_on.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Returns (and clears) the errors the device reported since the last call.
    pub(crate) fn take_errors(&self) -> Result<(), GpuError> {
        let mut e = self.errors.lock().unwrap();
        if e.is_empty() {
            Ok(())
        } else {
            // Each distinct message once, in order, with how often it came (one refused bind
            // group is reported again by every pass that uses it).
            let mut seen: Vec<(String, usize)> = Vec::new();
            for m in e.drain(..) {
                match seen.iter_mut().find(|(s, _)| *s == m) {
                    Some((_, n)) => *n += 1,
                    None => seen.push((m, 1)),
                }
            }
            let parts: Vec<String> =
                seen.into_iter().map(|(m, n)| if n > 1 { format!("{m} (×{n})") } else { m }).collect();
            Err(GpuError::Device(parts.join("; ")))
        }
    }

    /// The pipeline of `entry` in the WGSL module `src` (`name` is its file), compiled once.
    pub(crate) fn pipeline(
        &self,
        name: &'static str,
        src: &'static str,
        entry: &'static str,
    ) -> Result<Arc<wgpu::ComputePipeline>, GpuError> {
        let split = self.split_active();
        let slot = self.pipelines.lock().unwrap().entry((name, entry, split)).or_default().clone();
        let mut slot = slot.lock().unwrap();
        if let Some(p) = &*slot {
            return Ok(p.clone());
        }
        let (module, bindings) = self.module(name, src, split)?;
        let p = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(entry),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: Default::default(),
            cache: None,
        });
        self.take_errors().map_err(|e| GpuError::Device(format!("{name}:{entry}: {e}")))?;
        // Kept once made: bind groups made from a pipeline's layout only fit that pipeline.
        let p = Arc::new(p);
        *slot = Some(p.clone());
        crate::profile::name(Arc::as_ptr(&p) as usize, entry);
        if split {
            self.split_bindings.lock().unwrap().insert(Arc::as_ptr(&p) as usize, bindings);
        }
        Ok(p)
    }

    /// The module `src` (file `name`), or its split variant, parsed and validated once; with the
    /// bindings the variant splits.
    fn module(&self, name: &'static str, src: &'static str, split: bool) -> Result<Module, GpuError> {
        if let Some(m) = self.modules.lock().unwrap().get(&(name, split)) {
            return Ok(m.clone());
        }
        let (text, bindings) = if split {
            let m = crate::split::split_module(src, self.split.at_bytes)
                .map_err(|e| GpuError::Unsupported(format!("{name}: split bindings: {e}")))?;
            (std::borrow::Cow::Owned(m.source), Arc::new(m.bindings))
        } else {
            (std::borrow::Cow::Borrowed(src), Arc::default())
        };
        let m = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(name),
            source: wgpu::ShaderSource::Wgsl(text),
        });
        Ok(self.modules.lock().unwrap().entry((name, split)).or_insert((m, bindings)).clone())
    }

    /// Compiles every compute entry point of the modules `kernels` use, so that their first
    /// call does not wait for the driver (seconds for the stream power on a real driver;
    /// `docs/gpu.md`). Meant for
    /// a background thread while the CPU does other work ([`Gpu::warm_in_background`]); an
    /// entry that fails to compile is left for its real call to report. Returns how many entry
    /// points are ready (compiled now or before).
    pub fn warm(&self, kernels: &[Kernel]) -> usize {
        let mut done = 0;
        for k in kernels {
            for &(name, src) in k.modules() {
                for entry in entry_points(src) {
                    if self.pipeline(name, src, entry).is_ok() {
                        done += 1;
                    }
                }
            }
        }
        done
    }

    /// [`Gpu::warm`] on a thread of its own; join the handle to wait (it returns the count).
    pub fn warm_in_background(self: &Arc<Self>, kernels: &[Kernel]) -> std::thread::JoinHandle<usize> {
        let (gpu, kernels) = (self.clone(), kernels.to_vec());
        std::thread::spawn(move || gpu.warm(&kernels))
    }

    /// A storage buffer holding `data` (copyable both ways). A failed upload is reported by the
    /// next [`Gpu::take_errors`], as the device's own errors are.
    pub(crate) fn buffer<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> wgpu::Buffer {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let b = self.zeroed(label, bytes.len() as u64);
        if let Err(e) = self.upload(&b, bytes) {
            self.errors.lock().unwrap().push(format!("upload of {label}: {e}"));
        }
        b
    }

    /// Copies `bytes` to the start of `dst` (zero-padded to 8 bytes) through two reused staging
    /// buffers: the host fills one chunk (on several threads) while the other is copied on the
    /// device. A fresh staging buffer the size of the grid cost a host allocation per upload.
    fn upload(&self, dst: &wgpu::Buffer, bytes: &[u8]) -> Result<(), GpuError> {
        if bytes.is_empty() {
            return Ok(());
        }
        let t0 = std::time::Instant::now();
        let total = (bytes.len() as u64).next_multiple_of(8);
        let chunk = total.min(self.transfer_chunk());
        let mut staging = self.upload_staging.lock().unwrap();
        reserve(
            &self.device,
            &mut staging,
            chunk,
            2.min(total.div_ceil(chunk)) as usize,
            "upload",
            wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
        );
        let mut last: [Option<wgpu::SubmissionIndex>; 2] = [None, None];
        for (c, data) in bytes.chunks(chunk as usize).enumerate() {
            let stg = &staging[c % 2];
            let size = (data.len() as u64).next_multiple_of(8);
            let slice = stg.slice(..size);
            self.map_wait(&slice, wgpu::MapMode::Write, last[c % 2].take())?;
            // In pieces mapped apart, one per thread (a mapped range's write-only view cannot
            // be sent to another thread, a mapped range can).
            let piece = data.len().div_ceil(copy_threads(data.len()).max(1)).next_multiple_of(8);
            std::thread::scope(|s| {
                for (k, d) in data.chunks(piece).enumerate() {
                    let off = (k * piece) as u64;
                    let len = (d.len() as u64).next_multiple_of(8);
                    let mut view = stg.slice(off..off + len).get_mapped_range_mut().expect("mapped just above");
                    s.spawn(move || {
                        let (mut head, mut tail) = view.slice(..).split_at(d.len());
                        head.copy_from_slice(d);
                        tail.fill(0);
                    });
                }
            });
            stg.unmap();
            let mut enc = self.encoder();
            enc.copy_buffer_to_buffer(stg, 0, dst, c as u64 * chunk, size);
            last[c % 2] = Some(self.queue.submit([enc.finish()]));
        }
        trace_transfer("upload", bytes.len() as u64, t0);
        Ok(())
    }

    /// Maps `slice` after the submission `after` (the slice's last use; `None`: after all
    /// submitted work) and waits for the mapping.
    fn map_wait(
        &self,
        slice: &wgpu::BufferSlice<'_>,
        mode: wgpu::MapMode,
        after: Option<wgpu::SubmissionIndex>,
    ) -> Result<(), GpuError> {
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(mode, move |r| {
            let _ = tx.send(r);
        });
        let dev = |e: wgpu::PollError| self.wait_failed(e);
        self.device.poll(wgpu::PollType::Wait { submission_index: after, timeout: None }).map_err(dev)?;
        let r = match rx.try_recv() {
            Ok(r) => r,
            // The callback comes with a later poll when the mapping waited on other work.
            Err(_) => {
                self.device.poll(wgpu::PollType::Wait { submission_index: None, timeout: None }).map_err(dev)?;
                rx.recv().map_err(|e| GpuError::Device(e.to_string()))?
            }
        };
        r.map_err(|e| GpuError::Device(format!("map: {e}")))
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

    /// A zeroed buffer of `bytes` for indirect dispatch arguments that kernels write.
    pub(crate) fn indirect(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
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
    /// A split pipeline ([`crate::split`]) gets each split binding twice: the buffer's first
    /// [`crate::split::SplitPlan::at_bytes`] at `i` and the rest at `i + HI`, or the whole
    /// buffer at both where it is no larger than the first half.
    pub(crate) fn bind(&self, pipeline: &wgpu::ComputePipeline, buffers: &[(u32, &wgpu::Buffer)]) -> wgpu::BindGroup {
        let layout = pipeline.get_bind_group_layout(0);
        let split = if self.split_active() {
            self.split_bindings.lock().unwrap().get(&(pipeline as *const _ as usize)).cloned()
        } else {
            None
        };
        let at = self.split.at_bytes;
        let mut entries: Vec<wgpu::BindGroupEntry> = Vec::with_capacity(buffers.len() * 2);
        for &(i, b) in buffers {
            let halves = split.as_ref().is_some_and(|s| s.contains(&i));
            if !halves {
                entries.push(wgpu::BindGroupEntry { binding: i, resource: b.as_entire_binding() });
            } else if b.size() <= at {
                entries.push(wgpu::BindGroupEntry { binding: i, resource: b.as_entire_binding() });
                entries.push(wgpu::BindGroupEntry { binding: i + crate::split::HI, resource: b.as_entire_binding() });
            } else {
                let part = |offset: u64, size: Option<u64>| {
                    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: b,
                        offset,
                        size: size.and_then(std::num::NonZeroU64::new),
                    })
                };
                entries.push(wgpu::BindGroupEntry { binding: i, resource: part(0, Some(at)) });
                entries.push(wgpu::BindGroupEntry { binding: i + crate::split::HI, resource: part(at, None) });
            }
        }
        self.device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &layout, entries: &entries })
    }

    /// Submits `encoder` and waits for the queue to finish.
    pub(crate) fn submit_wait(&self, encoder: wgpu::CommandEncoder) -> Result<(), GpuError> {
        let idx = self.queue.submit([encoder.finish()]);
        self.device
            .poll(wgpu::PollType::Wait { submission_index: Some(idx), timeout: None })
            .map_err(|e| self.wait_failed(e))?;
        self.take_errors()
    }

    /// A failed wait, with the errors the device reported before it (a wait fails when a
    /// submission was refused, and the refusal's own message is the one that says why).
    fn wait_failed(&self, e: wgpu::PollError) -> GpuError {
        match self.take_errors() {
            Err(GpuError::Device(before)) => GpuError::Device(format!("{before}; then the wait failed: {e}")),
            _ => GpuError::Device(e.to_string()),
        }
    }

    pub(crate) fn encoder(&self) -> wgpu::CommandEncoder {
        self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None })
    }

    /// Reads `len` values of `T` back from `buf` (waits for all submitted work).
    ///
    /// Through two reused staging buffers of up to [`STAGING_BYTES`]: the copy of one chunk runs
    /// on the device while the previous one is copied out on the host (a fresh staging buffer the
    /// size of the grid costs a host allocation per call, and the copy-out waited for all of it).
    pub(crate) fn read<T: bytemuck::Pod>(&self, buf: &wgpu::Buffer, len: usize) -> Result<Vec<T>, GpuError> {
        self.submit_read(self.encoder(), buf, len)
    }

    /// Submits `enc` with the copy of (the first chunk of) `buf` recorded after its work, and
    /// reads `len` values of `T` back ([`Gpu::read`]): one submission and one wait where a
    /// submit-and-wait followed by a read made two of each (a kernel's counters, read after it).
    pub(crate) fn submit_read<T: bytemuck::Pod>(
        &self,
        enc: wgpu::CommandEncoder,
        buf: &wgpu::Buffer,
        len: usize,
    ) -> Result<Vec<T>, GpuError> {
        let bytes = (len * std::mem::size_of::<T>()) as u64;
        let t0 = std::time::Instant::now();
        let mut out: Vec<T> = vec![T::zeroed(); len];
        if bytes == 0 {
            self.queue.submit([enc.finish()]);
            return Ok(out);
        }
        let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut out);
        let mut staging = self.staging.lock().unwrap();
        let chunk = bytes.next_multiple_of(8).min(self.transfer_chunk());
        let nchunks = bytes.div_ceil(chunk);
        reserve(
            &self.device,
            &mut staging,
            chunk,
            2.min(nchunks) as usize,
            "readback",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        let mut first = Some(enc);
        let mut copy = |c: u64| {
            let off = c * chunk;
            let size = (bytes - off).next_multiple_of(8).min(chunk).min(buf.size() - off);
            let mut enc = first.take().unwrap_or_else(|| self.encoder());
            enc.copy_buffer_to_buffer(buf, off, &staging[(c % 2) as usize], 0, size);
            self.queue.submit([enc.finish()])
        };
        let mut next = Some(copy(0));
        for c in 0..nchunks {
            let idx = next.take().expect("submitted above");
            if c + 1 < nchunks {
                next = Some(copy(c + 1));
            }
            let stg = &staging[(c % 2) as usize];
            let off = c * chunk;
            let size = (bytes - off).min(chunk);
            let slice = stg.slice(..size.next_multiple_of(8));
            self.map_wait(&slice, wgpu::MapMode::Read, Some(idx))?;
            {
                let view = slice.get_mapped_range().map_err(|e| GpuError::Device(format!("map: {e}")))?;
                par_copy(&mut dst[off as usize..(off + size) as usize], &view[..size as usize]);
            }
            stg.unmap();
        }
        self.take_errors()?;
        trace_transfer("read", bytes, t0);
        Ok(out)
    }
}

/// With `BOZKIR_GPU_TRACE` set (read once), prints a transfer over 1 MiB and its time.
fn trace_transfer(what: &str, bytes: u64, t0: std::time::Instant) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if bytes > 1 << 20 && *ON.get_or_init(|| std::env::var_os("BOZKIR_GPU_TRACE").is_some()) {
        eprintln!("{what} {bytes} B: {:.1} ms", t0.elapsed().as_secs_f64() * 1e3);
    }
}

/// Copies `src` into `dst` (equal lengths) on up to 8 threads, in pieces of at least 4 MiB: one
/// core copies from a mapped buffer (and faults in a fresh vector's pages) at a few GB/s, well
/// below the bus.
pub(crate) fn par_copy(dst: &mut [u8], src: &[u8]) {
    let threads = copy_threads(src.len());
    if threads <= 1 {
        dst.copy_from_slice(src);
        return;
    }
    let piece = src.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(piece).zip(src.chunks(piece)) {
            s.spawn(move || d.copy_from_slice(c));
        }
    });
}

/// The threads [`par_copy`] and [`Gpu::buffer`] use to copy `bytes`.
fn copy_threads(bytes: usize) -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(8).min(bytes.div_ceil(4 << 20))
}

/// One profiled dispatch: its entry point and device milliseconds ([`Gpu::profile_dispatches`]).
pub type DispatchTime = (&'static str, f64);

/// The default size of each of the two staging buffers that uploads and read-backs go through
/// ([`Gpu::set_transfer_chunk`]).
pub const TRANSFER_CHUNK: u64 = 32 << 20;

/// Makes `pool` hold at least `count` buffers of `size` bytes or more for `usage`.
fn reserve(
    device: &wgpu::Device,
    pool: &mut Vec<wgpu::Buffer>,
    size: u64,
    count: usize,
    label: &str,
    usage: wgpu::BufferUsages,
) {
    pool.retain(|b| b.size() >= size);
    while pool.len() < count {
        pool.push(device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        }));
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
    crate::profile::timed(pass, pipeline, |pass| {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, 1);
    });
}

/// Records one dispatch of `pipeline` with `bind` sized on the device: the workgroup counts are
/// in `args` (a pass over the list of the tiles' roots, `roots_args` in `roots.wgsl`).
pub(crate) fn dispatch_indirect(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    args: &wgpu::Buffer,
) {
    dispatch_indirect_at(pass, pipeline, bind, args, 0);
}

/// [`dispatch_indirect`] with the arguments at byte `offset` of `args`.
pub(crate) fn dispatch_indirect_at(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    args: &wgpu::Buffer,
    offset: u64,
) {
    crate::profile::timed(pass, pipeline, |pass| {
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, bind, &[]);
        pass.dispatch_workgroups_indirect(args, offset);
    });
}

/// Records one dispatch of `pipeline` with `bind` over `threads` invocations.
pub(crate) fn dispatch(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind: &wgpu::BindGroup,
    threads: u64,
) {
    dispatch_groups(pass, pipeline, bind, groups(threads));
}
