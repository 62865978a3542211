"""The --ptxas check: every case's kernel compiled to PTX for each target and assembled by ptxas
(no GPU needed), and every tuned matmul config built for sm_90a without spills and with its wgmmas
overlapped."""
import concurrent.futures
import os
import re
import subprocess
import tempfile

from registry import CASES, EXAMPLES, ROOT, chosen


def ptxas_builds(c, args, ptxas, tmp):
    """One case's kernel through tkc and ptxas for each target it is built for: (assembled, unsupported,
    FP8 refused on sm_80, too much shared memory, failure messages)."""
    with open(c.file) as f:
        text = f.read()
    dots = "dot(" in text
    assembled, unsupported, fp8_off_hopper, too_big, failures = 0, None, [], [], []
    # sm_90a: Hopper's wgmma, where a dot's operands are pipelined stages; sm_89: Ada's FP8
    # mma.sync (sm_90's too, without wgmma).
    for arch in ("sm_80", "sm_90") + (("sm_90a",) if dots else ()) + (("sm_89",) if dots and "f8" in text else ()):
        ptx = os.path.join(tmp, "k.ptx")
        if args.keep_ptx:  # one file per build, named by what was built, for before/after diffs
            defines = "".join("-%s=%s" % kv for kv in sorted(c.defines.items()))
            name = "%s-%s%s-%s.ptx" % (os.path.basename(c.file)[:-3], c.kernel, defines, arch)
            ptx = os.path.join(args.keep_ptx, "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in name))
        cmd = [args.tkc, c.file, "--kernel", c.kernel, "--emit=ptx", "--arch=" + arch, "-o", ptx]
        for k, v in c.defines.items():
            cmd += ["-D", "%s=%s" % (k, v)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            if "not supported by the GPU backend yet" in proc.stderr or "does not support tiles of rank" in proc.stderr:
                unsupported = "%s (%s)" % (c.kernel, os.path.basename(c.file))
                break
            if arch == "sm_80" and "needs tensor cores that take FP8" in proc.stderr:
                fp8_off_hopper.append("%s %s" % (c.name, arch))  # FP8 dots: sm_89 and later
                continue
            if arch in ("sm_80", "sm_89") and "shared memory, more than the" in proc.stderr and \
                    "of " + arch in proc.stderr:
                # A Hopper-sized tuning config: the tuner skips it on sm_80 and sm_89 for this reason.
                too_big.append("%s %s" % (c.name, arch))
                continue
            failures.append("FAIL %s %s: tkc\n  %s" % (c.name, arch, proc.stderr.strip()))
            continue
        result = subprocess.run([ptxas, "-arch=" + arch, ptx, "-o", os.path.join(tmp, "k.cubin")],
                                capture_output=True, text=True)
        if result.returncode != 0:
            failures.append("FAIL %s %s: ptxas\n  %s" % (c.name, arch, result.stderr.strip()))
        else:
            assembled += 1
    return assembled, unsupported, fp8_off_hopper, too_big, failures


def check_ptxas(args):
    """ptxas must accept the PTX of every kernel the GPU backend compiles; kernels it cannot
    compile yet must fail with the backend's own "not supported yet" diagnostic. Cases run
    `--jobs` at a time, each in its own folder; the report keeps the cases' order."""
    ptxas = os.environ.get("TK_PTXAS", "/usr/local/cuda/bin/ptxas")
    if not os.path.exists(ptxas):
        print("SKIPPED: no ptxas at %s (install the CUDA toolkit or set TK_PTXAS)" % ptxas)
        return 77  # ctest's SKIP_RETURN_CODE: reported as skipped, never as passed
    if args.keep_ptx:
        os.makedirs(args.keep_ptx, exist_ok=True)
    seen, selected = set(), []
    for c in CASES:
        key = (c.file, c.kernel, tuple(sorted(c.defines.items())))
        if key not in seen and chosen(args, c.name):
            seen.add(key)
            selected.append(c)
    assembled, unsupported, too_big_for_sm80, fp8_off_hopper, failures = 0, [], [], [], 0
    with tempfile.TemporaryDirectory(prefix="tk-ptxas-") as tmp:
        def one(indexed):
            i, c = indexed
            folder = os.path.join(tmp, str(i))
            os.makedirs(folder)
            return ptxas_builds(c, args, ptxas, folder)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for built, off, fp8, big, failed in pool.map(one, enumerate(selected)):
                assembled += built
                unsupported += [off] if off else []
                fp8_off_hopper += fp8
                too_big_for_sm80 += big
                failures += len(failed)
                for message in failed:
                    print(message)
    print("ptxas accepted %d kernel builds (sm_80 and sm_90; sm_90a for dots, sm_89 for FP8 ones); %d kernels are not on the GPU backend yet: %s"
          % (assembled, len(unsupported), ", ".join(sorted(set(unsupported)))))
    if too_big_for_sm80:
        print("shared memory beyond sm_80's or sm_89's, refused there with a located error (Hopper tuning configs): %s"
              % ", ".join(too_big_for_sm80))
    if fp8_off_hopper:
        print("FP8 dots refused on sm_80 with a located error (%d builds)" % len(fp8_off_hopper))
    spill_failures, spill_builds = check_matmul_spills(args, ptxas)
    failures += spill_failures
    return 1 if failures or assembled + spill_builds == 0 else 0


# ptxas's reports that it gave up overlapping a kernel's wgmmas: C7515 and C7518 ("Potential
# Performance Loss: wgmma.mma_async instructions are serialized ...") and C7517 (a
# warpgroup.wait it injected). Each has cost a TMA pipeline a large part of its speed (session
# 31: ws 3 on clusters 1.8x slower, bench/results/2026-12-06-session31).
WGMMA_PTXAS_WARNINGS = re.compile(r"\((?:C7515|C7517|C7518)\)[^\n]*")


def tuned_configs(path, kernel_name=None):
    """The @autotune configs of `kernel_name` (of every kernel without it) in `path`: [(kernel, {name: value})]."""
    with open(path) as f:
        source = f.read()
    builds = []
    for configs, kernel in re.findall(r"@autotune\(key = \[[^\]]*\], configs = \[(.*?)\]\)\s*kernel (\w+)\(", source, re.S):
        if kernel_name in (None, kernel):
            builds += [(kernel, dict(re.findall(r"(\w+):\s*(\w+)", config))) for config in re.findall(r"\{([^}]*)\}", configs)]
    return builds


def check_matmul_spills(args, ptxas):
    """Every @autotune config of examples/matmul.tk's kernels and of the stdlib's persistent FP8
    GEMM (with its configs on clusters of 2), built for sm_90a as the JIT specializes the
    benchmarks' shapes (TMA pipelines), must not spill registers, and ptxas must keep its
    wgmmas overlapped (none of WGMMA_PTXAS_WARNINGS). Returns the failures and the builds."""
    builds = []  # (name, path, kernel, {name: value})
    if chosen(args, "example.matmul.spills"):
        path = os.path.join(EXAMPLES, "matmul.tk")
        builds += [("example.matmul.spills", path, kernel, config) for kernel, config in tuned_configs(path)]
    if chosen(args, "stdlib.fp8_matmul_persistent.wgmma"):
        path = os.path.join(ROOT, "stdlib", "std", "fp8_matmul.tk")
        configs = [config for _, config in tuned_configs(path, "fp8_matmul_persistent")]
        configs += [{"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": stages,
                     "warp_specialize": ws, "cluster_size": "2"} for stages, ws in (("5", "1"), ("6", "3"))]
        # With a bias, whose broadcast takes turns with the scales' beside the TMA store's staging
        # (it did not fit before).
        configs += [{"BM": "128", "BN": "128", "BK": "128", "num_warps": "4", "num_stages": "6", "warp_specialize": "3",
                     "HAS_BIAS": "true", "TAIL_SPLIT": tail} for tail in ("1", "2")]
        builds += [("stdlib.fp8_matmul_persistent.wgmma", path, "fp8_matmul_persistent", dict(config, SCALE_MODE="1"))
                   for config in configs]

    def one(indexed):
        i, (name, path, kernel, config) = indexed
        ptx = os.path.join(tmp, "%d.ptx" % i)
        cmd = [args.tkc, path, "--kernel", kernel, "--emit=ptx", "--arch=sm_90a", "-o", ptx]
        for define, value in config.items():
            cmd += ["-D", "%s=%s" % (define, value)]
        for arg in ("M", "N", "K", "lda", "ldb", "ldc"):
            cmd += ["--divisibility", arg + "=16"]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, TK_STDLIB_DIR=os.path.join(ROOT, "stdlib")))
        result = subprocess.run([ptxas, "-arch=sm_90a", "-v", ptx, "-o", os.path.join(tmp, "%d.cubin" % i)],
                                capture_output=True, text=True) if proc.returncode == 0 else proc
        spills = re.findall(r"(\d+) bytes spill stores", result.stderr)
        overlap_lost = WGMMA_PTXAS_WARNINGS.findall(result.stderr)
        tma = False
        if os.path.exists(ptx):
            with open(ptx) as f:
                tma = "cp.async.bulk.tensor" in f.read()
        if result.returncode != 0 or not spills or any(int(n) for n in spills) or overlap_lost or not tma:
            return "FAIL %s %s %s: fails, spills, no TMA, or ptxas no longer overlaps its wgmmas\n  %s" % (
                name, kernel, " ".join("%s=%s" % kv for kv in config.items()),
                "; ".join(WGMMA_PTXAS_WARNINGS.findall(result.stderr)) or result.stderr.strip()[-500:])
        return None

    with tempfile.TemporaryDirectory(prefix="tk-spills-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            failed = [message for message in pool.map(one, enumerate(builds)) if message]
    for message in failed:
        print(message)
    print("matmul configs on sm_90a (TMA) without spills, their wgmmas overlapped: %d of %d" % (len(builds) - len(failed),
                                                                                             len(builds)))
    return len(failed), len(builds)
