# Layer 0 of a LLaMA-7B-shaped transformers model at 2048 tokens: tk's rope and attention
# kernels on transformers' own q/k/v, each against transformers' f32.
import os, subprocess, numpy as np, torch
import sys; sys.path.insert(0, "bench"); import llm_generate as L
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb
tkc = "/tmp/tkgpu/tk/bin/tkc"
S, H, D = 2048, 32, 128
torch.manual_seed(0)
with torch.device("cuda"):
    model = LlamaForCausalLM(LlamaConfig(**dict(L.LLAMA_7B, num_hidden_layers=1))).float().eval()
ids = torch.tensor([list(np.random.default_rng(1).integers(3, 32000, S))], device="cuda")
d = "/dev/shm/diag4"; os.makedirs(d, exist_ok=True)
def bits(t): return t.contiguous().to(torch.bfloat16).view(torch.int16).cpu().numpy().view(np.uint16).ravel()
def load(path, shape): return torch.from_numpy(np.load(path).view(np.int16)).view(torch.bfloat16).float().cuda().view(*shape)
def rel(a, b): return ((a - b).norm() / b.norm()).item()
with torch.no_grad():
    layer = model.model.layers[0]
    x = model.model.embed_tokens(ids)
    n = layer.input_layernorm(x)
    q, k, v = (p(n).view(1, S, H, D).transpose(1, 2) for p in (layer.self_attn.q_proj, layer.self_attn.k_proj, layer.self_attn.v_proj))
    pos = torch.arange(S, device="cuda")[None]
    cos, sin = model.model.rotary_emb(n, pos)
    qr, kr = apply_rotary_pos_emb(q, k, cos, sin)
    qkv = torch.cat([t.transpose(1, 2).reshape(S, H * D) for t in (q, k, v)], 1)
    np.save(d + "/qkv.npy", bits(qkv)); np.save(d + "/y.npy", np.zeros(S * 2 * H * D, np.uint16))
    cmd = [tkc, "run", "stdlib/std/rope.tk", "--kernel", "rope", "--backend=cuda", "--grid", "%d, %d" % (S, 2 * H),
           "-D", "HALF=64", "-D", "POSITIONS=false", "-D", "T=bf16", "x=@%s/qkv.npy" % d, "y=@%s/y.npy" % d,
           "seq_len=%d" % S, "in_stride=%d" % (3 * H * D), "in_col=0", "out_stride=%d" % (2 * H * D),
           "log2_base=%r" % float(np.log2(10000.0)), "positions=@%s/pos.npy" % d, "--save", "y=%s/yo.npy" % d]
    np.save(d + "/pos.npy", np.zeros(1, np.int32))
    p = subprocess.run(cmd, capture_output=True, text=True); print("rope rc", p.returncode, p.stderr[-300:])
    y = load(d + "/yo.npy", (S, 2 * H * D))
    want = torch.cat([t.transpose(1, 2).reshape(S, H * D) for t in (qr, kr)], 1)
    print("rope vs transformers f32: %.4g" % rel(y, want))
    # attention on transformers' rotated q/k (bf16-rounded) and v
    qk = want.to(torch.bfloat16)
    np.save(d + "/qk.npy", bits(qk)); np.save(d + "/v.npy", bits(qkv)); np.save(d + "/o.npy", np.zeros(S * H * D, np.uint16))
    qb = qk[:, :H * D].float().view(S, H, D).transpose(0, 1); kb = qk[:, H * D:].float().view(S, H, D).transpose(0, 1)
    vb = qkv.to(torch.bfloat16)[:, 2 * H * D:].float().view(S, H, D).transpose(0, 1)
    ref = torch.nn.functional.scaled_dot_product_attention(qb, kb, vb, is_causal=True).transpose(0, 1).reshape(S, H * D)
    probs = torch.softmax((qb @ kb.transpose(1, 2)) / D ** 0.5 + torch.triu(torch.full((S, S), -1e30, device="cuda"), 1), -1)
    print("softmax: mean max prob %.3f" % probs.amax(-1).mean().item())
    for bm, bn, w, s, ws in [(128, 64, 4, 2, 0), (128, 128, 8, 2, 1), (64, 64, 4, 3, 0), (128, 64, 8, 3, 1)]:
        cmd = [tkc, "run", "stdlib/std/attention.tk", "--kernel", "attention", "--backend=cuda", "--grid", "cdiv(seq_len, BLOCK_M), %d" % H,
               "-D", "HEAD_DIM=128", "-D", "BLOCK_M=%d" % bm, "-D", "BLOCK_N=%d" % bn, "-D", "num_warps=%d" % w, "-D", "num_stages=%d" % s,
               "-D", "T=bf16", "-D", "CAUSAL=true"] + (["-D", "warp_specialize=1"] if ws else []) + [
               "q=@%s/qk.npy" % d, "k=@%s/qk.npy" % d, "v=@%s/v.npy" % d, "o=@%s/o.npy" % d, "seq_len=%d" % S, "n_heads=%d" % H,
               "n_kv_heads=%d" % H, "q_stride=%d" % (2 * H * D), "k_stride=%d" % (2 * H * D), "v_stride=%d" % (3 * H * D),
               "o_stride=%d" % (H * D), "q_col=0", "k_col=%d" % (H * D), "v_col=%d" % (2 * H * D), "scale=%r" % (D ** -0.5),
               "--save", "o=%s/out.npy" % d]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode: print("attention failed", p.stderr[-300:]); continue
        o = load(d + "/out.npy", (S, H * D))
        print("attention BM%d BN%d w%d s%d ws%d vs f32 on the same bf16 inputs: %.4g" % (bm, bn, w, s, ws, rel(o, ref)))
