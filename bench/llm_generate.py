"""Whole-model generation: tk-llama against Hugging Face transformers on the same checkpoint.

A LLaMA-7B-shaped model (32 layers, d=4096, 32 heads, FFN 11008, vocabulary 32000) with random
bf16 weights is made once by transformers (its own initialisation, seeded) and saved as a
Hugging Face folder; both contenders load that folder.

Correct first: the logits tk-llama chose its tokens from (the prefill's last row, then each decode
step's) against transformers' forward pass in float32 over the same tokens (teacher-forced), and
transformers' own bf16 logits against the same reference, relative L2.

Then speed, each contender as its users run it, greedy, a prompt of PROMPT random tokens and NEW
new ones (every new token generated: no early stop):
- tk-llama: its own lines (`prefill: ... ms`, `decode: ... tokens/s`), after its warm-up
  generation; decode steps replay one CUDA graph; `--profile` gives the per-kernel table.
- transformers, static KV cache + torch.compile (generate()'s own compile of the decode step,
  CompileConfig(fullgraph=True, mode="reduce-overhead"): the documented fast configuration; its
  prefill runs eager), and eager (dynamic cache): one generate() of NEW tokens with a
  logits processor that synchronizes and stamps the host clock at every step (hf_times), median
  of three after two warm-ups.
The bandwidth floor of a decode step: the weights it reads (all but the embedding table, of which
it reads one row per sequence) plus the KV cache at the steps' mean context, over the copy
bandwidth measured in the same run.
"""
import json
import os
import re
import shutil
import subprocess
import time

import numpy as np

LLAMA_7B = dict(hidden_size=4096, intermediate_size=11008, num_attention_heads=32, num_key_value_heads=32,
                num_hidden_layers=32, vocab_size=32000, max_position_embeddings=4096, rms_norm_eps=1e-5,
                rope_theta=10000.0, tie_word_embeddings=False)
# --quick: the harness on a small model with grouped-query heads.
SMALL = dict(hidden_size=512, intermediate_size=1376, num_attention_heads=8, num_key_value_heads=4,
             num_hidden_layers=2, vocab_size=1000, max_position_embeddings=1024, rms_norm_eps=1e-5,
             rope_theta=10000.0, tie_word_embeddings=False)


def make_folder(folder, shape, seed=0):
    """Saves a randomly initialised model (transformers' init, seeded) as bf16 safetensors."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(seed)
    with torch.device("cuda"):
        model = LlamaForCausalLM(LlamaConfig(**shape))
    for p in model.parameters():  # the weights as bf16; RoPE's inv_freq buffer left alone
        p.data = p.data.to(torch.bfloat16)
    model.save_pretrained(folder)
    del model
    torch.cuda.empty_cache()


def load(folder, dtype):
    """The folder as transformers' users load it. (Not model.to(bf16) on a fresh model: that
    rounds the RoPE inv_freq buffer to bf16 too, which from_pretrained keeps in f32, and which a
    later .float() cannot restore: transformers issue 25681. Its rotary angles are off by up to
    radians at position 2047: a reference made that way differed from tk-llama by 0.6-1.2
    relative L2 at 2048 tokens on 2026-12-02, where tk's rope on transformers' own f32-inv_freq
    q and k matched to 0.002.)"""
    import torch
    from transformers import LlamaForCausalLM
    return LlamaForCausalLM.from_pretrained(folder, dtype=dtype).cuda().eval()


def rel_l2(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def tk_generate(tk_llama, folder, prompt, new, batch, extra=(), env=None):
    cmd = [tk_llama, folder, "--backend", "cuda", "--prompt", ",".join(map(str, prompt)), "--max-new-tokens",
           str(new), "--batch", str(batch)] + list(extra)
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise RuntimeError("tk-llama failed (%d): %s %s" % (proc.returncode, proc.stdout[-1500:], proc.stderr[-1500:]))
    out = proc.stdout
    tokens = [[int(t) for t in line[len("tokens: "):].split(",")] for line in out.splitlines() if line.startswith("tokens: ")]
    prefill = re.search(r"prefill: (\d+) tokens in ([\d.]+) ms", out)
    decode = re.search(r"decode: (\d+) steps of (\d+) sequences in ([\d.]+) ms", out)
    result = dict(tokens=tokens, wall_s=time.time() - start, stdout=out)
    if prefill:
        result.update(prefill_ms=float(prefill.group(2)), prefill_tokens=int(prefill.group(1)))
    if decode:
        steps, seqs, decode_ms = int(decode.group(1)), int(decode.group(2)), float(decode.group(3))
        result.update(decode_ms_per_step=decode_ms / steps, decode_tokens_s=steps * seqs / (decode_ms / 1e3))
    return result


def hf_times(model, prompt, new, batch, reps=3, warmups=2):
    """One generate() of NEW tokens, timed at every step by a logits processor that synchronizes
    and reads the host clock (generate calls it once after the prefill's forward pass and once
    after each decode step's): prefill = start to the first call, a decode step = the mean gap
    between the later ones. Medians of `reps` generations after `warmups` (which compile)."""
    import torch
    from transformers import LogitsProcessor, LogitsProcessorList
    ids = torch.tensor([prompt] * batch, device="cuda")
    mask = torch.ones_like(ids)

    class Clock(LogitsProcessor):
        def __init__(self):
            self.stamps = []

        def __call__(self, input_ids, scores):
            torch.cuda.synchronize()
            self.stamps.append(time.perf_counter())
            return scores

    def once():
        clock = Clock()
        torch.cuda.synchronize()
        start = time.perf_counter()
        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=new, min_new_tokens=new, do_sample=False,
                             pad_token_id=0, logits_processor=LogitsProcessorList([clock]))
        torch.cuda.synchronize()
        end = time.perf_counter()
        assert out.shape[1] == len(prompt) + new and len(clock.stamps) == new, (out.shape, len(clock.stamps))
        s = clock.stamps
        return (s[0] - start) * 1e3, (s[-1] - s[0]) * 1e3 / (new - 1), (end - start) * 1e3

    for _ in range(warmups):
        once()
    runs = [once() for _ in range(reps)]
    prefill, step, full = (float(np.median([r[k] for r in runs])) for k in range(3))
    return dict(prefill_ms=prefill, decode_ms_per_step=step, decode_tokens_s=batch / (step / 1e3), generate_ms=full)


def decode_floor(shape, context, batch, copy_tbs, fp8=False):
    """Bytes a decode step must read (weights, the KV cache at `context`) over the copy
    bandwidth; `fp8`: the layers' projections one byte an element plus a float scale a row."""
    d, f, layers, vocab = shape["hidden_size"], shape["intermediate_size"], shape["num_hidden_layers"], shape["vocab_size"]
    kv = d // shape["num_attention_heads"] * shape["num_key_value_heads"]
    projections = d * (d + 2 * kv) + d * d + 3 * d * f
    rows = (d + 2 * kv) + d + 2 * f + d
    per_layer = projections + 4 * rows + 2 * 2 * d if fp8 else 2 * (projections + 2 * d)
    weights = layers * per_layer + 2 * (d + d * vocab + batch * d)
    cache = 2 * layers * 2 * kv * context * batch
    step_bytes = weights + cache
    step_ms = step_bytes / (copy_tbs * 1e12) * 1e3
    return dict(step_bytes=step_bytes, weight_bytes=weights, kv_bytes=cache, step_ms=step_ms,
                tokens_s=batch / (step_ms / 1e3))


def run(tk_llama, tmp, copy_tbs, quick, log, sweep=(), peers=True, batches=None):
    """`peers` False: tk-llama's rows and the logits' correctness only (no transformers timings,
    no tensor parallelism), a shorter run."""
    import torch
    shape = SMALL if quick else LLAMA_7B
    prompt_len, new = (256, 17) if quick else (2048, 65)
    batches = batches or ((1, 4) if quick else (1, 8))
    shm = "/dev/shm"
    base = shm if os.path.isdir(shm) and shutil.disk_usage(shm).free > 40e9 else tmp
    folder = os.path.join(base, "tk-llm-bench-model")
    import transformers
    result = dict(shape=shape, prompt=prompt_len, new_tokens=new, folder_on=base, rows=[],
                  transformers=transformers.__version__)
    try:
        start = time.time()
        make_folder(folder, shape)
        result["make_folder_s"] = time.time() - start
        log("llm: model folder written in %.0f s (%s)" % (result["make_folder_s"], folder))
        rng = np.random.default_rng(1)
        prompt = [int(t) for t in rng.integers(3, shape["vocab_size"], prompt_len)]

        # tk first (a batch-1 run that saves the logits it chose from), then correctness: those
        # logits against transformers in float32 over the same tokens, teacher-forced. The
        # timed rows are runs of their own: saving the logits costs a step about 5% (session
        # 34, H100), and the first run of a fresh kernel cache compiles.
        logits_path = os.path.join(tmp, "tk-logits.npy")
        first = tk_generate(tk_llama, folder, prompt, new, 1, ["--profile", "--save-logits", logits_path])
        tk_logits = np.load(logits_path)
        seq = torch.tensor([prompt + first["tokens"][0][:-1]], device="cuda")
        # The same with FP8 projections (tk-llama --fp8), over its own tokens.
        fp8_logits_path = os.path.join(tmp, "tk-fp8-logits.npy")
        first8 = tk_generate(tk_llama, folder, prompt, new, 1, ["--fp8", "--profile", "--save-logits", fp8_logits_path])
        seq8 = torch.tensor([prompt + first8["tokens"][0][:-1]], device="cuda")
        rows = slice(prompt_len - 1, prompt_len - 1 + new)
        with torch.no_grad():
            reference = load(folder, torch.float32)
            assert reference.model.rotary_emb.inv_freq.dtype == torch.float32
            f32 = reference(seq).logits[0, rows].float().cpu().numpy()
            f32_8 = reference(seq8).logits[0, rows].float().cpu().numpy()
            del reference
            torch.cuda.empty_cache()
            model = load(folder, torch.bfloat16)
            bf16 = model(seq).logits[0, rows].float().cpu().numpy()
        result["correctness"] = dict(
            tk_vs_hf_f32=rel_l2(tk_logits, f32), hf_bf16_vs_hf_f32=rel_l2(bf16, f32), tk_vs_hf_bf16=rel_l2(tk_logits, bf16),
            tk_prefill_row_vs_hf_f32=rel_l2(tk_logits[0], f32[0]), tokens=first["tokens"][0],
            hf_bf16_argmax=[int(t) for t in bf16.argmax(-1)], rows=new)
        log("llm: logits (the prefill's last row and %d decode steps) relative L2 against transformers f32: tk %.3g "
            "(prefill row %.3g), transformers bf16 %.3g" % (new - 1, result["correctness"]["tk_vs_hf_f32"],
                                                           result["correctness"]["tk_prefill_row_vs_hf_f32"],
                                                           result["correctness"]["hf_bf16_vs_hf_f32"]))
        # The bar (2e-2) is reported, not enforced: the timings still say something when
        # it fails, and bf16's own error against f32 (transformers') is the yardstick beside it.
        result["correctness"]["passed"] = result["correctness"]["tk_vs_hf_f32"] < 2e-2

        for batch in batches:
            row = dict(batch=batch, context=prompt_len, floor=decode_floor(shape, prompt_len + new // 2, batch, copy_tbs))
            tk = tk_generate(tk_llama, folder, prompt, new, batch, ["--profile"])
            if "prefill profile:" in tk["stdout"]:
                row["tk_profile"] = tk["stdout"][tk["stdout"].index("prefill profile:"):]
            row["tk"] = {k: v for k, v in tk.items() if k not in ("stdout", "tokens")}
            log("llm: batch %d tk prefill %.1f ms, decode %.3f ms a step (%.1f tokens/s; floor %.3f ms)" %
                (batch, tk["prefill_ms"], tk["decode_ms_per_step"], tk["decode_tokens_s"], row["floor"]["step_ms"]))
            result["rows"].append(row)
            log(row.get("tk_profile", ""))
        # FP8 projections (tk-llama --fp8): the logits' distance from transformers f32 and from
        # tk's bf16 run, then the speed at each batch against their own (smaller) floor.
        for batch in batches:
            tk8 = tk_generate(tk_llama, folder, prompt, new, batch, ["--fp8", "--profile"])
            row8 = dict(batch=batch, context=prompt_len, fp8=True,
                        floor=decode_floor(shape, prompt_len + new // 2, batch, copy_tbs, fp8=True),
                        tk={k: v for k, v in tk8.items() if k not in ("stdout", "tokens")})
            if "prefill profile:" in tk8["stdout"]:
                row8["tk_profile"] = tk8["stdout"][tk8["stdout"].index("prefill profile:"):]
            if batch == 1:
                fp8_logits = np.load(fp8_logits_path)
                result["fp8_correctness"] = dict(tk_fp8_vs_hf_f32=rel_l2(fp8_logits, f32_8),
                                                 tk_bf16_vs_hf_f32=result["correctness"]["tk_vs_hf_f32"],
                                                 same_tokens_as_bf16=int(sum(a == b for a, b in zip(first8["tokens"][0],
                                                                                                  first["tokens"][0]))))
                log("llm: --fp8 logits against transformers f32 %.3g (tk bf16: %.3g); %d of %d tokens as tk bf16's" % (
                    result["fp8_correctness"]["tk_fp8_vs_hf_f32"], result["correctness"]["tk_vs_hf_f32"],
                    result["fp8_correctness"]["same_tokens_as_bf16"], new))
            log("llm: --fp8 batch %d prefill %.1f ms, decode %.3f ms a step (%.1f tokens/s; its floor %.3f ms)" % (
                batch, tk8["prefill_ms"], tk8["decode_ms_per_step"], tk8["decode_tokens_s"], row8["floor"]["step_ms"]))
            result["rows"].append(row8)
        # Flash-decoding's split count against the default, tk alone (17 new tokens a run).
        for batch, splits in sweep:
            tk = tk_generate(tk_llama, folder, prompt, 17, batch, ["--decode-splits", str(splits)])
            result.setdefault("splits_sweep", []).append(dict(batch=batch, splits=splits,
                                                              decode_ms_per_step=tk["decode_ms_per_step"]))
            log("llm: batch %d, %d decode splits: %.3f ms a step" % (batch, splits, tk["decode_ms_per_step"]))

        for mode in ("eager", "static+compile") if peers else ():
            if mode == "static+compile":
                # transformers' own compiled generation: a static cache makes generate() compile
                # its decode step (CompileConfig: fullgraph, mode reduce-overhead, i.e. CUDA
                # graphs) and mark each step for the graph trees; wrapping model.forward in
                # torch.compile by hand instead fails in this version ("accessing tensor output
                # of CUDAGraphs that has been overwritten by a subsequent run").
                from transformers import CompileConfig
                model.generation_config.cache_implementation = "static"
                model.generation_config.compile_config = CompileConfig(fullgraph=True, mode="reduce-overhead")
            for row in result["rows"]:
                if row.get("fp8"):
                    continue  # (transformers runs its bf16 model once a batch size)
                start = time.time()
                try:
                    with torch.no_grad():
                        row["hf " + mode] = hf_times(model, prompt, new, row["batch"])
                except Exception as e:  # a configuration that cannot run says so
                    row["hf " + mode] = dict(failed=str(e).splitlines()[0][:300] if str(e) else type(e).__name__)
                row["hf " + mode]["wall_s"] = time.time() - start
                log("llm: batch %d transformers %s: %s" % (row["batch"], mode, row["hf " + mode]))
        # Tensor parallelism (bench/llm_tp.py): batch 1 over as many GPUs as there are.
        del model
        torch.cuda.empty_cache()
        import llm_tp
        try:  # (a failure here, such as no libnccl.so.2, keeps the rows above)
            if not peers:
                raise RuntimeError("not run (--llm-without-peers)")
            result["tp"] = llm_tp.run(tk_llama, folder, prompt, new, first, torch.cuda.device_count(), tmp, log)
        except Exception as e:
            result["tp"] = dict(rows=[], not_run=list(llm_tp.WORLD_SIZES), gpus=torch.cuda.device_count(),
                                failed=str(e).splitlines()[0][:300] if str(e) else type(e).__name__)
            log("llm tp: failed: %s" % result["tp"]["failed"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for row in result["rows"]:
        tk = row["tk"]
        row["decode_of_floor"] = row["floor"]["step_ms"] / tk["decode_ms_per_step"]
        # FP8 rows against transformers' (bf16) run of the same batch size.
        bf16_row = next((r for r in result["rows"] if r["batch"] == row["batch"] and not r.get("fp8")), row)
        for mode in ("eager", "static+compile"):
            hf = bf16_row.get("hf " + mode, {})
            if "decode_tokens_s" in hf:
                row["decode_vs_hf " + mode] = tk["decode_tokens_s"] / hf["decode_tokens_s"]
                row["prefill_vs_hf " + mode] = hf["prefill_ms"] / tk["prefill_ms"]
    return result


def markdown(llm):
    """The section of the report: correctness, then one line per batch."""
    if not llm:
        return ""
    c = llm.get("correctness", {})
    out = ["### LLaMA generation (tk-llama against transformers %s; %d-token prompt, %d new tokens)" %
           (llm.get("transformers", "?"), llm["prompt"], llm["new_tokens"])]
    if c:
        out.append("Logits (the prefill's last row and %d decode steps, teacher-forced) against transformers in "
                   "float32: tk relative L2 %.3g, transformers bf16 %.3g (the bar: 2e-2, %s)." % (
                       c.get("rows", 8) - 1, c["tk_vs_hf_f32"], c["hf_bf16_vs_hf_f32"],
                       "met" if c.get("passed", c["tk_vs_hf_f32"] < 2e-2) else "NOT met"))
    table = ["| batch | tk prefill ms | tk decode ms/step | tk tokens/s | floor ms/step | tk of floor | "
               "HF static+compile prefill ms / tokens/s | HF eager prefill ms / tokens/s | decode vs HF compile | "
               "prefill vs HF compile |\n|---|---|---|---|---|---|---|---|---|---|"]
    for row in llm["rows"]:
        bf16_row = next((r for r in llm["rows"] if r["batch"] == row["batch"] and not r.get("fp8")), row)
        tk, hf, eager = row["tk"], bf16_row.get("hf static+compile", {}), bf16_row.get("hf eager", {})
        def pair(h):
            return "%.1f / %.1f" % (h["prefill_ms"], h["decode_tokens_s"]) if "prefill_ms" in h else h.get("failed", "-")
        table.append("| %s | %.1f | %.3f | %.1f | %.3f | %.0f%% | %s | %s | %s | %s |" % (
            "%d%s" % (row["batch"], " (tk --fp8)" if row.get("fp8") else ""), tk["prefill_ms"], tk["decode_ms_per_step"], tk["decode_tokens_s"], row["floor"]["step_ms"],
            100 * row["decode_of_floor"], pair(hf), pair(eager),
            "%.2fx" % row["decode_vs_hf static+compile"] if "decode_vs_hf static+compile" in row else "-",
            "%.2fx" % row["prefill_vs_hf static+compile"] if "prefill_vs_hf static+compile" in row else "-"))
    out.append("\n".join(table))
    c8 = llm.get("fp8_correctness")
    if c8:
        out.append("tk-llama --fp8 (the layers' projections e4m3, per-channel scales): logits against transformers "
                   "f32 %.3g (tk bf16: %.3g); %d of %d greedy tokens as tk bf16's." % (
                       c8["tk_fp8_vs_hf_f32"], c8["tk_bf16_vs_hf_f32"], c8["same_tokens_as_bf16"], llm["new_tokens"]))
    for row in llm["rows"]:
        if row.get("tk_profile"):
            out.append("tk-llama%s --profile at batch %d:\n\n```\n%s```" % (" --fp8" if row.get("fp8") else "",
                                                                          row["batch"], row["tk_profile"]))
    if llm.get("tp"):
        import llm_tp
        out.append(llm_tp.markdown(llm["tp"]))
    if llm.get("splits_sweep"):
        out.append("Flash-decoding splits (tk alone, 17 new tokens): " + ", ".join(
            "batch %d %d splits %.3f ms" % (r["batch"], r["splits"], r["decode_ms_per_step"]) for r in llm["splits_sweep"]))
    return "\n\n".join(out)


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--tk-llama", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--copy-tbs", type=float, default=4.3)
    parser.add_argument("--json")
    args = parser.parse_args()
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        r = run(args.tk_llama, tmp, args.copy_tbs, args.quick, print)
    print(markdown(r))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(r, f, indent=1)
