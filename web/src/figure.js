// Figure mode's file names and the settings as text. Pure functions.

const clean = (s) => String(s).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'scene';

/**
 * The PNG's name: `bozkir_<scene>_g<grid>_rule-<on|off>_az<az>_el<el>_d<dist>_<w>x<h>.png`,
 * angles in whole degrees, distance in tiles with one decimal.
 */
export function figureName({ scene, grid, rule, cam, tile = 1, width, height }) {
  const d = cam.eye ? 'walk' : `d${(cam.dist / tile).toFixed(1)}`;
  return `bozkir_${clean(scene)}_g${grid}_rule-${rule ? 'on' : 'off'}_az${Math.round(cam.az)}_el${Math.round(cam.el)}_${d}_${width}x${height}.png`;
}

/** The view as text: every control (defaults marked), the camera, scene and terrain. */
export function settingsText({ state, controls, cam, scene, terrain }) {
  const lines = [`scene: ${scene}`, `terrain: ${terrain}`];
  const c = cam.eye
    ? `camera: walk at (${cam.eye.map((v) => v.toFixed(2)).join(', ')}), az ${cam.az.toFixed(1)}°, el ${cam.el.toFixed(1)}°, fov ${cam.fov}°`
    : `camera: target (${cam.target.map((v) => v.toFixed(2)).join(', ')}), az ${cam.az.toFixed(1)}°, el ${cam.el.toFixed(1)}°, distance ${cam.dist.toFixed(2)}, fov ${cam.fov}°`;
  lines.push(c);
  let section = '';
  for (const ctl of controls) {
    if (ctl.section !== section) {
      section = ctl.section;
      lines.push(`[${section}]`);
    }
    const v = state[ctl.id];
    lines.push(`  ${ctl.id} = ${v}${v === ctl.value ? '' : `   (default ${ctl.value})`}`);
  }
  return lines.join('\n');
}
