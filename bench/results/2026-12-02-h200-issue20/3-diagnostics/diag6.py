import os, sys, tempfile, subprocess, numpy as np, torch
sys.path.insert(0, "bench"); import llm_generate as L
from transformers import LlamaForCausalLM
tk = "/tmp/tkgpu/tk/bin/tk-llama"
shape, plen = dict(L.LLAMA_7B, num_hidden_layers=1), 2048
tmp = tempfile.mkdtemp(dir="/dev/shm"); folder = tmp + "/m"
made = L.make_folder(folder, shape)
print("inv_freq dtype after .to(bf16):", made.model.rotary_emb.inv_freq.dtype, flush=True)
prompt = [int(t) for t in np.random.default_rng(1).integers(3, shape["vocab_size"], plen)]
path = tmp + "/a.npy"
p = subprocess.run([tk, folder, "--backend", "cuda", "--prompt", ",".join(map(str, prompt)), "--max-new-tokens", "1",
                    "--save-logits", path], capture_output=True, text=True)
got = np.load(path)[0]
ids = torch.tensor([prompt], device="cuda")
with torch.no_grad():
    cast = made.float()(ids).logits[0, -1].float().cpu().numpy()
    del made
    loaded = LlamaForCausalLM.from_pretrained(folder, dtype=torch.float32).cuda()
    print("inv_freq dtype from_pretrained:", loaded.model.rotary_emb.inv_freq.dtype)
    ref = loaded(ids).logits[0, -1].float().cpu().numpy()
print("tk vs from_pretrained f32: %.4g; tk vs the bf16-cast model: %.4g; the two references: %.4g" % (
    L.rel_l2(got, ref), L.rel_l2(got, cast), L.rel_l2(cast, ref)))
