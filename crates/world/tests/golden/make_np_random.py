"""Golden outputs of numpy's default_rng for bozkir-world's compat::np_random (a wrapper over
bozkir-core's numpy_rng, the one port of numpy's generator).

Run with the pyworldgen venv (numpy 2.x):
    python crates/world/tests/golden/make_np_random.py            # writes np_random.json
    python crates/world/tests/golden/make_np_random.py --tables   # prints the ziggurat tables
                                                                  # (crates/core/src/numpy_rng/ziggurat.rs)

Floats are stored as 16-hex-digit IEEE-754 bit patterns so the Rust test compares bits.
"""
import json
import os
import random as pyrandom
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = [0, 1, 42, 123 + 8101, 91188 + 9001, 2**40 + 5, 2**64 - 1]
INT_BOUNDS = [1, 2, 3, 10, 1000, 2**31 + 11, 2**32 - 1, 2**32, 2**32 + 1, 2**40, 2**62 + 3]


def bits(x):
    return "%016x" % struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def fnv64(words):
    h = 0xCBF29CE484222325
    for w in words:
        for k in range(8):
            h ^= (w >> (8 * k)) & 0xFF
            h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def uint_bits(x):
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def normal_stats(seed, n):
    """Many standard normals: a hash of all bit patterns, the first few, and every tail draw."""
    rng = np.random.default_rng(seed)
    xs = [float(rng.standard_normal()) for _ in range(n)]
    tail = [[i, bits(x)] for i, x in enumerate(xs) if abs(x) > 3.6541528853610088]
    sample = [[i, bits(xs[i])] for i in range(0, n, 997)]
    return {
        "seed": seed,
        "n": n,
        "fnv": fnv64(uint_bits(x) for x in xs),
        "tail": tail,
        "sample": sample,
        "after": "%016x" % int(rng.bit_generator.random_raw()),
    }


def mixed_ops(seed, n):
    """A scripted interleaving of the methods, as pyworldgen mixes them."""
    script = pyrandom.Random(seed * 7 + 3)
    rng = np.random.default_rng(seed)
    ops = []
    for _ in range(n):
        kind = script.choice("urinckx")
        if kind == "u":
            lo = script.choice([0.0, -3.5, 0.12, 1.0]) * script.choice([1.0, 100.0, 512.0])
            hi = lo + script.choice([0.5, 1.0, 2.0 * np.pi, 1000.0])
            ops.append(["u", bits(lo), bits(hi), bits(rng.uniform(lo, hi))])
        elif kind == "r":
            ops.append(["r", bits(rng.random())])
        elif kind == "i":
            k = script.choice(INT_BOUNDS)
            ops.append(["i", str(k), str(int(rng.integers(k)))])
        elif kind == "n":
            a, b = rng.normal(size=2)
            ops.append(["n2", bits(a), bits(b)])
        elif kind == "c":
            k = script.choice([2, 3, 5])
            items = list(range(100, 100 + k))
            ops.append(["c", str(k), str(int(rng.choice(items)) - 100)])
        elif kind == "k":
            ops.append(["n", bits(rng.normal())])
        else:
            k = script.choice([7, 2**33 + 1])
            ops.append(["i0", str(k), str(int(rng.integers(0, k)))])
    return {"seed": seed, "ops": ops}


def per_seed(seed):
    out = {"seed": str(seed)}
    pcg = np.random.PCG64(seed)
    out["raw"] = ["%016x" % int(v) for v in pcg.random_raw(8)]
    pcg = np.random.PCG64(seed)
    nxt32 = pcg.ctypes.next_uint32
    st = pcg.ctypes.state
    out["u32"] = [int(nxt32(st)) for _ in range(9)]
    rng = np.random.default_rng(seed)
    out["random"] = [bits(rng.random()) for _ in range(16)]
    rng = np.random.default_rng(seed)
    out["uniform"] = [[bits(lo), bits(hi), bits(rng.uniform(lo, hi))]
                      for lo, hi in [(0.0, 1.0), (0.12 * 300, 0.88 * 300), (-2.0, 5.0), (0.0, 2 * np.pi)] * 3]
    out["integers"] = {}
    for k in INT_BOUNDS:
        rng = np.random.default_rng(seed)
        out["integers"][str(k)] = [str(int(rng.integers(k))) for _ in range(12)]
    rng = np.random.default_rng(seed)
    names = ["south", "east", "west"]
    out["choice3"] = [names.index(str(rng.choice(names))) for _ in range(20)]
    rng = np.random.default_rng(seed)
    out["normal"] = [bits(rng.normal()) for _ in range(40)]
    a = np.random.default_rng(seed).normal(size=2)
    r2 = np.random.default_rng(seed)
    assert [bits(v) for v in a] == [bits(r2.normal()), bits(r2.normal())], "normal(size=2) is sequential"
    return out


def extract_tables():
    """numpy's ziggurat tables ki_double, wi_double, fi_double, read from its compiled library."""
    lib = os.path.join(os.path.dirname(np.random.__file__), "lib", "libnpyrandom.a")
    blob = open(lib, "rb").read()

    def find(first, second, fmt, size):
        pat = struct.pack("<" + fmt, first) + struct.pack("<" + fmt, second)
        at = blob.find(pat)
        assert at >= 0 and blob.find(pat, at + 1) < 0, "table not found once"
        return list(struct.unpack("<256" + fmt, blob[at:at + 256 * size]))

    ki = find(0x000EF33D8025EF6A, 0, "Q", 8)
    wi = find(8.68362706080130616677e-16, 4.77933017572773682428e-17, "d", 8)
    fi = find(1.0, 9.77101701267671596263e-01, "d", 8)
    assert wi[255] == 3.6541528853610087963519472518 / 2.0**52
    assert abs(fi[255] - np.exp(-0.5 * 3.6541528853610087963519472518**2)) == 0.0
    return ki, wi, fi


def print_tables():
    ki, wi, fi = extract_tables()
    print("// numpy %s ziggurat tables (ki, wi, fi), generated by make_np_random.py --tables." % np.__version__)
    print("pub(super) static KI: [u64; 256] = [")
    for i in range(0, 256, 4):
        print("    " + " ".join("0x%016X," % v for v in ki[i:i + 4]))
    print("];")
    for name, t in (("WI", wi), ("FI", fi)):
        print("pub(super) static %s: [f64; 256] = [" % name)
        for i in range(0, 256, 3):
            print("    " + " ".join("f64::from_bits(0x%s)," % bits(v) for v in t[i:i + 3]))
        print("];")


def main():
    if "--tables" in sys.argv:
        print_tables()
        return
    doc = {
        "numpy": np.__version__,
        "seeds": [per_seed(s) for s in SEEDS],
        "normal_many": [normal_stats(42, 200_000), normal_stats(7, 60_000)],
        "mixed": [mixed_ops(s, 300) for s in [0, 1, 42, 123 + 8101, 91188 + 9001, 2**40 + 5]],
    }
    path = os.path.join(HERE, "np_random.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
