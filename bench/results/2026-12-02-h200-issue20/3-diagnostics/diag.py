# Which part of the 7B prefill is wrong: tk-llama's prefill row against transformers f32 on variants.
import os, sys, json, tempfile, numpy as np, torch
sys.path.insert(0, "bench")
import llm_generate as L
tk = "/tmp/tkgpu/tk/bin/tk-llama"
base = dict(L.LLAMA_7B)
variants = [
    ("7b2-p2048-nocache", dict(base, num_hidden_layers=2), 2048, ["--no-cache"], 2),
    ("7b2-p2048-new1", dict(base, num_hidden_layers=2), 2048, [], 1),
    ("7b2-p512", dict(base, num_hidden_layers=2), 512, [], 2),
    ("7b2-p128", dict(base, num_hidden_layers=2), 128, [], 2),
    ("7b1-p2048", dict(base, num_hidden_layers=1), 2048, [], 2),
    ("d1024-h8-p2048", dict(base, num_hidden_layers=2, hidden_size=1024, num_attention_heads=8, num_key_value_heads=8, intermediate_size=2816), 2048, [], 2),
]
tmp = tempfile.mkdtemp(dir="/dev/shm")
for name, shape, plen, extra, new in variants:
    folder = os.path.join(tmp, name)
    model = L.make_folder(folder, shape)
    prompt = [int(t) for t in np.random.default_rng(1).integers(3, shape["vocab_size"], plen)]
    path = os.path.join(tmp, name + ".npy")
    try:
        r = L.tk_generate(tk, folder, prompt, new, 1, extra + ["--save-logits", path])
    except Exception as e:
        print(name, "tk failed", str(e)[:500]); continue
    got = np.load(path)
    seq = torch.tensor([prompt + r["tokens"][0][:1]], device="cuda")
    with torch.no_grad():
        model.float()
        ref = model(seq).logits[0, plen - 1:plen + 1].float().cpu().numpy()
    print(name, "prefill row", L.rel_l2(got[0], ref[0]), "decode row", L.rel_l2(got[1], ref[1]) if new > 1 else "-", "tk wall", round(r["wall_s"]), flush=True)
    del model; torch.cuda.empty_cache()
    import shutil; shutil.rmtree(folder)
