#!/usr/bin/env python3
"""ctest `bench.report`: the benchmark report's parsing and ratios, without a GPU or torch."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


class ReportTest(unittest.TestCase):
    def test_parses_the_line_tk_prints(self):
        # tests/unit/CudaBackendTest.cpp (TimingLineIsTheOneBenchParses) pins the same text.
        text = ("progress...\nkernel 'matmul': 0.1235 ms per call (median of 100, L2 flushed, 200 us rest), "
                "0.1200 ms back to back (mean of 100)\n")
        self.assertEqual(report.parse_tk_timing(text),
                         dict(per_call_ms=0.1235, back_to_back_ms=0.12, reps=100, flushed=True))
        self.assertEqual(report.parse_tk_timing(text.replace(", 200 us rest", "")),
                         dict(per_call_ms=0.1235, back_to_back_ms=0.12, reps=100, flushed=True))
        unflushed = report.parse_tk_timing("layer time, CUDA graph replay: 0.1235 ms per call (median of 50), "
                                           "0.1200 ms back to back (mean of 50)")
        self.assertFalse(unflushed["flushed"])
        with self.assertRaises(RuntimeError):
            report.parse_tk_timing("kernel 'x': 0.1 ms (median of 100 runs)")

    def test_picks_named_shapes_and_refuses_typos(self):
        shapes = [(4096, 4096, 4096), (32, 4096, 4096), (32, 4096, 11008)]
        self.assertEqual(report.pick_shapes(shapes, ""), shapes)
        self.assertEqual(report.pick_shapes(shapes, "32x4096x11008, 4096x4096x4096"),
                         [(4096, 4096, 4096), (32, 4096, 11008)])
        for bad in ("32x4096", "32x4096x4096x1", "32x4096xk", "-32x4096x4096", "64x4096x4096"):
            with self.assertRaises(ValueError, msg=bad):
                report.pick_shapes(shapes, bad)

    def test_ratio_is_best_peer_over_tk_per_method(self):
        row = dict(section="matmul", label="x", flops=2e12, roofline_ms=1.0, errors={},
                   tk=dict(per_call_ms=2.0, back_to_back_ms=1.0, config="c"),
                   peers={"a": dict(per_call_ms=3.0, back_to_back_ms=0.5), "b": dict(per_call_ms=1.0, back_to_back_ms=2.0),
                          "c": dict(failed="cannot run")})
        self.assertEqual(report.best_peer(row)[0], "b")
        self.assertEqual(report.ratios(row), (0.5, 0.5))
        summary = dict(machine=dict(gpu="g", driver="d", commit="c", date="t"), versions=dict(torch="t", triton="t"),
                       ceilings={}, rows=[row], notes=[])
        text = report.markdown(summary, "bench/results/x")
        # The roofline's rate is the best the run saw (peer a back to back: 4000 TFLOP/s), so tk's
        # 1000 TFLOP/s is 25% of it and nothing exceeds 100%.
        self.assertIn("| x | 1000.0 | 666.7 | 2000.0 | failed | b | 0.50x | 0.50x | 25% | c |", text)
        self.assertIn("Worst ratio: per call x (0.50x)", text)

    def test_interleaved_rows_say_so(self):
        row = dict(section="fp8", label="x", flops=2e12, roofline_ms=1.0, errors={}, per_call="interleaved",
                   tk=dict(per_call_ms=2.0, back_to_back_ms=1.0, per_call_block_ms=2.2, config="c"),
                   peers={"a": dict(per_call_ms=3.0, back_to_back_ms=0.5, per_call_block_ms=2.9)})
        summary = dict(machine=dict(gpu="g", driver="d", commit="c", date="t"), versions=dict(torch="t", triton="t"),
                       ceilings={}, rows=[row], notes=[])
        self.assertIn("in the fp8 rows the contenders' single runs take turns", report.markdown(summary))
        self.assertEqual(report.ratios(row), (1.5, 0.5))  # the interleaved medians, not the blocks'
        # PROMOTE was timed by a block of its own runs: against cuBLASLt's block median.
        row["peers"]["cuBLASLt"] = dict(per_call_ms=3.0, back_to_back_ms=1.0, per_call_block_ms=2.4)
        row["tk_configs"] = {"PROMOTE": dict(per_call_ms=2.0, back_to_back_ms=1.0)}
        self.assertIn("x 1.20x (2.0000 ms)", report.markdown(summary))
        del row["per_call"]
        self.assertNotIn("take turns", report.markdown(summary))

    def test_tuned_config_is_the_best_line(self):
        table = ("kernel 'matmul' on NVIDIA H200: 2 configs compiled in 0.25 s, timed in 0.10 s\n"
                 "config                                               time (ms)  status\n"
                 "BK=64, BM=128, BN=256, num_stages=3, num_warps=8        0.3499\n"
                 "BK=32, BM=128, BN=128, num_stages=4, num_warps=4        0.3212  best\n")
        self.assertEqual(report.tuned_config(table), "BK=32, BM=128, BN=128, num_stages=4, num_warps=4")

    def test_llm_section_table(self):
        import llm_generate
        floor = llm_generate.decode_floor(llm_generate.LLAMA_7B, 2048, 1, 4.0)
        # LLaMA-7B's weights less the embedding table (one row read): about 13.0 GB.
        self.assertAlmostEqual(floor["weight_bytes"] / 1e9, 13.2, delta=0.3)
        self.assertAlmostEqual(floor["kv_bytes"] / 1e9, 1.07, delta=0.01)
        row = dict(batch=1, context=2048, floor=dict(step_ms=3.5), decode_of_floor=0.875,
                   tk=dict(prefill_ms=80.0, decode_ms_per_step=4.0, decode_tokens_s=250.0),
                   **{"hf static+compile": dict(prefill_ms=90.0, decode_tokens_s=150.0), "hf eager": dict(failed="oom"),
                      "decode_vs_hf static+compile": 250 / 150.0, "prefill_vs_hf static+compile": 90 / 80.0})
        summary = dict(machine=dict(gpu="g", driver="d", commit="c", date="t"), versions=dict(torch="t", triton="t"),
                       ceilings={}, rows=[], notes=[],
                       llm=dict(prompt=2048, new_tokens=65, transformers="5", rows=[row],
                                correctness=dict(tk_vs_hf_f32=0.01, hf_bf16_vs_hf_f32=0.009)))
        text = report.markdown(summary)
        self.assertIn("| 1 | 80.0 | 4.000 | 250.0 | 3.500 | 88% | 90.0 / 150.0 | oom | 1.67x | 1.12x |", text)
        self.assertIn("tk relative L2 0.01, transformers bf16 0.009", text)


if __name__ == "__main__":
    unittest.main()
