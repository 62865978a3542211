"""Tensor parallelism in whole-model generation (issue 24): tk-llama --tp N against transformers'
own tensor parallelism (tp_plan="auto": DTensor over NCCL, one process per GPU by torchrun) on
the same checkpoint, batch 1, for N = 1, 2, 4 where the machine has N GPUs.

tk-llama's N ranks are threads of one process (GPUs 0..N-1, NCCL); at N = 1 it goes through
NCCL too (`--nccl`: a communicator of one), so the ratios to it isolate what the split buys.
Its `--profile` table gives the decode step's all-reduces (two a layer) and their time.
transformers runs eager (its TP path has no compiled generation that works across ranks here)
and is timed as llm_generate.hf_times times it. Both load with PyTorch's libnccl.so.2 and
NCCL_NVLS_ENABLE=0 (NVLink multicast stays off on these machines).

    python3 bench/llm_tp.py --hf-worker FOLDER PROMPT.json NEW OUT.json   (one torchrun rank)
"""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llm_generate  # noqa: E402

WORLD_SIZES = (1, 2, 4)


def nccl_env():
    """The environment both contenders run in: PyTorch's NCCL found, NVLink multicast off."""
    env = dict(os.environ, NCCL_NVLS_ENABLE="0")
    try:
        import nvidia.nccl
        lib = os.path.join(list(nvidia.nccl.__path__)[0], "lib")
        env["LD_LIBRARY_PATH"] = lib + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    except ImportError:
        pass
    return env


def all_reduces(stdout):
    """(launches, total ms) of the all-reduce rows of tk-llama's decode step profile."""
    if "decode step profile:" not in stdout:
        return None
    section = stdout[stdout.index("decode step profile:"):]
    for line in section.splitlines()[2:]:
        m = re.match(r"\s+(all_reduce.*?)\s+(\d+)\s+([\d.]+)\s", line)
        if m:
            return int(m.group(2)), float(m.group(3))
    return None


def hf_tp(folder, prompt, new, ranks, tmp, env):
    """transformers with tp_plan="auto" on `ranks` GPUs (torchrun), rank 0's timings."""
    prompt_file, out = os.path.join(tmp, "tp-prompt.json"), os.path.join(tmp, "tp-hf-%d.json" % ranks)
    with open(prompt_file, "w") as f:
        json.dump(prompt, f)
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(ranks),
           os.path.abspath(__file__), "--hf-worker", folder, prompt_file, str(new), out]
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode or not os.path.exists(out):
        return dict(failed=(proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1][:300],
                    wall_s=time.time() - start)
    with open(out) as f:
        return dict(json.load(f), wall_s=time.time() - start)


def run(tk_llama, folder, prompt, new, plain, gpus, tmp, log):
    """Rows for N in WORLD_SIZES up to `gpus`; `plain` is llm_generate's batch-1 tk run."""
    env = nccl_env()
    rows, not_run = [], [n for n in WORLD_SIZES if n > gpus]
    for ranks in [n for n in WORLD_SIZES if n <= gpus]:
        extra = ["--tp", str(ranks), "--profile"] + (["--nccl"] if ranks == 1 else [])
        tk = llm_generate.tk_generate(tk_llama, folder, prompt, new, 1, extra, env=env)
        reduces = all_reduces(tk["stdout"])
        row = dict(ranks=ranks, tk={k: v for k, v in tk.items() if k not in ("stdout", "tokens")},
                   same_tokens_as_one_gpu=tk["tokens"][0] == plain["tokens"][0],
                   hf=hf_tp(folder, prompt, new, ranks, tmp, env))
        if reduces:
            row["all_reduce"] = dict(launches=reduces[0], ms=reduces[1], us_each=1e3 * reduces[1] / reduces[0])
        rows.append(row)
        log("llm tp %d: tk decode %.3f ms a step (%.1f tokens/s), all-reduces %s; transformers tp_plan=auto %s" % (
            ranks, tk["decode_ms_per_step"], tk["decode_tokens_s"], row.get("all_reduce"), row["hf"]))
    base = rows[0]["tk"]["decode_tokens_s"] if rows else None
    for row in rows:
        row["tk_vs_tp1"] = row["tk"]["decode_tokens_s"] / base
        row["tk_vs_plain"] = row["tk"]["decode_tokens_s"] / plain["decode_tokens_s"]
        if "decode_tokens_s" in row["hf"]:
            row["tk_vs_hf"] = row["tk"]["decode_tokens_s"] / row["hf"]["decode_tokens_s"]
    return dict(rows=rows, not_run=not_run, gpus=gpus)


def markdown(tp):
    if not tp:
        return ""
    out = ["#### Tensor parallelism, batch 1 decode (tk-llama --tp N over NCCL; transformers tp_plan=\"auto\", eager)",
           "| GPUs | tk tokens/s | tk vs --tp 1 | tk vs one GPU without NCCL | all-reduces a step (us each) | "
           "same tokens | transformers tokens/s | tk vs transformers |\n|---|---|---|---|---|---|---|---|"]
    for r in tp["rows"]:
        ar = r.get("all_reduce")
        hf = r["hf"]
        out[-1] += "\n| %d | %.1f | %.2fx | %.2fx | %s | %s | %s | %s |" % (
            r["ranks"], r["tk"]["decode_tokens_s"], r["tk_vs_tp1"], r["tk_vs_plain"],
            "%d (%.1f)" % (ar["launches"], ar["us_each"]) if ar else "-", "yes" if r["same_tokens_as_one_gpu"] else "no",
            "%.1f" % hf["decode_tokens_s"] if "decode_tokens_s" in hf else hf.get("failed", "-"),
            "%.2fx" % r["tk_vs_hf"] if "tk_vs_hf" in r else "-")
    if tp.get("failed"):
        out.append("Tensor-parallel rows failed: %s" % tp["failed"])
    elif tp["not_run"]:
        out.append("Not run: %s GPUs (this machine has %d)." % (", ".join(map(str, tp["not_run"])), tp["gpus"]))
    return "\n\n".join(out)


def hf_worker(folder, prompt_file, new, out):
    """One torchrun rank: the model sharded by transformers' own plan, timed on rank 0."""
    import torch
    from transformers import LlamaForCausalLM
    rank = int(os.environ.get("RANK", "0"))
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    model = LlamaForCausalLM.from_pretrained(folder, dtype=torch.bfloat16, tp_plan="auto")
    with open(prompt_file) as f:
        prompt = json.load(f)
    with torch.no_grad():
        times = llm_generate.hf_times(model, prompt, new, 1)
    if rank == 0:
        with open(out, "w") as f:
            json.dump(times, f)
    if torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "--hf-worker":
        hf_worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    else:
        sys.exit(__doc__)
