//! Block kinds: ids, definitions and the registry.
//!
//! A block kind is a [`BlockId`] (`u16`; `0` is always air) with a [`BlockDef`]: a unique name,
//! whether it is **solid** (stops rays, can be stood on) and whether it is **transparent** (lets
//! light through; leaves are both), and an RGBA colour for previews. Facts follow pyworldgen
//! 0.1.8's `voxel/blocks.py`: [`BlockRegistry::pyworldgen`] holds its 12 kinds with its ids, names
//! and flags (the colours are ours).
//!
//! Lookups by id are O(1) through a dense flag table; flag queries on ids the registry does not
//! hold answer like air (not solid, transparent), as pyworldgen's `is_solid`/`is_transparent` do;
//! [`BlockRegistry::get`] instead returns [`VoxelError::UnknownBlockId`]. Iteration is in id order.

use crate::error::{Result, VoxelError};
use std::collections::BTreeMap;
use std::fmt;

/// A block kind's id. `BlockId(0)` is air.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct BlockId(pub u16);

impl BlockId {
    /// Air: empty space (id 0).
    pub const AIR: BlockId = BlockId(0);
    /// Whether this is air.
    #[inline]
    pub const fn is_air(self) -> bool {
        self.0 == 0
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "block {}", self.0)
    }
}

/// pyworldgen 0.1.8's block ids (`voxel/blocks.py`).
pub mod ids {
    use super::BlockId;
    /// Air (0).
    pub const AIR: BlockId = BlockId(0);
    /// Stone (1).
    pub const STONE: BlockId = BlockId(1);
    /// Dirt (2).
    pub const DIRT: BlockId = BlockId(2);
    /// Grass (3).
    pub const GRASS: BlockId = BlockId(3);
    /// Sand (4).
    pub const SAND: BlockId = BlockId(4);
    /// Water (5).
    pub const WATER: BlockId = BlockId(5);
    /// Wood (6).
    pub const WOOD: BlockId = BlockId(6);
    /// Leaves (7).
    pub const LEAVES: BlockId = BlockId(7);
    /// Road (8).
    pub const ROAD: BlockId = BlockId(8);
    /// Window (9).
    pub const WINDOW: BlockId = BlockId(9);
    /// Wall (10).
    pub const WALL: BlockId = BlockId(10);
    /// Roof (11).
    pub const ROOF: BlockId = BlockId(11);
}

/// One block kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BlockDef {
    /// Its id.
    pub id: BlockId,
    /// Its unique name (1 to 64 bytes).
    pub name: String,
    /// Stops rays and walkers; can be stood on.
    pub solid: bool,
    /// Lets light through.
    pub transparent: bool,
    /// Preview colour, RGBA (alpha below 255 for see-through kinds).
    pub colour: [u8; 4],
}

impl BlockDef {
    /// A definition from its parts.
    pub fn new(id: BlockId, name: &str, solid: bool, transparent: bool, colour: [u8; 4]) -> Self {
        BlockDef { id, name: name.to_string(), solid, transparent, colour }
    }
}

const KNOWN: u8 = 1;
const SOLID: u8 = 2;
const TRANSPARENT: u8 = 4;
/// Longest block name accepted.
pub const MAX_NAME_LEN: usize = 64;

/// The registry of block kinds: unique ids and names, O(1) flags by id, iteration in id order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockRegistry {
    defs: BTreeMap<u16, BlockDef>,
    by_name: BTreeMap<String, u16>,
    /// Flags by id (KNOWN | SOLID | TRANSPARENT); ids past the end are unknown.
    flags: Vec<u8>,
}

impl Default for BlockRegistry {
    /// A registry holding air alone.
    fn default() -> Self {
        let mut r = BlockRegistry::empty();
        r.register(BlockDef::new(BlockId::AIR, "air", false, true, [0, 0, 0, 0])).expect("air into an empty registry");
        r
    }
}

impl BlockRegistry {
    /// A registry holding nothing (not even air).
    pub fn empty() -> Self {
        BlockRegistry { defs: BTreeMap::new(), by_name: BTreeMap::new(), flags: Vec::new() }
    }

    /// pyworldgen 0.1.8's 12 kinds: ids 0–11 (air, stone, dirt, grass, sand, water, wood, leaves,
    /// road, window, wall, roof) with its solid and transparent flags; colours are ours.
    pub fn pyworldgen() -> Self {
        use ids::*;
        let table: [(BlockId, &str, bool, bool, [u8; 4]); 12] = [
            (AIR, "air", false, true, [0, 0, 0, 0]),
            (STONE, "stone", true, false, [125, 125, 125, 255]),
            (DIRT, "dirt", true, false, [134, 96, 67, 255]),
            (GRASS, "grass", true, false, [95, 159, 53, 255]),
            (SAND, "sand", true, false, [219, 207, 163, 255]),
            (WATER, "water", false, true, [52, 95, 218, 160]),
            (WOOD, "wood", true, false, [102, 81, 51, 255]),
            (LEAVES, "leaves", true, true, [58, 122, 42, 220]),
            (ROAD, "road", true, false, [64, 64, 68, 255]),
            (WINDOW, "window", false, true, [190, 220, 235, 96]),
            (WALL, "wall", true, false, [196, 186, 168, 255]),
            (ROOF, "roof", true, false, [142, 58, 44, 255]),
        ];
        let mut r = BlockRegistry::empty();
        for (id, name, solid, transparent, colour) in table {
            r.register(BlockDef::new(id, name, solid, transparent, colour)).expect("pyworldgen's table is consistent");
        }
        r
    }

    /// Adds a kind. Errors: [`VoxelError::DuplicateBlockId`], [`VoxelError::DuplicateBlockName`],
    /// [`VoxelError::BadBlockName`] (empty or over [`MAX_NAME_LEN`] bytes).
    pub fn register(&mut self, def: BlockDef) -> Result<()> {
        if def.name.is_empty() || def.name.len() > MAX_NAME_LEN {
            return Err(VoxelError::BadBlockName(def.name));
        }
        if let Some(existing) = self.defs.get(&def.id.0) {
            return Err(VoxelError::DuplicateBlockId { id: def.id.0, existing: existing.name.clone() });
        }
        if let Some(&existing) = self.by_name.get(&def.name) {
            return Err(VoxelError::DuplicateBlockName { name: def.name, existing });
        }
        let i = def.id.0 as usize;
        if self.flags.len() <= i {
            self.flags.resize(i + 1, 0);
        }
        self.flags[i] = KNOWN | if def.solid { SOLID } else { 0 } | if def.transparent { TRANSPARENT } else { 0 };
        self.by_name.insert(def.name.clone(), def.id.0);
        self.defs.insert(def.id.0, def);
        Ok(())
    }

    /// The kind with id `id`, or [`VoxelError::UnknownBlockId`].
    pub fn get(&self, id: BlockId) -> Result<&BlockDef> {
        self.defs.get(&id.0).ok_or(VoxelError::UnknownBlockId(id.0))
    }

    /// The kind named `name`, or [`VoxelError::UnknownBlockName`].
    pub fn by_name(&self, name: &str) -> Result<&BlockDef> {
        match self.by_name.get(name) {
            Some(id) => Ok(&self.defs[id]),
            None => Err(VoxelError::UnknownBlockName(name.to_string())),
        }
    }

    /// The id of the kind named `name`, or [`VoxelError::UnknownBlockName`].
    pub fn id_of(&self, name: &str) -> Result<BlockId> {
        self.by_name.get(name).map(|&i| BlockId(i)).ok_or_else(|| VoxelError::UnknownBlockName(name.to_string()))
    }

    /// Whether `id` is registered.
    #[inline]
    pub fn contains(&self, id: BlockId) -> bool {
        self.flag(id) & KNOWN != 0
    }

    #[inline]
    fn flag(&self, id: BlockId) -> u8 {
        self.flags.get(id.0 as usize).copied().unwrap_or(0)
    }

    /// Whether `id` is solid (unknown ids: not solid, like air).
    #[inline]
    pub fn is_solid(&self, id: BlockId) -> bool {
        self.flag(id) & SOLID != 0
    }

    /// Whether `id` is transparent (unknown ids: transparent, like air).
    #[inline]
    pub fn is_transparent(&self, id: BlockId) -> bool {
        let f = self.flag(id);
        f & KNOWN == 0 || f & TRANSPARENT != 0
    }

    /// A dense table, indexed by id up to the largest registered id, of [`is_solid`](Self::is_solid).
    pub fn solid_table(&self) -> Vec<bool> {
        self.flags.iter().map(|f| f & SOLID != 0).collect()
    }

    /// A dense table, indexed by id up to the largest registered id, of
    /// [`is_transparent`](Self::is_transparent).
    pub fn transparent_table(&self) -> Vec<bool> {
        self.flags.iter().map(|&f| f & KNOWN == 0 || f & TRANSPARENT != 0).collect()
    }

    /// Number of kinds.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// Whether the registry holds nothing.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// The kinds in id order.
    pub fn iter(&self) -> impl Iterator<Item = &BlockDef> + '_ {
        self.defs.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyworldgen_table() {
        let r = BlockRegistry::pyworldgen();
        assert_eq!(r.len(), 12);
        let names: Vec<&str> = r.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            ["air", "stone", "dirt", "grass", "sand", "water", "wood", "leaves", "road", "window", "wall", "roof"]
        );
        // pyworldgen's SOLID_BLOCKS and TRANSPARENT_BLOCKS.
        let solid = [1, 2, 3, 4, 6, 7, 8, 10, 11];
        let transparent = [0, 5, 9, 7];
        for d in r.iter() {
            assert_eq!(d.solid, solid.contains(&d.id.0), "{}", d.name);
            assert_eq!(d.transparent, transparent.contains(&d.id.0), "{}", d.name);
            assert_eq!(r.is_solid(d.id), d.solid);
            assert_eq!(r.is_transparent(d.id), d.transparent);
            assert_eq!(r.id_of(&d.name).unwrap(), d.id);
        }
        assert_eq!(r.id_of("leaves").unwrap(), ids::LEAVES);
        assert_eq!(r.get(ids::ROOF).unwrap().name, "roof");
    }

    #[test]
    fn errors_name_the_culprit() {
        let mut r = BlockRegistry::pyworldgen();
        assert!(r.get(BlockId(400)).unwrap_err().to_string().contains("400"));
        assert!(r.by_name("lava").unwrap_err().to_string().contains("lava"));
        let e = r.register(BlockDef::new(BlockId(3), "moss", true, false, [0; 4])).unwrap_err();
        assert!(e.to_string().contains('3') && e.to_string().contains("grass"), "{e}");
        let e = r.register(BlockDef::new(BlockId(30), "sand", true, false, [0; 4])).unwrap_err();
        assert!(e.to_string().contains("sand"), "{e}");
        assert!(r.register(BlockDef::new(BlockId(31), "", true, false, [0; 4])).is_err());
        // unknown ids answer like air
        assert!(!r.is_solid(BlockId(999)) && r.is_transparent(BlockId(999)) && !r.contains(BlockId(999)));
        r.register(BlockDef::new(BlockId(1000), "lava", false, false, [255, 80, 0, 255])).unwrap();
        assert!(!r.is_transparent(BlockId(1000)));
        assert_eq!(r.iter().last().unwrap().name, "lava");
        assert!(!r.is_transparent(BlockId(1000)) && r.is_transparent(BlockId(999)));
    }
}
