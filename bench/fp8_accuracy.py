#!/usr/bin/env python3
"""FP8 weights' accuracy on a trained model: tk-llama in bf16 and with --fp8 against a float64
numpy model of the same bf16 weights, teacher-forced over each run's own tokens.

The model is a llama2.c checkpoint (github.com/karpathy/llama2.c's legacy format: seven int32
header fields, then float32 tensors), converted here to a Hugging Face folder as transformers'
convert_llama_weights_to_hf converts Meta's: the query and key rows permuted from interleaved
RoPE pairs to rotate-half halves. The conversion is checked against llama2.c's own forward pass
(interleaved RoPE, original row order) before anything else.

  bench/fp8_accuracy.py --llama2c stories260K.bin --tk-llama build/bin/tk-llama [--backend interp|cuda]
      [--prompt 1] [--new-tokens 200] [--out DIR]

Reported for each run (bf16, --fp8): the relative L2 error of its logits against the float64
model over the same tokens, how often its chosen token is the float64 model's argmax, the mean
KL divergence of its next-token distribution from the float64 model's, and (for --fp8) how many
leading tokens it generates exactly as the bf16 run does.
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "llm"))
import tiny_llama  # noqa: E402  (bf16_bits, from_bits, write_folder, reference_logits)
from llm_generate import rel_l2  # noqa: E402


def read_llama2c(path):
    """A legacy llama2.c checkpoint: its header and float32 tensors by llama2.c's names."""
    with open(path, "rb") as f:
        blob = f.read()
    dim, hidden, layers, heads, kv_heads, vocab, seq_len = struct.unpack("<7i", blob[:28])
    shared = vocab > 0
    vocab = abs(vocab)
    if min(dim, hidden, layers, heads, kv_heads, vocab, seq_len) <= 0 or dim % heads or heads % kv_heads:
        sys.exit("%s: not a llama2.c checkpoint (header %s)" % (path, blob[:28].hex()))
    head = dim // heads
    kv = kv_heads * head
    data = np.frombuffer(blob, np.float32, offset=28)
    shapes = [("tok_embeddings", (vocab, dim)), ("attention_norm", (layers, dim)), ("wq", (layers, dim, dim)),
              ("wk", (layers, kv, dim)), ("wv", (layers, kv, dim)), ("wo", (layers, dim, dim)),
              ("ffn_norm", (layers, dim)), ("w1", (layers, hidden, dim)), ("w2", (layers, dim, hidden)),
              ("w3", (layers, hidden, dim)), ("norm", (dim,)), ("freqs_cos", (seq_len, head // 2)),
              ("freqs_sin", (seq_len, head // 2))]
    if not shared:
        shapes.append(("output", (vocab, dim)))
    tensors, at = {}, 0
    for name, shape in shapes:
        n = math.prod(shape)  # (Python's integers: a header's sizes multiplied cannot wrap)
        if at + n > data.size:
            sys.exit("%s: ends inside %s" % (path, name))
        tensors[name] = data[at:at + n].reshape(shape)
        at += n
    if at != data.size:
        sys.exit("%s: %d float32 values after the last tensor" % (path, data.size - at))
    config = dict(architectures=["LlamaForCausalLM"], hidden_size=dim, intermediate_size=hidden,
                  num_attention_heads=heads, num_key_value_heads=kv_heads, num_hidden_layers=layers,
                  vocab_size=vocab, rms_norm_eps=1e-5, rope_theta=10000.0, max_position_embeddings=seq_len,
                  tie_word_embeddings=shared)
    return config, tensors


def rotate_half_rows(w, heads):
    """Query or key rows from interleaved RoPE pairs (2i, 2i + 1) to rotate-half halves (i,
    i + head / 2) within each head: transformers' `permute` in convert_llama_weights_to_hf."""
    rows, cols = w.shape
    return w.reshape(heads, rows // heads // 2, 2, cols).transpose(0, 2, 1, 3).reshape(rows, cols)


def hf_names(config, t):
    """The checkpoint's tensors under transformers' names, in llama2.c's row order (interleaved
    RoPE pairs), float32."""
    w = {"model.embed_tokens.weight": t["tok_embeddings"], "model.norm.weight": t["norm"]}
    if not config["tie_word_embeddings"]:
        w["lm_head.weight"] = t["output"]
    for l in range(config["num_hidden_layers"]):
        p = "model.layers.%d." % l
        w.update({p + "input_layernorm.weight": t["attention_norm"][l],
                  p + "post_attention_layernorm.weight": t["ffn_norm"][l],
                  p + "self_attn.q_proj.weight": t["wq"][l], p + "self_attn.k_proj.weight": t["wk"][l],
                  p + "self_attn.v_proj.weight": t["wv"][l], p + "self_attn.o_proj.weight": t["wo"][l],
                  p + "mlp.gate_proj.weight": t["w1"][l], p + "mlp.down_proj.weight": t["w2"][l],
                  p + "mlp.up_proj.weight": t["w3"][l]})
    return w


def to_hf(config, t, pad=1):
    """The checkpoint as transformers' layout holds it, as bf16 bits (what tk-llama reads): the
    query and key rows in rotate-half order.

    `pad` (1, 4 or 16) widens every head by that factor and the hidden size with it, exactly:
    tk-llama's heads are at least 16 wide, stories260K's 8. A head's rotate-half pair i moves to
    pair i * pad (the same RoPE frequency), the new dimensions are zero everywhere, the queries
    are scaled by sqrt(pad) (attention's 1 / sqrt(head) shrank by it), and the RMSNorm gains by
    1 / sqrt(pad) with eps / pad (its mean now runs over pad times the dimensions, the new ones
    zero). Powers of two, so the bf16 weights are the original's scaled; and a row's FP8 codes,
    scaled per row by its largest value, are the original's."""
    heads, kv_heads, dim = config["num_attention_heads"], config["num_key_value_heads"], config["hidden_size"]
    head = dim // heads
    root = {1: 1, 4: 2, 16: 4}[pad]

    def cols(w, width=dim * pad):  # the hidden size's columns, the new ones zero
        out = np.zeros(w.shape[:-1] + (width,), w.dtype)
        out[..., :w.shape[-1]] = w
        return out

    rows = lambda w: cols(w.T).T  # the hidden size's rows
    by_role = {"q_proj": lambda w: head_rows(cols(rotate_half_rows(w, heads)), heads, head, pad) * root,
               "k_proj": lambda w: head_rows(cols(rotate_half_rows(w, kv_heads)), kv_heads, head, pad),
               "v_proj": lambda w: head_rows(cols(w), kv_heads, head, pad),
               "o_proj": lambda w: rows(head_cols(w, heads, head, pad)), "down_proj": rows}
    gain = lambda g: cols(g) / root
    # (By the name's next-to-last part: the RMSNorms' gains end in "norm"; the embedding, the
    # LM head and the gate and up projections take the widened hidden size's columns.)
    role = lambda name: name.split(".")[-2]
    w = {name: (gain if role(name).endswith("norm") else by_role.get(role(name), cols))(v)
         for name, v in hf_names(config, t).items()}
    padded = dict(config, hidden_size=dim * pad, rms_norm_eps=config["rms_norm_eps"] / pad)
    return padded, {k: tiny_llama.bf16_bits(v) for k, v in w.items()}


def head_cols(w, heads, head, pad):
    """o_proj's input columns (the heads' values, in v_proj's order) widened as head_rows widens
    v_proj's rows."""
    return head_rows(w.T, heads, head, pad).T


def head_rows(w, n, head, pad):
    """[n * head, cols] in rotate-half order -> [n * head * pad, cols]: pair i of each head at
    pair i * pad, the other rows zero."""
    wide = head * pad
    out = np.zeros((n, wide, w.shape[1]), w.dtype)
    w = w.reshape(n, 2, head // 2, w.shape[1])
    out[:, 0:wide // 2:pad] = w[:, 0]
    out[:, wide // 2::pad] = w[:, 1]
    return out.reshape(n * wide, -1)


def llama2c_logits(config, t, ids):
    """llama2.c's forward pass (run.c: RoPE over interleaved pairs, its rows as stored) in
    float64 on the bf16-rounded weights, over all positions: the conversion's check."""
    w = {k: tiny_llama.bf16_bits(v) for k, v in hf_names(config, t).items()}
    return tiny_llama.reference_logits(w, ids, config, interleaved=True)


def log_softmax(x):
    x = np.asarray(x, np.float64)
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def report(name, tokens, logits, reference):
    """A run's logits against the float64 model's over the same tokens."""
    ref_log, run_log = log_softmax(reference), log_softmax(logits)
    kl = (np.exp(ref_log) * (ref_log - run_log)).sum(-1)
    return dict(run=name, tokens=tokens, rel_l2=rel_l2(logits, reference),
                top1=float(np.mean(np.argmax(logits, -1) == np.argmax(reference, -1))),
                kl_mean=float(kl.mean()), kl_max=float(kl.max()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--llama2c", required=True, help="a legacy llama2.c checkpoint (e.g. stories260K.bin)")
    parser.add_argument("--tk-llama", required=True)
    parser.add_argument("--backend", default="interp")
    parser.add_argument("--prompt", default="1", help="token ids, comma-separated (llama2.c's BOS is 1)")
    parser.add_argument("--new-tokens", type=int, default=200)
    parser.add_argument("--out", help="a folder for summary.json")
    args = parser.parse_args()
    config, t = read_llama2c(args.llama2c)
    prompt = [int(x) for x in args.prompt.split(",")]
    if len(prompt) > 8:
        sys.exit("at most 8 prompt tokens: a longer prompt's prefill quantizes its activations too")
    if len(prompt) + args.new_tokens > config["max_position_embeddings"]:
        sys.exit("prompt and new tokens exceed the model's %d positions" % config["max_position_embeddings"])
    head = config["hidden_size"] // config["num_attention_heads"]
    pad = next(p for p in (1, 4, 16) if head * p >= 16)
    hf_config, w = to_hf(config, t, pad)
    # The conversion: transformers' architecture on the converted weights against llama2.c's
    # on the original ones (the same bf16 values, rows permuted, heads widened), over a fixed
    # sequence.
    probe = (prompt + list(range(2, 2 + 31)))[:32]
    probe = [x % config["vocab_size"] for x in probe]
    conversion = rel_l2(tiny_llama.reference_logits(w, probe, hf_config), llama2c_logits(config, t, probe))
    print("conversion: transformers' forward on the converted weights vs llama2.c's: relative L2 %.2g" % conversion)
    if not conversion < 1e-9:
        sys.exit("the converted model does not compute llama2.c's function")
    summary = dict(checkpoint=os.path.basename(args.llama2c), config=config, head_widened=pad, prompt=prompt,
                   new_tokens=args.new_tokens, backend=args.backend, conversion_rel_l2=conversion, runs=[])
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "model")
        tiny_llama.write_folder(folder, w, 1, hf_config)
        runs = {}
        for name, extra in (("bf16", []), ("fp8", ["--fp8"])):
            cmd = [args.tk_llama, folder, "--prompt", ",".join(map(str, prompt)), "--max-new-tokens",
                   str(args.new_tokens), "--backend", args.backend, "--save-logits", os.path.join(tmp, name + ".npy")]
            out = subprocess.run(cmd + extra, capture_output=True, text=True)
            if out.returncode:
                sys.exit("tk-llama %s failed (%d): %s%s" % (name, out.returncode, out.stdout, out.stderr))
            line = next(l for l in out.stdout.splitlines() if l.startswith("tokens: "))
            tokens = [int(x) for x in line[len("tokens: "):].split(",")]
            logits = np.load(os.path.join(tmp, name + ".npy"))
            reference = tiny_llama.reference_logits(w, prompt + tokens[:-1], hf_config)[len(prompt) - 1:]
            runs[name] = report(name, tokens, logits, reference)
            if name == "fp8":
                # The same float64 model with the weights alone quantized as --fp8 quantizes them
                # (per output channel; decode's rows and a prompt of at most 8 tokens are not):
                # FP8's own error, and tk's beside it.
                quantized = tiny_llama.reference_logits(w, prompt + tokens[:-1], hf_config, fp8="weights")
                quantized = quantized[len(prompt) - 1:]
                runs[name]["numpy_fp8_weights"] = report("numpy", tokens, quantized, reference)
                runs[name]["rel_l2_vs_numpy_fp8_weights"] = rel_l2(logits, quantized)
    bf16, fp8 = runs["bf16"], runs["fp8"]
    fp8["same_leading_tokens_as_bf16"] = next((i for i, (a, b) in enumerate(zip(bf16["tokens"], fp8["tokens"]))
                                               if a != b), len(fp8["tokens"]))
    summary["runs"] = [bf16, fp8]
    line = lambda r: ("logits vs float64 relative L2 %.4f, top-1 %.1f%%, KL mean %.2e max %.2e"
                      % (r["rel_l2"], 100 * r["top1"], r["kl_mean"], r["kl_max"]))
    print("tk bf16: " + line(bf16))
    print("tk fp8:  " + line(fp8) + "; the first %d of %d tokens as bf16's"
          % (fp8["same_leading_tokens_as_bf16"], len(fp8["tokens"])))
    print("numpy, FP8 weights, over fp8's tokens: " + line(fp8["numpy_fp8_weights"])
          + "; tk fp8 against it %.4f" % fp8["rel_l2_vs_numpy_fp8_weights"])
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
