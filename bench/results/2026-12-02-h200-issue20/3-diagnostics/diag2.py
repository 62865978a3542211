# The stdlib attention at the 7B prefill's shape (S 2048, 32 heads of 128, q/k from a rope output
# [S, 8192], v from the QKV output [S, 12288] at column 8192) with every autotune config.
import os, re, subprocess, numpy as np, torch
tkc = "/tmp/tkgpu/tk/bin/tkc"
S, H, D = int(os.environ.get("S", 2048)), 32, 128
torch.manual_seed(0)
qk = (torch.randn(S, 2 * H * D, device="cuda") * 1.5).to(torch.bfloat16)
qkv = torch.randn(S, 3 * H * D, device="cuda").to(torch.bfloat16)
q = qk[:, :H * D].float().view(S, H, D).transpose(0, 1)
k = qk[:, H * D:].float().view(S, H, D).transpose(0, 1)
v = qkv[:, 2 * H * D:].float().view(S, H, D).transpose(0, 1)
ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(0, 1).reshape(S, H * D)
d = "/dev/shm/diag2"; os.makedirs(d, exist_ok=True)
np.save(d + "/qk.npy", qk.view(torch.int16).cpu().numpy().view(np.uint16))
np.save(d + "/qkv.npy", qkv.view(torch.int16).cpu().numpy().view(np.uint16))
np.save(d + "/o.npy", np.zeros(S * H * D, np.uint16))
text = open("stdlib/std/attention.tk").read()
configs = re.findall(r"\{ *BLOCK_M: *(\d+), *BLOCK_N: *(\d+), *num_warps: *(\d+), *num_stages: *(\d+)(?:, *warp_specialize: *(\d+))? *\}", text)
for bm, bn, w, s, ws in configs:
    cmd = [tkc, "run", "stdlib/std/attention.tk", "--kernel", "attention", "--backend=cuda", "--grid", "cdiv(seq_len, BLOCK_M), %d" % H,
           "-D", "HEAD_DIM=128", "-D", "BLOCK_M=" + bm, "-D", "BLOCK_N=" + bn, "-D", "num_warps=" + w, "-D", "num_stages=" + s,
           "-D", "T=bf16", "-D", "CAUSAL=true"]
    if ws: cmd += ["-D", "warp_specialize=" + ws]
    cmd += ["q=@%s/qk.npy" % d, "k=@%s/qk.npy" % d, "v=@%s/qkv.npy" % d, "o=@%s/o.npy" % d, "seq_len=%d" % S, "n_heads=%d" % H,
            "n_kv_heads=%d" % H, "q_stride=%d" % (2 * H * D), "k_stride=%d" % (2 * H * D), "v_stride=%d" % (3 * H * D),
            "o_stride=%d" % (H * D), "q_col=0", "k_col=%d" % (H * D), "v_col=%d" % (2 * H * D), "scale=%r" % (D ** -0.5),
            "--save", "o=%s/out.npy" % d]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        print(bm, bn, w, s, ws, "FAILED", p.stderr[-300:]); continue
    out = torch.from_numpy(np.load(d + "/out.npy").view(np.int16)).view(torch.bfloat16).float().cuda().view(S, H * D)
    err = ((out - ref).norm() / ref.norm()).item()
    bad_rows = ((out - ref).abs().amax(1) > 0.1).nonzero().flatten()
    bad_cols = ((out - ref).abs().amax(0) > 0.1).nonzero().flatten()
    print("BM%s BN%s w%s s%s ws%s err %.4f bad rows %d (first %s) bad cols %d (first %s)" % (bm, bn, w, s, ws, err, len(bad_rows), bad_rows[:4].tolist(), len(bad_cols), bad_cols[:4].tolist()), flush=True)
