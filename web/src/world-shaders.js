// GLSL ES 3.00 sources of the world overlays (world.js): water surfaces, road ribbons, tunnel
// portals and instanced trees, drawn over the mesh look's ground (mesh.js) with its sun, sky,
// fog and output stage (exposure, AgX, sRGB, dither: mesh-shaders.js), so the overlays sit in
// the same light as the ground they lie on.
//
// World: x east, y north, z up, metres, centred on the origin as mesh.js draws the ground;
// heights are multiplied by the vertical exaggeration `uExag` here, as the ground's are.

import { OUTPUT, ATMOSPHERE } from './mesh-shaders.js';

/** Lit surface shading shared by every overlay: Lambert, sky/bounce ambient, water sheen, fog. */
const SHADE = /* glsl */ `
uniform vec3 uEye;
uniform vec2 uFog;           // start (metres), density (1/metres): the ground's
uniform float uFogAmount;
uniform vec3 uSkyAmbient;
uniform vec3 uBounce;
uniform int uWater;          // 1: a water surface (sky reflection by Fresnel, alpha from the vertex)

vec3 toLinear(vec3 c) {
  return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c));
}

vec4 shade(vec3 world, vec3 normal, vec4 srgba) {
  vec3 n = normalize(normal);
  vec3 toEye = uEye - world;
  // Two-sided: a face seen from behind is lit as its back (portals, ribbon edges).
  if (dot(n, toEye) < 0.0 && uWater == 0) n = -n;
  vec3 albedo = toLinear(srgba.rgb);
  float ndl = max(dot(n, uSunDir), 0.0);
  vec3 sky = mix(uBounce, uSkyAmbient, 0.5 + 0.5 * n.z);
  vec3 c = albedo * (uSunColour * ndl + sky);
  float alpha = 1.0;
  float dist = length(toEye);
  vec3 v = -toEye / max(dist, 1e-3);
  if (uWater == 1) {
    float fr = 0.02 + 0.98 * pow(1.0 - max(dot(-v, n), 0.0), 5.0);
    c = mix(c, skyColour(reflect(v, n)), fr);
    alpha = mix(srgba.a, 1.0, fr);
  }
  float f = uFogAmount * (1.0 - exp(-max(dist - uFog.x, 0.0) * uFog.y));
  c = mix(c, fogColour(v), f);
  vec4 o = outColour(c);
  return vec4(o.rgb, alpha);
}
`;

/** Water, roads and portals: positions in metres (z before exaggeration), sRGB colour + alpha, normal. */
export const OVERLAY_VS = /* glsl */ `#version 300 es
layout(location = 0) in vec3 aPos;
layout(location = 1) in vec4 aColour;
layout(location = 2) in vec3 aNormal;
uniform mat4 uViewProj;
uniform float uExag;
out vec3 vWorld;
out vec4 vColour;
out vec3 vNormal;
void main() {
  vWorld = vec3(aPos.xy, aPos.z * uExag);
  vColour = aColour;
  vNormal = aNormal;
  gl_Position = uViewProj * vec4(vWorld, 1.0);
}
`;

export const OVERLAY_FS = /* glsl */ `#version 300 es
precision highp float;
in vec3 vWorld;
in vec4 vColour;
in vec3 vNormal;
${OUTPUT}
${ATMOSPHERE}
${SHADE}
out vec4 fragColor;
void main() {
  fragColor = shade(vWorld, vNormal, vColour);
}
`;

/**
 * Trees, instanced: one unit mesh (a trunk cylinder of radius 1 from z 0 to 1, part 0, and a
 * unit low-poly sphere, part 1) and per instance the base (x, y, z) and crown radius, then the
 * height. The crown is an ellipsoid of horizontal radius r and vertical semi-axis
 * c = min(1.3·r, 0.45·h) whose top touches the tree's height; the trunk runs from the ground
 * to the crown's centre with radius max(0.12·r, 0.1 m). Only the base height is exaggerated.
 */
export const TREE_VS = /* glsl */ `#version 300 es
layout(location = 0) in vec3 aUnit;
layout(location = 1) in vec3 aUnitNormal;
layout(location = 2) in float aPart;
layout(location = 3) in vec4 aTree;    // x, y, z (metres), crown radius
layout(location = 4) in float aHeight; // tree height (metres)
uniform mat4 uViewProj;
uniform float uExag;
out vec3 vWorld;
out vec4 vColour;
out vec3 vNormal;
float hash11(float p) {
  p = fract(p * 0.1031);
  p *= p + 33.33;
  p *= p + p;
  return fract(p);
}
void main() {
  float r = aTree.w, h = aHeight;
  float c = min(1.3 * r, 0.45 * h);
  float zc = h - c;
  vec3 local;
  if (aPart < 0.5) {
    float tr = max(0.12 * r, 0.1);
    local = vec3(aUnit.xy * tr, aUnit.z * zc);
    vNormal = aUnitNormal;
    vColour = vec4(0.29, 0.21, 0.14, 1.0);
  } else {
    local = vec3(aUnit.xy * r, zc + aUnit.z * c);
    vNormal = normalize(aUnitNormal / vec3(r, r, c));
    float k = hash11(float(gl_InstanceID) + 0.5);
    vColour = vec4(mix(vec3(0.16, 0.27, 0.11), vec3(0.27, 0.36, 0.15), k), 1.0);
  }
  vWorld = vec3(aTree.xy, aTree.z * uExag) + local;
  gl_Position = uViewProj * vec4(vWorld, 1.0);
}
`;
