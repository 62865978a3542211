"""tkc run's rand: buffers are a documented function of the seed and the argument's name
(Philox-4x32-10, README "tkc run"): this numpy reimplementation must give the same bits."""
import os
import subprocess
import sys
import tempfile

import numpy as np

M32 = 0xFFFFFFFF


def philox(key, counters):
    """Philox-4x32-10 words of counters (c, 0, 0, 0) under key (key low, key high): [n, 4]."""
    c0 = counters.astype(np.uint64)
    c1 = np.zeros_like(c0)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0, k1 = np.uint64(key & M32), np.uint64(key >> 32)
    for _ in range(10):
        p0, p2 = np.uint64(0xD2511F53) * c0, np.uint64(0xCD9E8D57) * c2
        n0 = (p2 >> np.uint64(32)) ^ c1 ^ k0
        n2 = (p0 >> np.uint64(32)) ^ c3 ^ k1
        c1, c3, c0, c2 = p2 & np.uint64(M32), p0 & np.uint64(M32), n0 & np.uint64(M32), n2 & np.uint64(M32)
        k0 = (k0 + np.uint64(0x9E3779B9)) & np.uint64(M32)
        k1 = (k1 + np.uint64(0xBB67AE85)) & np.uint64(M32)
    return np.stack([c0, c1, c2, c3], 1).astype(np.uint32)


def words(name, seed, n):
    key = 0xCBF29CE484222325
    for c in name.encode():
        key = ((key ^ c) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    key ^= seed
    return philox(key, np.arange((n + 3) // 4)).reshape(-1)[:n]


def uniform(w):
    """Triton's uint_to_uniform_float, then 2u - 1, in float32."""
    x = w.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    u = np.minimum(x.astype(np.float32) * np.float32(4.6566127342e-10), np.float32(np.nextafter(1, 0, dtype=np.float32)))
    return (np.float32(2) * u - np.float32(1)).astype(np.float32)


def main():
    tkc, n, seed = sys.argv[1], 1003, 7
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "k.tk")
        with open(source, "w") as f:
            f.write("kernel k(a: ptr<f32>, b: ptr<bf16>, c: ptr<i32>, d: ptr<i1>) {\n    store(c, load(c));\n}\n")
        cmd = [tkc, "run", source, "--grid", "1", "--backend=interp", "--seed", str(seed)]
        for name, t in (("a", "f32"), ("b", "bf16"), ("c", "i32"), ("d", "i1")):
            cmd += ["%s=rand:%s:%d" % (name, t, n), "--save", "%s=%s" % (name, os.path.join(tmp, name + ".npy"))]
        subprocess.run(cmd, check=True)
        got = {name: np.load(os.path.join(tmp, name + ".npy")) for name in "abcd"}
    want = {"a": uniform(words("a", seed, n)), "b": uniform(words("b", seed, n)).view(np.uint32).astype(np.uint64), "c": (words("c", seed, n) % 100),
            "d": words("d", seed, n) & 1}
    # bf16: the f32 rounded to nearest even
    want["b"] = ((want["b"] + np.uint64(0x7FFF) + ((want["b"] >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16))
    for name in "abcd":
        g, w = got[name].reshape(-1), want[name].reshape(-1)
        same = (g.view(np.uint32) == w.view(np.uint32)).all() if name == "a" else (g.astype(np.int64) == w.astype(np.int64)).all()
        if not same:
            bad = np.nonzero(g.astype(np.float64) != w.astype(np.float64))[0][:5]
            sys.exit("rand:%s differs from the documented Philox stream at %s: %s vs %s" % (name, bad, g[bad], w[bad]))
    print("rand: buffers (f32, bf16, i32, i1; %d elements, seed %d) equal numpy's Philox-4x32-10 stream" % (n, seed))


if __name__ == "__main__":
    main()
