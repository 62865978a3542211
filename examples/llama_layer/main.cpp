// One LLaMA-7B-shaped decoder layer through the graph layer:
//   h   = x + attention(rope(q), rope(k), v) @ Wo,   q, k, v = split(rmsnorm(x) @ Wqkv)
//   out = h + (silu(rmsnorm(h) @ Wgate) * (rmsnorm(h) @ Wup)) @ Wdown
//   llama_layer [--backend interp|cuda] [--dims d,heads,ffn,seq,batch] [--weights DIR]
//               [--save OUT.npy] [--time N] [--dump-graph FILE.dot] [--plan-only]
// Without --weights, random bf16 weights and input, and the output is checked against a plain
// C++ reference on the CPU (exit 0 only within tolerance). With --weights DIR (x.npy, ... as
// raw bf16 bits: bench/run_all.py writes them), the output is saved for torch to check. --time N times
// plain launches and the CUDA-graph replay by both methods of tk::Timing.
#include "tk/Graph/Graph.h"
#include "tk/Support/FloatFormats.h"
#include "tk/Runtime/Npy.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <random>
#include <string>

namespace {

struct Dims {
  int d = 64, heads = 2, ffn = 160, seq = 16, batch = 2;
  int tokens() const { return seq * batch; }
};

struct Weights {
  std::map<std::string, std::vector<uint16_t>> bits; // bf16, by binding name
  std::map<std::string, std::vector<int64_t>> shapes;
};

constexpr const char *kUsage =
    "usage: llama_layer [--backend interp|cuda] [--dims d,heads,ffn,seq,batch] [--weights DIR]\n"
    "                   [--save OUT.npy] [--time N] [--dump-graph FILE.dot] [--plan-only]\n"
    "  --dims        the layer's sizes (default 64,2,160,16,2; LLaMA-7B's: 4096,32,11008,SEQ,BATCH)\n"
    "  --weights     x.npy, attn_norm.npy, ... (raw bf16 bits) instead of random ones; no check then\n"
    "  --save        write the output (bf16 bits)\n"
    "  --time        time N plain launches and N CUDA-graph replays\n"
    "  --dump-graph  the fused graph as Graphviz DOT (and an SVG when dot is installed)\n"
    "  --plan-only   print the kernels and stop\n";

const char *kNames[] = {"x", "attn_norm", "wqkv", "wo", "ffn_norm", "w_gate", "w_up", "w_down"};

std::map<std::string, std::vector<int64_t>> shapesOf(const Dims &m) {
  int64_t d = m.d, f = m.ffn, t = m.tokens();
  return {{"x", {t, d}},          {"attn_norm", {d}},  {"wqkv", {d, 3 * d}}, {"wo", {d, d}},
          {"ffn_norm", {d}},      {"w_gate", {d, f}}, {"w_up", {d, f}},     {"w_down", {f, d}}};
}

Weights randomWeights(const Dims &m, uint64_t seed) {
  Weights w;
  w.shapes = shapesOf(m);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (const char *name : kNames) {
    const auto &shape = w.shapes[name];
    int64_t count = shape.size() == 2 ? shape[0] * shape[1] : shape[0];
    bool norm = std::string(name).find("norm") != std::string::npos;
    float scale = norm || std::string(name) == "x" ? 1.0f : 1.0f / std::sqrt(float(shape[0]));
    auto &v = w.bits[name];
    v.resize(size_t(count));
    for (auto &b : v)
      b = tk::fp::floatToBf16(norm ? 1.0f + 0.1f * uniform(rng) : scale * uniform(rng));
  }
  return w;
}

Weights loadWeights(const Dims &m, const std::string &dir) {
  Weights w;
  w.shapes = shapesOf(m);
  for (const char *name : kNames) {
    tk::NpyArray array = tk::readNpy(dir + "/" + name + ".npy");
    auto &v = w.bits[name];
    v.resize(array.bytes.size() / 2);
    std::memcpy(v.data(), array.bytes.data(), array.bytes.size());
    const auto &shape = w.shapes[name];
    size_t want = size_t(shape.size() == 2 ? shape[0] * shape[1] : shape[0]);
    if (v.size() != want)
      throw tk::Error(std::string(name) + ".npy has " + std::to_string(v.size()) + " elements, expected " +
                      std::to_string(want));
  }
  return w;
}

tk::graph::Graph buildLayer(const Dims &m) {
  using tk::Scalar;
  tk::graph::Graph g;
  int64_t d = m.d, f = m.ffn, t = m.tokens();
  auto x = g.input("x", Scalar::BF16, {t, d});
  auto attnNorm = g.weight("attn_norm", Scalar::BF16, {d});
  auto wqkv = g.weight("wqkv", Scalar::BF16, {d, 3 * d});
  auto wo = g.weight("wo", Scalar::BF16, {d, d});
  auto ffnNorm = g.weight("ffn_norm", Scalar::BF16, {d});
  auto wGate = g.weight("w_gate", Scalar::BF16, {d, f});
  auto wUp = g.weight("w_up", Scalar::BF16, {d, f});
  auto wDown = g.weight("w_down", Scalar::BF16, {f, d});

  auto qkv = g.split(g.matmul(g.rmsnorm(x, attnNorm, 1e-5), wqkv), {d, d, d});
  auto q = g.rope(qkv[0], m.heads, m.seq);
  auto k = g.rope(qkv[1], m.heads, m.seq);
  auto h = g.add(g.matmul(g.attention(q, k, qkv[2], m.heads, m.seq, true), wo), x);
  auto n2 = g.rmsnorm(h, ffnNorm, 1e-5);
  auto gated = g.mul(g.silu(g.matmul(n2, wGate)), g.matmul(n2, wUp));
  g.output(g.add(g.matmul(gated, wDown), h), "out");
  return g;
}

// ---- The plain reference (float on the CPU) ----
using Matrix = std::vector<float>;

Matrix toFloat(const std::vector<uint16_t> &bits) {
  Matrix out(bits.size());
  for (size_t i = 0; i < bits.size(); ++i)
    out[i] = tk::fp::bf16ToFloat(bits[i]);
  return out;
}

Matrix matmul(const Matrix &a, const Matrix &b, int M, int K, int N) {
  Matrix c(size_t(M) * N, 0.0f);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) {
      float av = a[size_t(i) * K + k];
      for (int j = 0; j < N; ++j)
        c[size_t(i) * N + j] += av * b[size_t(k) * N + j];
    }
  return c;
}

Matrix rmsnorm(const Matrix &x, const Matrix &w, int rows, int cols) {
  Matrix y(x.size());
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int c = 0; c < cols; ++c)
      ss += double(x[size_t(r) * cols + c]) * x[size_t(r) * cols + c];
    float rstd = float(1.0 / std::sqrt(ss / cols + 1e-5));
    for (int c = 0; c < cols; ++c)
      y[size_t(r) * cols + c] = x[size_t(r) * cols + c] * rstd * w[c];
  }
  return y;
}

Matrix reference(const Dims &m, Weights &w) {
  int d = m.d, f = m.ffn, t = m.tokens(), hd = d / m.heads, half = hd / 2;
  Matrix x = toFloat(w.bits["x"]);
  Matrix qkv = matmul(rmsnorm(x, toFloat(w.bits["attn_norm"]), t, d), toFloat(w.bits["wqkv"]), t, d, 3 * d);
  Matrix q(size_t(t) * d), k(size_t(t) * d), attn(size_t(t) * d);
  for (int tok = 0; tok < t; ++tok)
    for (int h = 0; h < m.heads; ++h)
      for (int i = 0; i < half; ++i) {
        double theta = double(tok % m.seq) * std::pow(10000.0, -double(i) / half);
        float c = float(std::cos(theta)), s = float(std::sin(theta));
        for (int which = 0; which < 2; ++which) {
          const float *src = &qkv[size_t(tok) * 3 * d + which * d + h * hd];
          float *dst = &(which ? k : q)[size_t(tok) * d + h * hd];
          dst[i] = src[i] * c - src[i + half] * s;
          dst[i + half] = src[i + half] * c + src[i] * s;
        }
      }
  for (int b = 0; b < m.batch; ++b)
    for (int h = 0; h < m.heads; ++h)
      for (int i = 0; i < m.seq; ++i) {
        int qi = b * m.seq + i;
        std::vector<double> p(i + 1);
        double most = -1e30, total = 0;
        for (int j = 0; j <= i; ++j) {
          double s = 0;
          for (int e = 0; e < hd; ++e)
            s += double(q[size_t(qi) * d + h * hd + e]) * k[size_t(b * m.seq + j) * d + h * hd + e];
          p[j] = s / std::sqrt(double(hd));
          most = std::max(most, p[j]);
        }
        for (int j = 0; j <= i; ++j)
          total += p[j] = std::exp(p[j] - most);
        for (int e = 0; e < hd; ++e) {
          double acc = 0;
          for (int j = 0; j <= i; ++j)
            acc += p[j] * qkv[size_t(b * m.seq + j) * 3 * d + 2 * d + h * hd + e];
          attn[size_t(qi) * d + h * hd + e] = float(acc / total);
        }
      }
  Matrix hidden = matmul(attn, toFloat(w.bits["wo"]), t, d, d);
  for (size_t i = 0; i < hidden.size(); ++i)
    hidden[i] += x[i];
  Matrix n2 = rmsnorm(hidden, toFloat(w.bits["ffn_norm"]), t, d);
  Matrix gate = matmul(n2, toFloat(w.bits["w_gate"]), t, d, f), up = matmul(n2, toFloat(w.bits["w_up"]), t, d, f);
  for (size_t i = 0; i < gate.size(); ++i)
    gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
  Matrix out = matmul(gate, toFloat(w.bits["w_down"]), t, f, d);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] += hidden[i];
  return out;
}

} // namespace

int main(int argc, char **argv) {
  Dims dims;
  tk::Backend backend = tk::Context::defaultBackend();
  std::string weightsDir, savePath, dumpGraph;
  int timed = 0;
  bool planOnly = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--help" || a == "-h") {
        std::cout << kUsage;
        return 0;
      } else if (a == "--backend") {
        std::string b = value();
        if (b != "interp" && b != "cuda")
          throw std::runtime_error("unknown backend '" + b + "' (interp, cuda)");
        backend = b == "interp" ? tk::Backend::Interpreter : tk::Backend::Cuda;
      } else if (a == "--dims") {
        std::string v = value();
        if (std::sscanf(v.c_str(), "%d,%d,%d,%d,%d", &dims.d, &dims.heads, &dims.ffn, &dims.seq, &dims.batch) != 5)
          throw std::runtime_error("--dims takes d,heads,ffn,seq,batch, got '" + v + "'");
      } else if (a == "--weights") {
        weightsDir = value();
      } else if (a == "--save") {
        savePath = value();
      } else if (a == "--time") {
        timed = std::stoi(value());
      } else if (a == "--plan-only") {
        planOnly = true;
      } else if (a == "--dump-graph") {
        dumpGraph = value();
      } else {
        throw std::runtime_error("unknown option '" + a + "'");
      }
    } catch (const std::exception &e) {
      std::cerr << "llama_layer: " << e.what() << "\n(llama_layer --help lists the options)\n";
      return 2;
    }
  }
  try {
    tk::Context context(backend);
    tk::graph::Graph graph = buildLayer(dims);
    tk::graph::GraphOptions options;
    options.dumpGraph = dumpGraph;
    tk::graph::Executable layer = tk::graph::Executable::compile(context, graph, options);
    std::cout << "llama layer d=" << dims.d << " heads=" << dims.heads << " ffn=" << dims.ffn << " seq=" << dims.seq
              << " batch=" << dims.batch << " on " << context.device().name << ": " << layer.kernels().size()
              << " kernels, " << layer.intermediateBytes() << " bytes of intermediate buffers\n";
    for (size_t k = 0; k < layer.kernels().size(); ++k)
      std::cout << "  " << k + 1 << ". " << layer.kernels()[k] << "\n";
    if (planOnly)
      return 0;

    Weights w = weightsDir.empty() ? randomWeights(dims, 42) : loadWeights(dims, weightsDir);
    std::map<std::string, tk::Buffer> buffers;
    for (const char *name : kNames)
      buffers.emplace(name, tk::Buffer::ofBits(context, tk::Scalar::BF16, w.bits[name]));
    buffers.emplace("out", tk::Buffer(context, tk::Scalar::BF16, size_t(dims.tokens()) * dims.d));
    tk::graph::Bindings bindings;
    for (auto &[name, buffer] : buffers)
      bindings[name] = &buffer;

    tk::Stream stream = context.createStream();
    layer.run(bindings, stream);
    stream.synchronize();
    if (timed > 0) {
      // No L2 flush: the weights (400 MB at 7B) do not fit in it anyway, and torch is timed so.
      tk::Timing plain = context.time([&] { layer.run(bindings, stream); }, 3, timed, stream, /*flushL2=*/false);
      std::printf("layer time, plain launches: %s\n", plain.str().c_str());
      layer.capture(bindings, stream);
      tk::Timing replayed = context.time([&] { layer.replay(stream); }, 3, timed, stream, /*flushL2=*/false);
      std::printf("layer time, CUDA graph replay: %s\n", replayed.str().c_str());
    }
    std::vector<uint16_t> out = buffers.at("out").toVector<uint16_t>();
    if (!savePath.empty()) {
      tk::HostBuffer host;
      host.name = "out";
      host.elem = tk::Scalar::BF16;
      host.shape = {dims.tokens(), dims.d};
      host.bytes.resize(out.size() * 2);
      std::memcpy(host.bytes.data(), out.data(), host.bytes.size());
      tk::writeNpy(savePath, host);
    }
    if (!weightsDir.empty())
      return 0; // torch checks it (bench/run_all.py)
    Matrix ref = reference(dims, w);
    double diff = 0, norm = 0, worst = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      double e = tk::fp::bf16ToFloat(out[i]) - ref[i];
      diff += e * e;
      norm += double(ref[i]) * ref[i];
      worst = std::max(worst, std::abs(e));
    }
    double relative = std::sqrt(diff / std::max(norm, 1e-30));
    bool ok = relative < 2e-2 && std::isfinite(relative);
    std::printf("output vs the C++ reference: relative L2 error %.3g, max abs error %.3g (%s)\n", relative, worst,
                ok ? "ok" : "too large");
    return ok ? 0 : 1;
  } catch (const tk::Error &e) {
    std::cerr << "llama_layer: " << e.what() << "\n";
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "llama_layer: " << e.what() << "\n";
    return 1;
  }
}
