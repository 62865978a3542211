#!/usr/bin/env python3
"""ctest `bench.peers`: peers.Timer's two methods, alone and interleaved, on a stand-in for
torch.cuda whose events read a virtual clock (no GPU, no torch needed): each contender's
median, the order in which interleaved contenders take turns, and a CUDA graph that cannot be
captured."""
import contextlib
import os
import sys
import types
import unittest

clock = [0.0]
capturing = []  # the graph being captured: the calls it records instead of running them
calls = []  # the names run, in order


def stub_torch():
    torch = types.ModuleType("torch")
    cuda = types.ModuleType("torch.cuda")

    class Event:
        def __init__(self, enable_timing=False):
            self.t = None

        def record(self):
            self.t = clock[0]

        def synchronize(self):
            pass

        def elapsed_time(self, end):
            return end.t - self.t

    class Graph:
        def __init__(self):
            self.recorded = []

        def replay(self):
            for call in self.recorded:
                call()

    @contextlib.contextmanager
    def graph(g):
        capturing.append(g)
        try:
            yield
        finally:
            capturing.pop()

    class Buffer:
        def fill_(self, value):
            clock[0] += 0.01  # the flush takes GPU time, outside the events

    cuda.Event, cuda.CUDAGraph, cuda.graph = Event, Graph, graph
    cuda.synchronize = lambda: None
    cuda._sleep = lambda cycles: None
    cuda.get_device_properties = lambda device: types.SimpleNamespace(L2_cache_size=1 << 20)
    cuda.Stream = lambda: types.SimpleNamespace(wait_stream=lambda other: None)
    cuda.current_stream = lambda: types.SimpleNamespace(wait_stream=lambda other: None)
    cuda.stream = lambda s: contextlib.nullcontext()
    torch.cuda, torch.uint8 = cuda, None
    torch.empty = lambda *a, **k: Buffer()
    nn = types.ModuleType("torch.nn")
    nn.functional = types.ModuleType("torch.nn.functional")
    nn.attention = types.ModuleType("torch.nn.attention")
    nn.attention.SDPBackend, nn.attention.sdpa_kernel = None, None
    torch.nn = nn
    for name, module in (("torch", torch), ("torch.cuda", cuda), ("torch.nn", nn),
                         ("torch.nn.functional", nn.functional), ("torch.nn.attention", nn.attention)):
        sys.modules[name] = module


stub_torch()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402


def kernel(name, ms, capturable=True):
    """A contender taking `ms` a run; under capture it is recorded (or refuses to be)."""
    def run():
        if capturing:
            if not capturable:
                raise RuntimeError("operation not permitted when stream is capturing")
            capturing[-1].recorded.append(run_now)
        else:
            run_now()

    def run_now():
        calls.append(name)
        clock[0] += ms
    return run


class TimerTest(unittest.TestCase):
    def setUp(self):
        clock[0] = 0.0
        calls.clear()
        self.timer = peers.Timer()

    def test_alone_and_interleaved_give_each_contenders_time(self):
        a, b = kernel("a", 2.0), kernel("b", 0.5)
        self.assertAlmostEqual(self.timer.per_call(a, 5), 2.0)
        self.assertAlmostEqual(self.timer.back_to_back(a, 5), 2.0)
        self.assertAlmostEqual(self.timer.back_to_back(a, 5, graph=True), 2.0)
        times = self.timer.per_call_interleaved({"a": a, "b": b}, 5)
        self.assertEqual(times.keys(), {"a", "b"})
        self.assertAlmostEqual(times["a"], 2.0)
        self.assertAlmostEqual(times["b"], 0.5)
        batches = self.timer.back_to_back_interleaved({"a": a, "b": b}, 4)
        self.assertAlmostEqual(batches["a"], 2.0)
        self.assertAlmostEqual(batches["b"], 0.5)

    def test_contenders_take_turns_in_a_rotating_order(self):
        self.timer.per_call_interleaved({"a": kernel("a", 1), "b": kernel("b", 1), "c": kernel("c", 1)}, 3, warmup=0)
        self.assertEqual(calls, list("abc" "bca" "cab"))
        calls.clear()
        self.timer.back_to_back_interleaved({"a": kernel("a", 1), "b": kernel("b", 1)}, 2)
        self.assertEqual(calls[2:], list("aabb" "bbaa" "aabb"))  # (after each capture's first call)

    def test_a_contender_that_cannot_be_captured_is_left_out(self):
        batches = self.timer.back_to_back_interleaved({"a": kernel("a", 1.0), "b": kernel("b", 1.0, capturable=False)}, 3)
        self.assertEqual(list(batches), ["a"])


if __name__ == "__main__":
    unittest.main()
