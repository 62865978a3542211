#!/usr/bin/env python3
"""ctest `bench.fp8-accuracy`: fp8_accuracy.py's llama2.c conversion on random checkpoints it
writes (no tk-llama run): transformers' forward on the converted folder's weights computes
llama2.c's forward on the original ones, with heads widened or not, a tied or untied
classifier; widening keeps each projection row's e4m3 codes; bad files are refused."""
import os
import struct
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fp8_accuracy  # noqa: E402
import tiny_llama  # noqa: E402  (fp8_accuracy put tests/llm on the path)


def write_llama2c(path, dim=32, hidden=44, layers=2, heads=4, kv_heads=2, vocab=40, seq_len=16, shared=True,
                  extra=0):
    """A random checkpoint in llama2.c's legacy layout (`extra` float32 values after it)."""
    rng = np.random.default_rng(7)
    head, kv = dim // heads, kv_heads * dim // heads
    shapes = [(vocab, dim), (layers, dim), (layers, dim, dim), (layers, kv, dim), (layers, kv, dim), (layers, dim, dim),
              (layers, dim), (layers, hidden, dim), (layers, dim, hidden), (layers, hidden, dim), (dim,)]
    parts = [rng.standard_normal(s) / np.sqrt(s[-1]) for s in shapes]
    parts[1] += 1  # norm gains near 1
    parts[6] += 1
    parts[10] += 1
    angles = np.arange(seq_len)[:, None] * 10000.0 ** (-np.arange(0, head, 2) / head)
    parts += [np.cos(angles), np.sin(angles)]
    if not shared:
        parts.append(rng.standard_normal((vocab, dim)) / np.sqrt(dim))
    parts.append(np.zeros(extra))
    with open(path, "wb") as f:
        f.write(struct.pack("<7i", dim, hidden, layers, heads, kv_heads, vocab if shared else -vocab, seq_len))
        f.write(b"".join(np.asarray(p, np.float32).tobytes() for p in parts))


class Conversion(unittest.TestCase):
    def convert(self, pad, **shape):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.bin")
            write_llama2c(path, **shape)
            config, t = fp8_accuracy.read_llama2c(path)
        hf_config, w = fp8_accuracy.to_hf(config, t, pad)
        ids = [1, 5, 9, 2, 30, 7, 7, 11]
        return config, t, hf_config, w, fp8_accuracy.rel_l2(tiny_llama.reference_logits(w, ids, hf_config),
                                            fp8_accuracy.llama2c_logits(config, t, ids))

    def test_transformers_forward_computes_llama2c_s(self):
        for pad in (1, 4, 16):
            for shared in (True, False):
                _, _, hf_config, _, err = self.convert(pad, shared=shared)
                self.assertLess(err, 1e-6, (pad, shared))
                self.assertEqual(hf_config["hidden_size"], 32 * pad)

    def test_a_row_permuted_wrongly_is_caught(self):
        config, t, hf_config, w, _ = self.convert(1)
        name = "model.layers.0.self_attn.q_proj.weight"
        w = dict(w, **{name: w[name][::-1].copy()})
        ids = [1, 5, 9, 2]
        self.assertGreater(fp8_accuracy.rel_l2(tiny_llama.reference_logits(w, ids, hf_config),
                               fp8_accuracy.llama2c_logits(config, t, ids)), 1e-3)

    def test_widening_keeps_each_rows_e4m3_codes(self):
        _, _, _, narrow, _ = self.convert(1)
        _, _, _, wide, _ = self.convert(4)
        codes = lambda w, name: tiny_llama.e4m3_rows(tiny_llama.from_bits(w[name]).astype(np.float64))[0]
        # q_proj: 4 heads of 8 rows become 4 of 32, row r of a head (rotate-half order) row
        # 4r or 16 + 4(r - 4) of the wide one; the new columns and rows are zero.
        q1, q4 = codes(narrow, "model.layers.1.self_attn.q_proj.weight"), codes(wide, "model.layers.1.self_attn.q_proj.weight")
        rows = [32 * h + (4 * r if r < 4 else 16 + 4 * (r - 4)) for h in range(4) for r in range(8)]
        self.assertTrue(np.array_equal(q4[rows, :32], q1))
        self.assertFalse(np.delete(q4, rows, 0).any() or q4[:, 32:].any())
        d1, d4 = codes(narrow, "model.layers.0.mlp.down_proj.weight"), codes(wide, "model.layers.0.mlp.down_proj.weight")
        self.assertTrue(np.array_equal(d4[:32], d1))
        self.assertFalse(d4[32:].any())


class BadFiles(unittest.TestCase):
    def test_trailing_values_and_truncation_are_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.bin")
            write_llama2c(path, extra=3)
            with self.assertRaises(SystemExit):
                fp8_accuracy.read_llama2c(path)
            write_llama2c(path)
            with open(path, "r+b") as f:
                f.truncate(os.path.getsize(path) - 4)
            with self.assertRaises(SystemExit):
                fp8_accuracy.read_llama2c(path)
            with open(path, "wb") as f:
                f.write(struct.pack("<7i", 30, 44, 2, 4, 2, 40, 16))  # 30 not a multiple of 4 heads
            with self.assertRaises(SystemExit):
                fp8_accuracy.read_llama2c(path)


if __name__ == "__main__":
    unittest.main()
