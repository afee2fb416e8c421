// WebGL2 helpers shared by the splat renderer (renderer.js), mesh mode (mesh.js) and the worlds (world.js, voxels.js).

/** Compile one shader; the error carries the driver's log. */
export function compile(gl, type, src, what = 'shader') {
  const s = gl.createShader(type);
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) {
    const log = gl.getShaderInfoLog(s);
    gl.deleteShader(s);
    throw new Error(`${what} compile: ${log}`);
  }
  return s;
}

/** Link a program from vertex and fragment sources: `{p, u}` with every active uniform's location (arrays by their bare name). */
export function program(gl, vs, fs, what = 'shader') {
  const p = gl.createProgram();
  const a = compile(gl, gl.VERTEX_SHADER, vs, what), b = compile(gl, gl.FRAGMENT_SHADER, fs, what);
  gl.attachShader(p, a);
  gl.attachShader(p, b);
  gl.linkProgram(p);
  gl.deleteShader(a);
  gl.deleteShader(b);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(`${what} program link: ${gl.getProgramInfoLog(p)}`);
  const u = {};
  const n = gl.getProgramParameter(p, gl.ACTIVE_UNIFORMS);
  for (let i = 0; i < n; i++) {
    const info = gl.getActiveUniform(p, i);
    u[info.name.replace(/\[0\]$/, '')] = gl.getUniformLocation(p, info.name);
  }
  return { p, u };
}

/** The `W × H` drawing buffer as RGBA rows top first (GL reads bottom first). */
export function readPixelsTopDown(gl, W, H) {
  const raw = new Uint8Array(W * H * 4);
  gl.readPixels(0, 0, W, H, gl.RGBA, gl.UNSIGNED_BYTE, raw);
  const data = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) data.set(raw.subarray((H - 1 - y) * W * 4, (H - y) * W * 4), y * W * 4);
  return { width: W, height: H, data };
}

/**
 * A triangle batch on the GPU: a vertex array over position (vec3, location 0), sRGB colour
 * (normalised u8 rgba, location 1) and, when given, normal (vec3, location 2) buffers and a
 * Uint32 index buffer. `normalDefault` is the constant normal for batches without one.
 * Returns {vao, bufs, count, normalDefault}; free with deleteVertexArray/deleteBuffer.
 */
export function uploadBatch(gl, geo, normalDefault = null) {
  const vao = gl.createVertexArray(), bufs = [];
  gl.bindVertexArray(vao);
  const attr = (loc, data, size, type, normalise) => {
    const b = gl.createBuffer();
    bufs.push(b);
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    gl.enableVertexAttribArray(loc);
    gl.vertexAttribPointer(loc, size, type, normalise, 0, 0);
  };
  attr(0, geo.positions, 3, gl.FLOAT, false);
  attr(1, geo.colors, 4, gl.UNSIGNED_BYTE, true);
  if (geo.normals) attr(2, geo.normals, 3, gl.FLOAT, false);
  const ib = gl.createBuffer();
  bufs.push(ib);
  gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib);
  gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, geo.indices, gl.STATIC_DRAW);
  gl.bindVertexArray(null);
  return { vao, bufs, count: geo.indices.length, normalDefault };
}
