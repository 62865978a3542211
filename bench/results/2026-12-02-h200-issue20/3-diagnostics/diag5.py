import os, sys, tempfile, subprocess, numpy as np, torch
sys.path.insert(0, "bench"); import llm_generate as L
tk = "/tmp/tkgpu/tk/bin/tk-llama"
shape, plen = dict(L.LLAMA_7B, num_hidden_layers=1), 2048
tmp = tempfile.mkdtemp(dir="/dev/shm"); folder = tmp + "/m"
model = L.make_folder(folder, shape).float()
prompt = [int(t) for t in np.random.default_rng(1).integers(3, shape["vocab_size"], plen)]
with torch.no_grad():
    ref = model(torch.tensor([prompt], device="cuda")).logits[0, -1].float().cpu().numpy()
for name, std, extra in [("default", "stdlib", {}), ("one-config", ".pack/std1", {}), ("one-ws-config", ".pack/std2", {}),
                         ("default-blocking", "stdlib", {"TK_LAUNCH_BLOCKING": "1"})]:
    env = dict(os.environ, TK_STDLIB_DIR=os.path.abspath(std), TK_CACHE_DIR=tempfile.mkdtemp(), **extra)
    path = tmp + "/%s.npy" % name
    p = subprocess.run([tk, folder, "--backend", "cuda", "--prompt", ",".join(map(str, prompt)), "--max-new-tokens", "1",
                        "--save-logits", path], capture_output=True, text=True, env=env)
    if p.returncode: print(name, "failed", p.stderr[-300:]); continue
    print(name, "prefill row vs transformers f32: %.4g" % L.rel_l2(np.load(path)[0], ref), flush=True)
