//! The terrain workflows end to end into temporary folders: what they write, what they report to
//! the observer, and that the folders read back.

use bozkir_core::{Grid, NoProgress, Observer, Progress};
use bozkir_pipeline::analysis::{analyse, stats, AnalysisOptions};
use bozkir_pipeline::analyze::{analyze, AnalyzeRequest};
use bozkir_pipeline::bake::{bake, BakeInputs, BakeRequest};
use bozkir_pipeline::compute::{Backend, Compute};
use bozkir_pipeline::folder::read_terrain_folder;
use bozkir_pipeline::recipe::{run_recipe, RecipeRequest};
use bozkir_pipeline::terrain::{terrain, TerrainRequest};
use bozkir_pipeline::PipelineError;
use std::path::Path;
use std::sync::Mutex;

/// Records the steps a workflow announces.
#[derive(Default)]
struct Steps(Mutex<Vec<String>>);

impl Progress for Steps {}
impl Observer for Steps {
    fn step(&self, name: &str) {
        self.0.lock().unwrap().push(name.to_string());
    }
}

/// The default outputs ask for drainage and window maps: computed at once, one step.
const ANALYSIS_STEPS: [&str; 1] = ["analysis"];

fn listed(dir: &Path) -> Vec<String> {
    let sc = bozkir_io::read_sidecar(dir.join("terrain.json")).unwrap();
    sc.files.iter().map(|f| f.path.clone()).collect()
}

fn on_disk(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "terrain.json")
        .collect();
    v.sort();
    v
}

#[test]
fn a_profile_terrain_writes_every_listed_file_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let req = TerrainRequest::profile("canyon", 24, 3).unwrap();
    let obs = Steps::default();
    let out = terrain(&req, dir.path(), &obs).unwrap();
    let mut expected = vec!["generate".to_string(), "erosion".into(), "fill".into()];
    expected.extend(ANALYSIS_STEPS.iter().map(|s| s.to_string()));
    expected.push("write".into());
    assert_eq!(*obs.0.lock().unwrap(), expected);
    let mut files = listed(dir.path());
    files.sort();
    assert_eq!(files, on_disk(dir.path()), "the sidecar lists exactly the files written");
    let (sc, h) = read_terrain_folder(dir.path(), "a test").unwrap();
    assert_eq!((sc.width, sc.height, sc.seed), (24, 24, Some(3)));
    assert_eq!(h.min_max().unwrap(), (out.range_m.0 as f32 as f64, out.range_m.1 as f32 as f64));
    // The run's statistics are those of the analysis bundle on the generated heights in metres.
    let t = bozkir_terrain::profiles::generate(24, 3, &req.params, &NoProgress);
    let exact = t.height.map(|&v| v * 1000.0).with_cell_size(10.0, 10.0);
    let a = analyse(&exact, &AnalysisOptions { tpi_radius: req.tpi_radius, ..AnalysisOptions::default() }, &NoProgress);
    assert_eq!(stats(&a), out.stats);
}

#[test]
fn analyze_fills_pits_and_records_the_backend() {
    let mut v: Vec<f64> = (0..100).map(|i| (i % 10 + i / 10) as f64).collect();
    v[55] = -5.0;
    let dem = Grid::from_vec(10, 10, v).with_cell_size(2.0, 2.0);
    let dir = tempfile::tempdir().unwrap();
    let report = || Backend { backend: "test".into(), stages: Some(vec!["fill: cpu".into()]) };
    let compute = Compute { kernels: &bozkir_recipe::Cpu, report: &report };
    let req = AnalyzeRequest {
        dem: &dem,
        source: "x.tif".into(),
        options: AnalysisOptions { tpi_radius: 2, ..Default::default() },
        placement: Default::default(),
    };
    let out = analyze(&req, compute, dir.path(), &NoProgress).unwrap();
    assert_eq!(out.raised_cells, 1);
    let sc = bozkir_io::read_sidecar(dir.path().join("terrain.json")).unwrap();
    assert_eq!((sc.backend.as_str(), sc.source.as_str()), ("test", "x.tif"));
    assert_eq!(sc.settings["backends"], serde_json::json!(["fill: cpu"]));
    let filled = bozkir_io::read_tiff_f32(dir.path().join("filled.tif")).unwrap();
    assert!(filled.data()[55] > 0.0, "the pit is filled to its spill height");
}

#[test]
fn a_recipe_announces_its_stages_then_the_analysis() {
    let recipe = bozkir_recipe::builtin::builtin("hills").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let obs = Steps::default();
    let req = RecipeRequest {
        recipe: &recipe,
        size: 16,
        cell_size: 10.0,
        seed: 2,
        until: None,
        placement: Default::default(),
        outputs: Default::default(),
    };
    let out = run_recipe(&req, Compute::cpu(), dir.path(), &obs).unwrap();
    let steps = obs.0.lock().unwrap().clone();
    let ops: Vec<&str> = recipe.stages.iter().map(|s| s.op.name()).collect();
    assert_eq!(steps[..ops.len()], ops[..]);
    assert_eq!(steps[ops.len()..ops.len() + 1], ANALYSIS_STEPS.map(String::from)[..]);
    assert_eq!(steps.last().map(String::as_str), Some("write"));
    assert_eq!(out.stages.len(), ops.len());
    let sc = bozkir_io::read_sidecar(dir.path().join("terrain.json")).unwrap();
    assert_eq!(sc.settings["recipe"], "hills");
    assert!(sc.settings.get("backends").is_none(), "the CPU lists no stage backends");
}

#[test]
fn a_bake_into_the_terrain_lists_its_textures_once() {
    let dir = tempfile::tempdir().unwrap();
    terrain(&TerrainRequest::profile("alpine", 12, 1).unwrap(), dir.path(), &NoProgress).unwrap();
    for _ in 0..2 {
        let inputs = BakeInputs::read(dir.path()).unwrap();
        let size = bake(
            &BakeRequest { inputs: &inputs, scale: 2, into_terrain: true, detail: None, albedo_from: None },
            dir.path(),
            &NoProgress,
        )
        .unwrap();
        assert_eq!((size.width, size.height, size.drape), (24, 24, None));
    }
    let files = listed(dir.path());
    assert_eq!(files.iter().filter(|f| *f == "albedo.png").count(), 1);
    assert_eq!(files.iter().filter(|f| *f == "normal.png").count(), 1);
    let img = bozkir_io::read_rgb8(dir.path().join("albedo.png")).unwrap();
    assert_eq!((img.width(), img.height()), (24, 24));
}

#[test]
fn a_missing_terrain_folder_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let e = BakeInputs::read(dir.path()).unwrap_err();
    assert!(matches!(e, PipelineError::Invalid(_)), "{e:?}");
    assert!(e.to_string().ends_with("terrain.json: no such file"), "{e}");
}

/// `--outputs`: only the maps asked for are written (and listed), and only the stages they need
/// run; the heights always are.
#[test]
fn only_the_outputs_asked_for_are_computed_and_written() {
    use bozkir_pipeline::analysis::Outputs;
    let mut req = TerrainRequest::profile("hills", 24, 5).unwrap();
    req.outputs = Outputs::parse("slope,preview").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let obs = Steps::default();
    let out = terrain(&req, dir.path(), &obs).unwrap();
    let steps = obs.0.lock().unwrap().clone();
    assert_eq!(steps, ["generate", "erosion", "fill", "slope", "write"]);
    let mut files = listed(dir.path());
    files.sort();
    assert_eq!(files, on_disk(dir.path()), "the sidecar lists exactly the files written");
    let want = [
        "height.png",
        "height.r16",
        "height.rg16.png",
        "height.tif",
        "preview.png",
        "sediment.png",
        "sediment.r16",
        "sediment.rg16.png",
        "sediment.tif",
        "sediment_mask.png",
        "slope.png",
        "slope.tif",
    ];
    assert_eq!(files, want);
    // Statistics of stages not run are absent; the slope's are those of the full analysis.
    assert_eq!((out.stats.channel_share, out.stats.outlet_share), (None, None));
    let full =
        terrain(&TerrainRequest::profile("hills", 24, 5).unwrap(), tempfile::tempdir().unwrap().path(), &NoProgress)
            .unwrap();
    assert_eq!(out.stats.slope_median_deg, full.stats.slope_median_deg);
    assert!(full.stats.channel_share.is_some());
    // The same bytes for the files both wrote.
    // (The preview of a run without sky view is a plain hillshade; the heights are identical.)
    let again = tempfile::tempdir().unwrap();
    terrain(&TerrainRequest::profile("hills", 24, 5).unwrap(), again.path(), &NoProgress).unwrap();
    for f in ["height.tif", "slope.tif", "height.png"] {
        assert_eq!(std::fs::read(dir.path().join(f)).unwrap(), std::fs::read(again.path().join(f)).unwrap(), "{f}");
    }
}

/// Voids stay voids through `analyze`: no crop, NaN in place in every raster, the cells beside
/// a void drain into it, every valid cell is analysed, and the statistics count valid cells.
#[test]
fn analyze_keeps_voids_in_place() {
    let (w, h) = (30usize, 24usize);
    // A plane falling west with a 5 × 4 void in the middle and a pit beside it.
    let mut v: Vec<f64> = (0..w * h).map(|i| (i % w) as f64 * 2.0 + (i / w) as f64 * 0.1).collect();
    for y in 10..14 {
        for x in 12..17 {
            v[y * w + x] = f64::NAN;
        }
    }
    let dem = Grid::from_vec(w, h, v.clone()).with_cell_size(10.0, 10.0);
    let dir = tempfile::tempdir().unwrap();
    let req = AnalyzeRequest {
        dem: &dem,
        source: "holed".into(),
        options: AnalysisOptions { tpi_radius: 2, ..Default::default() },
        placement: Default::default(),
    };
    let out = analyze(&req, Compute::cpu(), dir.path(), &NoProgress).unwrap();
    assert!((out.stats.void_share - 20.0 / (w * h) as f64).abs() < 1e-12);
    for name in
        ["dem.tif", "filled.tif", "slope.tif", "tpi.tif", "accumulation.tif", "watersheds.tif", "lake_depth.tif"]
    {
        let g = bozkir_io::read_tiff_f32(dir.path().join(name)).unwrap();
        assert_eq!((g.width(), g.height()), (w, h), "{name}");
        for (i, (a, o)) in g.data().iter().zip(&v).enumerate() {
            assert_eq!(a.is_nan(), o.is_nan(), "{name} cell {i}: {a}");
        }
    }
    // The cells just east of the void (uphill of it) drain into it: they are outlets.
    let a = analyse(&dem, &AnalysisOptions { tpi_radius: 2, ..Default::default() }, &NoProgress);
    let d = a.drainage.as_ref().unwrap();
    for y in 10..14 {
        let i = y * w + 17;
        assert_eq!(d.graph.receivers[i] as usize, i, "cell east of the void, row {y}");
        assert!(d.acc[i] > 1, "it gathers the cells east of it");
    }
    // The slope median counts valid cells only and is the plane's.
    let want = (0.2f64.hypot(0.01)).atan().to_degrees();
    assert!((out.stats.slope_median_deg.unwrap() - want).abs() < 1e-9, "{:?}", out.stats.slope_median_deg);
}
