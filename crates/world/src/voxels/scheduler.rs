//! The generation scheduler: passes with declared dependencies, validated and ordered before
//! anything runs, then run on chunks in parallel with a result that does not depend on the
//! order in which chunks are asked for, on which other chunks are asked for, or on the number
//! of threads.
//!
//! **Ordering.** The passes are sorted topologically, ties kept in the order given (so a list
//! already in dependency order runs as written, as pyworldgen's `GenerationScheduler`, which
//! only checks that each dependency appears earlier). A dependency on a pass that is not in the
//! list, a name used twice, or a cycle is an error naming the passes.
//!
//! **Deferred edits.** pyworldgen applies, when a chunk runs its `apply_deferred_edits` pass,
//! whatever edits happen to be buffered for it at that moment — so a tree straddling a border is
//! cut or whole depending on which chunk was generated first. Here the edits barrier
//! ([`PassKind::ApplyEdits`]) applies every edit that lands in the chunk from every chunk within
//! the largest [`Pass::edit_reach`], in the canonical order (priority, emitting chunk, emission
//! index): neighbours' early passes run as needed (only the passes the emitting passes depend
//! on: a pass may read only what its dependencies wrote). An edit beyond its pass's declared
//! reach is an error naming the pass.
//!
//! **Batches.** Requested chunks are sorted `(x, y, z)` and generated in batches; each batch runs
//! its chunks (and the neighbours it needs whose edits are not known yet) in parallel with rayon,
//! keeping the edits of every chunk seen so far. Memory: one dense chunk per chunk of a batch.

use std::collections::{BTreeMap, BTreeSet};

use bozkir_voxel::chunk::Chunk;
use bozkir_voxel::coords::{ChunkPos, ChunkSize};
use rayon::prelude::*;

use super::pass::{Edit, Pass, PassCtx, PassKind, VoxelWorld};
use super::work::WorkChunk;
use crate::error::{Result, WorldError};

/// The most chunks one [`Scheduler::generate`] call accepts (2²⁰); larger requests are refused
/// before anything is generated.
pub const MAX_CHUNKS: usize = 1 << 20;

/// Chunks generated together (their dense arrays alive at once).
const BATCH: usize = 256;

/// Validated, ordered passes.
pub struct Scheduler {
    passes: Vec<Box<dyn Pass>>,
    /// Index (in `passes`) of the edits barrier, if any.
    barrier: Option<usize>,
    /// Largest edit reach of the passes before the barrier.
    reach: i32,
    /// For the neighbours' early passes: the passes the emitting passes need, in order.
    source_passes: Vec<usize>,
}

fn invalid(msg: String) -> WorldError {
    WorldError::Invalid(msg)
}

impl Scheduler {
    /// Validates and orders `passes`.
    pub fn new(passes: Vec<Box<dyn Pass>>) -> Result<Self> {
        let names: Vec<String> = passes.iter().map(|p| p.name().to_string()).collect();
        let mut index = BTreeMap::new();
        for (i, n) in names.iter().enumerate() {
            if n.is_empty() {
                return Err(invalid(format!("pass {i} has an empty name")));
            }
            if index.insert(n.clone(), i).is_some() {
                return Err(invalid(format!("two passes are named `{n}`; pass names must be unique")));
            }
        }
        let deps: Vec<Vec<usize>> = passes
            .iter()
            .map(|p| {
                p.dependencies()
                    .iter()
                    .map(|d| {
                        index.get(d).copied().ok_or_else(|| {
                            invalid(format!(
                                "pass `{}` depends on `{d}`, which is not in the pass list ({})",
                                p.name(),
                                names.join(", ")
                            ))
                        })
                    })
                    .collect()
            })
            .collect::<Result<_>>()?;
        // Kahn's algorithm, always taking the earliest-listed ready pass.
        let n = passes.len();
        let mut placed = vec![false; n];
        let mut order = Vec::with_capacity(n);
        while order.len() < n {
            let Some(next) = (0..n).find(|&i| !placed[i] && deps[i].iter().all(|&d| placed[d])) else {
                return Err(invalid(format!(
                    "passes depend on each other in a cycle: {}",
                    cycle(&deps, &placed, &names)
                )));
            };
            placed[next] = true;
            order.push(next);
        }
        let mut slots: Vec<Option<Box<dyn Pass>>> = passes.into_iter().map(Some).collect();
        let passes: Vec<Box<dyn Pass>> =
            order.iter().map(|&i| slots[i].take().expect("each pass placed once")).collect();
        let remap: BTreeMap<usize, usize> = order.iter().enumerate().map(|(new, &old)| (old, new)).collect();
        let deps: Vec<Vec<usize>> = order.iter().map(|&old| deps[old].iter().map(|d| remap[d]).collect()).collect();

        let barriers: Vec<usize> = (0..n).filter(|&i| passes[i].kind() == PassKind::ApplyEdits).collect();
        if barriers.len() > 1 {
            return Err(invalid(format!(
                "more than one pass applies deferred edits: {}",
                barriers.iter().map(|&i| format!("`{}`", passes[i].name())).collect::<Vec<_>>().join(", ")
            )));
        }
        let barrier = barriers.first().copied();
        let mut reach = 0;
        let mut emitters = Vec::new();
        for (i, p) in passes.iter().enumerate() {
            let r = p.edit_reach();
            if !(0..=4).contains(&r) {
                return Err(invalid(format!(
                    "pass `{}` declares an edit reach of {r} chunks; allowed 0 to 4",
                    p.name()
                )));
            }
            if r == 0 {
                continue;
            }
            match barrier {
                Some(b) if i < b => {
                    reach = reach.max(r);
                    emitters.push(i);
                }
                Some(b) => {
                    return Err(invalid(format!(
                        "pass `{}` emits deferred edits but runs after `{}`, which applies them",
                        p.name(),
                        passes[b].name()
                    )))
                }
                None => {
                    return Err(invalid(format!(
                        "pass `{}` emits deferred edits but no pass applies them (add an apply-edits pass)",
                        p.name()
                    )))
                }
            }
        }
        // The emitters and everything they depend on, transitively.
        let mut need = BTreeSet::new();
        let mut stack = emitters;
        while let Some(i) = stack.pop() {
            if need.insert(i) {
                stack.extend(deps[i].iter().copied());
            }
        }
        Ok(Scheduler { passes, barrier, reach, source_passes: need.into_iter().collect() })
    }

    /// The pass names in the order they run.
    pub fn order(&self) -> Vec<&str> {
        self.passes.iter().map(|p| p.name()).collect()
    }

    /// How far (chunks) deferred edits may travel.
    pub fn reach(&self) -> i32 {
        self.reach
    }

    fn run_pass(&self, world: &VoxelWorld, i: usize, chunk: &mut WorkChunk, out: &mut Vec<(Edit, u32)>) -> Result<()> {
        self.run_pass_as(world, i, chunk, out, false)
    }

    /// [`Self::run_pass`]; `columns`: the pass's column shortcut where it has one.
    fn run_pass_as(
        &self,
        world: &VoxelWorld,
        i: usize,
        chunk: &mut WorkChunk,
        out: &mut Vec<(Edit, u32)>,
        columns: bool,
    ) -> Result<()> {
        let p = &self.passes[i];
        let mut ctx = PassCtx::new(world, chunk.coord, p.name());
        ctx.reach = p.edit_reach();
        if !(columns && p.edit_reach() == 0 && p.run_columns(&mut ctx, chunk)?) {
            p.run(&mut ctx, chunk)?;
        }
        let r = i64::from(ctx.reach);
        for e in ctx.edits {
            let c = e.pos.chunk(world.size);
            let far = [(c.x, chunk.coord.x), (c.y, chunk.coord.y), (c.z, chunk.coord.z)]
                .iter()
                .any(|&(a, b)| (i64::from(a) - i64::from(b)).abs() > r);
            if far {
                return Err(invalid(format!(
                    "pass `{}` in chunk {} wrote block {} in chunk {}, beyond its declared reach of {r} chunks",
                    p.name(),
                    chunk.coord,
                    e.pos,
                    c
                )));
            }
            out.push((e, out.len() as u32));
        }
        Ok(())
    }

    /// Runs the passes before the barrier (all passes when there is none) on a new chunk;
    /// returns it with its emitted edits.
    fn early(&self, world: &VoxelWorld, coord: ChunkPos) -> Result<(WorkChunk, Vec<(Edit, u32)>)> {
        let mut chunk = WorkChunk::new(coord, world.size);
        let mut out = Vec::new();
        for i in 0..self.barrier.unwrap_or(self.passes.len()) {
            self.run_pass(world, i, &mut chunk, &mut out)?;
        }
        Ok((chunk, out))
    }

    /// The edits a neighbour emits (only the passes the emitters need; the passes feeding them
    /// through their column shortcut).
    fn source_edits(&self, world: &VoxelWorld, coord: ChunkPos) -> Result<Vec<(Edit, u32)>> {
        let mut chunk = WorkChunk::new(coord, world.size);
        let mut out = Vec::new();
        for &i in &self.source_passes {
            self.run_pass_as(world, i, &mut chunk, &mut out, true)?;
        }
        Ok(out)
    }

    /// Applies the edits landing in `chunk` (canonical order) and runs the passes after the
    /// barrier.
    fn late(
        &self,
        world: &VoxelWorld,
        chunk: &mut WorkChunk,
        edits: &BTreeMap<ChunkPos, Vec<(Edit, u32)>>,
    ) -> Result<()> {
        let Some(b) = self.barrier else { return Ok(()) };
        let r = self.reach;
        let c = chunk.coord;
        let mut mine: Vec<(i32, ChunkPos, u32, Edit)> = Vec::new();
        for (src, list) in edits.range(lo(c, r)..=hi(c, r)) {
            if (src.y - c.y).abs() > r || (src.z - c.z).abs() > r {
                continue;
            }
            for &(e, seq) in list {
                if e.pos.chunk(world.size) == c {
                    mine.push((e.priority, *src, seq, e));
                }
            }
        }
        mine.sort_by_key(|m| (m.0, m.1, m.2));
        for (_, _, _, e) in mine {
            let l = e.pos.local(world.size);
            let i = chunk.index(l.x.into(), l.y.into(), l.z.into());
            chunk.blocks[i] = e.block;
        }
        let mut sink = Vec::new();
        for i in b..self.passes.len() {
            self.run_pass(world, i, chunk, &mut sink)?;
        }
        Ok(())
    }

    /// Generates `chunks` (any order, duplicates ignored) in dense form, sorted by position.
    pub fn generate_dense(&self, world: &VoxelWorld, chunks: &[ChunkPos]) -> Result<Vec<WorkChunk>> {
        let mut out = Vec::new();
        self.generate_with(world, chunks, |c| {
            out.push(c);
            Ok(())
        })?;
        Ok(out)
    }

    /// Generates `chunks` (any order, duplicates ignored) as palette-compressed chunks, sorted by
    /// position.
    pub fn generate(&self, world: &VoxelWorld, chunks: &[ChunkPos]) -> Result<Vec<Chunk>> {
        let mut out = Vec::new();
        self.generate_with(world, chunks, |c| {
            out.push(c.into_chunk()?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Generates `chunks` (any order, duplicates ignored), handing each finished chunk to `sink`
    /// in ascending position order.
    pub fn generate_with(
        &self,
        world: &VoxelWorld,
        chunks: &[ChunkPos],
        mut sink: impl FnMut(WorkChunk) -> Result<()>,
    ) -> Result<()> {
        if chunks.len() > MAX_CHUNKS {
            return Err(invalid(format!("{} chunks requested; at most {MAX_CHUNKS} per call", chunks.len())));
        }
        let wanted: BTreeSet<ChunkPos> = chunks.iter().copied().collect();
        for c in &wanted {
            check_chunk(*c, world.size, self.reach)?;
        }
        let wanted: Vec<ChunkPos> = wanted.into_iter().collect();
        let mut edits: BTreeMap<ChunkPos, Vec<(Edit, u32)>> = BTreeMap::new();
        for batch in wanted.chunks(BATCH) {
            let firsts: Vec<(WorkChunk, Vec<(Edit, u32)>)> =
                batch.par_iter().map(|&c| self.early(world, c)).collect::<Result<_>>()?;
            let mut work = Vec::with_capacity(batch.len());
            for (chunk, e) in firsts {
                edits.insert(chunk.coord, e);
                work.push(chunk);
            }
            if self.barrier.is_some() && self.reach > 0 {
                let r = self.reach;
                let mut missing = BTreeSet::new();
                for c in batch {
                    for dx in -r..=r {
                        for dy in -r..=r {
                            for dz in -r..=r {
                                let n = ChunkPos::new(c.x + dx, c.y + dy, c.z + dz);
                                if !edits.contains_key(&n) {
                                    missing.insert(n);
                                }
                            }
                        }
                    }
                }
                let missing: Vec<ChunkPos> = missing.into_iter().collect();
                let found: Vec<Vec<(Edit, u32)>> =
                    missing.par_iter().map(|&c| self.source_edits(world, c)).collect::<Result<_>>()?;
                edits.extend(missing.into_iter().zip(found));
            }
            work.par_iter_mut().try_for_each(|chunk| self.late(world, chunk, &edits))?;
            for chunk in work {
                sink(chunk)?;
            }
        }
        Ok(())
    }
}

fn lo(c: ChunkPos, r: i32) -> ChunkPos {
    ChunkPos::new(c.x - r, i32::MIN, i32::MIN)
}

fn hi(c: ChunkPos, r: i32) -> ChunkPos {
    ChunkPos::new(c.x + r, i32::MAX, i32::MAX)
}

/// A chunk whose neighbourhood within `reach` stays inside the chunk range of `size`.
fn check_chunk(c: ChunkPos, size: ChunkSize, reach: i32) -> Result<()> {
    let (lo, hi) = (size.min_chunk() + reach, size.max_chunk() - reach);
    if [c.x, c.y, c.z].iter().any(|v| *v < lo || *v > hi) {
        return Err(invalid(format!(
            "chunk {c} is outside the generated range: each coordinate in {lo}..={hi} for {size}-block chunks"
        )));
    }
    Ok(())
}

/// One cycle among the unplaced passes, as `a needs b needs a`.
fn cycle(deps: &[Vec<usize>], placed: &[bool], names: &[String]) -> String {
    // Every unplaced pass has an unplaced dependency; follow them until one repeats.
    let start = (0..deps.len()).find(|&i| !placed[i]).expect("a cycle has a pass");
    let mut path = vec![start];
    let mut at = start;
    loop {
        at = *deps[at].iter().find(|&&d| !placed[d]).expect("unplaced pass with an unplaced dependency");
        if let Some(k) = path.iter().position(|&p| p == at) {
            let mut ring: Vec<&str> = path[k..].iter().map(|&i| names[i].as_str()).collect();
            ring.push(ring[0]);
            return ring.join(" needs ");
        }
        path.push(at);
    }
}
