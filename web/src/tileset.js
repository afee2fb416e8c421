// Reading tilesets: the folder or .zip written by `bozkir tileset` (see
// docs/formats.md, "Tilesets"): tileset.json (manifest, format_version 1),
// tiles.splat (32 bytes per splat) and an optional atlas.png.
//
// The zip reader is our own: it finds the end-of-central-directory record
// (allowing a trailing comment), walks the central directory and inflates
// deflate entries with DecompressionStream('deflate-raw'), which node ≥ 20
// and current browsers provide. Zip64 and encrypted entries are refused with
// a clear message. writeZip makes stored zips (tests, downloads).
//
// No DOM at import time: runs in node and in the browser.

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;

const utf8 = new TextDecoder('utf-8');
const utf8enc = new TextEncoder();

let crcTable = null;

/**
 * CRC-32 (IEEE, as zip uses it).
 * @param {Uint8Array|string} data bytes, or a string taken as UTF-8
 * @returns {number} unsigned 32-bit CRC; crc32("hello world") = 0x0d4a1185
 */
export function crc32(data) {
  if (typeof data === 'string') data = utf8enc.encode(data);
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function asBytes(data) {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError('expected an ArrayBuffer or a Uint8Array');
}

async function inflateRaw(bytes, name) {
  if (typeof DecompressionStream === 'undefined') {
    throw new Error(`cannot inflate ${name}: this browser has no DecompressionStream`);
  }
  const ds = new DecompressionStream('deflate-raw');
  const writer = ds.writable.getWriter();
  const writing = writer.write(bytes).then(() => writer.close());
  writing.catch(() => {});   // the reader reports the failure
  const reader = ds.readable.getReader();
  const chunks = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
    }
    await writing;
  } catch (err) {
    throw new Error(`zip entry ${name}: deflate data is broken (${err.message})`);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) { out.set(c, o); o += c.length; }
  return out;
}

function findEnd(view, length) {
  // The record is 22 bytes plus a comment of up to 65535 bytes.
  const lowest = Math.max(0, length - 22 - 0xffff);
  for (let p = length - 22; p >= lowest; p--) {
    if (view.getUint32(p, true) === SIG_END && p + 22 + view.getUint16(p + 20, true) <= length) return p;
  }
  return -1;
}

/**
 * Reads a zip archive: every file entry (directories left out) by its path.
 * Stored and deflated entries; sizes and CRC-32 are checked.
 * @param {ArrayBuffer|Uint8Array} data the whole archive
 * @returns {Promise<Map<string, Uint8Array>>}
 * @throws {Error} "not a zip: …" without an end-of-central-directory record;
 *   zip64, split, encrypted archives and other methods are refused by name
 */
export async function readZip(data) {
  const bytes = asBytes(data);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = bytes.length >= 22 ? findEnd(view, bytes.length) : -1;
  if (end < 0) throw new Error('not a zip: no end-of-central-directory record found');
  if (end >= 20 && view.getUint32(end - 20, true) === SIG_ZIP64_LOCATOR) {
    throw new Error('zip64 archives are not supported: write the zip without zip64 (under 4 GB, under 65535 files)');
  }
  const disk = view.getUint16(end + 4, true), cdDisk = view.getUint16(end + 6, true);
  const entries = view.getUint16(end + 10, true);
  const cdSize = view.getUint32(end + 12, true), cdOffset = view.getUint32(end + 16, true);
  if (entries === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    throw new Error('zip64 archives are not supported: write the zip without zip64 (under 4 GB, under 65535 files)');
  }
  if (disk !== 0 || cdDisk !== 0) throw new Error('split (multi-part) zip archives are not supported');
  if (cdOffset + cdSize > end) throw new Error('broken zip: the central directory lies outside the file');

  const files = new Map();
  let p = cdOffset;
  for (let k = 0; k < entries; k++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== SIG_CENTRAL) {
      throw new Error(`broken zip: central directory entry ${k} not found`);
    }
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const crc = view.getUint32(p + 16, true);
    const packed = view.getUint32(p + 20, true);
    const size = view.getUint32(p + 24, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    const local = view.getUint32(p + 42, true);
    const name = utf8.decode(bytes.subarray(p + 46, p + 46 + nameLen));
    p += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith('/')) continue;
    if (packed === 0xffffffff || size === 0xffffffff || local === 0xffffffff) {
      throw new Error(`zip64 entry ${name} is not supported`);
    }
    if (flags & 1) throw new Error(`zip entry ${name} is encrypted`);
    if (local + 30 > bytes.length || view.getUint32(local, true) !== SIG_LOCAL) {
      throw new Error(`broken zip: local header of ${name} not found`);
    }
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + packed > bytes.length) throw new Error(`broken zip: ${name} runs past the end of the file`);
    const raw = bytes.subarray(start, start + packed);
    let content;
    if (method === 0) content = raw;
    else if (method === 8) content = await inflateRaw(raw, name);
    else throw new Error(`zip entry ${name} uses compression method ${method}; only stored (0) and deflate (8) are read`);
    if (content.length !== size) throw new Error(`zip entry ${name}: ${content.length} bytes, the directory says ${size}`);
    if (crc32(content) !== crc) throw new Error(`zip entry ${name}: CRC-32 mismatch`);
    files.set(name, content);
  }
  return files;
}

/**
 * Writes a zip of stored (uncompressed) entries with CRC-32, UTF-8 names.
 * @param {Map<string, Uint8Array|string>|Array<[string, Uint8Array|string]>|Object<string, Uint8Array|string>} files
 *   strings are stored as UTF-8
 * @param {{comment?: string}} [opts] archive comment (after the end record)
 * @returns {Uint8Array}
 */
export function writeZip(files, { comment = '' } = {}) {
  const list = files instanceof Map || Array.isArray(files) ? [...files] : Object.entries(files);
  const items = list.map(([name, data]) => {
    const bytes = typeof data === 'string' ? utf8enc.encode(data) : asBytes(data);
    return { name: utf8enc.encode(name), bytes, crc: crc32(bytes) };
  });
  const commentBytes = utf8enc.encode(comment);
  if (items.length >= 0xffff) throw new Error('too many entries for a zip without zip64');
  let localSize = 0, cdSize = 0;
  for (const it of items) {
    localSize += 30 + it.name.length + it.bytes.length;
    cdSize += 46 + it.name.length;
  }
  if (localSize + cdSize > 0xfffffffe) throw new Error('too large for a zip without zip64');
  const out = new Uint8Array(localSize + cdSize + 22 + commentBytes.length);
  const v = new DataView(out.buffer);
  let p = 0;
  const offsets = [];
  for (const it of items) {
    offsets.push(p);
    v.setUint32(p, SIG_LOCAL, true);
    v.setUint16(p + 4, 20, true);          // version needed
    v.setUint16(p + 6, 0x0800, true);      // UTF-8 names
    v.setUint16(p + 8, 0, true);           // stored
    v.setUint16(p + 10, 0, true);          // time
    v.setUint16(p + 12, 0x21, true);       // date 1980-01-01
    v.setUint32(p + 14, it.crc, true);
    v.setUint32(p + 18, it.bytes.length, true);
    v.setUint32(p + 22, it.bytes.length, true);
    v.setUint16(p + 26, it.name.length, true);
    v.setUint16(p + 28, 0, true);
    out.set(it.name, p + 30);
    out.set(it.bytes, p + 30 + it.name.length);
    p += 30 + it.name.length + it.bytes.length;
  }
  const cdStart = p;
  items.forEach((it, k) => {
    v.setUint32(p, SIG_CENTRAL, true);
    v.setUint16(p + 4, 20, true);          // made by
    v.setUint16(p + 6, 20, true);          // needed
    v.setUint16(p + 8, 0x0800, true);
    v.setUint16(p + 10, 0, true);
    v.setUint16(p + 12, 0, true);
    v.setUint16(p + 14, 0x21, true);
    v.setUint32(p + 16, it.crc, true);
    v.setUint32(p + 20, it.bytes.length, true);
    v.setUint32(p + 24, it.bytes.length, true);
    v.setUint16(p + 28, it.name.length, true);
    // extra, comment, disk, internal and external attributes: 0
    v.setUint32(p + 42, offsets[k], true);
    out.set(it.name, p + 46);
    p += 46 + it.name.length;
  });
  v.setUint32(p, SIG_END, true);
  v.setUint16(p + 8, items.length, true);
  v.setUint16(p + 10, items.length, true);
  v.setUint32(p + 12, p - cdStart, true);
  v.setUint32(p + 16, cdStart, true);
  v.setUint16(p + 20, commentBytes.length, true);
  out.set(commentBytes, p + 22);
  return out;
}

const baseName = (path) => path.slice(path.lastIndexOf('/') + 1);
const dirName = (path) => path.slice(0, path.lastIndexOf('/') + 1);

function ignored(path) {
  const parts = path.split('/');
  const base = parts[parts.length - 1];
  return parts.includes('__MACOSX') || base === '.DS_Store' || base.startsWith('._') || base === '';
}

// Shallowest first, then shortest, then by name.
function byDepth(a, b) {
  return (a.split('/').length - b.split('/').length) || (a.length - b.length) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Finds a tileset's files among paths (of a zip or a dropped folder):
 * tileset.json (the top-level, i.e. shallowest, one when several), the
 * tiles.splat in the same folder (or, failing that, the only .splat there)
 * and atlas.png beside them. __MACOSX/, .DS_Store and ._* are ignored.
 * @param {Map<string, *>} files keyed by path ("a/b/tileset.json")
 * @returns {{manifestName: string, splatName: string, atlasName: string|null}}
 * @throws {Error} naming what is missing and what was found
 */
export function pickTileset(files) {
  const names = [...files.keys()].map((n) => n.replace(/\\/g, '/')).filter((n) => !ignored(n));
  const original = new Map([...files.keys()].map((n) => [n.replace(/\\/g, '/'), n]));
  const found = names.length ? names.slice(0, 8).join(', ') + (names.length > 8 ? ', …' : '') : 'nothing';
  const manifests = names.filter((n) => baseName(n) === 'tileset.json').sort(byDepth);
  if (!manifests.length) throw new Error(`no tileset.json among the files (found: ${found})`);
  const manifestName = manifests[0];
  const dir = dirName(manifestName);
  const here = names.filter((n) => dirName(n) === dir);
  let splatName = here.find((n) => baseName(n) === 'tiles.splat');
  if (!splatName) {
    const splats = here.filter((n) => n.toLowerCase().endsWith('.splat'));
    if (splats.length === 1) splatName = splats[0];
    else if (splats.length > 1) {
      throw new Error(`no tiles.splat next to ${manifestName}, and ${splats.length} other .splat files: ${splats.join(', ')}`);
    } else {
      throw new Error(`no .splat file next to ${manifestName}: a tileset needs tiles.splat (found: ${found})`);
    }
  }
  const atlasName = here.find((n) => baseName(n) === 'atlas.png') || null;
  return {
    manifestName: original.get(manifestName),
    splatName: original.get(splatName),
    atlasName: atlasName === null ? null : original.get(atlasName),
  };
}

const isInt = (v) => Number.isInteger(v);

/**
 * Parses and checks a tileset manifest (format_version 1). Every error
 * names the file, the field and, for a tile, its index.
 * @param {string|object} text the JSON text (or an already parsed object)
 * @param {string} [name='tileset.json'] file name for messages
 * @returns {object} the manifest as parsed
 * @throws {Error}
 */
export function parseManifest(text, name = 'tileset.json') {
  let m = text;
  if (typeof text === 'string') {
    try {
      m = JSON.parse(text);
    } catch (err) {
      throw new Error(`${name}: not valid JSON (${err.message})`);
    }
  }
  const fail = (msg) => { throw new Error(`${name}: ${msg}`); };
  if (!m || typeof m !== 'object' || Array.isArray(m)) fail('expected a JSON object');
  if (m.format_version !== 1) fail(`format_version is ${JSON.stringify(m.format_version)}, this viewer reads 1`);
  if (!(typeof m.size === 'number' && Number.isFinite(m.size) && m.size > 0)) fail(`size must be a number > 0, got ${JSON.stringify(m.size)}`);
  if (!(isInt(m.total) && m.total >= 0)) fail(`total must be a whole number ≥ 0, got ${JSON.stringify(m.total)}`);
  if (!Array.isArray(m.colours) || m.colours.length !== 2 || !m.colours.every((c) => isInt(c) && c > 0)) {
    fail(`colours must be two whole numbers > 0, got ${JSON.stringify(m.colours)}`);
  }
  let classCount;
  if (Array.isArray(m.classes) && m.classes.length > 0) classCount = m.classes.length;
  else if (isInt(m.classes) && m.classes > 0) classCount = m.classes;
  else fail(`classes must be a non-empty list of names, got ${JSON.stringify(m.classes)}`);
  if (m.lod !== undefined && !(isInt(m.lod) && m.lod > 0)) fail(`lod must be a whole number > 0, got ${JSON.stringify(m.lod)}`);
  if (!Array.isArray(m.tiles) || m.tiles.length === 0) fail('tiles must be a non-empty list');
  const limits = [m.colours[0], m.colours[1], m.colours[0], m.colours[1]];   // n, e, s, w
  m.tiles.forEach((t, i) => {
    const at = `tiles[${i}]`;
    if (!t || typeof t !== 'object') fail(`${at} is not an object`);
    if (!Array.isArray(t.code) || t.code.length !== 4) fail(`${at}.code must be [n, e, s, w], got ${JSON.stringify(t.code)}`);
    t.code.forEach((c, k) => {
      if (!(isInt(c) && c >= 0 && c < limits[k])) {
        fail(`${at}.code[${k}] = ${JSON.stringify(c)} is outside colours[${k % 2}] = ${limits[k]}`);
      }
    });
    if (!(isInt(t.class) && t.class >= 0 && t.class < classCount)) {
      fail(`${at}.class = ${JSON.stringify(t.class)} is not one of the ${classCount} classes`);
    }
    if (!Array.isArray(t.levels) || t.levels.length === 0) fail(`${at}.levels must be a non-empty list`);
    if (m.lod !== undefined && t.levels.length !== m.lod) fail(`${at}.levels has ${t.levels.length} levels, lod is ${m.lod}`);
    t.levels.forEach((r, l) => {
      if (!Array.isArray(r) || r.length !== 2 || !isInt(r[0]) || !isInt(r[1]) || r[0] < 0 || r[1] < 0) {
        fail(`${at}.levels[${l}] must be [start, count], got ${JSON.stringify(r)}`);
      }
      if (r[0] + r[1] > m.total) fail(`${at}.levels[${l}] = [${r[0]}, ${r[1]}] lies outside total ${m.total}`);
    });
  });
  if (m.atlas !== undefined && m.atlas !== null) {
    const a = m.atlas;
    if (typeof a !== 'object') fail('atlas must be an object');
    for (const k of ['res', 'cols', 'rows']) {
      if (!(isInt(a[k]) && a[k] > 0)) fail(`atlas.${k} must be a whole number > 0, got ${JSON.stringify(a[k])}`);
    }
    if (a.cols * a.rows < m.tiles.length) fail(`atlas is ${a.cols} × ${a.rows}, too small for ${m.tiles.length} tiles`);
  }
  return m;
}

/**
 * @typedef {object} Splats
 * @property {number} count
 * @property {Float32Array} positions xyz per splat
 * @property {Float32Array} scales linear σ per axis
 * @property {Float32Array} rotations unit quaternion w, x, y, z
 * @property {Uint8Array} colors r, g, b, opacity (bytes)
 */

/**
 * Unpacks a .splat file (32 bytes per splat, little-endian: position 3×f32,
 * linear scale 3×f32, RGBA u8, rotation w x y z u8 as (b − 128)/128,
 * normalised here; a zero quaternion becomes the identity).
 * @param {Uint8Array|ArrayBuffer} bytes
 * @param {number} [expectedCount] the manifest's total; checked when given
 * @param {string} [name='tiles.splat'] file name for messages
 * @returns {Splats}
 * @throws {Error} when the length is not a multiple of 32 or the count differs
 */
export function unpackSplats(bytes, expectedCount, name = 'tiles.splat') {
  bytes = asBytes(bytes);
  if (bytes.length % 32 !== 0) throw new Error(`${name}: ${bytes.length} bytes is not a multiple of 32 (one splat is 32 bytes)`);
  const count = bytes.length / 32;
  if (expectedCount !== undefined && expectedCount !== null && count !== expectedCount) {
    throw new Error(`${name} holds ${count} splats, the manifest's total is ${expectedCount}`);
  }
  const positions = new Float32Array(3 * count);
  const scales = new Float32Array(3 * count);
  const rotations = new Float32Array(4 * count);
  const colors = new Uint8Array(4 * count);
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const little = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  const f = little ? new Float32Array(aligned.buffer, aligned.byteOffset, count * 8) : null;
  const dv = new DataView(aligned.buffer, aligned.byteOffset, aligned.byteLength);
  for (let k = 0; k < count; k++) {
    const b = 32 * k;
    for (let a = 0; a < 3; a++) {
      positions[3 * k + a] = f ? f[8 * k + a] : dv.getFloat32(b + 4 * a, true);
      scales[3 * k + a] = f ? f[8 * k + 3 + a] : dv.getFloat32(b + 12 + 4 * a, true);
    }
    colors[4 * k] = aligned[b + 24];
    colors[4 * k + 1] = aligned[b + 25];
    colors[4 * k + 2] = aligned[b + 26];
    colors[4 * k + 3] = aligned[b + 27];
    const w = (aligned[b + 28] - 128) / 128, x = (aligned[b + 29] - 128) / 128;
    const y = (aligned[b + 30] - 128) / 128, z = (aligned[b + 31] - 128) / 128;
    const len = Math.hypot(w, x, y, z);
    if (len > 0) {
      rotations[4 * k] = w / len; rotations[4 * k + 1] = x / len;
      rotations[4 * k + 2] = y / len; rotations[4 * k + 3] = z / len;
    } else {
      rotations[4 * k] = 1;
    }
  }
  return { count, positions, scales, rotations, colors };
}

/**
 * @typedef {object} Tileset
 * @property {object} manifest the parsed tileset.json
 * @property {number} size tile side in metres
 * @property {Array<{code: number[], class: number, levels: Array<[number, number]>}>} tiles
 * @property {number} levels levels of detail per tile (manifest.lod, else the first tile's count)
 * @property {Splats} splats every level of every tile, in manifest order
 * @property {Uint8Array|null} atlasPng the far-field atlas, when present
 * @property {{manifest: string, splat: string, atlas: string|null}} names where each part came from
 */

function textOf(data) {
  if (typeof data === 'string') return data;
  if (data && typeof data === 'object' && !ArrayBuffer.isView(data) && !(data instanceof ArrayBuffer)) return data;
  return utf8.decode(asBytes(data));
}

/**
 * Opens a tileset from its files.
 * @param {Map<string, Uint8Array>|{manifest: string|object|Uint8Array, splat: Uint8Array|ArrayBuffer, atlas?: Uint8Array|null}} files
 *   a map of paths (zip entries, a dropped folder), or the three parts
 * @returns {Promise<Tileset>}
 */
export async function openTileset(files) {
  let manifestData, splatData, atlasData, names;
  if (files instanceof Map) {
    const pick = pickTileset(files);
    manifestData = files.get(pick.manifestName);
    splatData = files.get(pick.splatName);
    names = { manifest: pick.manifestName, splat: pick.splatName, atlas: pick.atlasName };
    const manifest = parseManifest(textOf(manifestData), pick.manifestName);
    // The manifest may name its atlas; fall back to atlas.png.
    const named = manifest.atlas && typeof manifest.atlas.file === 'string'
      ? dirName(pick.manifestName) + manifest.atlas.file : null;
    if (named && files.has(named)) names.atlas = named;
    atlasData = names.atlas ? files.get(names.atlas) : null;
    return build(manifest, splatData, atlasData, names);
  }
  if (!files || files.manifest === undefined || files.splat === undefined) {
    throw new Error('openTileset: expected a Map of files or {manifest, splat, atlas}');
  }
  names = { manifest: 'tileset.json', splat: 'tiles.splat', atlas: files.atlas ? 'atlas.png' : null };
  const manifest = parseManifest(textOf(files.manifest), names.manifest);
  return build(manifest, files.splat, files.atlas || null, names);
}

function build(manifest, splatData, atlasData, names) {
  const splats = unpackSplats(asBytes(splatData), manifest.total, names.splat);
  return {
    manifest,
    size: manifest.size,
    tiles: manifest.tiles,
    levels: manifest.lod ?? manifest.tiles[0].levels.length,
    splats,
    atlasPng: atlasData ? asBytes(atlasData) : null,
    names,
  };
}

/**
 * Opens a dropped or chosen file: a zip of a tileset (recognised by its
 * magic bytes, whatever its name). Anything else is refused with a message
 * saying what was expected.
 * @param {File|Blob|ArrayBuffer|Uint8Array} file
 * @param {string} [name] for messages (default: file.name)
 * @returns {Promise<Tileset>}
 */
export async function openDrop(file, name) {
  name = name || (file && file.name) || 'the dropped file';
  let bytes;
  if (file instanceof ArrayBuffer || ArrayBuffer.isView(file)) bytes = asBytes(file);
  else if (file && typeof file.arrayBuffer === 'function') bytes = new Uint8Array(await file.arrayBuffer());
  else throw new TypeError('openDrop: expected a File, Blob, ArrayBuffer or Uint8Array');
  const magic = bytes.length >= 4 ? new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) : 0;
  if (magic !== SIG_LOCAL && magic !== SIG_END) {
    const head = [...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new Error(`not a zip: ${name} starts with ${head || 'nothing'}; expected a .zip of a tileset `
      + '(tileset.json, tiles.splat and atlas.png, as `bozkir tileset --zip` writes)');
  }
  let files;
  try {
    files = await readZip(bytes);
  } catch (err) {
    throw new Error(`${name}: ${err.message}`);
  }
  return openTileset(files);
}

/**
 * Loads a tileset served as a folder (e.g. by `bozkir serve`): fetches
 * tileset.json, tiles.splat and, when the manifest names one, the atlas.
 * @param {string|URL} baseUrl the folder, with or without a trailing slash
 * @param {typeof fetch} [fetchFn=fetch]
 * @returns {Promise<Tileset>}
 */
export async function fetchTileset(baseUrl, fetchFn = globalThis.fetch) {
  const base = String(baseUrl).endsWith('/') ? String(baseUrl) : `${baseUrl}/`;
  const get = async (file, optional = false) => {
    const res = await fetchFn(base + file);
    if (!res.ok) {
      if (optional) return null;
      throw new Error(`${base + file}: HTTP ${res.status}`);
    }
    return new Uint8Array(await res.arrayBuffer());
  };
  const manifestText = utf8.decode(await get('tileset.json'));
  const manifest = parseManifest(manifestText, `${base}tileset.json`);
  const atlasFile = manifest.atlas && typeof manifest.atlas.file === 'string' ? manifest.atlas.file : 'atlas.png';
  const [splat, atlas] = await Promise.all([get('tiles.splat'), get(atlasFile, true)]);
  return build(manifest, splat, atlas, {
    manifest: `${base}tileset.json`, splat: `${base}tiles.splat`, atlas: atlas ? base + atlasFile : null,
  });
}

function thousands(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * Per-splat survival hashes by index within each tile level, from `splatHashes(n)` (the Rust
 * function of the WebAssembly core: the first n hashes), as `tileset.hashes`; also the
 * manifest as JSON (`tileset.manifestJson`). Returns the tileset.
 */
export function attachSplatHashes(tileset, splatHashes) {
  let most = 0;
  for (const t of tileset.tiles) for (const [, count] of t.levels) most = Math.max(most, count);
  const h = splatHashes(most);
  const out = new Uint32Array(tileset.splats.count);
  for (const t of tileset.tiles) for (const [start, count] of t.levels) out.set(h.subarray(0, count), start);
  tileset.hashes = out;
  tileset.manifestJson = JSON.stringify(tileset.manifest);
  return tileset;
}

/**
 * One line about a tileset, e.g.
 * "16 tiles, 2 classes (sand, scrub), 42,706 splats, 4 levels, 0.5 m tiles".
 * @param {Tileset} tileset
 * @returns {string}
 */
export function describe(tileset) {
  const m = tileset.manifest || {};
  const tiles = tileset.tiles ? tileset.tiles.length : 0;
  const names = Array.isArray(m.classes) ? m.classes : null;
  const classCount = names ? names.length : (m.classes || 1);
  const splats = tileset.splats ? tileset.splats.count : m.total;
  const plural = (n, word) => `${thousands(n)} ${word}${n === 1 ? '' : 's'}`;
  const parts = [
    plural(tiles, 'tile'),
    `${classCount} class${classCount === 1 ? '' : 'es'}` + (names ? ` (${names.join(', ')})` : ''),
    plural(splats, 'splat'),
  ];
  if (tileset.levels) parts.push(plural(tileset.levels, 'level'));
  parts.push(`${Number(tileset.size.toPrecision(3))} m tiles`);
  return parts.join(', ');
}
