/**
 * A chunk's mesh in the view frame (see the module docs).
 */
export class ChunkMeshView {
    static __wrap(ptr) {
        const obj = Object.create(ChunkMeshView.prototype);
        obj.__wbg_ptr = ptr;
        ChunkMeshViewFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        ChunkMeshViewFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_chunkmeshview_free(ptr, 0);
    }
    /**
     * sRGB colour and alpha per vertex, a `Uint8Array`.
     * @returns {Uint8Array}
     */
    get colors() {
        const ret = wasm.chunkmeshview_colors(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * Triangles, a `Uint32Array`.
     * @returns {Uint32Array}
     */
    get indices() {
        const ret = wasm.chunkmeshview_indices(this.__wbg_ptr);
        var v1 = getArrayU32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * Unit normals, view frame, a `Float32Array` of xyz.
     * @returns {Float32Array}
     */
    get normals() {
        const ret = wasm.chunkmeshview_normals(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * Vertex positions, metres, view frame, a `Float32Array` of xyz.
     * @returns {Float32Array}
     */
    get positions() {
        const ret = wasm.chunkmeshview_positions(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
}
if (Symbol.dispose) ChunkMeshView.prototype[Symbol.dispose] = ChunkMeshView.prototype.free;

/**
 * The class decision on an `n × n` tile grid, row 0 north.
 */
export class Decision {
    static __wrap(ptr) {
        const obj = Object.create(Decision.prototype);
        obj.__wbg_ptr = ptr;
        DecisionFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        DecisionFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_decision_free(ptr, 0);
    }
    /**
     * Class per tile (0 = the rule's first position, "collected"), a `Uint8Array`.
     * @returns {Uint8Array}
     */
    get classes() {
        const ret = wasm.decision_classes(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * Tiles per side.
     * @returns {number}
     */
    get n() {
        const ret = wasm.decision_n(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * The class each tile would take instead, a `Uint8Array`.
     * @returns {Uint8Array}
     */
    get runnerUp() {
        const ret = wasm.decision_runnerUp(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * Share of tiles in each class.
     * @returns {Float64Array}
     */
    get shares() {
        const ret = wasm.decision_shares(this.__wbg_ptr);
        var v1 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v1;
    }
    /**
     * What drove the collecting class ("sediment" or "drainage").
     * @returns {string}
     */
    get source() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.decision_source(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * Confidence 0..1 per tile (the undecided band), a `Float64Array`.
     * @returns {Float64Array}
     */
    get strength() {
        const ret = wasm.decision_strength(this.__wbg_ptr);
        var v1 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v1;
    }
}
if (Symbol.dispose) Decision.prototype[Symbol.dispose] = Decision.prototype.free;

/**
 * A grid mapping (see `GridMapping`): `relief_scale ≤ 0` follows the grid.
 */
export class Mapping {
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        MappingFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_mapping_free(ptr, 0);
    }
    /**
     * `relief·max(1, relief_scale/24)`: the drawn height of the field's top over its middle.
     * @returns {number}
     */
    get amplitude() {
        const ret = wasm.mapping_amplitude(this.__wbg_ptr);
        return ret;
    }
    /**
     * The detail grain's lattice hash: `"original"` or `"canonical"`.
     * @returns {string}
     */
    get compat() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.mapping_compat(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * @param {number} n
     * @param {number} tile
     * @param {number} relief
     * @param {number} relief_scale
     * @param {number} angle_deg
     * @param {number} detail
     * @param {string | null} [compat]
     */
    constructor(n, tile, relief, relief_scale, angle_deg, detail, compat) {
        const val2 = +n;
        const val3 = +tile;
        const val4 = +relief;
        const val5 = +relief_scale;
        const val6 = +angle_deg;
        const val7 = +detail;
        var ptr0 = isLikeNone(compat) ? 0 : passStringToWasm0(compat, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        var len0 = WASM_VECTOR_LEN;
        const ret = wasm.mapping_new(val2, val3, val4, val5, val6, val7, ptr0, len0);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        this.__wbg_ptr = ret[0];
        MappingFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * Samples per tile side the rule uses.
     * @returns {number}
     */
    get over() {
        const ret = wasm.mapping_over(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * Tiles the terrain spans across its long edge.
     * @returns {number}
     */
    get reliefScale() {
        const ret = wasm.mapping_reliefScale(this.__wbg_ptr);
        return ret;
    }
}
if (Symbol.dispose) Mapping.prototype[Symbol.dispose] = Mapping.prototype.free;

/**
 * Per-cell draw data of a layout (see `bozkir_splat::tiling::scene::Cells`).
 */
export class SceneCells {
    static __wrap(ptr) {
        const obj = Object.create(SceneCells.prototype);
        obj.__wbg_ptr = ptr;
        SceneCellsFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        SceneCellsFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_scenecells_free(ptr, 0);
    }
    /**
     * @returns {Uint32Array}
     */
    get altThreshold() {
        const ret = wasm.scenecells_altThreshold(this.__wbg_ptr);
        var v1 = getArrayU32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * @returns {Uint32Array}
     */
    get alt() {
        const ret = wasm.scenecells_alt(this.__wbg_ptr);
        var v1 = getArrayU32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * @returns {Float32Array}
     */
    get mix() {
        const ret = wasm.scenecells_mix(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * @returns {Uint32Array}
     */
    get ownThreshold() {
        const ret = wasm.scenecells_ownThreshold(this.__wbg_ptr);
        var v1 = getArrayU32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * @returns {Uint32Array}
     */
    get tile() {
        const ret = wasm.scenecells_tile(this.__wbg_ptr);
        var v1 = getArrayU32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * @returns {number}
     */
    get unmatched() {
        const ret = wasm.scenecells_unmatched(this.__wbg_ptr);
        return ret >>> 0;
    }
}
if (Symbol.dispose) SceneCells.prototype[Symbol.dispose] = SceneCells.prototype.free;

/**
 * A height field (and optional sediment record) for the viewer.
 */
export class SceneField {
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        SceneFieldFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_scenefield_free(ptr, 0);
    }
    /**
     * The rule on the grid of `m` (`share` undefined = free balance).
     * @param {Mapping} m
     * @param {number | null | undefined} share
     * @param {number} altitude
     * @param {number} coherence
     * @param {number} sharpness
     * @returns {Decision}
     */
    classify(m, share, altitude, coherence, sharpness) {
        _assertClass(m, Mapping);
        const ret = wasm.scenefield_classify(this.__wbg_ptr, m.__wbg_ptr, !isLikeNone(share), isLikeNone(share) ? 0 : share, altitude, coherence, sharpness);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return Decision.__wrap(ret[0]);
    }
    /**
     * The drawn height at world `(x, y)` under `m` (`Field::height_at`).
     * @param {Mapping} m
     * @param {number} x
     * @param {number} y
     * @returns {number}
     */
    heightAt(m, x, y) {
        _assertClass(m, Mapping);
        const ret = wasm.scenefield_heightAt(this.__wbg_ptr, m.__wbg_ptr, x, y);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ret[0];
    }
    /**
     * @returns {number}
     */
    get height() {
        const ret = wasm.scenefield_height(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * Where detail relief applies, 0..1.
     * @returns {Float32Array}
     */
    get mask() {
        const ret = wasm.scenefield_mask(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * @param {Float32Array | number[]} heights
     * @param {number} w
     * @param {number} h
     * @param {Float32Array | number[] | null} [sediment]
     */
    constructor(heights, w, h, sediment) {
        const val3 = +w;
        const val4 = +h;
        let ptr0, len0, ptr1, len1;
        try {
            ptr0 = passArrayF32ToWasm0(heights, wasm.__wbindgen_malloc);
            len0 = WASM_VECTOR_LEN;
            ptr1 = isLikeNone(sediment) ? 0 : passArrayF32ToWasm0(sediment, wasm.__wbindgen_malloc);
            len1 = WASM_VECTOR_LEN;
        } catch (e) {
            if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 4, 4); }
            if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 4, 4); }
            throw e;
        }
        const ret = wasm.scenefield_new(ptr0, len0, val3, val4, ptr1, len1);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        this.__wbg_ptr = ret[0];
        SceneFieldFinalization.register(this, this.__wbg_ptr, this);
        return this;
    }
    /**
     * Openness 0..1 (0.5 flat).
     * @returns {Float32Array}
     */
    get open() {
        const ret = wasm.scenefield_open(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * @returns {number}
     */
    get width() {
        const ret = wasm.scenefield_width(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * Heights stretched to 0..1, row 0 north.
     * @returns {Float32Array}
     */
    get z() {
        const ret = wasm.scenefield_z(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
}
if (Symbol.dispose) SceneField.prototype[Symbol.dispose] = SceneField.prototype.free;

/**
 * The starter tileset (no data needed).
 */
export class StarterTileset {
    static __wrap(ptr) {
        const obj = Object.create(StarterTileset.prototype);
        obj.__wbg_ptr = ptr;
        StarterTilesetFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        StarterTilesetFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_startertileset_free(ptr, 0);
    }
    /**
     * @returns {number}
     */
    get atlasHeight() {
        const ret = wasm.startertileset_atlasHeight(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * @returns {number}
     */
    get atlasWidth() {
        const ret = wasm.startertileset_atlasWidth(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * Atlas RGBA pixels.
     * @returns {Uint8Array}
     */
    get atlas() {
        const ret = wasm.startertileset_atlas(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * `tileset.json` text.
     * @returns {string}
     */
    get manifest() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.startertileset_manifest(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * `tiles.splat` bytes.
     * @returns {Uint8Array}
     */
    get splats() {
        const ret = wasm.startertileset_splats(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
}
if (Symbol.dispose) StarterTileset.prototype[Symbol.dispose] = StarterTileset.prototype.free;

/**
 * Generated terrain: `width × height` cells, row 0 north.
 */
export class Terrain {
    static __wrap(ptr) {
        const obj = Object.create(Terrain.prototype);
        obj.__wbg_ptr = ptr;
        TerrainFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        TerrainFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_terrain_free(ptr, 0);
    }
    /**
     * Rows.
     * @returns {number}
     */
    get height() {
        const ret = wasm.terrain_height(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * Heights in metres (the bytes of `bozkir terrain`'s `height.tif`), a `Float32Array`.
     * @returns {Float32Array}
     */
    get heights() {
        const ret = wasm.terrain_heights(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * The erosion's sediment record, unit range (`sediment.tif`), a `Float32Array`.
     * @returns {Float32Array}
     */
    get sediment() {
        const ret = wasm.terrain_sediment(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * Heights stretched to 0..1 in f64, then rounded to f32: what the original viewer's terrain
     * worker hands its `HeightField`, so a `SceneField` made from them holds the original's plane
     * bit for bit (from the metres it is within f32 rounding of it).
     * @returns {Float32Array}
     */
    get unitHeights() {
        const ret = wasm.terrain_unitHeights(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * Cells per row.
     * @returns {number}
     */
    get width() {
        const ret = wasm.terrain_width(this.__wbg_ptr);
        return ret >>> 0;
    }
}
if (Symbol.dispose) Terrain.prototype[Symbol.dispose] = Terrain.prototype.free;

/**
 * A live 3-D world (see the module docs).
 */
export class VoxelWorld {
    static __wrap(ptr) {
        const obj = Object.create(VoxelWorld.prototype);
        obj.__wbg_ptr = ptr;
        VoxelWorldFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        VoxelWorldFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_voxelworld_free(ptr, 0);
    }
    /**
     * Metres per block.
     * @returns {number}
     */
    get blockSize() {
        const ret = wasm.voxelworld_blockSize(this.__wbg_ptr);
        return ret;
    }
    /**
     * The bounded world's box in the view frame (metres): `[x0, y0, z0, x1, y1, z1]`, or empty
     * for an unbounded world.
     * @returns {Float64Array}
     */
    get bounds() {
        const ret = wasm.voxelworld_bounds(this.__wbg_ptr);
        var v1 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v1;
    }
    /**
     * Blocks per chunk edge.
     * @returns {number}
     */
    get chunkSize() {
        const ret = wasm.voxelworld_chunkSize(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * `"pyworldgen"` or `"canonical"`.
     * @returns {string}
     */
    get compat() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.voxelworld_compat(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * Generator name.
     * @returns {string}
     */
    get generator() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.voxelworld_generator(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * Whether block `(x, y, z)` (voxel frame) stops a walker.
     * @param {number} x
     * @param {number} y
     * @param {number} z
     * @returns {boolean}
     */
    isSolid(x, y, z) {
        const ret = wasm.voxelworld_isSolid(this.__wbg_ptr, x, y, z);
        return ret !== 0;
    }
    /**
     * Loaded chunks.
     * @returns {number}
     */
    get loadedCount() {
        const ret = wasm.voxelworld_loadedCount(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * Mesh chunk `(cx, cy, cz)` (loaded) over its loaded neighbours.
     * @param {number} cx
     * @param {number} cy
     * @param {number} cz
     * @returns {ChunkMeshView}
     */
    mesh(cx, cy, cz) {
        const ret = wasm.voxelworld_mesh(this.__wbg_ptr, cx, cy, cz);
        if (ret[2]) {
            throw takeFromExternrefTable0(ret[1]);
        }
        return ChunkMeshView.__wrap(ret[0]);
    }
    /**
     * Whether the walker stands on the ground.
     * @returns {boolean}
     */
    get onGround() {
        const ret = wasm.voxelworld_onGround(this.__wbg_ptr);
        return ret !== 0;
    }
    /**
     * Up to `max` chunks whose mesh is due, nearest first: xyz per chunk.
     * @param {number} max
     * @returns {Int32Array}
     */
    pending(max) {
        const ret = wasm.voxelworld_pending(this.__wbg_ptr, max);
        var v1 = getArrayI32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * Put the walker at a free standing place near view-frame `(x, y, z)` metres (searching up
     * then outward over the loaded blocks); returns its eye `[x, y, z]`, or an error when there
     * is none within 24 blocks.
     * @param {number} x
     * @param {number} y
     * @param {number} z
     * @returns {Float64Array}
     */
    placeWalker(x, y, z) {
        const ret = wasm.voxelworld_placeWalker(this.__wbg_ptr, x, y, z);
        if (ret[3]) {
            throw takeFromExternrefTable0(ret[2]);
        }
        var v1 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v1;
    }
    /**
     * Stream radius across, chunks.
     * @returns {number}
     */
    get radius() {
        const ret = wasm.voxelworld_radius(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * The seed as given.
     * @returns {string}
     */
    get seed() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.voxelworld_seed(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * Where a visit starts, view frame metres `[x, y, z]`: on the cave's corridor axis three
     * blocks in, or above the unbounded world's origin.
     * @returns {Float64Array}
     */
    get start() {
        const ret = wasm.voxelworld_start(this.__wbg_ptr);
        var v1 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v1;
    }
    /**
     * Height in metres (view frame z) of the ground under view-frame `(x, y)` among the loaded
     * chunks, or NaN.
     * @param {number} x
     * @param {number} y
     * @returns {number}
     */
    surface(x, y) {
        const ret = wasm.voxelworld_surface(this.__wbg_ptr, x, y);
        return ret;
    }
    /**
     * Stream around a viewer at view-frame `(x, y, z)` metres (see the module docs).
     * @param {number} x
     * @param {number} y
     * @param {number} z
     * @returns {Int32Array}
     */
    update(x, y, z) {
        const ret = wasm.voxelworld_update(this.__wbg_ptr, x, y, z);
        if (ret[3]) {
            throw takeFromExternrefTable0(ret[2]);
        }
        var v1 = getArrayI32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * One walk step of `dt` seconds: `vx`, `vy` the wanted velocity east and north (m/s),
     * `up` the vertical velocity when flying (m/s), `jump` from the ground; returns the eye
     * `[x, y, z]` (view frame, metres).
     * @param {number} dt
     * @param {number} vx
     * @param {number} vy
     * @param {number} up
     * @param {boolean} jump
     * @param {boolean} fly
     * @returns {Float64Array}
     */
    walk(dt, vx, vy, up, jump, fly) {
        const ret = wasm.voxelworld_walk(this.__wbg_ptr, dt, vx, vy, up, jump, fly);
        if (ret[3]) {
            throw takeFromExternrefTable0(ret[2]);
        }
        var v1 = getArrayF64FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 8, 8);
        return v1;
    }
}
if (Symbol.dispose) VoxelWorld.prototype[Symbol.dispose] = VoxelWorld.prototype.free;

/**
 * A generated world as typed arrays (see the module docs).
 */
export class WorldView {
    static __wrap(ptr) {
        const obj = Object.create(WorldView.prototype);
        obj.__wbg_ptr = ptr;
        WorldViewFinalization.register(obj, obj.__wbg_ptr, obj);
        return obj;
    }
    __destroy_into_raw() {
        const ptr = this.__wbg_ptr;
        this.__wbg_ptr = 0;
        WorldViewFinalization.unregister(this);
        return ptr;
    }
    free() {
        const ptr = this.__destroy_into_raw();
        wasm.__wbg_worldview_free(ptr, 0);
    }
    /**
     * r" Branch mesh colours, sRGB, a `Uint8Array`.
     * @returns {Uint8Array}
     */
    get branchColors() {
        const ret = wasm.worldview_branchColors(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * r" Branch mesh triangles, a `Uint32Array`.
     * @returns {Uint32Array}
     */
    get branchIndices() {
        const ret = wasm.worldview_branchIndices(this.__wbg_ptr);
        var v1 = getArrayU32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * r" Branch mesh normals, xyz, a `Float32Array`.
     * @returns {Float32Array}
     */
    get branchNormals() {
        const ret = wasm.worldview_branchNormals(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * r" Branch mesh vertices (bark tubes and leaf clusters), xyz, a `Float32Array` (empty: none).
     * @returns {Float32Array}
     */
    get branchPositions() {
        const ret = wasm.worldview_branchPositions(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * FNV-1a 64 (hex) over nx, ny (u32), dx, dy (f64) and every array's little-endian bytes in
     * the order of the getters: what native and WebAssembly must agree on bit for bit.
     * @returns {string}
     */
    checksum() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.worldview_checksum(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * r" sRGB ground colour, `ny × nx × 3`, a `Uint8Array` (empty: none).
     * @returns {Uint8Array}
     */
    get color() {
        const ret = wasm.worldview_color(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * r#" `"pyworldgen"` or `"canonical"`."#
     * @returns {string}
     */
    get compat() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.worldview_compat(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * r" Column spacing in metres.
     * @returns {number}
     */
    get dx() {
        const ret = wasm.worldview_dx(this.__wbg_ptr);
        return ret;
    }
    /**
     * r" Row spacing in metres.
     * @returns {number}
     */
    get dy() {
        const ret = wasm.worldview_dy(this.__wbg_ptr);
        return ret;
    }
    /**
     * r" Generator name (pyworldgen's).
     * @returns {string}
     */
    get generator() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.worldview_generator(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * r" Whether the world has a road ribbon.
     * @returns {boolean}
     */
    get hasRoads() {
        const ret = wasm.worldview_hasRoads(this.__wbg_ptr);
        return ret !== 0;
    }
    /**
     * r" Ground heights in metres, `ny × nx`, a `Float32Array`.
     * @returns {Float32Array}
     */
    get height() {
        const ret = wasm.worldview_height(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * r" Columns (x east).
     * @returns {number}
     */
    get nx() {
        const ret = wasm.worldview_nx(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * r" Rows (y north; row 0 south).
     * @returns {number}
     */
    get ny() {
        const ret = wasm.worldview_ny(this.__wbg_ptr);
        return ret >>> 0;
    }
    /**
     * r" 1 where a ribbon vertex is on a bridge, a `Uint8Array`.
     * @returns {Uint8Array}
     */
    get roadBridge() {
        const ret = wasm.worldview_roadBridge(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * r" Ribbon colours, rgb, a `Uint8Array`.
     * @returns {Uint8Array}
     */
    get roadColors() {
        const ret = wasm.worldview_roadColors(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * r" Ribbon triangles, a `Uint32Array`.
     * @returns {Uint32Array}
     */
    get roadIndices() {
        const ret = wasm.worldview_roadIndices(this.__wbg_ptr);
        var v1 = getArrayU32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * r" Ribbon vertices, xyz, a `Float32Array`.
     * @returns {Float32Array}
     */
    get roadPositions() {
        const ret = wasm.worldview_roadPositions(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * r" 1 where a ribbon vertex is inside a tunnel, a `Uint8Array`.
     * @returns {Uint8Array}
     */
    get roadTunnel() {
        const ret = wasm.worldview_roadTunnel(this.__wbg_ptr);
        var v1 = getArrayU8FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 1, 1);
        return v1;
    }
    /**
     * r" The seed as given (an integer or a word).
     * @returns {string}
     */
    get seed() {
        let deferred1_0;
        let deferred1_1;
        try {
            const ret = wasm.worldview_seed(this.__wbg_ptr);
            deferred1_0 = ret[0];
            deferred1_1 = ret[1];
            return getStringFromWasm0(ret[0], ret[1]);
        } finally {
            wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
        }
    }
    /**
     * r" Trees, `[x, y, z, crownRadius, height]` each, a `Float32Array`.
     * @returns {Float32Array}
     */
    get trees() {
        const ret = wasm.worldview_trees(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
    /**
     * r" Water depths in metres, `ny × nx`, a `Float32Array`.
     * @returns {Float32Array}
     */
    get water() {
        const ret = wasm.worldview_water(this.__wbg_ptr);
        var v1 = getArrayF32FromWasm0(ret[0], ret[1]).slice();
        wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
        return v1;
    }
}
if (Symbol.dispose) WorldView.prototype[Symbol.dispose] = WorldView.prototype.free;

/**
 * The blend mix of a tile of this strength for a blend band `width` (1 = its own class only).
 * @param {number} strength
 * @param {number} width
 * @returns {number}
 */
export function blendMix(strength, width) {
    const ret = wasm.blendMix(strength, width);
    return ret;
}

/**
 * The rule on samples already taken: `z` is `(n·over)²` heights (north row first), as
 * `bozkir_material::classify` takes them. `shares` empty = free, one value = the share of
 * class 0, one per class = relative quotas.
 * @param {Float64Array | number[]} z
 * @param {number} n
 * @param {number} classes
 * @param {number} spacing
 * @param {Float64Array | number[]} shares
 * @param {number} coherence
 * @param {number} altitude
 * @param {number} sharpness
 * @param {Float64Array | number[] | null} [sediment]
 * @returns {Decision}
 */
export function classifyCells(z, n, classes, spacing, shares, coherence, altitude, sharpness, sediment) {
    const val4 = +n;
    const val5 = +classes;
    const val6 = +spacing;
    const val7 = +coherence;
    const val8 = +altitude;
    const val9 = +sharpness;
    let ptr0, len0, ptr1, len1, ptr2, len2;
    try {
        ptr0 = passArrayF64ToWasm0(z, wasm.__wbindgen_malloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passArrayF64ToWasm0(shares, wasm.__wbindgen_malloc);
        len1 = WASM_VECTOR_LEN;
        ptr2 = isLikeNone(sediment) ? 0 : passArrayF64ToWasm0(sediment, wasm.__wbindgen_malloc);
        len2 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr2) { wasm.__wbindgen_free(ptr2, len2 * 8, 8); }
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 8, 8); }
        if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 8, 8); }
        throw e;
    }
    const ret = wasm.classifyCells(ptr0, len0, val4, val5, val6, ptr1, len1, val7, val8, val9, ptr2, len2);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return Decision.__wrap(ret[0]);
}

/**
 * Classify a terrain under a `grid × grid` tile grid with two classes of the built-in rule, as
 * `bozkir classify --grid G [--share S] --altitude A --coherence C --sharpness K --relief R
 * --detail D` does (unit tiles, no rotation, the viewer's oversampling). `share` undefined = each
 * tile takes its best class.
 * @param {Float32Array | number[]} heights
 * @param {number} w
 * @param {number} h
 * @param {Float32Array | number[] | null | undefined} sediment
 * @param {number} grid
 * @param {number | null | undefined} share
 * @param {number} altitude
 * @param {number} coherence
 * @param {number} sharpness
 * @param {number} relief
 * @param {number} detail
 * @returns {Decision}
 */
export function classify_grid(heights, w, h, sediment, grid, share, altitude, coherence, sharpness, relief, detail) {
    const val3 = +w;
    const val4 = +h;
    const val5 = +grid;
    const val6 = +(isLikeNone(share) ? 0 : share);
    const val7 = +altitude;
    const val8 = +coherence;
    const val9 = +sharpness;
    const val10 = +relief;
    const val11 = +detail;
    let ptr0, len0, ptr1, len1;
    try {
        ptr0 = passArrayF32ToWasm0(heights, wasm.__wbindgen_malloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = isLikeNone(sediment) ? 0 : passArrayF32ToWasm0(sediment, wasm.__wbindgen_malloc);
        len1 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 4, 4); }
        if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 4, 4); }
        throw e;
    }
    const ret = wasm.classify_grid(ptr0, len0, val3, val4, ptr1, len1, val5, !isLikeNone(share), val6, val7, val8, val9, val10, val11);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return Decision.__wrap(ret[0]);
}

/**
 * Terrain from a named profile and a seed: `bozkir terrain --profile P --seed S --size N`.
 * `onProgress(stage, done, total)`, when given, is called as the generator advances (the
 * erosion iterations: `stage` "erode", `done` of `total`), so a page can show how far it is.
 * @param {string} profile
 * @param {number} seed
 * @param {number} size
 * @param {Function | null} [on_progress]
 * @returns {Terrain}
 */
export function generate(profile, seed, size, on_progress) {
    const val2 = +seed;
    const val3 = +size;
    const ptr0 = passStringToWasm0(profile, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.generate(ptr0, len0, val2, val3, isLikeNone(on_progress) ? 0 : addToExternrefTable0(on_progress));
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return Terrain.__wrap(ret[0]);
}

/**
 * Generate world `name` for `seed` (an integer or a word) with `paramsJson` (see the module
 * docs): the arrays the viewer draws.
 * @param {string} name
 * @param {string} seed
 * @param {string} params_json
 * @returns {WorldView}
 */
export function generateWorld(name, seed, params_json) {
    let ptr0, len0, ptr1, len1, ptr2, len2;
    try {
        ptr0 = passStringToWasm0(name, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passStringToWasm0(seed, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len1 = WASM_VECTOR_LEN;
        ptr2 = passStringToWasm0(params_json, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len2 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr2) { wasm.__wbindgen_free(ptr2, len2 * 1, 1); }
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
        if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
        throw e;
    }
    const ret = wasm.generateWorld(ptr0, len0, ptr1, len1, ptr2, len2);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return WorldView.__wrap(ret[0]);
}

/**
 * The generator's output version (part of a browser cache key).
 * @returns {number}
 */
export function generatorVersion() {
    const ret = wasm.generatorVersion();
    return ret >>> 0;
}

/**
 * 3-D gradient noise (`bozkir_core::noise::gradient3`) at `(x, y, z)` under `seed`.
 * @param {number} x
 * @param {number} y
 * @param {number} z
 * @param {number} seed
 * @returns {number}
 */
export function gradient3(x, y, z, seed) {
    const ret = wasm.gradient3(x, y, z, seed);
    return ret;
}

/**
 * The canonical 3-D hash (`bozkir_core::hash::hash3_u32`).
 * @param {number} x
 * @param {number} y
 * @param {number} z
 * @param {number} seed
 * @returns {number}
 */
export function hash3U32(x, y, z, seed) {
    const ret = wasm.hash3U32(x, y, z, seed);
    return ret >>> 0;
}

/**
 * The canonical 32-bit hash (`bozkir_core::hash::hash_u32`).
 * @param {number} x
 * @param {number} y
 * @param {number} seed
 * @returns {number}
 */
export function hashU32(x, y, seed) {
    const ret = wasm.hashU32(x, y, seed);
    return ret >>> 0;
}

/**
 * Open a 3-D world: `name` `voxels` or `implicit_cave`, `seed` an integer or a word,
 * `paramsJson` a JSON object (see the module docs).
 * @param {string} name
 * @param {string} seed
 * @param {string} params_json
 * @returns {VoxelWorld}
 */
export function openVoxelWorld(name, seed, params_json) {
    let ptr0, len0, ptr1, len1, ptr2, len2;
    try {
        ptr0 = passStringToWasm0(name, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = passStringToWasm0(seed, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len1 = WASM_VECTOR_LEN;
        ptr2 = passStringToWasm0(params_json, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len2 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr2) { wasm.__wbindgen_free(ptr2, len2 * 1, 1); }
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
        if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
        throw e;
    }
    const ret = wasm.openVoxelWorld(ptr0, len0, ptr1, len1, ptr2, len2);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return VoxelWorld.__wrap(ret[0]);
}

/**
 * Profile names in group order.
 * @returns {string[]}
 */
export function profiles() {
    const ret = wasm.profiles();
    var v1 = getArrayJsValueFromWasm0(ret[0], ret[1]);
    wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
    return v1;
}

/**
 * The built-in rule file (`crates/material/rule.json`), verbatim.
 * @returns {string}
 */
export function ruleJson() {
    let deferred1_0;
    let deferred1_1;
    try {
        const ret = wasm.ruleJson();
        deferred1_0 = ret[0];
        deferred1_1 = ret[1];
        return getStringFromWasm0(ret[0], ret[1]);
    } finally {
        wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
    }
}

/**
 * The Wang layout of a tileset (its manifest JSON) over an `n × n` grid with the wanted
 * classes (undefined = the rule off: a hashed class per cell), the runner-up and strength of
 * the decision and the blend band width (0 = hard).
 * @param {string} manifest_json
 * @param {number} n
 * @param {number} seed
 * @param {Uint8Array | number[] | null | undefined} classes
 * @param {Uint8Array | number[] | null | undefined} runner_up
 * @param {Float64Array | number[] | null | undefined} strength
 * @param {number} blend_width
 * @returns {SceneCells}
 */
export function sceneCells(manifest_json, n, seed, classes, runner_up, strength, blend_width) {
    const val5 = +n;
    const val6 = +seed;
    const val7 = +blend_width;
    let ptr0, len0, ptr1, len1, ptr2, len2, ptr3, len3;
    try {
        ptr0 = passStringToWasm0(manifest_json, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        len0 = WASM_VECTOR_LEN;
        ptr1 = isLikeNone(classes) ? 0 : passArray8ToWasm0(classes, wasm.__wbindgen_malloc);
        len1 = WASM_VECTOR_LEN;
        ptr2 = isLikeNone(runner_up) ? 0 : passArray8ToWasm0(runner_up, wasm.__wbindgen_malloc);
        len2 = WASM_VECTOR_LEN;
        ptr3 = isLikeNone(strength) ? 0 : passArrayF64ToWasm0(strength, wasm.__wbindgen_malloc);
        len3 = WASM_VECTOR_LEN;
    } catch (e) {
        if (ptr3) { wasm.__wbindgen_free(ptr3, len3 * 8, 8); }
        if (ptr2) { wasm.__wbindgen_free(ptr2, len2 * 1, 1); }
        if (ptr1) { wasm.__wbindgen_free(ptr1, len1 * 1, 1); }
        if (ptr0) { wasm.__wbindgen_free(ptr0, len0 * 1, 1); }
        throw e;
    }
    const ret = wasm.sceneCells(ptr0, len0, val5, val6, ptr1, len1, ptr2, len2, ptr3, len3, val7);
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return SceneCells.__wrap(ret[0]);
}

/**
 * The survival hash of splat indices `0..n` within a tile (`splat_priority·2³²`).
 * @param {number} n
 * @returns {Uint32Array}
 */
export function splatHashes(n) {
    const ret = wasm.splatHashes(n);
    var v1 = getArrayU32FromWasm0(ret[0], ret[1]).slice();
    wasm.__wbindgen_free(ret[0], ret[1] * 4, 4);
    return v1;
}

/**
 * Per-splat priority in `[0, 1)`: a splat survives where it is `≤` its tile's threshold.
 * @param {number} index
 * @returns {number}
 */
export function splatPriority(index) {
    const ret = wasm.splatPriority(index);
    return ret;
}

/**
 * Build the starter tileset.
 * @returns {StarterTileset}
 */
export function starterTileset() {
    const ret = wasm.starterTileset();
    if (ret[2]) {
        throw takeFromExternrefTable0(ret[1]);
    }
    return StarterTileset.__wrap(ret[0]);
}
function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        __wbg_Error_208446807d0d1e30: function(arg0, arg1) {
            const ret = Error(getStringFromWasm0(arg0, arg1));
            return ret;
        },
        __wbg___wbindgen_throw_4c88d8bf264fd984: function(arg0, arg1) {
            throw new Error(getStringFromWasm0(arg0, arg1));
        },
        __wbg_call_275b78b3b6520b92: function() { return handleError(function (arg0, arg1, arg2, arg3, arg4) {
            const ret = arg0.call(arg1, arg2, arg3, arg4);
            return ret;
        }, arguments); },
        __wbindgen_generic_0000000000000001: function(arg0) {
            // Cast intrinsic for `F64 -> Externref`.
            const ret = arg0;
            return ret;
        },
        __wbindgen_generic_0000000000000002: function(arg0, arg1) {
            // Cast intrinsic for `Ref(String) -> Externref`.
            const ret = getStringFromWasm0(arg0, arg1);
            return ret;
        },
        __wbindgen_init_externref_table: function() {
            const table = wasm.__wbindgen_externrefs;
            table.set(0, undefined);
            table.set(1024, undefined);
            table.set(1025, null);
            table.set(1026, true);
            table.set(1027, false);
        },
    };
    return {
        __proto__: null,
        "./bozkir_wasm_bg.js": import0,
    };
}

const ChunkMeshViewFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_chunkmeshview_free(ptr, 1));
const DecisionFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_decision_free(ptr, 1));
const MappingFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_mapping_free(ptr, 1));
const SceneCellsFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_scenecells_free(ptr, 1));
const SceneFieldFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_scenefield_free(ptr, 1));
const StarterTilesetFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_startertileset_free(ptr, 1));
const TerrainFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_terrain_free(ptr, 1));
const VoxelWorldFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_voxelworld_free(ptr, 1));
const WorldViewFinalization = (typeof FinalizationRegistry === 'undefined')
    ? { register: () => {}, unregister: () => {} }
    : new FinalizationRegistry(ptr => wasm.__wbg_worldview_free(ptr, 1));

function addToExternrefTable0(obj) {
    const idx = wasm.__externref_table_alloc();
    wasm.__wbindgen_externrefs.set(idx, obj);
    return idx;
}

function _assertClass(instance, klass) {
    if (!(instance instanceof klass)) {
        throw new Error(`expected instance of ${klass.name}`);
    }
}

function getArrayF32FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getFloat32ArrayMemory0().subarray(ptr / 4, ptr / 4 + len);
}

function getArrayF64FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getFloat64ArrayMemory0().subarray(ptr / 8, ptr / 8 + len);
}

function getArrayI32FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getInt32ArrayMemory0().subarray(ptr / 4, ptr / 4 + len);
}

function getArrayJsValueFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    const mem = getDataViewMemory0();
    const result = [];
    for (let i = ptr; i < ptr + 4 * len; i += 4) {
        result.push(wasm.__wbindgen_externrefs.get(mem.getUint32(i, true)));
    }
    wasm.__externref_drop_slice(ptr, len);
    return result;
}

function getArrayU32FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getUint32ArrayMemory0().subarray(ptr / 4, ptr / 4 + len);
}

function getArrayU8FromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return getUint8ArrayMemory0().subarray(ptr / 1, ptr / 1 + len);
}

let cachedDataViewMemory0 = null;
function getDataViewMemory0() {
    if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || (cachedDataViewMemory0.buffer.detached === undefined && cachedDataViewMemory0.buffer !== wasm.memory.buffer)) {
        cachedDataViewMemory0 = new DataView(wasm.memory.buffer);
    }
    return cachedDataViewMemory0;
}

let cachedFloat32ArrayMemory0 = null;
function getFloat32ArrayMemory0() {
    if (cachedFloat32ArrayMemory0 === null || cachedFloat32ArrayMemory0.byteLength === 0) {
        cachedFloat32ArrayMemory0 = new Float32Array(wasm.memory.buffer);
    }
    return cachedFloat32ArrayMemory0;
}

let cachedFloat64ArrayMemory0 = null;
function getFloat64ArrayMemory0() {
    if (cachedFloat64ArrayMemory0 === null || cachedFloat64ArrayMemory0.byteLength === 0) {
        cachedFloat64ArrayMemory0 = new Float64Array(wasm.memory.buffer);
    }
    return cachedFloat64ArrayMemory0;
}

let cachedInt32ArrayMemory0 = null;
function getInt32ArrayMemory0() {
    if (cachedInt32ArrayMemory0 === null || cachedInt32ArrayMemory0.byteLength === 0) {
        cachedInt32ArrayMemory0 = new Int32Array(wasm.memory.buffer);
    }
    return cachedInt32ArrayMemory0;
}

function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}

let cachedUint32ArrayMemory0 = null;
function getUint32ArrayMemory0() {
    if (cachedUint32ArrayMemory0 === null || cachedUint32ArrayMemory0.byteLength === 0) {
        cachedUint32ArrayMemory0 = new Uint32Array(wasm.memory.buffer);
    }
    return cachedUint32ArrayMemory0;
}

let cachedUint8ArrayMemory0 = null;
function getUint8ArrayMemory0() {
    if (cachedUint8ArrayMemory0 === null || cachedUint8ArrayMemory0.byteLength === 0) {
        cachedUint8ArrayMemory0 = new Uint8Array(wasm.memory.buffer);
    }
    return cachedUint8ArrayMemory0;
}

function handleError(f, args) {
    try {
        return f.apply(this, args);
    } catch (e) {
        const idx = addToExternrefTable0(e);
        wasm.__wbindgen_exn_store(idx);
    }
}

function isLikeNone(x) {
    return x === undefined || x === null;
}

function passArray8ToWasm0(arg, malloc) {
    const ptr = malloc(arg.length * 1, 1) >>> 0;
    getUint8ArrayMemory0().set(arg, ptr / 1);
    WASM_VECTOR_LEN = arg.length;
    return ptr;
}

function passArrayF32ToWasm0(arg, malloc) {
    const ptr = malloc(arg.length * 4, 4) >>> 0;
    getFloat32ArrayMemory0().set(arg, ptr / 4);
    WASM_VECTOR_LEN = arg.length;
    return ptr;
}

function passArrayF64ToWasm0(arg, malloc) {
    const ptr = malloc(arg.length * 8, 8) >>> 0;
    getFloat64ArrayMemory0().set(arg, ptr / 8);
    WASM_VECTOR_LEN = arg.length;
    return ptr;
}

function passStringToWasm0(arg, malloc, realloc) {
    if (realloc === undefined) {
        const buf = cachedTextEncoder.encode(arg);
        const ptr = malloc(buf.length, 1) >>> 0;
        getUint8ArrayMemory0().subarray(ptr, ptr + buf.length).set(buf);
        WASM_VECTOR_LEN = buf.length;
        return ptr;
    }

    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;

    const mem = getUint8ArrayMemory0();

    let offset = 0;

    for (; offset < len; offset++) {
        const code = arg.charCodeAt(offset);
        if (code > 0x7F) break;
        mem[ptr + offset] = code;
    }
    if (offset !== len) {
        if (offset !== 0) {
            arg = arg.slice(offset);
        }
        ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
        const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
        const ret = cachedTextEncoder.encodeInto(arg, view);

        offset += ret.written;
        ptr = realloc(ptr, len, offset, 1) >>> 0;
    }

    WASM_VECTOR_LEN = offset;
    return ptr;
}

function takeFromExternrefTable0(idx) {
    const value = wasm.__wbindgen_externrefs.get(idx);
    wasm.__externref_table_dealloc(idx);
    return value;
}

let cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
cachedTextDecoder.decode();
const MAX_SAFARI_DECODE_BYTES = 2146435072;
let numBytesDecoded = 0;
function decodeText(bytes) {
    numBytesDecoded += bytes.length;
    if (numBytesDecoded >= MAX_SAFARI_DECODE_BYTES) {
        cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
        cachedTextDecoder.decode();
        numBytesDecoded = bytes.length;
    }
    return cachedTextDecoder.decode(bytes);
}

const cachedTextEncoder = new TextEncoder();

if (!('encodeInto' in cachedTextEncoder)) {
    cachedTextEncoder.encodeInto = function (arg, view) {
        const buf = cachedTextEncoder.encode(arg);
        view.set(buf);
        return {
            read: arg.length,
            written: buf.length
        };
    };
}

let WASM_VECTOR_LEN = 0;

let wasmModule, wasmInstance, wasm;
function __wbg_finalize_init(instance, module) {
    wasmInstance = instance;
    wasm = instance.exports;
    wasmModule = module;
    cachedDataViewMemory0 = null;
    cachedFloat32ArrayMemory0 = null;
    cachedFloat64ArrayMemory0 = null;
    cachedInt32ArrayMemory0 = null;
    cachedUint32ArrayMemory0 = null;
    cachedUint8ArrayMemory0 = null;
    wasm.__wbindgen_start();
    return wasm;
}

async function __wbg_load(module, imports) {
    if (typeof Response === 'function' && module instanceof Response) {
        if (!module.ok) {
            throw new Error(`failed to fetch Wasm: ${module.status} ${module.statusText} fetching '${module.url}'`);
        }

        if (typeof WebAssembly.instantiateStreaming === 'function') {
            try {
                return await WebAssembly.instantiateStreaming(module, imports);
            } catch (e) {
                const validResponse = expectedResponseType(module.type);

                if (validResponse && module.headers.get('Content-Type') !== 'application/wasm') {
                    console.warn("`WebAssembly.instantiateStreaming` failed because your server does not serve Wasm with `application/wasm` MIME type. Falling back to `WebAssembly.instantiate` which is slower. Original error:\n", e);

                } else { throw e; }
            }
        }

        const bytes = await module.arrayBuffer();
        return await WebAssembly.instantiate(bytes, imports);
    } else {
        const instance = await WebAssembly.instantiate(module, imports);

        if (instance instanceof WebAssembly.Instance) {
            return { instance, module };
        } else {
            return instance;
        }
    }

    function expectedResponseType(type) {
        switch (type) {
            case 'basic': case 'cors': case 'default': return true;
        }
        return false;
    }
}

function initSync(module) {
    if (wasm !== undefined) return wasm;


    if (module !== undefined) {
        if (Object.getPrototypeOf(module) === Object.prototype) {
            ({module} = module)
        } else {
            console.warn('using deprecated parameters for `initSync()`; pass a single object instead')
        }
    }

    const imports = __wbg_get_imports();
    if (!(module instanceof WebAssembly.Module)) {
        module = new WebAssembly.Module(module);
    }
    const instance = new WebAssembly.Instance(module, imports);
    return __wbg_finalize_init(instance, module);
}

let __wbg_init_promise;
async function __wbg_init(module_or_path) {
    if (wasm !== undefined) return wasm;
    if (__wbg_init_promise === undefined) {
        __wbg_init_promise = __wbg_init_once(module_or_path);
        __wbg_init_promise.catch(() => { __wbg_init_promise = undefined; });
    }
    return __wbg_init_promise;
}

async function __wbg_init_once(module_or_path) {

    if (module_or_path !== undefined) {
        if (Object.getPrototypeOf(module_or_path) === Object.prototype) {
            ({module_or_path} = module_or_path)
        } else {
            console.warn('using deprecated parameters for the initialization function; pass a single object instead')
        }
    }

    if (module_or_path === undefined) {
        module_or_path = new URL('bozkir_wasm_bg.wasm', import.meta.url);
    }
    const imports = __wbg_get_imports();

    if (typeof module_or_path === 'string' || (typeof Request === 'function' && module_or_path instanceof Request) || (typeof URL === 'function' && module_or_path instanceof URL)) {
        module_or_path = fetch(module_or_path);
    }

    const { instance, module } = await __wbg_load(await module_or_path, imports);

    return __wbg_finalize_init(instance, module);
}

export { initSync, __wbg_init as default };
