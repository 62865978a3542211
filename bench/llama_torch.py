"""The LLaMA-7B decoder layer as torch's users write it: an nn.Module with registered parameters
(so torch.compile's CUDA graphs treat the weights as parameters, not as inputs to copy), and
Hugging Face's own LlamaDecoderLayer loaded with the same weights. The weights are tk's layout
(x @ W with W of shape [in, out], as examples/llama_layer reads them); nn.Linear keeps W^T.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

D, HEADS, FFN, EPS, THETA = 4096, 32, 11008, 1e-5, 10000.0
NAMES = ["x", "attn_norm", "wqkv", "wo", "ffn_norm", "w_gate", "w_up", "w_down"]


def make_weights(tokens, seed=0, d=D, ffn=FFN):
    """Random bf16 weights (uniform, scaled by 1/sqrt(fan-in)) and input, on the GPU."""
    g = torch.Generator(device="cuda").manual_seed(seed)

    def uniform(*shape, scale=1.0):
        return ((torch.rand(*shape, generator=g, device="cuda") * 2 - 1) * scale).to(torch.bfloat16)
    return {"x": uniform(tokens, d), "attn_norm": (1 + 0.1 * uniform(d).float()).to(torch.bfloat16),
            "wqkv": uniform(d, 3 * d, scale=d ** -0.5), "wo": uniform(d, d, scale=d ** -0.5),
            "ffn_norm": (1 + 0.1 * uniform(d).float()).to(torch.bfloat16),
            "w_gate": uniform(d, ffn, scale=d ** -0.5), "w_up": uniform(d, ffn, scale=d ** -0.5),
            "w_down": uniform(ffn, d, scale=ffn ** -0.5)}


def linear(weight_in_out):
    layer = nn.Linear(weight_in_out.shape[0], weight_in_out.shape[1], bias=False, device="cuda", dtype=torch.bfloat16)
    layer.weight.data.copy_(weight_in_out.t())
    return layer


def norm(weight):
    layer = nn.RMSNorm(weight.shape[0], eps=EPS, device="cuda", dtype=torch.bfloat16)
    layer.weight.data.copy_(weight)
    return layer


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], -1)


class LlamaLayer(nn.Module):
    """gpt-fast's TransformerBlock shape: fused wqkv, RoPE (rotate-half, as Hugging Face),
    causal SDPA, SwiGLU FFN; cos/sin tables as buffers made once."""

    def __init__(self, w, max_seq=4096, d=D, heads=HEADS):
        super().__init__()
        self.d, self.heads, self.head_dim = d, heads, d // heads
        self.attention_norm, self.ffn_norm = norm(w["attn_norm"]), norm(w["ffn_norm"])
        self.wqkv, self.wo = linear(w["wqkv"]), linear(w["wo"])
        self.w_gate, self.w_up, self.w_down = linear(w["w_gate"]), linear(w["w_up"]), linear(w["w_down"])
        half = self.head_dim // 2
        freq = THETA ** (-torch.arange(half, device="cuda", dtype=torch.float32) / half)
        angle = torch.arange(max_seq, device="cuda", dtype=torch.float32)[:, None] * freq[None, :]
        self.register_buffer("cos", torch.cat([angle.cos(), angle.cos()], -1), persistent=False)
        self.register_buffer("sin", torch.cat([angle.sin(), angle.sin()], -1), persistent=False)

    def rope(self, t, seq):
        cos, sin = self.cos[:seq, None, :], self.sin[:seq, None, :]
        return (t.float() * cos + rotate_half(t).float() * sin).to(t.dtype)

    def forward(self, x):  # x: [B, S, D]
        batch, seq, _ = x.shape
        q, k, v = self.wqkv(self.attention_norm(x)).split(self.d, dim=-1)
        shape = (batch, seq, self.heads, self.head_dim)
        q, k, v = self.rope(q.view(shape), seq), self.rope(k.view(shape), seq), v.view(shape)
        attn = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        h = x + self.wo(attn.transpose(1, 2).reshape(batch, seq, self.d))
        n = self.ffn_norm(h)
        return h + self.w_down(F.silu(self.w_gate(n)) * self.w_up(n))


def hf_layer(w, d=D, heads=HEADS, ffn=FFN):
    """Hugging Face's LlamaDecoderLayer (SDPA attention) with these weights, and a callable
    x [B, S, D] -> out that computes the rotary tables as LlamaModel does, once per shape."""
    from transformers import LlamaConfig
    from transformers.models.llama import modeling_llama as hf
    config = LlamaConfig(hidden_size=d, intermediate_size=ffn, num_attention_heads=heads, num_key_value_heads=heads,
                         num_hidden_layers=1, rms_norm_eps=EPS, max_position_embeddings=4096, vocab_size=32000)
    config._attn_implementation = "sdpa"
    layer = hf.LlamaDecoderLayer(config, layer_idx=0).to(device="cuda", dtype=torch.bfloat16).eval()
    rotary = hf.LlamaRotaryEmbedding(config=config).to("cuda")
    with torch.no_grad():
        q, k, v = w["wqkv"].split(d, dim=1)
        for module, weight in ((layer.self_attn.q_proj, q), (layer.self_attn.k_proj, k), (layer.self_attn.v_proj, v),
                               (layer.self_attn.o_proj, w["wo"]), (layer.mlp.gate_proj, w["w_gate"]),
                               (layer.mlp.up_proj, w["w_up"]), (layer.mlp.down_proj, w["w_down"])):
            module.weight.copy_(weight.t())
        layer.input_layernorm.weight.copy_(w["attn_norm"])
        layer.post_attention_layernorm.weight.copy_(w["ffn_norm"])
    tables = {}

    def run(x):
        batch, seq, _ = x.shape
        if (batch, seq) not in tables:
            positions = torch.arange(seq, device="cuda")[None].expand(batch, seq)
            tables[(batch, seq)] = (positions, rotary(x, positions))
        positions, embeddings = tables[(batch, seq)]
        out = layer(x, attention_mask=None, position_ids=positions, position_embeddings=embeddings)
        return out[0] if isinstance(out, tuple) else out
    return run
