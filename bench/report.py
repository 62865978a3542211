"""Tables from a bench/run-all summary: the run's summary.md and the README's performance
section (bench/readme-tables) are both rendered here, so the README says exactly what the run
measured.
"""
import os
import re
import subprocess

# The line tk::Timing::str() prints (tests/unit/TimingTest.cpp pins its format).
TK_TIMING = re.compile(r"([0-9.e+-]+) ms per call \(median of (\d+)(, L2 flushed)?(?:, \d+ us rest)?\), "
                       r"([0-9.e+-]+) ms back to back \(mean of (\d+)\)")
METHODS = (("per_call_ms", "per call"), ("back_to_back_ms", "back to back"))
SECTIONS = {  # title, unit, rate(row, ms)
    "matmul": ("Matmul", "TFLOP/s", lambda row, ms: row["flops"] / ms / 1e9),
    "attention": ("Attention forward", "TFLOP/s", lambda row, ms: row["flops"] / ms / 1e9),
    "fp8": ("Scaled FP8 GEMM (e4m3 x e4m3 into bf16; the roofline's rate: the best any contender reached here)",
            "TFLOP/s", lambda row, ms: row["flops"] / ms / 1e9),
    "memory": ("Memory-bound kernels", "TB/s", lambda row, ms: row["bytes"] / ms / 1e9),
    "llama": ("LLaMA-7B decoder layer (bf16)", "ms", lambda row, ms: ms),
}


def machine():
    info = {"commit": os.environ.get("TK_COMMIT", "unknown")}
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip().splitlines()[0]
        info["gpu"], info["driver"] = [p.strip() for p in gpu.split(",")]
    except Exception:
        info["gpu"] = info["driver"] = "unknown"
    info["date"] = subprocess.run(["date", "-u", "+%Y-%m-%d %H:%M UTC"], capture_output=True, text=True).stdout.strip()
    return info


def parse_tk_timing(text, what="tk"):
    """tk's timing (the last tk::Timing line in `text`), as peers.Timer.time returns a peer's."""
    found = TK_TIMING.findall(text)
    if not found:
        raise RuntimeError("%s printed no timing line:\n%s" % (what, text[-2000:]))
    per_call, reps, flushed, b2b, _ = found[-1]
    return dict(per_call_ms=float(per_call), back_to_back_ms=float(b2b), reps=int(reps), flushed=bool(flushed))


def pick_shapes(shapes, spec):
    """The shapes among `shapes` (tuples) that `spec` names ("MxNxK,..."; "" for all), in
    `shapes`' order. A malformed entry or one that is not among them is a ValueError (a typo
    would otherwise run nothing)."""
    if not spec:
        return list(shapes)
    wanted = set()
    for entry in spec.split(","):
        parts = entry.strip().split("x")
        if not all(p.isdigit() for p in parts) or len(parts) != len(shapes[0]):
            raise ValueError("'%s' is not a shape like %s" % (entry, "x".join(map(str, shapes[0]))))
        wanted.add(tuple(int(p) for p in parts))
    unknown = wanted - set(shapes)
    if unknown:
        raise ValueError("%s: not among %s" % (", ".join("x".join(map(str, s)) for s in sorted(unknown)),
                                               ", ".join("x".join(map(str, s)) for s in shapes)))
    return [s for s in shapes if s in wanted]


def gpu_state():
    """The GPU's clocks, power, temperature and throttle reasons now (recorded around sections)."""
    fields = "clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active"
    try:
        line = subprocess.run(["nvidia-smi", "--query-gpu=" + fields, "--format=csv,noheader"], capture_output=True,
                              text=True).stdout.strip().splitlines()[0]
        return dict(zip(fields.split(","), [v.strip() for v in line.split(",")]))
    except Exception:
        return {}


def graphed(summary):
    """Whether the peers' back-to-back times replay CUDA graphs (runs after 84039b3)."""
    return any(t.get("back_to_back") == "graph" for row in summary["rows"] for t in row["peers"].values())


def all_timings(row):
    yield row.get("tk") or {}
    yield from row["peers"].values()


def ceilings_seen(summary):
    """The roofline's rates: the best the run saw on this GPU — the copy and cuBLAS at 8192³
    measured first, or any contender of any row, whichever is higher — so no row exceeds 100%."""
    c = summary.get("ceilings") or {}
    peak = {dt: c.get("gemm_%s_tflops" % dt, 0.0) for dt in ("f16", "bf16")}
    bandwidth = c.get("copy_tbs", 0.0)
    for row in summary["rows"]:
        for t in all_timings(row):
            for method, _ in METHODS:
                if not t.get(method):
                    continue
                if row["section"] in ("matmul", "fp8"):
                    dtype = row.get("dtype", "bf16")
                    peak[dtype] = max(peak.get(dtype, 0.0), row["flops"] / t[method] / 1e9)
                elif row["section"] == "memory":
                    bandwidth = max(bandwidth, row["bytes"] / t[method] / 1e9)
    return peak, bandwidth


def roofline_ms(row, peak, bandwidth):
    compute = row.get("flops", 0) / (peak.get(row.get("dtype") or "bf16", 0) * 1e9) if row.get("flops") else 0.0
    memory = row.get("bytes", 0) / (bandwidth * 1e9) if row.get("bytes") and bandwidth else 0.0
    return max(compute, memory)


def tuned_config(table):
    """The winning config from `tkc tune`'s table."""
    for line in table.splitlines():
        m = re.match(r"^(.*?)\s+([\d.]+|-)\s+(best|known.*)$", line.strip())
        if m:
            return m.group(1).strip()
    return "?"


def timed(t):
    return bool(t) and "per_call_ms" in t


def best_peer(row, method="per_call_ms"):
    """(name, timing) of the fastest peer of the row by this method, or None."""
    ok = [(name, t) for name, t in row["peers"].items() if timed(t)]
    return min(ok, key=lambda nt: nt[1][method]) if ok else None


def ratios(row):
    """Best peer time / tk time, per call and back to back (> 1: tk is faster)."""
    out = []
    for method, _ in METHODS:
        best = best_peer(row, method)
        tk = row.get("tk") or {}
        out.append(best[1][method] / tk[method] if best and tk.get(method) else float("nan"))
    return tuple(out)


def fmt(value, unit):
    if value != value:
        return "-"
    if unit == "ms":
        return "%.3f" % value
    return "%.3f" % value if unit == "TB/s" else "%.1f" % value


def peer_names(rows):
    names = []
    for row in rows:
        for name in row["peers"]:
            if name not in names:
                names.append(name)
    return names


def section_table(summary, section):
    """The section's Markdown table and its worst rows, or None when it has no rows."""
    rows = [r for r in summary["rows"] if r["section"] == section]
    if not rows:
        return None
    title, unit, rate = SECTIONS[section]
    peak, bandwidth = ceilings_seen(summary)
    names = peer_names(rows)
    head = ["", "tk"] + names + ["best peer", "tk vs best, per call", "tk vs best, back to back", "tk of roofline", "tk config"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    worst = {}
    for row in rows:
        tk = row.get("tk") or {}
        cells = [row["label"], fmt(rate(row, tk["per_call_ms"]), unit) if timed(tk) else "failed"]
        for name in names:
            t = row["peers"].get(name)
            cells.append(fmt(rate(row, t["per_call_ms"]), unit) if timed(t) else ("failed" if t else "-"))
        best = best_peer(row)
        per_call, b2b = ratios(row)
        roof_ms = roofline_ms(row, peak, bandwidth)
        roof = roof_ms / tk["per_call_ms"] if timed(tk) and roof_ms else float("nan")
        cells += [best[0] if best else "-", "%.2fx" % per_call if per_call == per_call else "-",
                  "%.2fx" % b2b if b2b == b2b else "-", "%.0f%%" % (100 * roof) if roof == roof else "-",
                  str(tk.get("config", "")).replace("|", "/")]
        lines.append("| " + " | ".join(cells) + " |")
        for key, value in (("per call", per_call), ("back to back", b2b)):
            if value == value and (key not in worst or value < worst[key][1]):
                worst[key] = (row["label"], value)
    return title, unit, "\n".join(lines), worst


def markdown(summary, folder=None):
    """The whole report: where and how it was measured, then one table per section."""
    return "\n\n".join(header(summary, folder) + section_texts(summary, SECTION_ORDER) + notes(summary)) + "\n"


SECTION_ORDER = ("matmul", "fp8", "attention", "memory", "llama", "llm", "jit")


def header(summary, folder=None, merged=False):
    """Where, when and how the run measured: its paragraphs. `merged`: the header of tables from
    several runs (bench/readme-tables), each named by source_line, of which this is the first."""
    m, c = summary["machine"], summary["ceilings"]
    out = []
    where = "`%s`" % folder if folder else "this run"
    if merged:
        out.append("Measured by `bench/run-all` in the runs listed below, each table from one run (its rows' ratios "
                   "and roofline within that run): %s, driver %s, torch %s, Triton %s." %
                   (m["gpu"], m["driver"], summary["versions"]["torch"], summary["versions"]["triton"]))
        out.append("Roofline: the larger of FLOPs over the best matrix rate and bytes (each input read once, each "
                   "output written once) over the best bandwidth the run saw on this GPU (a 1 GiB copy, cuBLAS at "
                   "8192³, or any contender if faster); \"tk of roofline\" is that time over tk's.")
        c = None
    else:
        out.append("Measured by `bench/run-all` in one run (%s): %s, driver %s, commit %s, torch %s, Triton %s, %s%s." %
                   (where, m["gpu"], m["driver"], m["commit"], summary["versions"]["torch"],
                    summary["versions"]["triton"], m["date"],
                    ", quick mode (harness check, not numbers)" if summary.get("quick") else ""))
        if summary.get("command"):
            out.append("Command: `%s`." % summary["command"].strip())
    if c:
        peak, bandwidth = ceilings_seen(summary)
        out.append("Roofline: the larger of FLOPs over the best matrix rate and bytes (each input read once, each "
                   "output written once) over the best bandwidth this run saw on this GPU: %.2f TB/s (a 1 GiB copy "
                   "gave %.2f), %.0f TFLOP/s f16 and %.0f bf16 (cuBLAS at 8192³ gave %.0f and %.0f); \"tk of "
                   "roofline\" is that time over tk's." % (bandwidth, c.get("copy_tbs", 0), peak["f16"], peak["bf16"],
                                                         c.get("gemm_f16_tflops", 0), c.get("gemm_bf16_tflops", 0)))
    per_call = ("median of single runs between CUDA events, each synchronized and (except the LLaMA layer, whose "
                "400 MB of weights exceed the L2) after an L2 flush and a %d us spin of the GPU, so that every "
                "contender's launch is enqueued before the GPU reaches it: the GPU's time for a cold-L2 call (the "
                "LLaMA layer includes the host's cost, where torch's Python and tk's C++ graph launch differ most; "
                "the JIT section gives the host's cost of a launch)" % summary.get("spin_us", 200)
                if summary.get("tk_in_process") and summary.get("spin_us", 200) else
                "median of single runs between CUDA events, each synchronized and (except the LLaMA layer, whose "
                "400 MB of weights exceed the L2) after an L2 flush; it includes the host's launch cost where that "
                "exceeds the ~30 us flush (small kernels from Python, and the LLaMA layer, where torch's Python and "
                "tk's C++ graph launch differ most)")
    interleaved = sorted({r["section"] for r in summary.get("rows", []) if r.get("per_call") == "interleaved"})
    if interleaved:
        per_call += ("; in the %s rows the contenders' single runs take turns (one run of each a round, the order "
                     "rotated every round), so that clocks drifting at the GPU's power cap fall on all of them alike "
                     "(each one's median over a block of its own runs stays in summary.json as per_call_block_ms; "
                     "where a row has back_to_back_block_ms, its graphs' batches took turns too)"
                     % " and ".join(interleaved))
    out.append("Ratios are the best peer's time over tk's within one timing method (> 1: tk faster). Per call: the "
               "%s. Back to back: N runs between two events, the mean, median of "
               "three batches; %s. Every output is checked against a reference; an output that fails has no "
               "number. Rates below are per call." % (
                   per_call,
                   "kernel rows replay a CUDA graph of the N calls, tk's as the peers' (no Python launch cost; "
                   "`graph_error` in summary.json names a contender that could not be captured); tk's kernels run "
                   "in the benchmark's process through its Python package, timed by the peers' own timer; the "
                   "LLaMA rows launch N times as a program would" if summary.get("tk_in_process") else
                   "a peer's kernel rows replay a CUDA graph of the N calls (no Python launch cost; `graph_error` "
                   "in summary.json names a peer that could not be captured), tk launches from C++ (about 3 us "
                   "each); the LLaMA rows launch N times as a program would" if graphed(summary) else
                   "every contender launches N times (the peers from Python, tk from C++)"))
    return out


def section_texts(summary, sections):
    """The paragraphs of these sections of the run (in SECTION_ORDER)."""
    out = []
    for section in [s for s in SECTION_ORDER if s in sections]:
        if section == "llm":
            if summary.get("llm"):
                import llm_generate
                out.append(llm_generate.markdown(summary["llm"]))
            continue
        if section == "jit":
            out += jit_texts(summary)
            continue
        table = section_table(summary, section)
        if not table:
            continue
        title, unit, text, worst = table
        out.append("### %s (%s)\n\n%s" % (title, unit, text))
        # These comparisons were timed by blocks of one contender's runs: where a row's per call
        # was timed again interleaved, its block medians (per_call_block_ms) are the like.
        def block_ms(t):
            return t.get("per_call_block_ms", t["per_call_ms"])

        # (Each kernel against its own renamed copy: "K_cutlass (K's config)"; older runs renamed
        # fp8_matmul alone.)
        named = [(r["label"], n.split("_cutlass")[0], block_ms(r["tk_configs"].get(n.split("_cutlass")[0]) or r["tk"]),
                  t["per_call_ms"])
                 for r in summary["rows"] if r["section"] == section and timed(r.get("tk") or {})
                 for n, t in (r.get("tk_configs") or {}).items() if "cutlass" in n and timed(t)]
        if named:
            out.append("Each kernel's tuned config again under a name with `_cutlass` (ptxas is said to treat such names "
                       "apart), ms per call, kernel / _cutlass: " + "; ".join("%s %s %.4f / %.4f" % n for n in named) + ".")
        promoted = [(r["label"], block_ms(r["peers"]["cuBLASLt"]) / t["per_call_ms"], t["per_call_ms"])
                    for r in summary["rows"] if r["section"] == section
                    for n, t in (r.get("tk_configs") or {}).items()
                    if n == "PROMOTE" and timed(t) and timed(r["peers"].get("cuBLASLt"))]
        if promoted:
            out.append("Like for like in accumulation: tk with `PROMOTE` (each k-step's product added in f32) against "
                       "cuBLASLt's default (which promotes too), per call (each timed by a block of its own runs), cuBLASLt / tk: " +
                       "; ".join("%s %.2fx (%.4f ms)" % p for p in promoted) + ". The table's tk sums all of K in the "
                       "tensor cores, as cuBLASLt's fast accumulation does.")
        if worst:
            out.append("Worst ratio: " + "; ".join("%s %s (%.2fx)" % (k, v[0], v[1]) for k, v in worst.items()) + ".")
        failed = [r for r in summary["rows"] if r["section"] == section and r.get("failed")]
        for r in failed:
            out.append("- %s failed: %s" % (r["label"], r["failed"].splitlines()[0][:200]))
        if section == "llama":
            out.append(llama_notes(summary))
    return out


def notes(summary):
    """The run's notes (a section that failed, say)."""
    return ["Note: " + note.splitlines()[-1][:300] for note in summary.get("notes", [])]


def jit_texts(summary):
    out = []
    if summary.get("jit"):
        jit = dict(summary["jit"])
        python_launch = jit.pop("python_launch", None)
        out.append("### JIT host costs\n\n" + "\n".join("- %s: %.3f" % kv for kv in jit.items()))
        if python_launch:
            out.append("Host cost of one launch of a cached kernel from Python on torch tensors (`bench/python_launch.py`: "
                       "vector add, batches of %d launches, median of %d, us per launch):\n\n" % (
                           python_launch["batch"], python_launch["rounds"]) +
                       "\n".join("- %s: %.2f" % kv for kv in python_launch["us"].items()))
    return out


def source_line(summary, folder, sections):
    """Which run a merged report's sections come from (bench/readme-tables)."""
    m = summary["machine"]
    peak, bandwidth = ceilings_seen(summary)
    return ("%s: `%s` (`%s`, commit %s, %s; its roofline %.2f TB/s, %.0f / %.0f TFLOP/s f16 / bf16)." %
            (", ".join(sections), folder, summary.get("command", "").strip() or "bench/run-all", m["commit"], m["date"],
             bandwidth, peak["f16"], peak["bf16"]))


def llama_notes(summary):
    lines = []
    for row in summary["rows"]:
        if row["section"] != "llama" or not timed(row.get("tk")):
            continue
        plain = row.get("tk_plain", {})
        kernels = ", ".join("%s %d" % kv for kv in row.get("kernels", {}).items())
        lines.append("- %s: tk plain launches %.3f ms per call, %.3f back to back (the table's tk is the CUDA-graph "
                     "replay); kernels per layer: %s." % (row["label"], plain.get("per_call_ms", float("nan")),
                                                         plain.get("back_to_back_ms", float("nan")), kernels))
    return "\n".join(lines)
