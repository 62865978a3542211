"""Writes a matmul kernel whose A columns are `k * 64 + rk + s + s + ... + s` (N additions),
a chain of N tile ops between the load and its start (tma-proof-limits.tk)."""
import sys

n = int(sys.argv[1])
print("kernel deep(a: ptr<f16>, b: ptr<f16>, c: ptr<f32>, M: i32, N: i32, K: i32, lda: i32, ldb: i32, s: i32) {")
print("    let rm = program_id(0) * 64 + arange(0, 64);")
print("    let rn = arange(0, 64);")
print("    let rk = arange(0, 64);")
print("    var acc = zeros([64, 64], f32);")
print("    for k in range(0, cdiv(K, 64)) {")
print("        var col = k * 64 + rk;")
for _ in range(n):
    print("        col = col + s;")
print("        let ta = load(a + rm[:, None] * lda + col[None, :], mask = rm[:, None] < M && col[None, :] < K, other = 0.0);")
print("        let tb = load(b + (k * 64 + rk)[:, None] * ldb + rn[None, :], mask = (k * 64 + rk)[:, None] < K && rn[None, :] < N,")
print("                      other = 0.0);")
print("        acc += dot(ta, tb);")
print("    }")
print("    store(c + rm[:, None] * N + rn[None, :], acc, mask = rm[:, None] < M && rn[None, :] < N);")
print("}")
