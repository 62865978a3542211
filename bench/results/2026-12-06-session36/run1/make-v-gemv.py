# Session 36 run 1: .pack/v-gemv, the stdlib with fp8_gemv's @autotune list replaced by these
# configs (BM, BN, BK, SPLIT_K, num_warps), for gemv_tune.sh. Run from the repository root after
#   rm -rf .pack/v-gemv && mkdir -p .pack/v-gemv && cp -r stdlib/std .pack/v-gemv/
p = '.pack/v-gemv/std/fp8_matmul.tk'
s = open(p).read()
start = s.index('@autotune', s.index('// Weight-only FP8 (W8A16)'))
end = s.index('])', start) + 2
cfgs = [(8, 16, 256, 1, 1), (8, 16, 256, 4, 1), (8, 32, 256, 1, 1), (8, 32, 512, 1, 1), (8, 32, 256, 4, 1),
        (8, 64, 256, 1, 4), (8, 64, 512, 1, 4), (8, 64, 1024, 1, 4), (8, 64, 256, 2, 4), (8, 64, 256, 4, 4),
        (8, 128, 256, 1, 4), (8, 128, 512, 1, 4), (8, 128, 256, 1, 8), (8, 128, 512, 1, 8), (8, 32, 512, 1, 2),
        (8, 32, 256, 2, 2), (8, 64, 256, 1, 2), (8, 64, 128, 1, 1), (8, 64, 128, 2, 1), (8, 64, 128, 4, 1),
        (8, 256, 128, 1, 4), (8, 128, 128, 1, 2)]
body = ',\n'.join(f'    {{ BM: {a}, BN: {b}, BK: {c}, SPLIT_K: {d}, num_warps: {e}, num_stages: 1 }}' for a, b, c, d, e in cfgs)
s = s[:start] + '@autotune(key = [M, N, K], configs = [\n' + body + ',\n])' + s[end:]
open(p, 'w').write(s)
