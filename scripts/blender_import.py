"""Import bozkir's geometry files in Blender and report what came through (issue 23).

Run headless:

    blender -b --factory-startup --python scripts/blender_import.py -- [--expect FILE V F]... FILE...

Each FILE (.glb, .obj, .ply) is imported into an empty scene with Blender's own importer
(glTF: import_scene.gltf; OBJ: wm.obj_import, or import_scene.obj before Blender 3.2; PLY:
import_mesh.ply, or wm.ply_import from Blender 4). One line per file goes to stdout:

    BOZKIR_IMPORT {"file": ..., "objects": N, "meshes": M, "vertices": V, "faces": F,
                   "colours": [names], "declared": {...}, "ok": true, "problems": [...]}

`vertices` and `faces` are summed over the distinct meshes the import made (instances of one
mesh count once). `declared` holds what the file itself says, read here without Blender: a
GLB's POSITION counts and triangle counts (indices / 3, mode 4; points have no faces) summed
over its meshes and whether any primitive has COLOR_0; a PLY's vertex and face element counts
and whether it has red/green/blue; an OBJ's `v`/`f` lines and whether its `v` lines carry
colours. A file fails when the import raises, makes no mesh, or Blender's counts differ from
the declared ones, or when declared colours are missing after import — except for a PLY point
cloud (no faces) before Blender 4.0, whose PLY importer keeps colours only on face corners
(reported as "colours_lost_known"). `--expect FILE V F` (anywhere in the list; `-` for a count not known)
adds the counts the writer itself reported, compared the same way. The script exits 1 if any
file failed, 2 on bad arguments.
"""

import json
import os
import re
import struct
import sys

import bpy

try:
    import numpy

    # Blender 3.4's glTF importer uses `numpy.bool`, an alias NumPy 1.24 removed; Debian 12
    # ships Blender 3.4.1 with NumPy 1.24, so every glTF import fails there with
    # "module 'numpy' has no attribute 'bool'". Restore the alias (it meant the builtin bool).
    if not hasattr(numpy, "bool"):
        numpy.bool = bool
except ImportError:
    pass  # the glTF import reports "No module named 'numpy'" (install python3-numpy)


def declared_glb(path):
    """Counts and colour flag from a GLB's JSON chunk."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 20 or data[:4] != b"glTF":
        raise ValueError("not a GLB (shorter than its headers, or no glTF magic)")
    length, kind = struct.unpack_from("<I4s", data, 12)
    if kind != b"JSON":
        raise ValueError("first chunk is %r, not JSON" % kind)
    doc = json.loads(data[20 : 20 + length])
    acc = doc.get("accessors", [])
    verts = faces = 0
    colours = False
    for mesh in doc.get("meshes", []):
        for prim in mesh["primitives"]:
            attrs = prim["attributes"]
            verts += acc[attrs["POSITION"]]["count"]
            colours = colours or "COLOR_0" in attrs
            if prim.get("mode", 4) == 4:
                n = acc[prim["indices"]]["count"] if "indices" in prim else acc[attrs["POSITION"]]["count"]
                faces += n // 3
    instances = 0
    for node in doc.get("nodes", []):
        inst = node.get("extensions", {}).get("EXT_mesh_gpu_instancing")
        if inst:
            instances += acc[inst["attributes"]["TRANSLATION"]]["count"]
    out = {"vertices": verts, "faces": faces, "colours": colours, "extensions": doc.get("extensionsUsed", [])}
    if instances:
        # Blender 3.4 does not expand EXT_mesh_gpu_instancing (not required by the file): it
        # imports the mesh once, so `objects` is below this count there.
        out["instances"] = instances
    return out


def declared_ply(path):
    """Element counts and colour flag from a PLY header."""
    counts, colours, element = {}, False, None
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("ascii", "replace").split()
            if not line:
                continue
            if line[0] == "element":
                element = line[1]
                counts[element] = int(line[2])
            elif line[0] == "property" and element == "vertex" and line[-1] in ("red", "r"):
                colours = True
            elif line[0] == "end_header":
                break
    return {"vertices": counts.get("vertex", 0), "faces": counts.get("face", 0), "colours": colours}


def declared_obj(path):
    """`v` and `f` line counts and whether the `v` lines carry colours."""
    verts = faces = 0
    colours = False
    with open(path) as f:
        for line in f:
            if line.startswith("v "):
                verts += 1
                colours = colours or len(line.split()) >= 7
            elif line.startswith("f "):
                faces += 1
    return {"vertices": verts, "faces": faces, "colours": colours}


def importer(ext):
    """The import operator for a file extension, by what this Blender has."""
    if ext == ".glb":
        return bpy.ops.import_scene.gltf
    if ext == ".obj":
        return bpy.ops.wm.obj_import if hasattr(bpy.ops.wm, "obj_import") else bpy.ops.import_scene.obj
    if ext == ".ply":
        return bpy.ops.wm.ply_import if bpy.app.version >= (4, 0, 0) else bpy.ops.import_mesh.ply
    raise ValueError("unsupported extension %s (want .glb, .obj or .ply)" % ext)


def colour_names(mesh):
    """Names of the mesh's colour attributes (color_attributes from 3.2, vertex_colors before)."""
    if hasattr(mesh, "color_attributes"):
        return [a.name for a in mesh.color_attributes]
    return [a.name for a in mesh.vertex_colors]


def check(path, expect=None):
    ext = os.path.splitext(path)[1].lower()
    report = {"file": path, "ok": False, "problems": []}
    try:
        op = importer(ext)
        report["declared"] = {".glb": declared_glb, ".ply": declared_ply, ".obj": declared_obj}[ext](path)
        bpy.ops.wm.read_factory_settings(use_empty=True)
        before = set(bpy.data.objects)
        result = op(filepath=os.path.abspath(path))
        if "FINISHED" not in result:
            raise RuntimeError("importer returned %s" % sorted(result))
    except Exception as e:  # every failure is reported per file, then the run exits 1
        # An operator's error carries the importer's whole traceback: keep its last line.
        text = [line.strip() for line in str(e).splitlines() if line.strip()]
        errors = [line for line in text if re.match(r"^[\w.]+(Error|Exception)\b", line)]
        last = (errors or text or [""])[-1]
        report["problems"].append("import failed: %s: %s" % (type(e).__name__, last))
        return report
    objects = [o for o in bpy.data.objects if o not in before]
    meshes = {o.data.name: o.data for o in objects if o.type == "MESH"}
    report["objects"] = len(objects)
    report["meshes"] = len(meshes)
    report["vertices"] = sum(len(m.vertices) for m in meshes.values())
    report["faces"] = sum(len(m.polygons) for m in meshes.values())
    names = sorted({n for m in meshes.values() for n in colour_names(m)})
    report["colours"] = names
    d = report["declared"]
    if not meshes:
        report["problems"].append("no mesh object imported")
    for key in ("vertices", "faces"):
        if report[key] != d[key]:
            report["problems"].append("%s: Blender has %d, the file declares %d" % (key, report[key], d[key]))
    if d["colours"] and not names:
        if ext == ".ply" and d["faces"] == 0 and bpy.app.version < (4, 0, 0):
            # The Python PLY importer before Blender 4 writes colours per face corner only.
            report["colours_lost_known"] = "Blender < 4.0 reads PLY colours only through faces"
        else:
            report["problems"].append("the file has vertex colours, the import has none")
    for key, want in (expect or {}).items():
        if want is not None and report[key] != want:
            report["problems"].append("%s: Blender has %d, the writer reported %d" % (key, report[key], want))
    report["expected"] = expect or {}
    report["ok"] = not report["problems"]
    return report


def main():
    argv = sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else []
    files, expect = [], {}
    try:
        while argv:
            a = argv.pop(0)
            if a == "--expect":
                path, v, f = argv.pop(0), argv.pop(0), argv.pop(0)
                expect[path] = {"vertices": None if v == "-" else int(v), "faces": None if f == "-" else int(f)}
            else:
                files.append(a)
    except (IndexError, ValueError):
        files = []
    if not files:
        print(
            "usage: blender -b --factory-startup --python scripts/blender_import.py -- "
            "[--expect FILE VERTICES|- FACES|-]... FILE...",
            file=sys.stderr,
        )
        return 2
    print("BOZKIR_BLENDER %s" % bpy.app.version_string)
    failed = 0
    for path in files:
        r = check(path, expect.get(path))
        print("BOZKIR_IMPORT " + json.dumps(r, sort_keys=True))
        failed += not r["ok"]
    print("BOZKIR_SUMMARY %d file(s), %d failed" % (len(files), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # Blender ignores a script's exceptions when it exits; sys.exit carries the status out.
    sys.exit(code)
