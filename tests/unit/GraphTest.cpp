// The graph layer on the interpreter: shape errors with exact messages, what fuses into which
// kernel, the memory plan's reuse, and results against plain references (and, at the end, a
// test on the GPU).
#include "tk/Graph/Graph.h"
#include "tk/Runtime/CudaDriver.h"
#include "tk/Support/FloatFormats.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <sys/stat.h>
#include <fstream>
#include <limits>
#include <random>

namespace tk::graph {
namespace {

template <typename F> std::string errorOf(F body) { return test::messageOf<Error>(body); }

std::vector<uint16_t> randomBf16(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<uint16_t> v(n);
  for (auto &b : v)
    b = fp::floatToBf16(scale * uniform(rng));
  return v;
}

float f(uint16_t b) { return fp::bf16ToFloat(b); }

TEST(Graph, ShapeErrorsNameTheOpAndOperands) {
  Graph g;
  Tensor a = g.input("a", Scalar::BF16, {8, 64}), b = g.weight("b", Scalar::BF16, {32, 96});
  EXPECT_EQ(errorOf([&] { g.matmul(a, b); }), "graph: matmul: K dimension mismatch: a is bf16[8, 64], b is bf16[32, 96]");
  EXPECT_EQ(errorOf([&] { g.add(a, b); }), "graph: add: shape mismatch: bf16[8, 64] and bf16[32, 96] (b must match a or "
                                           "be a vector of its 64 columns)");
  EXPECT_EQ(errorOf([&] { g.input("a", Scalar::BF16, {4}); }), "graph: input: the name 'a' is taken");
  // FP8 weights and their f32 scales are matmul_fp8's alone (a review found rmsnorm, embedding
  // and transpose taking them, to fail at run time or compile silently).
  Tensor scales = g.weight("scales", Scalar::F32, {64}), codes = g.weight("codes", Scalar::F8E4M3, {96, 64});
  EXPECT_EQ(errorOf([&] { g.rmsnorm(a, scales); }),
            "graph: rmsnorm: operand 2 is f32[64]; only matmul_fp8 takes f8e4m3 weights and their f32 scales");
  EXPECT_EQ(errorOf([&] { g.transpose(codes); }),
            "graph: transpose: operand 1 is f8e4m3[96, 64]; only matmul_fp8 takes f8e4m3 weights and their f32 scales");
  EXPECT_EQ(errorOf([&] { g.input("c", Scalar::F32, {4}); }),
            "graph: input: 'c' is f32; the fused kernels take bf16 or f16 tensors (and matmul_fp8 f8e4m3 weights and f32 "
            "scales)");
  EXPECT_EQ(errorOf([&] { g.rmsnorm(a, g.weight("w", Scalar::BF16, {32})); }),
            "graph: rmsnorm: the weight is bf16[32]; it must be a vector of x's 64 columns (x is bf16[8, 64])");
  EXPECT_EQ(errorOf([&] { g.rope(a, 3, 8); }), "graph: rope: 3 heads do not divide the 64 columns of bf16[8, 64]");
  EXPECT_EQ(errorOf([&] { g.attention(a, a, a, 2, 3); }),
            "graph: attention: the sequence length 3 does not divide the 8 rows (tokens) of bf16[8, 64]");
  EXPECT_EQ(errorOf([&] { g.attention(a, a, a, 4, 8, true, 3); }),
            "graph: attention: 3 key/value heads do not divide the 4 query heads");
  EXPECT_EQ(errorOf([&] { g.attention(a, a, a, 4, 8, true, 2); }),
            "graph: attention: k and v must be bf16[8, 32] (q bf16[8, 64], 2 key/value heads), got bf16[8, 64]");
  EXPECT_EQ(errorOf([&] { g.split(a, {32, 16}); }),
            "graph: split: the sizes add up to 48, not the 64 columns of bf16[8, 64]");
  EXPECT_EQ(errorOf([&] { g.reshape(a, {3, 100}); }), "graph: reshape: cannot reshape bf16[8, 64] into bf16[3, 100]");
  // Sizes that wrapped around int64 (a helper's break-it audit: a split of INT64_MAX, INT64_MAX
  // and 18 summed to 16 and read before its tensor; negative reshapes passed).
  const int64_t huge = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(errorOf([&] { g.split(a, {huge, huge, 18}); }),
            "graph: split: a part of " + std::to_string(huge) + " columns of bf16[8, 64]");
  EXPECT_EQ(errorOf([&] { g.reshape(a, {-8, -64}); }), "graph: reshape: cannot reshape bf16[8, 64] into a dimension of -8");
  EXPECT_EQ(errorOf([&] { g.input("big", Scalar::BF16, {(int64_t(1) << 62) + 4, 16}); }),
            "graph: input: a dimension of 4611686018427387908 in bf16[4611686018427387908, 16] (each is 1 to 2147483647)");
  EXPECT_EQ(errorOf([&] { g.allGather(a, 1000000); }), "graph: all_gather: 1000000 ranks (1 to 1024)");
  // Bindings go by name: an output may not take an input's or a weight's, nor they an output's.
  Graph named;
  Tensor na = named.input("a", Scalar::BF16, {8, 64});
  named.output(named.silu(na), "y");
  EXPECT_EQ(errorOf([&] { named.output(named.silu(na), "a"); }), "graph: output: the name 'a' is taken by an input");
  EXPECT_EQ(errorOf([&] { named.input("y", Scalar::BF16, {4}); }), "graph: input: the name 'y' is taken by an output");
  Graph moved = std::move(named);
  EXPECT_EQ(errorOf([&] { named.input("x", Scalar::BF16, {4}); }), "graph: an empty Graph (moved from)");
  Context context(Backend::Interpreter);
  EXPECT_EQ(errorOf([&] { Executable::compile(context, g); }), "graph: nothing to compute: no output() was named");
}

class GraphRun : public ::testing::Test {
protected:
  Context context{Backend::Interpreter};
  std::map<std::string, std::unique_ptr<Buffer>> buffers;
  Bindings bindings;
  Buffer &bind(const std::string &name, const std::vector<uint16_t> &bits) {
    buffers[name] = std::make_unique<Buffer>(Buffer::ofBits(context, Scalar::BF16, bits));
    bindings[name] = buffers[name].get();
    return *buffers[name];
  }
  Buffer &output(const std::string &name, size_t count) {
    buffers[name] = std::make_unique<Buffer>(context, Scalar::BF16, count);
    bindings[name] = buffers[name].get();
    return *buffers[name];
  }
  /// FP8 weights as `name` (e4m3 codes) and `name_scale` (per output channel).
  void bindFp8(const std::map<std::string, std::pair<std::vector<uint8_t>, std::vector<float>>> &weights) {
    for (const auto &[name, codes] : weights) {
      buffers[name] = std::make_unique<Buffer>(Buffer::ofBits(context, Scalar::F8E4M3, codes.first));
      bindings[name] = buffers[name].get();
      buffers[name + "_scale"] = std::make_unique<Buffer>(Buffer::of(context, codes.second));
      bindings[name + "_scale"] = buffers[name + "_scale"].get();
    }
  }
  void checkFp8SwiGlu(int rows, const std::vector<std::string> &kernels, bool quantizedActivations,
                      const GraphOptions &options = {}, const std::vector<std::string> &ranKernels = {});
  /// x [rows, k] times the FP8 weight `name` [cols, k] with its per-column scales `name_scale`.
  static Tensor fp8Matmul(Graph &g, const std::string &name, Tensor x, int64_t k, int64_t cols) {
    return g.matmulFp8(x, g.weight(name, Scalar::F8E4M3, {cols, k}), g.weight(name + "_scale", Scalar::F32, {cols}));
  }
};

TEST_F(GraphRun, AnElementwiseTreeIsOneKernel) {
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {5, 40}), y = g.input("y", Scalar::BF16, {5, 40});
  Tensor bias = g.weight("bias", Scalar::BF16, {40});
  Tensor activated = g.silu(x), halved = g.scale(y, 0.5);
  g.output(g.add(g.mul(activated, halved), bias), "out");
  Executable exe = Executable::compile(context, g);
  ASSERT_EQ(exe.kernels().size(), 1u);
  EXPECT_EQ(exe.kernels()[0], "fused_6 (silu, scale, mul, add)");
  EXPECT_EQ(exe.intermediateBytes(), 0u);
  auto xs = randomBf16(200, 1), ys = randomBf16(200, 2), bs = randomBf16(40, 3);
  bind("x", xs);
  bind("y", ys);
  bind("bias", bs);
  Buffer &out = output("out", 200);
  exe.run(bindings);
  std::vector<uint16_t> got = out.toVector<uint16_t>();
  for (int i = 0; i < 200; ++i) {
    float v = f(xs[i]) / (1 + std::exp(-f(xs[i]))) * (f(ys[i]) * 0.5f) + f(bs[i % 40]);
    ASSERT_NEAR(f(got[i]), v, 1e-2 * (1 + std::abs(v))) << i;
  }
}

TEST_F(GraphRun, MatmulEpilogueAbsorbsBiasActivationAndResidual) {
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {24, 32}), w = g.weight("w", Scalar::BF16, {32, 48});
  Tensor bias = g.weight("bias", Scalar::BF16, {48}), res = g.input("res", Scalar::BF16, {24, 48});
  g.output(g.add(g.gelu(g.add(g.matmul(x, w), bias)), res), "out");
  Executable exe = Executable::compile(context, g);
  ASSERT_EQ(exe.kernels(), std::vector<std::string>{"matmul_epilogue (bias, gelu, residual)"});
  std::string dot = exe.dot(); // one box per kernel around the nodes it computes
  EXPECT_NE(dot.find("subgraph cluster_0 {\n    label=\"kernel 1: matmul_epilogue (bias, gelu, residual)\";"),
            std::string::npos) << dot;
  EXPECT_NE(dot.find("n4 [shape=box, label=\"matmul\\nbf16[24, 48]\"];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("out_out [shape=doubleoctagon"), std::string::npos) << dot;
  auto xs = randomBf16(24 * 32, 4), ws = randomBf16(32 * 48, 5, 0.2f), bs = randomBf16(48, 6), rs = randomBf16(24 * 48, 7);
  bind("x", xs);
  bind("w", ws);
  bind("bias", bs);
  bind("res", rs);
  Buffer &out = output("out", 24 * 48);
  exe.run(bindings);
  std::vector<uint16_t> got = out.toVector<uint16_t>();
  for (int i = 0; i < 24; ++i)
    for (int j = 0; j < 48; ++j) {
      double acc = f(bs[j]);
      for (int k = 0; k < 32; ++k)
        acc += double(f(xs[i * 32 + k])) * f(ws[k * 48 + j]);
      double v = 0.5 * acc * (1 + std::erf(acc / std::sqrt(2.0))) + f(rs[i * 48 + j]);
      ASSERT_NEAR(f(got[i * 48 + j]), v, 2e-2 * (1 + std::abs(v))) << i << "," << j;
    }
}

TEST_F(GraphRun, AnRmsNormOfFewRowsHasItsRstdComputedByItsMatmuls) {
  // 3 rows (a decode step's): no row_rstd launch, each matmul computes the rstd in its K
  // loop; 80 rows: the rstd kernel as before. Both against the same reference.
  // eps 0 (the matmul's RSTD_EPS > 0 could not say "in the kernel"): the row kernel, 3 rows.
  for (auto [rows, eps] : {std::pair{3, 1e-5}, std::pair{80, 1e-5}, std::pair{3, 0.0}}) {
    Graph g;
    Tensor x = g.input("x", Scalar::BF16, {rows, 64});
    Tensor normed = g.rmsnorm(x, g.weight("nw", Scalar::BF16, {64}), eps);
    g.output(g.matmul(normed, g.weight("w1", Scalar::BF16, {64, 40})), "y1");
    g.output(g.silu(g.matmul(normed, g.weight("w2", Scalar::BF16, {64, 24}))), "y2");
    Executable exe = Executable::compile(context, g);
    if (rows == 3 && eps > 0)
      EXPECT_EQ(exe.kernels(), (std::vector<std::string>{"matmul_epilogue (rmsnorm and its rstd folded in)",
                                                         "matmul_epilogue (rmsnorm and its rstd folded in, silu)"}));
    else
      EXPECT_EQ(exe.kernels(), (std::vector<std::string>{"row_rstd (of an rmsnorm folded into its matmuls)",
                                                         "matmul_epilogue (rmsnorm folded in)",
                                                         "matmul_epilogue (rmsnorm folded in, silu)"}));
    auto xs = randomBf16(size_t(rows) * 64, 21, 0.05f), nws = randomBf16(64, 22), w1s = randomBf16(64 * 40, 23, 0.3f),
         w2s = randomBf16(64 * 24, 24, 0.3f);
    bind("x", xs);
    bind("nw", nws);
    bind("w1", w1s);
    bind("w2", w2s);
    Buffer &y1 = output("y1", size_t(rows) * 40), &y2 = output("y2", size_t(rows) * 24);
    exe.run(bindings);
    std::vector<uint16_t> got1 = y1.toVector<uint16_t>(), got2 = y2.toVector<uint16_t>();
    for (int i = 0; i < rows; ++i) {
      double ss = 0;
      for (int k = 0; k < 64; ++k)
        ss += double(f(xs[size_t(i * 64 + k)])) * f(xs[size_t(i * 64 + k)]);
      double rstd = 1 / std::sqrt(ss / 64 + eps);
      auto product = [&](const std::vector<uint16_t> &w, int cols, int j) {
        double acc = 0;
        for (int k = 0; k < 64; ++k)
          acc += double(f(xs[size_t(i * 64 + k)])) * rstd * f(nws[size_t(k)]) * f(w[size_t(k * cols + j)]);
        return acc;
      };
      for (int j = 0; j < 40; ++j) {
        double v = product(w1s, 40, j);
        ASSERT_NEAR(f(got1[size_t(i * 40 + j)]), v, 2e-2 * (1 + std::abs(v))) << rows << ": " << i << "," << j;
      }
      for (int j = 0; j < 24; ++j) {
        double a = product(w2s, 24, j), v = a / (1 + std::exp(-a));
        ASSERT_NEAR(f(got2[size_t(i * 24 + j)]), v, 2e-2 * (1 + std::abs(v))) << rows << ": " << i << "," << j;
      }
    }
  }
}

/// Per-output-channel e4m3 weights [N, K] of a bf16 [K, N] matrix, and their scales (what
/// LlamaModel's FP8 loading does).
std::pair<std::vector<uint8_t>, std::vector<float>> quantizeColumns(const std::vector<uint16_t> &w, int k, int n) {
  std::vector<float> rows(size_t(n) * size_t(k)); // w^T: the output channels as rows
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < k; ++i)
      rows[size_t(j * k + i)] = f(w[size_t(i * n + j)]);
  Fp8Weight q = quantizeFp8Rows(rows, n, k);
  return {q.codes, q.scales};
}

TEST(Graph, QuantizeFp8RowsScalesEachRowByItsLargestMagnitude) {
  // Row 0: 448 * s maps to the largest code (0x7e), ties round to even; row 1: all zero (its
  // scale stays positive, codes zero); row 2: negative values and a half-way value.
  Fp8Weight q = quantizeFp8Rows({896, -448, 1, 2.25f, 0, 0, 0, 0, -3, 1.5f, 0.75f, 0.375f}, 3, 4);
  EXPECT_EQ(q.scales, (std::vector<float>{2, 1e-30f / 448, 3.0f / 448}));
  EXPECT_EQ(q.codes[0], 0x7e);                       // 448
  EXPECT_EQ(q.codes[1], 0xf6);                       // -224
  EXPECT_EQ(q.codes[2], fp::floatToF8e4m3(0.5f));    // 1 / 2
  EXPECT_EQ(q.codes[3], fp::floatToF8e4m3(1.125f));  // 2.25 / 2: exactly e4m3's 1.125
  for (int i = 4; i < 8; ++i)
    EXPECT_EQ(q.codes[size_t(i)], 0) << i;
  EXPECT_EQ(q.codes[8], 0xfe); // -448
  EXPECT_THROW(quantizeFp8Rows({1, 2, 3}, 2, 2), Error);
}

TEST_F(GraphRun, Fp8MatmulsOfManyRowsNeedNoSplitKWorkspace) {
  // Split-K is offered to the tuner only where rows are few (decode's batches): a 9-row FP8
  // matmul (fp8_matmul's) gets room for 4 splits of its output and a counter per 64 x 32 tile; a 256-row one
  // is tuned without split configs and needs none (a 4096-token prefill's QKV needed 805 MB).
  auto build = [&](int64_t rows) {
    Graph g;
    Tensor x = g.input("x", Scalar::BF16, {rows, 64});
    g.output(g.matmulFp8(x, g.weight("w", Scalar::F8E4M3, {96, 64}), g.weight("w_scale", Scalar::F32, {96})), "out");
    return Executable::compile(context, g);
  };
  EXPECT_EQ(build(9).scratchBytes(), size_t(4 * 9 * 96) * 4 + 3 * 4);
  EXPECT_EQ(build(256).scratchBytes(), size_t(4 + 4));
  // Weight-only (fp8_gemv) rows: 16 splits and a counter per 8 x 16 tile.
  EXPECT_EQ(build(2).scratchBytes(), size_t(16 * 2 * 96) * 4 + 6 * 4);
}

/// A SwiGLU block on FP8 weights against its reference (activations quantized per row, as the
/// graph's quantize_rows does, unless the matmuls are weight-only), and the kernels it ran.
/// `ranKernels`, when given: the kernels' names after the run (an FP8 matmul that ran the
/// persistent kernel says so then).
void GraphRun::checkFp8SwiGlu(int rows, const std::vector<std::string> &kernels, bool quantizedActivations,
                              const GraphOptions &options, const std::vector<std::string> &ranKernels) {
  const int d = 64, ff = 96;
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {rows, d});
  Tensor normed = g.rmsnorm(x, g.weight("nw", Scalar::BF16, {d}), 1e-5);
  auto fp8 = [&](const std::string &name, Tensor a, int64_t k, int64_t n) { return fp8Matmul(g, name, a, k, n); };
  Tensor up = fp8("wu", normed, d, ff);
  Tensor hidden = g.mul(g.silu(fp8("wg", normed, d, ff)), up);
  g.output(g.add(fp8("wd", hidden, ff, d), x), "out");
  Executable exe = Executable::compile(context, g, options);
  EXPECT_EQ(exe.kernels(), kernels);
  auto xs = randomBf16(size_t(rows) * d, 31), nws = randomBf16(d, 32);
  auto wu = randomBf16(size_t(d) * ff, 33, 0.3f), wg = randomBf16(size_t(d) * ff, 34, 0.3f),
       wd = randomBf16(size_t(ff) * d, 35, 0.3f);
  bind("x", xs);
  bind("nw", nws);
  std::map<std::string, std::pair<std::vector<uint8_t>, std::vector<float>>> q{
      {"wu", quantizeColumns(wu, d, ff)}, {"wg", quantizeColumns(wg, d, ff)}, {"wd", quantizeColumns(wd, ff, d)}};
  bindFp8(q);
  Buffer &out = output("out", size_t(rows) * d);
  exe.run(bindings);
  if (!ranKernels.empty())
    EXPECT_EQ(exe.kernels(), ranKernels);
  std::vector<uint16_t> got = out.toVector<uint16_t>();
  // The reference: the same quantization (rows of the activations, columns of the weights).
  auto quantMatmul = [&](const std::vector<double> &a, int k, const std::string &w, int n) {
    const auto &[codes, scales] = q.at(w);
    std::vector<double> c(size_t(rows) * n);
    for (int i = 0; i < rows; ++i) {
      double amax = 1e-30;
      for (int t = 0; t < k; ++t)
        amax = std::max(amax, std::abs(a[size_t(i * k + t)]));
      float s = quantizedActivations ? float(amax) / 448 : 1;
      for (int j = 0; j < n; ++j) {
        double acc = 0;
        for (int t = 0; t < k; ++t) {
          double x = quantizedActivations ? fp::f8e4m3ToFloat(fp::floatToF8e4m3(float(a[size_t(i * k + t)]) / s))
                                          : a[size_t(i * k + t)];
          acc += x * fp::f8e4m3ToFloat(codes[size_t(j * k + t)]);
        }
        c[size_t(i * n + j)] = acc * s * scales[size_t(j)];
      }
    }
    return c;
  };
  std::vector<double> n0(size_t(rows) * d);
  for (int i = 0; i < rows; ++i) {
    double ss = 0;
    for (int t = 0; t < d; ++t)
      ss += double(f(xs[size_t(i * d + t)])) * f(xs[size_t(i * d + t)]);
    for (int t = 0; t < d; ++t)
      n0[size_t(i * d + t)] = f(xs[size_t(i * d + t)]) / std::sqrt(ss / d + 1e-5) * f(nws[size_t(t)]);
  }
  std::vector<double> u = quantMatmul(n0, d, "wu", ff), gt = quantMatmul(n0, d, "wg", ff), h(size_t(rows) * ff);
  for (size_t i = 0; i < h.size(); ++i)
    h[i] = double(f(fp::floatToBf16(float(gt[i] / (1 + std::exp(-gt[i])) * f(fp::floatToBf16(float(u[i])))))));
  std::vector<double> dn = quantMatmul(h, ff, "wd", d);
  double num = 0, den = 0;
  for (int i = 0; i < rows * d; ++i) {
    double v = dn[size_t(i)] + f(xs[size_t(i)]);
    num += (f(got[size_t(i)]) - v) * (f(got[size_t(i)]) - v);
    den += v * v;
  }
  EXPECT_LT(std::sqrt(num / den), 1e-2); // (0.0017 when written: bf16 outputs, an e4m3 rounding flipped here and there)
  for (int i = 0; i < rows * d; ++i) {
    double v = dn[size_t(i)] + f(xs[size_t(i)]);
    ASSERT_NEAR(f(got[size_t(i)]), v, 3e-2 * (1 + std::abs(v))) << i;
  }
}

TEST_F(GraphRun, Fp8MatmulsQuantizeTheirInputsOnceAndFoldTheirNorm) {
  // Many rows (a prefill's; more than fp8_gemv's 8): the RMSNorm goes into the quantization of
  // its rows (one launch for both matmuls that read it), the gate matmul absorbs silu and the
  // product with the up projection, the down projection the residual.
  checkFp8SwiGlu(9,
                 {"quantize_rows (e4m3, an rmsnorm folded in)", "fp8_matmul", "fp8_matmul (silu, gate)",
                  "quantize_rows (e4m3)", "fp8_matmul (residual)"},
                 /*quantizedActivations=*/true);
}

TEST_F(GraphRun, Fp8MatmulsOfManyRowsRunTiledOrPersistent) {
  // More than 128 rows: fp8_matmul or fp8_matmul_persistent (GraphOptions::fp8Kernel; Auto
  // takes the tiled kernel on the interpreter, which times nothing), with the same epilogues.
  // The kernels' names after the run say which ran (before it, the plan's: fp8_matmul).
  auto named = [](const std::string &kernel) {
    return std::vector<std::string>{"quantize_rows (e4m3, an rmsnorm folded in)", kernel, kernel + " (silu, gate)",
                                    "quantize_rows (e4m3)", kernel + " (residual)"};
  };
  for (auto choice : {GraphOptions::Fp8Kernel::Auto, GraphOptions::Fp8Kernel::Tiled,
                      GraphOptions::Fp8Kernel::Persistent}) {
    std::string kernel = choice == GraphOptions::Fp8Kernel::Persistent ? "fp8_matmul_persistent" : "fp8_matmul";
    SCOPED_TRACE(kernel);
    GraphOptions options;
    options.fp8Kernel = choice;
    checkFp8SwiGlu(136, named("fp8_matmul"), /*quantizedActivations=*/true, options, named(kernel));
  }
  // 128 rows (decode's batches and short prompts) stay on fp8_matmul with split-K.
  GraphOptions persistent;
  persistent.fp8Kernel = GraphOptions::Fp8Kernel::Persistent;
  checkFp8SwiGlu(128, named("fp8_matmul"), /*quantizedActivations=*/true, persistent, named("fp8_matmul"));
}

TEST_F(GraphRun, Fp8MatmulsOfFewRowsAreWeightOnly) {
  // A decode step's rows: fp8_gemv multiplies the bf16 rows as they are (no quantization
  // launch; the RMSNorm a launch of its own), with the same epilogues.
  for (int rows : {2, 8})
    checkFp8SwiGlu(rows, {"rmsnorm", "fp8_gemv", "fp8_gemv (silu, gate)", "fp8_gemv (residual)"},
                   /*quantizedActivations=*/false);
  // One row (batch 1) on the CUDA cores.
  checkFp8SwiGlu(1, {"rmsnorm", "fp8_gemv_row", "fp8_gemv_row (silu, gate)", "fp8_gemv_row (residual)"},
                 /*quantizedActivations=*/false);
}

TEST_F(GraphRun, AnRmsNormBetweenOneRowFp8MatmulsHasNoLaunch) {
  // Batch 1's residual stream: h = a @ wo + r (fp8_gemv_row), then rmsnorm(h) read by two FP8
  // matmuls. The first matmul also writes h * w (the norm's weight), the two readers multiply
  // that by their weights and scale by the rstd that they compute from h: no rmsnorm launch.
  const int d = 64, n = 96;
  Graph g;
  Tensor a = g.input("a", Scalar::BF16, {1, d}), r = g.input("r", Scalar::BF16, {1, d});
  auto fp8 = [&](const std::string &name, Tensor x, int64_t k, int64_t cols) { return fp8Matmul(g, name, x, k, cols); };
  Tensor h = g.add(fp8("wo", a, d, d), r);
  Tensor normed = g.rmsnorm(h, g.weight("nw", Scalar::BF16, {d}), 1e-5);
  g.output(fp8("wq", normed, d, n), "q");
  g.output(fp8("wk", normed, d, n), "k");
  g.output(h, "h");
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels(), (std::vector<std::string>{"fp8_gemv_row (residual, times the next rmsnorm's weight)",
                                                     "fp8_gemv_row (rmsnorm and its rstd folded in)",
                                                     "fp8_gemv_row (rmsnorm and its rstd folded in)"}));
  auto as = randomBf16(d, 41), rs = randomBf16(d, 42), nws = randomBf16(d, 43);
  std::map<std::string, std::pair<std::vector<uint8_t>, std::vector<float>>> q{
      {"wo", quantizeColumns(randomBf16(size_t(d) * d, 44, 0.3f), d, d)},
      {"wq", quantizeColumns(randomBf16(size_t(d) * n, 45, 0.3f), d, n)},
      {"wk", quantizeColumns(randomBf16(size_t(d) * n, 46, 0.3f), d, n)}};
  bind("a", as);
  bind("r", rs);
  bind("nw", nws);
  bindFp8(q);
  Buffer &qOut = output("q", n), &kOut = output("k", n), &hOut = output("h", d);
  exe.run(bindings);
  auto product = [&](const std::vector<double> &x, const std::string &w, int cols) {
    const auto &[codes, scales] = q.at(w);
    std::vector<double> c(static_cast<size_t>(cols));
    for (int j = 0; j < cols; ++j) {
      for (int t = 0; t < d; ++t)
        c[size_t(j)] += x[size_t(t)] * fp::f8e4m3ToFloat(codes[size_t(j * d + t)]);
      c[size_t(j)] *= scales[size_t(j)];
    }
    return c;
  };
  std::vector<double> x(static_cast<size_t>(d));
  for (int t = 0; t < d; ++t)
    x[size_t(t)] = f(as[size_t(t)]);
  std::vector<double> hs = product(x, "wo", d);
  double ss = 0;
  for (int t = 0; t < d; ++t) {
    hs[size_t(t)] = f(fp::floatToBf16(float(hs[size_t(t)] + f(rs[size_t(t)]))));
    ss += hs[size_t(t)] * hs[size_t(t)];
  }
  std::vector<double> normedRef(static_cast<size_t>(d));
  for (int t = 0; t < d; ++t)
    normedRef[size_t(t)] = hs[size_t(t)] / std::sqrt(ss / d + 1e-5) * f(nws[size_t(t)]);
  std::vector<uint16_t> hGot = hOut.toVector<uint16_t>();
  for (int t = 0; t < d; ++t)
    ASSERT_EQ(double(f(hGot[size_t(t)])), hs[size_t(t)]) << t;
  for (auto [out, w] : {std::pair{&qOut, "wq"}, std::pair{&kOut, "wk"}}) {
    std::vector<double> want = product(normedRef, w, n);
    std::vector<uint16_t> got = out->toVector<uint16_t>();
    for (int j = 0; j < n; ++j)
      ASSERT_NEAR(f(got[size_t(j)]), want[size_t(j)], 2e-2 * (1 + std::abs(want[size_t(j)]))) << w << " " << j;
  }
}

TEST_F(GraphRun, OneRowFp8MatmulsThatFollowEachOtherRunAsOneGemvChain) {
  // A decode layer's GEMVs between two attentions (batch 1): h = a @ wo + r, the SwiGLU on
  // rmsnorm(h) with its residual, and the next layer's QKV on rmsnorm(h2). With
  // GraphOptions::gemvChains the five fp8_gemv_row launches are one persistent kernel, whose
  // outputs are those of the five launches bit for bit, run after run (its work queue is zero
  // again after each).
  const int d = 64, ff = 96, qkv = 80;
  Graph g;
  Tensor a = g.input("a", Scalar::BF16, {1, d}), r = g.input("r", Scalar::BF16, {1, d});
  auto fp8 = [&](const std::string &name, Tensor x, int64_t k, int64_t cols) { return fp8Matmul(g, name, x, k, cols); };
  Tensor h = g.add(fp8("wo", a, d, d), r);
  Tensor normed = g.rmsnorm(h, g.weight("nw", Scalar::BF16, {d}), 1e-5);
  Tensor hidden = g.mul(g.silu(fp8("wg", normed, d, ff)), fp8("wu", normed, d, ff));
  Tensor h2 = g.add(fp8("wd", hidden, ff, d), h);
  g.output(fp8("wqkv", g.rmsnorm(h2, g.weight("nw2", Scalar::BF16, {d}), 1e-5), d, qkv), "qkv");
  g.output(h2, "h2");
  GraphOptions chained;
  chained.gemvChains = true;
  Executable plain = Executable::compile(context, g), chain = Executable::compile(context, g, chained);
  ASSERT_EQ(plain.kernels().size(), 5u);
  ASSERT_EQ(chain.kernels().size(), 1u);
  std::string each;
  for (const std::string &k : plain.kernels())
    each += (each.empty() ? "" : "; ") + k;
  EXPECT_EQ(chain.kernels()[0], "fp8_gemv_chain (5 GEMVs in one persistent launch: " + each + ")");
  bind("a", randomBf16(d, 51));
  bind("r", randomBf16(d, 52));
  bind("nw", randomBf16(d, 53));
  bind("nw2", randomBf16(d, 54));
  bindFp8({{"wo", quantizeColumns(randomBf16(size_t(d) * d, 55, 0.3f), d, d)},
           {"wg", quantizeColumns(randomBf16(size_t(d) * ff, 56, 0.3f), d, ff)},
           {"wu", quantizeColumns(randomBf16(size_t(d) * ff, 57, 0.3f), d, ff)},
           {"wd", quantizeColumns(randomBf16(size_t(ff) * d, 58, 0.3f), ff, d)},
           {"wqkv", quantizeColumns(randomBf16(size_t(d) * qkv, 59, 0.3f), d, qkv)}});
  Buffer &qkvOut = output("qkv", qkv), &h2Out = output("h2", d);
  plain.run(bindings);
  std::vector<uint16_t> wantQkv = qkvOut.toVector<uint16_t>(), wantH2 = h2Out.toVector<uint16_t>();
  for (int run = 0; run < 2; ++run) {
    output("qkv", qkv);
    output("h2", d);
    chain.run(bindings);
    EXPECT_EQ(buffers["qkv"]->toVector<uint16_t>(), wantQkv) << "run " << run;
    EXPECT_EQ(buffers["h2"]->toVector<uint16_t>(), wantH2) << "run " << run;
  }
}

TEST_F(GraphRun, WhatAGemvChainReadsKeepsItsSlotToTheChainsEnd) {
  // t = silu(x) is read only by the chain's first GEMV. Launched one by one, y2 takes t's slot
  // once y1 has read it; in a chain, whose kernel the tuner runs again and again on the same
  // buffers, y2 overwriting t would change what y1 reads the next time: t keeps its slot.
  const int d = 64;
  Graph g;
  Tensor t = g.silu(g.input("x", Scalar::BF16, {1, d}));
  Tensor y1 = fp8Matmul(g, "w1", t, d, d), y2 = fp8Matmul(g, "w2", y1, d, d);
  g.output(fp8Matmul(g, "w3", y2, d, d), "y3");
  GraphOptions chained;
  chained.gemvChains = true;
  Executable plain = Executable::compile(context, g), chain = Executable::compile(context, g, chained);
  ASSERT_EQ(chain.kernels().size(), 2u) << chain.kernels().size(); // silu, then the chain of three
  EXPECT_EQ(plain.intermediateBytes(), size_t(2 * d * 2)); // t (then y2), y1
  EXPECT_EQ(chain.intermediateBytes(), size_t(3 * d * 2)); // t, y1, y2
}

TEST_F(GraphRun, TheDotDumpAndItsSvgTakeAnyPath) {
  // A stand-in `dot` first on PATH records its arguments as the SVG: the paths reach it as
  // arguments (no shell: a quote or a space in them is nothing special), and the SVG is renamed
  // into place.
  test::TempDir dir("tk-dot-dump");
  std::string bin = dir.path() + "/bin";
  ASSERT_EQ(::mkdir(bin.c_str(), 0700), 0);
  {
    std::ofstream fake(bin + "/dot");
    fake << "#!/bin/sh\n# dot -Tsvg IN -o OUT\nprintf '%s|' \"$@\" > \"$4\"\n";
  }
  ASSERT_EQ(::chmod((bin + "/dot").c_str(), 0700), 0);
  const char *path = std::getenv("PATH");
  std::string saved = path ? path : "";
  ::setenv("PATH", (bin + ":" + saved).c_str(), 1);
  Graph g;
  g.output(g.silu(g.input("x", Scalar::BF16, {2, 8})), "y");
  GraphOptions options;
  // A folder with a '.' in its name and no extension on the file: the SVG goes beside the file
  // (the first version cut the path at the folder's '.', writing outside it).
  std::string folder = dir.path() + "/v1.2";
  ASSERT_EQ(::mkdir(folder.c_str(), 0700), 0);
  options.dumpGraph = folder + "/it's a graph";
  Executable exe = Executable::compile(context, g, options);
  ::setenv("PATH", saved.c_str(), 1);
  std::ifstream dot(options.dumpGraph), svg(folder + "/it's a graph.svg");
  ASSERT_TRUE(dot.good());
  ASSERT_TRUE(svg.good());
  std::string args((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_EQ(args, "-Tsvg|" + options.dumpGraph + "|-o|" + folder + "/it's a graph.svg.tmp|");
  EXPECT_FALSE(std::ifstream(dir.path() + "/v1.svg").good());
  // A trace of a time that is no number stays JSON.
  EXPECT_NE(chromeTrace({{"run", {KernelProfile{"k", std::nan(""), 1, 2}}}}).find("\"dur\": 0.000"), std::string::npos);
}

TEST_F(GraphRun, ProfileTimesEveryKernelAndCountsItsWork) {
  // 80 rows (a row_rstd kernel, then the matmul), causal attention over 2 heads of 16.
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {80, 32});
  Tensor h = g.matmul(g.rmsnorm(x, g.weight("nw", Scalar::BF16, {32}), 1e-5), g.weight("w", Scalar::BF16, {32, 96}));
  auto qkv = g.split(h, {32, 32, 32});
  g.output(g.attention(qkv[0], qkv[1], qkv[2], 2, 40), "o");
  Executable exe = Executable::compile(context, g);
  bind("x", randomBf16(80 * 32, 31));
  bind("nw", randomBf16(32, 32));
  bind("w", randomBf16(32 * 96, 33, 0.2f));
  Buffer &o = output("o", 80 * 32);
  exe.run(bindings);
  std::vector<uint16_t> once = o.toVector<uint16_t>();
  std::vector<KernelProfile> profile = exe.profile(bindings, Stream(), 2);
  ASSERT_EQ(profile.size(), exe.kernels().size());
  for (size_t k = 0; k < profile.size(); ++k) {
    EXPECT_EQ(profile[k].kernel, exe.kernels()[k]);
    EXPECT_GE(profile[k].ms, 0);
  }
  EXPECT_EQ(profile[0].kernel, "row_rstd (of an rmsnorm folded into its matmuls)");
  EXPECT_EQ(profile[0].flops, 0);
  EXPECT_EQ(profile[0].bytes, 80 * 32 * 2 + 80 * 4); // x read, one f32 rstd per row written
  EXPECT_EQ(profile[1].flops, 2.0 * 80 * 96 * 32);   // 2 M N K
  EXPECT_EQ(profile[2].kernel, "attention (causal)");
  EXPECT_EQ(profile[2].flops, 4.0 * 80 * 40 * 32 / 2); // every query against 40 keys, QK^T and PV, halved
  EXPECT_EQ(o.toVector<uint16_t>(), once);           // the profiled runs compute the same
}

TEST_F(GraphRun, ALayerNormFoldsIntoItsMatmuls) {
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {12, 48});
  Tensor w = g.weight("ln_w", Scalar::BF16, {48}), b = g.weight("ln_b", Scalar::BF16, {48});
  Tensor w1 = g.weight("w1", Scalar::BF16, {48, 40}), w2 = g.weight("w2", Scalar::BF16, {48, 24});
  Tensor normed = g.layernorm(x, w, b);
  g.output(g.matmul(normed, w1), "y1");
  g.output(g.gelu(g.matmul(normed, w2)), "y2");
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels(), (std::vector<std::string>{"row_moments (of a layernorm folded into its matmuls)",
                                                     "matmul_epilogue (layernorm folded in)",
                                                     "matmul_epilogue (layernorm folded in, gelu)"}));
  // Rows with a large mean: the centering happens in f32 after the product.
  auto xs = randomBf16(12 * 48, 11, 2.0f);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = fp::floatToBf16(f(xs[i]) + 3.0f);
  auto ws = randomBf16(48, 12), bs = randomBf16(48, 13), w1s = randomBf16(48 * 40, 14, 0.3f), w2s = randomBf16(48 * 24, 15, 0.3f);
  bind("x", xs);
  bind("ln_w", ws);
  bind("ln_b", bs);
  bind("w1", w1s);
  bind("w2", w2s);
  Buffer &y1 = output("y1", 12 * 40), &y2 = output("y2", 12 * 24);
  exe.run(bindings);
  std::vector<uint16_t> g1 = y1.toVector<uint16_t>(), g2 = y2.toVector<uint16_t>();
  for (int r = 0; r < 12; ++r) {
    double mean = 0, var = 0;
    for (int c = 0; c < 48; ++c)
      mean += f(xs[r * 48 + c]) / 48.0;
    for (int c = 0; c < 48; ++c)
      var += (f(xs[r * 48 + c]) - mean) * (f(xs[r * 48 + c]) - mean) / 48.0;
    std::vector<double> n(48);
    for (int c = 0; c < 48; ++c)
      n[c] = (f(xs[r * 48 + c]) - mean) / std::sqrt(var + 1e-5) * f(ws[c]) + f(bs[c]);
    for (int j = 0; j < 40; ++j) {
      double v = 0;
      for (int k = 0; k < 48; ++k)
        v += n[k] * f(w1s[k * 40 + j]);
      ASSERT_NEAR(f(g1[r * 40 + j]), v, 2e-2 * (1 + std::abs(v))) << r << "," << j;
    }
    for (int j = 0; j < 24; ++j) {
      double v = 0;
      for (int k = 0; k < 48; ++k)
        v += n[k] * f(w2s[k * 24 + j]);
      v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
      ASSERT_NEAR(f(g2[r * 24 + j]), v, 2e-2 * (1 + std::abs(v))) << r << "," << j;
    }
  }
}

TEST_F(GraphRun, AnF16GraphPassesF16AsTheTemplatesDType) {
  Graph g;
  Tensor x = g.input("x", Scalar::F16, {20, 32}), w = g.weight("w", Scalar::F16, {32, 24});
  Tensor res = g.input("res", Scalar::F16, {20, 24});
  EXPECT_EQ(errorOf([&] { g.weight("b", Scalar::BF16, {24}); }),
            "graph: weight: 'b' is bf16 but 'x' is f16: a graph has one element type");
  g.output(g.add(g.silu(g.matmul(x, w)), res), "out");
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels(), std::vector<std::string>{"matmul_epilogue (silu, residual)"});
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> uniform(-1, 1);
  auto halves = [&](size_t n, float scale) {
    std::vector<uint16_t> v(n);
    for (auto &h : v)
      h = fp::floatToHalf(scale * uniform(rng));
    return v;
  };
  auto xs = halves(20 * 32, 1), ws = halves(32 * 24, 0.3f), rs = halves(20 * 24, 1);
  for (auto &[name, bits] : std::vector<std::pair<std::string, std::vector<uint16_t>>>{{"x", xs}, {"w", ws}, {"res", rs}}) {
    buffers[name] = std::make_unique<Buffer>(Buffer::ofBits(context, Scalar::F16, bits));
    bindings[name] = buffers[name].get();
  }
  buffers["out"] = std::make_unique<Buffer>(context, Scalar::F16, 20 * 24);
  bindings["out"] = buffers["out"].get();
  exe.run(bindings);
  std::vector<uint16_t> got = buffers["out"]->toVector<uint16_t>();
  for (int i = 0; i < 20; ++i)
    for (int j = 0; j < 24; ++j) {
      double acc = 0;
      for (int k = 0; k < 32; ++k)
        acc += double(fp::halfToFloat(xs[i * 32 + k])) * fp::halfToFloat(ws[k * 24 + j]);
      double v = acc / (1 + std::exp(-acc)) + fp::halfToFloat(rs[i * 24 + j]);
      ASSERT_NEAR(fp::halfToFloat(got[i * 24 + j]), v, 4e-3 * (1 + std::abs(v))) << i << "," << j;
    }
}

TEST_F(GraphRun, SplitsAreViewsAndConcatTransposeCopy) {
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {16, 96});
  auto parts = g.split(x, {32, 64});
  Tensor cat = g.concat({parts[1], parts[0]});
  g.output(g.transpose(cat), "t");
  g.output(g.softmax(parts[1]), "s");
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels().size(), 5u); // concat: 2 copies, transpose, softmax's copy of its view, softmax
  auto xs = randomBf16(16 * 96, 8);
  bind("x", xs);
  Buffer &t = output("t", 96 * 16), &s = output("s", 16 * 64);
  exe.run(bindings);
  std::vector<uint16_t> tt = t.toVector<uint16_t>(), ss = s.toVector<uint16_t>();
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 96; ++c) {
      int source = c < 64 ? 32 + c : c - 64; // concat(parts[1], parts[0])
      ASSERT_EQ(tt[c * 16 + r], xs[r * 96 + source]) << r << "," << c;
    }
  for (int r = 0; r < 16; ++r) {
    double most = -1e30, total = 0;
    for (int c = 0; c < 64; ++c)
      most = std::max(most, double(f(xs[r * 96 + 32 + c])));
    for (int c = 0; c < 64; ++c)
      total += std::exp(f(xs[r * 96 + 32 + c]) - most);
    for (int c = 0; c < 64; ++c)
      ASSERT_NEAR(f(ss[r * 64 + c]), std::exp(f(xs[r * 96 + 32 + c]) - most) / total, 1e-2) << r << "," << c;
  }
}

// A reshape that is an output, or of a column block, is copied in the elements' order (before,
// as rows of the input's width into the output's rows: reads past the input, or wrong values).
TEST_F(GraphRun, ReshapesThatAreCopiedKeepTheElementsOrder) {
  for (auto [rows, cols, toRows, toCols] : std::vector<std::array<int64_t, 4>>{{4, 16, 16, 4}, {4, 16, 2, 32}, {16, 4, 4, 16},
                                                                              {3, 5, 5, 3}, {4, 16, 4, 16}}) {
    Graph g;
    g.output(g.reshape(g.input("x", Scalar::BF16, {rows, cols}), {toRows, toCols}), "y");
    Tensor x2 = g.input("x2", Scalar::BF16, {rows, 2 * cols});
    g.output(g.reshape(g.split(x2, {cols, cols})[1], {toRows, toCols}), "block"); // a column block
    Executable exe = Executable::compile(context, g);
    auto xs = randomBf16(size_t(rows * cols), 3), x2s = randomBf16(size_t(rows * 2 * cols), 4);
    bind("x", xs);
    bind("x2", x2s);
    Buffer &y = output("y", size_t(rows * cols)), &block = output("block", size_t(rows * cols));
    exe.run(bindings);
    std::vector<uint16_t> ys = y.toVector<uint16_t>(), bs = block.toVector<uint16_t>();
    for (int64_t k = 0; k < rows * cols; ++k) {
      ASSERT_EQ(ys[k], xs[k]) << rows << "x" << cols << " -> " << toRows << "x" << toCols << " at " << k;
      ASSERT_EQ(bs[k], x2s[(k / cols) * 2 * cols + cols + k % cols]) << "block " << rows << "x" << cols << " at " << k;
    }
  }
  // To one dimension: a column block as a bias vector (a review found it copied as 16 rows).
  Graph g;
  Tensor w = g.input("w", Scalar::BF16, {4, 8}), x = g.input("x", Scalar::BF16, {2, 16});
  g.output(g.add(x, g.reshape(g.split(w, {4, 4})[1], {16})), "y");
  Executable exe = Executable::compile(context, g);
  auto ws = randomBf16(32, 6), xs = randomBf16(32, 7);
  bind("w", ws);
  bind("x", xs);
  Buffer &y = output("y", 32);
  exe.run(bindings);
  std::vector<uint16_t> ys = y.toVector<uint16_t>();
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 16; ++c)
      ASSERT_EQ(ys[r * 16 + c], fp::floatToBf16(f(xs[r * 16 + c]) + f(ws[(c / 4) * 8 + 4 + c % 4]))) << r << "," << c;
}

// Grouped-query attention (LLaMA-3's): 4 query heads share 2 key/value heads, query heads 0-1
// reading K/V head 0 and 2-3 head 1; 2 sequences of 8 tokens, head dimension 16, causal.
TEST_F(GraphRun, GroupedQueryAttentionSharesKeyValueHeads) {
  const int tokens = 16, seq = 8, heads = 4, kvHeads = 2, dim = 16;
  Graph g;
  Tensor q = g.input("q", Scalar::BF16, {tokens, heads * dim});
  Tensor k = g.input("k", Scalar::BF16, {tokens, kvHeads * dim}), v = g.input("v", Scalar::BF16, {tokens, kvHeads * dim});
  g.output(g.attention(q, k, v, heads, seq, true, kvHeads), "out");
  Executable exe = Executable::compile(context, g);
  auto qs = randomBf16(tokens * heads * dim, 11), ks = randomBf16(tokens * kvHeads * dim, 12),
       vs = randomBf16(tokens * kvHeads * dim, 13);
  bind("q", qs);
  bind("k", ks);
  bind("v", vs);
  Buffer &out = output("out", tokens * heads * dim);
  exe.run(bindings);
  std::vector<uint16_t> got = out.toVector<uint16_t>();
  auto f = [](uint16_t bits) { return double(fp::bf16ToFloat(bits)); };
  for (int t = 0; t < tokens; ++t)
    for (int h = 0; h < heads; ++h) {
      int kvHead = h / (heads / kvHeads), first = t / seq * seq;
      std::vector<double> scores;
      double most = -1e30, total = 0;
      for (int s = first; s <= t; ++s) {
        double dot = 0;
        for (int d = 0; d < dim; ++d)
          dot += f(qs[t * heads * dim + h * dim + d]) * f(ks[s * kvHeads * dim + kvHead * dim + d]);
        scores.push_back(dot / std::sqrt(double(dim)));
        most = std::max(most, scores.back());
      }
      for (double &score : scores)
        total += score = std::exp(score - most);
      for (int d = 0; d < dim; ++d) {
        double want = 0;
        for (int s = first; s <= t; ++s)
          want += scores[s - first] / total * f(vs[s * kvHeads * dim + kvHead * dim + d]);
        ASSERT_NEAR(f(got[t * heads * dim + h * dim + d]), want, 2e-2 * (1 + std::abs(want))) << t << "," << h << "," << d;
      }
    }
}

TEST_F(GraphRun, RopesOfAdjacentBlocksAreOneLaunch) {
  Graph g;
  Tensor qkv = g.input("qkv", Scalar::BF16, {8, 96});
  auto parts = g.split(qkv, {32, 32, 32});
  Tensor q = g.rope(parts[0], 2, 4), k = g.rope(parts[1], 2, 4);
  g.output(g.attention(q, k, parts[2], 2, 4), "o");
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels(), (std::vector<std::string>{"rope (of 2 column blocks at once)", "attention (causal)"}));
  // The same two ropes on blocks that are not adjacent stay two launches.
  Graph apart;
  Tensor x = apart.input("x", Scalar::BF16, {8, 96});
  auto blocks = apart.split(x, {32, 32, 32});
  apart.output(apart.rope(blocks[0], 2, 4), "a");
  apart.output(apart.rope(blocks[2], 2, 4), "b");
  EXPECT_EQ(Executable::compile(context, apart).kernels(), (std::vector<std::string>{"rope", "rope"}));
}

// A rope read through a view keeps its own launch (a review: merged with its neighbour, the
// view read a tensor nothing wrote, and planning failed: "these fused steps wait on each other").
TEST_F(GraphRun, ARopeReadThroughAViewIsNotMerged) {
  auto build = [](bool viewed) {
    Graph g;
    auto parts = g.split(g.input("x", Scalar::BF16, {16, 32}), {16, 16});
    Tensor q = g.rope(parts[0], 1, 8), k = g.rope(parts[1], 1, 8);
    g.output(viewed ? g.scale(g.reshape(q, {8, 32}), 1.0) : g.scale(q, 1.0), "q");
    g.output(g.scale(k, 1.0), "k");
    return g;
  };
  auto xs = randomBf16(16 * 32, 9);
  bind("x", xs);
  Buffer &q = output("q", 256), &k = output("k", 256);
  Executable::compile(context, build(true)).run(bindings);
  std::vector<uint16_t> viewedQ = q.toVector<uint16_t>(), viewedK = k.toVector<uint16_t>();
  Executable::compile(context, build(false)).run(bindings);
  EXPECT_EQ(viewedQ, q.toVector<uint16_t>());
  EXPECT_EQ(viewedK, k.toVector<uint16_t>());
}

TEST_F(GraphRun, RopeAtPositionsStartsEachSequenceWhereItsCacheEnds) {
  const int seq = 3, sequences = 2, heads = 2, half = 8, cols = heads * 2 * half;
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {seq * sequences, cols});
  Tensor positions = g.indexInput("positions", sequences);
  g.output(g.rope(x, heads, seq, 10000.0, positions), "y");
  EXPECT_EQ(errorOf([&] { g.rope(x, heads, seq, 10000.0, x); }),
            "graph: rope: positions must be an index input of 2 entries (one per sequence), got bf16[6, 32]");
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels(), std::vector<std::string>{"rope"}); // the failed call added nothing
  std::vector<uint16_t> xs(seq * sequences * cols);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = fp::floatToBf16(float(std::sin(0.37 * double(i))));
  bind("x", xs);
  std::vector<int32_t> starts{5, 1000};
  Buffer pos = Buffer::of(context, starts);
  bindings["positions"] = &pos;
  Buffer &out = output("y", xs.size());
  exe.run(bindings);
  std::vector<uint16_t> got = out.toVector<uint16_t>();
  auto f = [](uint16_t bits) { return double(fp::bf16ToFloat(bits)); };
  for (int t = 0; t < seq * sequences; ++t)
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < half; ++i) {
        double theta = double(starts[t / seq] + t % seq) * std::pow(10000.0, -double(i) / half);
        int at = t * cols + h * 2 * half + i;
        double x1 = f(xs[at]), x2 = f(xs[at + half]);
        ASSERT_NEAR(f(got[at]), x1 * std::cos(theta) - x2 * std::sin(theta), 2e-2) << t << "," << h << "," << i;
        ASSERT_NEAR(f(got[at + half]), x2 * std::cos(theta) + x1 * std::sin(theta), 2e-2) << t << "," << h << "," << i;
      }
}

TEST_F(GraphRun, ARopeOfQueriesAndKeysAppendsTheKeysAndValuesToTheirCaches) {
  // A fused QKV's rows: two sequences of two tokens at positions 3 and 7 of caches of 8 rows
  // (the second sequence's second token falls outside: nothing written), 4 query heads and 2
  // key/value heads of 16. The rope's launch writes the rotated keys and the values into the
  // caches; they must hold what the separate rope gives, bit for bit.
  const int seq = 2, batch = 2, ctx = 8, heads = 4, kvHeads = 2, dim = 16, width = kvHeads * dim;
  const int row = (heads + 2 * kvHeads) * dim;
  auto ropes = [&](Graph &g, bool appended) {
    Tensor qkv = g.input("qkv", Scalar::BF16, {batch * seq, row});
    Tensor positions = g.indexInput("positions", batch);
    auto parts = g.split(qkv, {heads * dim, width, width});
    Tensor q = g.rope(parts[0], heads, seq, 10000.0, positions), k = g.rope(parts[1], kvHeads, seq, 10000.0, positions);
    g.output(g.scale(q, 1.0), "q"); // (an output itself, q's rope would launch alone)
    if (!appended) {
      g.output(k, "k");
      return;
    }
    g.appendKV(g.input("k_cache", Scalar::BF16, {batch * ctx, width}), k, positions, seq);
    g.appendKV(g.input("v_cache", Scalar::BF16, {batch * ctx, width}), parts[2], positions, seq);
  };
  Graph fused, apart;
  ropes(fused, true);
  ropes(apart, false);
  Executable exe = Executable::compile(context, fused), reference = Executable::compile(context, apart);
  EXPECT_EQ(exe.kernels(), (std::vector<std::string>{"rope (of 2 column blocks at once, keys and values appended)",
                                                     "fused_7 (scale)"}));
  std::vector<uint16_t> qkvs = randomBf16(batch * seq * row, 7), ks = randomBf16(batch * ctx * width, 8),
                        vs = randomBf16(batch * ctx * width, 9);
  bind("qkv", qkvs);
  Buffer &kBuf = bind("k_cache", ks);
  Buffer &vBuf = bind("v_cache", vs);
  std::vector<int32_t> pos{3, 7};
  Buffer posBuf = Buffer::of(context, pos);
  bindings["positions"] = &posBuf;
  Buffer &q = output("q", batch * seq * heads * dim);
  exe.run(bindings);
  std::vector<uint16_t> qFused = q.toVector<uint16_t>();
  Buffer &k = output("k", batch * seq * width);
  reference.run(bindings);
  EXPECT_EQ(qFused, q.toVector<uint16_t>());
  std::vector<uint16_t> rotated = k.toVector<uint16_t>();
  for (int t = 0; t < batch * seq; ++t) {
    int at = pos[t / seq] + t % seq;
    if (at >= ctx)
      continue;
    for (int c = 0; c < width; ++c) {
      ks[((t / seq) * ctx + at) * width + c] = rotated[t * width + c];
      vs[((t / seq) * ctx + at) * width + c] = qkvs[t * row + heads * dim + width + c];
    }
  }
  EXPECT_EQ(kBuf.toVector<uint16_t>(), ks);
  EXPECT_EQ(vBuf.toVector<uint16_t>(), vs);
}

TEST_F(GraphRun, EmbeddingGathersRowsOfComputedTensorsAndViews) {
  // The prefill's last rows (a row gather of a computed tensor): rows of both halves of a split,
  // the first read at its row stride, the second copied to column 0 first; ids outside give 0.
  const int rows = 5, cols = 8;
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {rows, cols});
  Tensor picks = g.indexInput("picks", 3);
  auto halves = g.split(g.add(x, x), {cols / 2, cols / 2});
  g.output(g.embedding(halves[0], picks), "left");
  g.output(g.embedding(halves[1], picks), "right");
  Executable exe = Executable::compile(context, g);
  std::vector<uint16_t> xs(rows * cols);
  for (size_t i = 0; i < xs.size(); ++i)
    xs[i] = fp::floatToBf16(float(i));
  bind("x", xs);
  Buffer ids = Buffer::of(context, std::vector<int32_t>{4, 0, 7});
  bindings["picks"] = &ids;
  Buffer &left = output("left", 3 * cols / 2), &right = output("right", 3 * cols / 2);
  exe.run(bindings);
  std::vector<uint16_t> l = left.toVector<uint16_t>(), r = right.toVector<uint16_t>();
  int expectRows[3] = {4, 0, -1};
  for (int t = 0; t < 3; ++t)
    for (int c = 0; c < cols / 2; ++c) {
      float want = expectRows[t] < 0 ? 0.f : 2.f * float(expectRows[t] * cols + c);
      float wantRight = expectRows[t] < 0 ? 0.f : 2.f * float(expectRows[t] * cols + cols / 2 + c);
      EXPECT_EQ(fp::bf16ToFloat(l[size_t(t * cols / 2 + c)]), want) << t << "," << c;
      EXPECT_EQ(fp::bf16ToFloat(r[size_t(t * cols / 2 + c)]), wantRight) << t << "," << c;
    }
}

TEST(GraphPlan, TensorsPastThirtyTwoBitOffsetsAreRefusedBeforeAnythingIsAllocated) {
  // 2^16 x 2^15 = 2^31 elements: the kernels' 32-bit row * stride offsets would wrap.
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {1 << 16, 1 << 15});
  g.output(g.silu(x), "y");
  Context context(Backend::Interpreter);
  EXPECT_EQ(errorOf([&] { Executable::compile(context, g); }),
            "graph: bf16[65536, 32768] has 2147483648 elements; the kernels index tensors with 32-bit offsets (at most "
            "2^31 - 1 elements)");
}

TEST(GraphPlan, AppendPairsThatWouldWaitOnEachOtherStayApart) {
  // Pairs (p, px) and (q, qx) would each need the other's cache: the second pair is not merged.
  Graph g;
  Tensor pos1 = g.indexInput("pos1", 1), pos2 = g.indexInput("pos2", 1), row = g.indexInput("row", 1);
  auto cache = [&](const char *name) { return g.input(name, Scalar::BF16, {4, 8}); };
  Tensor p = g.appendKV(cache("c1"), g.input("x1", Scalar::BF16, {1, 8}), pos1, 1);
  Tensor q = g.appendKV(cache("c2"), g.input("x2", Scalar::BF16, {1, 8}), pos2, 1);
  Tensor qx = g.appendKV(cache("c3"), g.embedding(p, row), pos2, 1);
  Tensor px = g.appendKV(cache("c4"), g.embedding(q, row), pos1, 1);
  g.output(g.add(g.embedding(qx, row), g.embedding(px, row)), "y");
  Context context(Backend::Interpreter);
  std::vector<std::string> kernels = Executable::compile(context, g).kernels();
  EXPECT_EQ(std::count(kernels.begin(), kernels.end(), "kv_append (keys and values at once)"), 1) << kernels.size();
  EXPECT_EQ(std::count(kernels.begin(), kernels.end(), "kv_append"), 2);
}

TEST(GraphPlan, AppendsThatFeedEachOtherStayTwoLaunches) {
  // The second append's rows are the first's cache: one launch for both would wait on itself.
  Graph g;
  Tensor c1 = g.input("c1", Scalar::BF16, {4, 8}), c2 = g.input("c2", Scalar::BF16, {4, 8});
  Tensor pos = g.indexInput("pos", 1);
  Tensor a = g.appendKV(c1, g.input("x", Scalar::BF16, {1, 8}), pos, 1);
  Tensor b = g.appendKV(c2, g.embedding(a, g.indexInput("row", 1)), pos, 1);
  g.output(g.add(b, b), "y");
  Context context(Backend::Interpreter);
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels(), (std::vector<std::string>{"kv_append", "embedding", "kv_append", "fused_8 (add)"}));
}

TEST_F(GraphRun, ADecodeStepAppendsToItsCacheAndAttendsToIt) {
  // Two sequences, one new token each, at positions 3 and 6 of caches of 8 rows; 4 query heads
  // over 2 key/value heads of 16; flash-decoding in 4 splits.
  const int batch = 2, ctx = 8, heads = 4, kvHeads = 2, dim = 16, width = kvHeads * dim;
  Graph g;
  Tensor qkv = g.input("qkv", Scalar::BF16, {batch, (heads + 2 * kvHeads) * dim});
  Tensor kCache = g.input("k_cache", Scalar::BF16, {batch * ctx, width});
  Tensor vCache = g.input("v_cache", Scalar::BF16, {batch * ctx, width});
  Tensor positions = g.indexInput("positions", batch), lengths = g.indexInput("lengths", batch);
  auto parts = g.split(qkv, {heads * dim, width, width});
  Tensor k = g.appendKV(kCache, parts[1], positions, 1), v = g.appendKV(vCache, parts[2], positions, 1);
  g.output(g.decodeAttention(parts[0], k, v, lengths, heads, kvHeads, 4), "o");
  EXPECT_EQ(errorOf([&] { g.appendKV(parts[1], parts[1], positions, 1); }),
            "graph: append_kv: the cache must be an input [batch * max_context, 32] of bf16, got bf16[2, 32] (not an input)");
  EXPECT_EQ(errorOf([&] { g.decodeAttention(parts[0], k, v, positions, heads, 3); }),
            "graph: decode_attention: 3 key/value heads do not divide 4 heads");
  Graph e;
  Tensor x = e.input("x", Scalar::BF16, {2, 4}), table = e.weight("table", Scalar::BF16, {10, 4});
  EXPECT_EQ(errorOf([&] { e.embedding(e.indexInput("rows", 2), e.indexInput("ids", 2)); }),
            "graph: embedding: the table must be a matrix [rows, dim], got i32[2]");
  EXPECT_EQ(errorOf([&] { e.embedding(table, x); }), "graph: embedding: the ids must be an index input, got bf16[2, 4]");
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels(), (std::vector<std::string>{"kv_append (keys and values at once)", "decode_attention_split (4 splits)",
                                                     "decode_attention_combine"}));
  auto wave = [](size_t n, double f) {
    std::vector<uint16_t> bits(n);
    for (size_t i = 0; i < n; ++i)
      bits[i] = fp::floatToBf16(float(std::sin(f * double(i + 1))));
    return bits;
  };
  std::vector<uint16_t> qkvs = wave(batch * (heads + 2 * kvHeads) * dim, 0.31), ks = wave(batch * ctx * width, 0.17),
                        vs = wave(batch * ctx * width, 0.23);
  bind("qkv", qkvs);
  Buffer &kBuf = bind("k_cache", ks);
  Buffer &vBuf = bind("v_cache", vs);
  std::vector<int32_t> pos{3, 6}, len{4, 7};
  Buffer posBuf = Buffer::of(context, pos), lenBuf = Buffer::of(context, len);
  bindings["positions"] = &posBuf;
  bindings["lengths"] = &lenBuf;
  Buffer &out = output("o", batch * heads * dim);
  // One buffer as both caches: an append writes what the other reads (refused).
  bindings["v_cache"] = &kBuf;
  EXPECT_EQ(errorOf([&] { exe.run(bindings); }),
            "graph: one buffer is bound to 'k_cache' and to 'v_cache', and the run writes one of them: bind a buffer "
            "of its own");
  bindings["v_cache"] = &vBuf;
  exe.run(bindings);
  // The caches hold the new rows; attention reads them.
  std::vector<uint16_t> kAfter = kBuf.toVector<uint16_t>(), vAfter = vBuf.toVector<uint16_t>(), got = out.toVector<uint16_t>();
  int row = (heads + 2 * kvHeads) * dim;
  for (int b = 0; b < batch; ++b)
    for (int c = 0; c < width; ++c) {
      ks[(b * ctx + pos[b]) * width + c] = qkvs[b * row + heads * dim + c];
      vs[(b * ctx + pos[b]) * width + c] = qkvs[b * row + heads * dim + width + c];
    }
  EXPECT_EQ(kAfter, ks);
  EXPECT_EQ(vAfter, vs);
  auto f = [](uint16_t bits) { return double(fp::bf16ToFloat(bits)); };
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h) {
      int kv = h / (heads / kvHeads);
      std::vector<double> p(len[b]);
      double most = -1e30, total = 0;
      for (int s = 0; s < len[b]; ++s) {
        double dot = 0;
        for (int d = 0; d < dim; ++d)
          dot += f(qkvs[b * row + h * dim + d]) * f(ks[(b * ctx + s) * width + kv * dim + d]);
        most = std::max(most, p[s] = dot / std::sqrt(double(dim)));
      }
      for (double &x : p)
        total += x = std::exp(x - most);
      for (int d = 0; d < dim; ++d) {
        double want = 0;
        for (int s = 0; s < len[b]; ++s)
          want += p[s] / total * f(vs[(b * ctx + s) * width + kv * dim + d]);
        ASSERT_NEAR(f(got[(b * heads + h) * dim + d]), want, 2e-2) << b << "," << h << "," << d;
      }
    }
}

TEST_F(GraphRun, TheMemoryPlanReusesDeadBuffers) {
  Graph g;
  Tensor h = g.input("x", Scalar::BF16, {16, 32});
  for (int layer = 0; layer < 4; ++layer)
    h = g.silu(g.matmul(h, g.weight("w" + std::to_string(layer), Scalar::BF16, {32, 32})));
  g.output(h, "out");
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels().size(), 4u);
  EXPECT_EQ(exe.intermediateBytes(), 2u * 16 * 32 * 2); // two buffers take turns
}

TEST_F(GraphRun, MissingOrWrongBindingsAreNamed) {
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {4, 16});
  g.output(g.silu(x), "out");
  Executable exe = Executable::compile(context, g);
  output("out", 64);
  EXPECT_EQ(errorOf([&] { exe.run(bindings); }), "graph: no buffer bound to 'x' (bf16[4, 16])");
  bind("x", std::vector<uint16_t>(60));
  EXPECT_EQ(errorOf([&] { exe.run(bindings); }),
            "graph: the buffer bound to 'x' holds 60 bf16 elements; it must be bf16[4, 16]");
  Stream stream = context.createStream();
  EXPECT_EQ(errorOf([&] { exe.capture(bindings, stream); }), "graph: capture needs the CUDA backend");
  EXPECT_EQ(errorOf([&] { exe.replay(stream); }), "graph: replay() before capture()");
  EXPECT_EQ(errorOf([&] { exe.profileInGraph(bindings, stream); }), "graph: profileInGraph needs the CUDA backend");
  EXPECT_EQ(errorOf([&] { exe.profileInGraph(bindings, stream, 1 << 30); }),
            "graph: profileInGraph: 1073741824 rounds of up to " + std::to_string(exe.kernels().size() + 1) +
                " graphs is more than 2^20 replays");
  // One buffer as an input and the output: the kernels would read what they overwrite.
  bind("x", std::vector<uint16_t>(64));
  bindings["out"] = bindings["x"];
  EXPECT_EQ(errorOf([&] { exe.run(bindings); }),
            "graph: one buffer is bound to 'x' and to 'out', and the run writes one of them: bind a buffer of its own");
  Executable moved = std::move(exe);
  EXPECT_EQ(errorOf([&] { exe.run(bindings); }), "graph: an empty Executable (moved from)");
}

// A long elementwise chain: fused kernels of at most 64 ops each, gathered without recursion
// (a chain of 150,000 overflowed the stack).
TEST_F(GraphRun, ALongElementwiseChainIsCutIntoKernelsOf64Ops) {
  Graph g;
  Tensor t = g.input("x", Scalar::BF16, {2, 16});
  for (int k = 0; k < 130; ++k)
    t = g.scale(t, 1.0);
  g.output(t, "y");
  Executable exe = Executable::compile(context, g);
  EXPECT_EQ(exe.kernels().size(), 3u); // 64 + 64 + 2
  auto xs = randomBf16(32, 5);
  bind("x", xs);
  Buffer &y = output("y", 32);
  exe.run(bindings);
  EXPECT_EQ(y.toVector<uint16_t>(), xs);
}

// ---- On the GPU (tools/gpu-check's jit section runs the Jit* tests) ----

// profileInGraph times the run's CUDA graph whole and without each kernel (by name, all its
// launches) and leaves capture()'s graph alone: replayed after it onto a zeroed output, that
// writes the run's outputs again.
TEST(JitGpuGraphTest, ProfileInGraphTimesTheRunWithoutEachKernel) {
  if (!cuda::available())
    GTEST_SKIP() << "no GPU or CUDA driver on this machine";
  Context context(Backend::Cuda);
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {64, 128});
  Tensor h = g.silu(g.matmul(x, g.weight("w1", Scalar::BF16, {128, 128})));
  g.output(g.matmul(h, g.weight("w2", Scalar::BF16, {128, 128})), "out");
  Executable exe = Executable::compile(context, g);
  std::vector<uint16_t> xs = randomBf16(64 * 128, 1), ws = randomBf16(128 * 128, 2, 0.1f);
  Buffer bx = Buffer::ofBits(context, Scalar::BF16, xs), bw1 = Buffer::ofBits(context, Scalar::BF16, ws),
         bw2 = Buffer::ofBits(context, Scalar::BF16, ws), out(context, Scalar::BF16, 64 * 128);
  Bindings bindings{{"x", &bx}, {"w1", &bw1}, {"w2", &bw2}, {"out", &out}};
  Stream stream = context.createStream();
  exe.capture(bindings, stream);
  stream.synchronize();
  std::vector<uint16_t> expected = out.toVector<uint16_t>();
  InGraphProfile profile = exe.profileInGraph(bindings, stream, 5);
  std::vector<std::string> names = exe.kernels();
  int launches = 0;
  for (const KernelCostInGraph &k : profile.kernels) {
    launches += k.launches;
    EXPECT_GT(k.msWithout, 0) << k.kernel;
    EXPECT_TRUE(std::isfinite(k.ms)) << k.kernel;
    EXPECT_EQ(std::count(names.begin(), names.end(), k.kernel), k.launches) << k.kernel;
  }
  EXPECT_EQ(launches, int(names.size()));
  EXPECT_GT(profile.ms, 0);
  // capture()'s graph, whole: it writes `out` again (a graph without the last kernel would not).
  out.upload(std::vector<uint16_t>(64 * 128, 0).data(), 64 * 128 * sizeof(uint16_t));
  exe.replay(stream);
  stream.synchronize();
  EXPECT_EQ(out.toVector<uint16_t>(), expected);
}

} // namespace
} // namespace tk::graph
