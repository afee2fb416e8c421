"""Golden outputs of pyworldgen 0.1.8's chunk passes for bozkir-world's voxel tests.

Run with the pyworldgen venv active, from this folder:
    python make_voxels.py
Writes voxels.json.gz. For each (seed, chunk size, chunk) case, on a fresh world with that one
chunk:
* `blocks`: the chunk's blocks after `terrain`, `biomes`, `caves`, `features` (before any
  deferred edit is applied), uint16 little-endian in pyworldgen's layout x + s*(z + s*y), base64;
* `heightmap` (int16) and `biomes` (uint8) per column x + s*z, base64;
* `edits`: every deferred edit the chunk's `features` pass emitted, in emission order, as
  [x, y, z, block, priority];
* `final` and `light`: the chunk after `apply_deferred_edits` (its own edits only) and
  `lighting` (SimpleSunlightPass), uint16 / uint8, base64.
"""

import base64
import gzip
import json

import numpy as np
from pyworldgen.core.coords import ChunkCoord
from pyworldgen.generation import (
    ApplyDeferredEditsPass,
    GenerationScheduler,
    SimpleBiomePass,
    SimpleCavePass,
    SimpleTerrainPass,
    SimpleTreeFeaturePass,
)
from pyworldgen.voxel.lighting import SimpleSunlightPass
from pyworldgen.world.edits import DeferredEditBuffer
from pyworldgen.world.world import World


class Recording(DeferredEditBuffer):
    """The edit buffer, also keeping every edit in emission order."""

    __slots__ = ("log",)

    def __init__(self, chunk_size):
        super().__init__(chunk_size=chunk_size)
        self.log = []

    def add(self, edit):
        self.log.append(edit)
        super().add(edit)

CASES = [
    (12345, 16, (0, 0, 0)),
    (12345, 16, (-1, 0, 2)),
    (12345, 16, (1, -1, 0)),
    (12345, 16, (0, 1, 0)),
    ("luxembourg", 16, (3, 0, -2)),
    (-7, 32, (0, 0, 0)),
    (2024, 8, (-5, 1, 4)),
    (2024, 8, (2, 0, 1)),
]


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


def run(seed, size, coord, passes):
    world = World.create(seed, chunk_size=size)
    world.deferred_edits = Recording(size)
    chunk = world.chunks.get_or_create(ChunkCoord(*coord))
    GenerationScheduler(passes).generate_chunk(world, chunk)
    return world, chunk


def main():
    out = []
    for seed, size, coord in CASES:
        base = [SimpleTerrainPass(), SimpleBiomePass(), SimpleCavePass(), SimpleTreeFeaturePass()]
        world, chunk = run(seed, size, coord, base)
        edits = [[e.position.x, e.position.y, e.position.z, e.block_id, e.priority] for e in world.deferred_edits.log]
        full = base + [ApplyDeferredEditsPass(), SimpleSunlightPass()]
        _, chunk2 = run(seed, size, coord, full)
        out.append(
            {
                "seed": seed,
                "size": size,
                "chunk": list(coord),
                "world_seed": world.seed,
                "blocks": b64(chunk.blocks.blocks.astype("<u2")),
                "heightmap": b64(chunk.heightmap.astype("<i2")),
                "biomes": b64(chunk.biomes.astype("u1")),
                "edits": edits,
                "final": b64(chunk2.blocks.blocks.astype("<u2")),
                "light": b64(chunk2.light.astype("u1")),
            }
        )
    with gzip.open("voxels.json.gz", "wt") as f:
        json.dump({"pyworldgen": "0.1.8", "cases": out}, f)


if __name__ == "__main__":
    main()
