// WebGL2 helpers shared by the splat renderer (renderer.js) and mesh mode (mesh.js).

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
