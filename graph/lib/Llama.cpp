// A LLaMA model on the graph layer (Llama.h): Hugging Face's weights, transposed to the
// graph's [in, out] matrices and fused (Q, K and V into one matmul), uploaded once as bf16; one
// compiled graph per (batch, sequence length); the embedding by the stdlib's kernel.
#include "tk/Graph/Llama.h"
#include "tk/Graph/Parallel.h"
#include "tk/Runtime/Error.h"
#include "tk/Runtime/Files.h"
#include "tk/Runtime/Jit.h"
#include "tk/Support/FloatFormats.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <numeric>
#include <optional>
#include <random>
#include <thread>
#include <tuple>
#include <unistd.h>

namespace tk::llm {
namespace {

using graph::Graph;
using graph::Tensor;

/// Element i of a checkpoint tensor as bf16 bits (read bytewise: the mapping's data need not be
/// aligned).
uint16_t bf16At(const CheckpointTensor &t, size_t i) {
  const auto *bytes = static_cast<const uint8_t *>(t.data);
  if (t.dtype == Scalar::F32) {
    float f;
    std::memcpy(&f, bytes + 4 * i, 4);
    return fp::floatToBf16(f);
  }
  uint16_t h;
  std::memcpy(&h, bytes + 2 * i, 2);
  return t.dtype == Scalar::BF16 ? h : fp::floatToBf16(fp::halfToFloat(h));
}

/// fn(begin, end) over [0, n) in contiguous pieces, one thread each, each at least `grain`
/// items (a 7B checkpoint's conversion runs at memory speed only across cores).
void parallelRanges(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &fn) {
  int64_t threads = std::clamp<int64_t>(std::thread::hardware_concurrency(), 1, 32);
  threads = std::min(threads, std::max<int64_t>(1, n / grain));
  std::vector<std::thread> pool;
  int64_t per = (n + threads - 1) / threads;
  for (int64_t t = 1; t < threads; ++t)
    if (t * per < n)
      pool.emplace_back(fn, t * per, std::min(n, (t + 1) * per));
  fn(0, std::min(n, per));
  for (std::thread &thread : pool)
    thread.join();
}

/// Element i of a BF16, F16 or F32 checkpoint tensor as a float (an FP8 weight's scale).
float floatAt(const CheckpointTensor &t, size_t i) {
  const auto *bytes = static_cast<const uint8_t *>(t.data);
  if (t.dtype == Scalar::F32) {
    float f;
    std::memcpy(&f, bytes + 4 * i, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, bytes + 2 * i, 2);
  return t.dtype == Scalar::F16 ? fp::halfToFloat(h) : fp::bf16ToFloat(h);
}

/// FP8 values are read as the projections' weights only, with their scales.
void requireWide(const CheckpointTensor &t) {
  if (t.dtype == Scalar::F8E4M3)
    throw Error(t.file + ": tensor '" + t.name + "' is F8_E4M3 where bf16, f16 or f32 is read (an FP8 checkpoint "
                "has every projection in F8_E4M3, layer 0's q_proj too, and nothing else)");
}

/// A checkpoint tensor's elements as bf16 bits.
std::vector<uint16_t> bf16Bits(const CheckpointTensor &t) {
  requireWide(t);
  size_t count = 1;
  for (int64_t d : t.shape)
    count *= size_t(d);
  std::vector<uint16_t> bits(count);
  parallelRanges(int64_t(count), 1 << 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      bits[size_t(i)] = bf16At(t, size_t(i));
  });
  return bits;
}

/// `count` rows (dim 0) or columns (dim 1) of a checkpoint tensor from `first`: rows are a view
/// of its mapping, columns a copy kept in `kept` (which must outlive the result).
CheckpointTensor slice(const CheckpointTensor &t, int dim, int64_t first, int64_t count,
                       std::deque<std::vector<uint8_t>> &kept) {
  CheckpointTensor part = t;
  size_t element = Buffer::elementBytes(t.dtype), rows = size_t(t.shape[0]);
  size_t rowBytes = t.shape.size() > 1 ? size_t(t.shape[1]) * element : element;
  const auto *bytes = static_cast<const uint8_t *>(t.data);
  part.shape[size_t(dim)] = count;
  if (dim == 0) {
    part.data = bytes + size_t(first) * rowBytes;
    part.bytes = size_t(count) * rowBytes;
    return part;
  }
  std::vector<uint8_t> &copy = kept.emplace_back(rows * size_t(count) * element);
  for (size_t r = 0; r < rows; ++r)
    std::memcpy(copy.data() + r * size_t(count) * element, bytes + r * rowBytes + size_t(first) * element,
                size_t(count) * element);
  part.data = copy.data();
  part.bytes = copy.size();
  return part;
}

/// Hugging Face's [out, in] linear weights as bf16 [in, out], side by side (Q, K, V into one):
/// by 64x64 blocks (a row-by-row transposition misses the cache on every element), the rows of
/// the result split among threads.
std::vector<uint16_t> transposedSideBySide(const std::vector<CheckpointTensor> &parts) {
  for (const CheckpointTensor &p : parts)
    requireWide(p);
  int64_t in = parts.front().shape[1], total = 0;
  for (const CheckpointTensor &p : parts)
    total += p.shape[0];
  std::vector<uint16_t> bits(size_t(in * total));
  constexpr int64_t kBlock = 64;
  parallelRanges((in + kBlock - 1) / kBlock, 1, [&](int64_t firstBlock, int64_t lastBlock) {
    int64_t column = 0;
    for (const CheckpointTensor &p : parts) {
      int64_t outs = p.shape[0];
      for (int64_t i0 = firstBlock * kBlock; i0 < std::min(in, lastBlock * kBlock); i0 += kBlock)
        for (int64_t o0 = 0; o0 < outs; o0 += kBlock)
          for (int64_t o = o0; o < std::min(outs, o0 + kBlock); ++o)
            for (int64_t i = i0; i < std::min(in, i0 + kBlock); ++i)
              bits[size_t(i * total + column + o)] = bf16At(p, size_t(o * in + i));
      column += outs;
    }
  });
  return bits;
}

std::string layerName(int64_t layer, const char *part) { return std::to_string(layer) + "." + part; }

/// The next token from one row of logits (GenerateOptions says how).
int32_t chooseToken(const float *logits, int64_t vocab, const GenerateOptions &o, std::mt19937_64 &rng) {
  // A NaN has no place in the order (the sort's comparison would not be one): an error, not a
  // token chosen at random.
  if (const float *nan = std::find_if(logits, logits + vocab, [](float v) { return std::isnan(v); }); nan != logits + vocab)
    throw Error("llama: the logit of token " + std::to_string(nan - logits) +
                " is NaN: the model's weights or activations are not finite");
  if (o.temperature <= 0)
    return int32_t(std::max_element(logits, logits + vocab) - logits);
  std::vector<int32_t> order(static_cast<size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  // Most likely first; ties by id, so that the order does not depend on the sort.
  std::sort(order.begin(), order.end(),
            [&](int32_t a, int32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); });
  size_t keep = o.topK > 0 ? std::min<size_t>(size_t(o.topK), order.size()) : order.size();
  std::vector<double> p(keep);
  double top = logits[order[0]] / o.temperature, total = 0;
  for (size_t i = 0; i < keep; ++i)
    total += p[i] = std::exp(logits[order[i]] / o.temperature - top);
  double mass = 0;
  size_t nucleus = 0;
  while (nucleus < keep && (nucleus == 0 || mass < o.topP * total))
    mass += p[nucleus++];
  // A double in [0, 1) from the top 53 bits of one draw.
  double u = double(rng() >> 11) * 0x1.0p-53 * mass;
  for (size_t i = 0; i < nucleus; ++i)
    if ((u -= p[i]) < 0)
      return order[i];
  return order[nucleus - 1];
}

/// Whether an FP8 weight's stored scale is one per tensor ([] or [1]) rather than one per output
/// channel ([out] or [out, 1]) of its `out` rows; any other shape or type is an error.
bool isPerTensorFp8Scale(const CheckpointTensor &s, int64_t out) {
  uint64_t count = 1; // (each size is below 2^40: Checkpoint caps them; a product past 2^64 saturates)
  for (int64_t d : s.shape)
    count = d && count > UINT64_MAX / uint64_t(d) ? UINT64_MAX : count * uint64_t(d);
  bool perTensor = count == 1 && s.shape.size() <= 1, perChannel =
      count == uint64_t(out) && (s.shape == std::vector<int64_t>{out} || s.shape == std::vector<int64_t>{out, 1});
  if (s.dtype == Scalar::F8E4M3 || (!perTensor && !perChannel))
    throw Error(s.file + ": tensor '" + s.name + "' must be an F32, BF16 or F16 scale of shape [], [1], [" +
                std::to_string(out) + "] or [" + std::to_string(out) + ", 1]");
  return perTensor;
}

} // namespace

namespace {

/// The model's graph; with `maxContext`, over a KV cache (buildCachedLlamaGraph); the heads,
/// intermediate columns and vocabulary rows of rank `tp.rank` (TensorParallel).
Graph buildGraph(const LlamaConfig &c, int64_t batch, int64_t seqLen, int64_t maxContext, int decodeSplits, bool fp8,
                 const TensorParallel &tp) {
  checkTensorParallel(c, tp, false);
  int64_t d = c.hiddenSize, hd = c.headDim(), ranks = tp.size;
  int64_t heads = c.numHeads / ranks, kv = c.numKvHeads / ranks, f = c.intermediateSize / ranks;
  int64_t vocab = c.vocabSize / ranks;
  Graph g;
  // A row-parallel result (each rank's partial sum) made whole on every rank.
  auto reduced = [&](Tensor partial) { return tp.collectives() ? g.allReduce(partial) : partial; };
  // The same plus the residual stream, added once: by rank 0 before the all-reduce, in its
  // matmul's epilogue as without tensor parallelism, so that no add runs after the all-reduce
  // (and one rank through a communicator computes what the plain path does, bit for bit).
  auto residualAdd = [&](Tensor partial, Tensor residual) {
    return reduced(!tp.collectives() || tp.rank == 0 ? g.add(partial, residual) : partial);
  };
  Tensor x = reduced(g.embedding(g.weight("embed_tokens", Scalar::BF16, {vocab, d}), g.indexInput("ids", batch * seqLen),
                                 tp.rank * vocab));
  int seq = int(seqLen);
  bool cached = maxContext > 0, decoding = cached && seqLen == 1;
  Tensor positions, lengths;
  if (cached)
    positions = g.indexInput("positions", batch);
  if (decoding)
    lengths = g.indexInput("lengths", batch);
  // x times a projection's weight [in, out] (bf16), or [out, in] e4m3 with its scales.
  auto project = [&](Tensor a, const std::string &name, int64_t in, int64_t out) {
    if (fp8)
      return g.matmulFp8(a, g.weight(name, Scalar::F8E4M3, {out, in}), g.weight(name + ".scale", Scalar::F32, {out}));
    return g.matmul(a, g.weight(name, Scalar::BF16, {in, out}));
  };
  for (int64_t l = 0; l < c.numLayers; ++l) {
    Tensor attnNorm = g.weight(layerName(l, "attn_norm"), Scalar::BF16, {d});
    Tensor ffnNorm = g.weight(layerName(l, "ffn_norm"), Scalar::BF16, {d});
    std::vector<Tensor> qkv = g.split(project(g.rmsnorm(x, attnNorm, c.rmsNormEps), layerName(l, "wqkv"), d,
                                              (heads + 2 * kv) * hd),
                                      {heads * hd, kv * hd, kv * hd});
    Tensor attended;
    if (!cached) {
      Tensor q = g.rope(qkv[0], int(heads), seq, c.ropeTheta);
      Tensor k = g.rope(qkv[1], int(kv), seq, c.ropeTheta);
      attended = g.attention(q, k, qkv[2], int(heads), seq, /*causal=*/true, int(kv));
    } else {
      Tensor q = g.rope(qkv[0], int(heads), seq, c.ropeTheta, positions);
      Tensor k = g.rope(qkv[1], int(kv), seq, c.ropeTheta, positions);
      Tensor kCache = g.input(layerName(l, "k_cache"), Scalar::BF16, {batch * maxContext, kv * hd});
      Tensor vCache = g.input(layerName(l, "v_cache"), Scalar::BF16, {batch * maxContext, kv * hd});
      Tensor kAll = g.appendKV(kCache, k, positions, seq), vAll = g.appendKV(vCache, qkv[2], positions, seq);
      // Prefill writes the cache for the decode steps and attends within the call (every
      // op runs, read or not); decoding attends to the cache, its own row included.
      attended = decoding ? g.decodeAttention(q, kAll, vAll, lengths, int(heads), int(kv), decodeSplits)
                          : g.attention(q, k, qkv[2], int(heads), seq, /*causal=*/true, int(kv));
    }
    Tensor h = residualAdd(project(attended, layerName(l, "wo"), heads * hd, d), x);
    Tensor n2 = g.rmsnorm(h, ffnNorm, c.rmsNormEps);
    // (The up projection first: the gate's matmul then absorbs silu and the product.)
    Tensor up = project(n2, layerName(l, "w_up"), d, f);
    Tensor gate = project(n2, layerName(l, "w_gate"), d, f);
    x = residualAdd(project(g.mul(g.silu(gate), up), layerName(l, "w_down"), f, d), h);
  }
  // A cached prefill needs the logits of each sequence's last prompt token only (the row
  // index input "last"): the LM head and the final norm run on those rows, not on the prompt's.
  if (cached && !decoding)
    x = g.embedding(x, g.indexInput("last", batch));
  Tensor norm = g.weight("norm", Scalar::BF16, {d});
  Tensor lmHead = g.weight("lm_head", Scalar::BF16, {d, vocab});
  Tensor logits = g.matmul(g.rmsnorm(x, norm, c.rmsNormEps), lmHead); // this rank's vocabulary columns
  g.output(tp.collectives() ? g.allGather(logits, tp.size) : logits, "logits");
  return g;
}

} // namespace

int decodeSplitsFor(int64_t batch, int64_t heads) {
  // Enough programs to keep every SM's loads in flight: at least 2048 (batch, head, split)
  // programs, 16 to 64 splits. Measured on the H200 (LLaMA-7B, context 2113, ms a decode step;
  // bench/results/2026-12-02-h200-session2): batch 1 (32 heads) 5.60 / 5.49 / 5.30 at 8 / 16 /
  // 32 splits; batch 8 8.58 / 8.55 / 8.54 / 9.04 at 4 / 8 / 16 / 32. With splits of whole
  // blocks (decode_attention.tk), FP8 batch 1: 2.769 at 32, 2.690 at 64
  // (bench/results/2026-12-04-h200-session15/5-decode-splits).
  int splits = 16;
  while (splits < 64 && batch * heads * splits < 2048)
    splits *= 2;
  return splits;
}

void checkTensorParallel(const LlamaConfig &c, const TensorParallel &tp, bool needCommunicator) {
  std::string what = "llama: tensor parallelism over " + std::to_string(tp.size) + " ranks";
  if (tp.size < 1)
    throw Error(what + ": the world size must be at least 1");
  if (tp.rank < 0 || tp.rank >= tp.size)
    throw Error(what + ": rank " + std::to_string(tp.rank) + " is not among them (0 to " +
                std::to_string(tp.size - 1) + ")");
  std::string indivisible;
  for (auto [count, name] : {std::pair<int64_t, const char *>{c.numHeads, "attention heads"},
                             {c.numKvHeads, "key/value heads"},
                             {c.intermediateSize, "intermediate size"},
                             {c.vocabSize, "vocabulary size"}})
    if (count % tp.size)
      indivisible += std::string(indivisible.empty() ? "" : ", ") + name + " " + std::to_string(count);
  if (!indivisible.empty())
    throw Error(what + ": each rank takes an equal share of the heads, key/value heads, intermediate size and "
                "vocabulary, but " + std::to_string(tp.size) + " does not divide the " + indivisible);
  if (!needCommunicator)
    return;
  if (tp.size > 1 && !tp.communicator)
    throw Error(what + " needs a communicator (TensorParallel::communicator)");
  if (tp.communicator && (tp.communicator->rank() != tp.rank || tp.communicator->size() != tp.size))
    throw Error(what + ", rank " + std::to_string(tp.rank) + ": the communicator is rank " +
                std::to_string(tp.communicator->rank()) + " of " + std::to_string(tp.communicator->size()));
}

Graph buildLlamaGraph(const LlamaConfig &c, int64_t batch, int64_t seqLen, bool fp8Weights, const TensorParallel &parallel) {
  return buildGraph(c, batch, seqLen, 0, 0, fp8Weights, parallel);
}

Graph buildCachedLlamaGraph(const LlamaConfig &c, int64_t batch, int64_t seqLen, int64_t maxContext,
                            int decodeSplits, bool fp8Weights, const TensorParallel &parallel) {
  if (maxContext < 1)
    throw Error("llama: a KV cache of " + std::to_string(maxContext) + " positions");
  if (decodeSplits < 0 || decodeSplits > 64)
    throw Error("llama: " + std::to_string(decodeSplits) + " flash-decoding splits (1 to 64, or 0 to choose)");
  checkTensorParallel(c, parallel, false); // (before the heads per rank are divided below)
  int64_t heads = c.numHeads / parallel.size; // each rank's
  return buildGraph(c, batch, seqLen, maxContext, decodeSplits ? decodeSplits : decodeSplitsFor(batch, heads),
                    fp8Weights, parallel);
}

struct LlamaModel::Impl {
  Context *context = nullptr;
  LlamaConfig config;
  bool fp8 = false; // LoadOptions::fp8Weights
  TensorParallel parallel; // LoadOptions::parallel
  std::map<std::string, Buffer> weights;
  /// Compiled graphs by (batch, seqLen, maxContext, decode splits, GEMV chains, FP8 kernel), each with when it was last
  /// used: at most kExecutables kept (recomputing without a cache compiles one per length).
  struct Compiled {
    graph::Executable executable;
    uint64_t lastUse = 0;
  };
  static constexpr size_t kExecutables = 4;
  std::map<std::tuple<int64_t, int64_t, int64_t, int, bool, graph::GraphOptions::Fp8Kernel>, Compiled> executables;
  int decodeSplits = 0; // the current generate()'s GenerateOptions::decodeSplits
  bool gemvChains = false; // and its GenerateOptions::gemvChains
  graph::GraphOptions::Fp8Kernel fp8Kernel = graph::GraphOptions::Fp8Kernel::Auto; // and fp8Kernel
  uint64_t uses = 0;
  GenerateStats stats;
  std::optional<Module> sampling; // std/sampling.tk, loaded by the first greedy decode
  class GreedySteps;

  /// A tk::Error unless `bytes` fit the memory they would live in: the GPU's (onDevice, the
  /// CUDA backend) or the host's.
  void requireMemory(const std::string &what, double bytes, bool onDevice,
                     const std::string &advice = "fewer sequences, a shorter context or fewer new tokens") const {
    bool gpu = onDevice && context->backend() == Backend::Cuda;
    double available = gpu ? double(context->device().totalMemory)
                           : double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
    if (bytes > available)
      throw Error("llama: " + what + " need " + std::to_string(int64_t(bytes / double(1 << 20))) + " MiB, more than the " +
                  std::to_string(int64_t(available / double(1 << 20))) + " MiB of " + (gpu ? "the GPU" : "host memory") +
                  ": " + advice);
  }
  /// How many ranks' weights share the memory this rank's live in: on the GPU its own, on the
  /// interpreter the process's (its ranks join in one).
  double ranksSharingMemory() const { return context->backend() == Backend::Cuda ? 1.0 : double(parallel.size); }
  /// The bytes this rank's weights take once loaded: the projections (FP8 codes and a scale a
  /// row, or bf16), the norms, the embedding table and the head.
  double weightBytes(bool fp8Projections) const {
    const LlamaConfig &c = config;
    double d = double(c.hiddenSize), f = double(c.intermediateSize), kv = double(c.numKvHeads * c.headDim());
    double ranks = double(parallel.size), vocab = double(c.vocabSize);
    double projectionElements = d * d + 2 * kv * d + d * d + 3 * f * d, projectionRows = d + 2 * kv + d + 2 * f + d;
    double layer = fp8Projections ? projectionElements + 4 * projectionRows : 2 * projectionElements;
    return double(c.numLayers) * (layer / ranks + 2 * 2 * d) + 2 * d + 2 * 2 * vocab * d / ranks;
  }

  /// The logits (f32) of `ids` (`batch` sequences), over a KV cache of `maxContext` positions
  /// when that is not 0 (its buffers and positions among `extra`); then profiled into
  /// `profile` when that is given.
  std::vector<float> run(const std::vector<int32_t> &ids, int64_t batch, int64_t maxContext,
                         const graph::Bindings &extra, const Stream &stream,
                         std::vector<graph::KernelProfile> *profile = nullptr);
  /// The compiled graph for (batch, seqLen, maxContext), compiled on first use.
  graph::Executable &executable(int64_t batch, int64_t seqLen, int64_t maxContext) {
    auto key = std::make_tuple(batch, seqLen, maxContext, maxContext ? decodeSplits : 0, gemvChains, fp8Kernel);
    auto it = executables.find(key);
    if (it == executables.end()) {
      if (executables.size() >= kExecutables) // the least recently used goes
        executables.erase(std::min_element(executables.begin(), executables.end(), [](const auto &a, const auto &b) {
          return a.second.lastUse < b.second.lastUse;
        }));
      Graph graph = maxContext ? buildCachedLlamaGraph(config, batch, seqLen, maxContext, decodeSplits, fp8, parallel)
                               : buildLlamaGraph(config, batch, seqLen, fp8, parallel);
      graph::GraphOptions options;
      options.communicator = parallel.communicator;
      options.gemvChains = gemvChains;
      options.fp8Kernel = fp8Kernel;
      it = executables.emplace(key, Compiled{graph::Executable::compile(*context, graph, options)}).first;
    }
    it->second.lastUse = ++uses;
    return it->second.executable;
  }
  void bindWeights(graph::Bindings &bindings) {
    for (auto &[name, buffer] : weights)
      bindings[name] = &buffer;
  }
  static std::vector<float> floats(const Buffer &logits) {
    std::vector<uint16_t> bits = logits.toVector<uint16_t>();
    std::vector<float> out(bits.size());
    for (size_t i = 0; i < bits.size(); ++i)
      out[i] = fp::bf16ToFloat(bits[i]);
    return out;
  }

  void upload(const std::string &name, const std::vector<uint16_t> &bits) {
    weights.emplace(name, Buffer::ofBits(*context, Scalar::BF16, bits));
  }
  /// A projection: Hugging Face's [out, in] weights stacked (Q, K, V into one), as bf16
  /// [in, out], or as e4m3 [out, in] with one scale per output row ("<name>.scale"): quantized
  /// here, or as an FP8 checkpoint stores them (`scales`: each part's "weight_scale").
  /// `keptColumns` (first, count): quantized whole (each row's scale of all its columns, as on
  /// one rank), then only these columns kept (a row-parallel rank's shard); count -1: all.
  void uploadProjection(const std::string &name, const std::vector<CheckpointTensor> &parts,
                        const std::vector<CheckpointTensor> &storedScales = {},
                        std::pair<int64_t, int64_t> keptColumns = {0, -1}) {
    if (!storedScales.empty()) {
      uploadStoredFp8(name, parts, storedScales);
      return;
    }
    if (!fp8) {
      upload(name, transposedSideBySide(parts));
      return;
    }
    for (const CheckpointTensor &p : parts)
      requireWide(p); // (an FP8 tensor in a checkpoint whose first layer is not)
    int64_t in = parts.front().shape[1], rows = 0;
    for (const CheckpointTensor &p : parts)
      rows += p.shape[0];
    std::vector<uint8_t> codes(size_t(rows * in));
    std::vector<float> scales(static_cast<size_t>(rows));
    int64_t first = 0;
    for (const CheckpointTensor &p : parts) {
      parallelRanges(p.shape[0], 16, [&](int64_t begin, int64_t end) {
        std::vector<float> row(static_cast<size_t>(in));
        for (int64_t o = begin; o < end; ++o) {
          for (int64_t i = 0; i < in; ++i)
            row[size_t(i)] = fp::bf16ToFloat(bf16At(p, size_t(o * in + i)));
          scales[size_t(first + o)] = graph::quantizeFp8Row(row.data(), in, codes.data() + (first + o) * in);
        }
      });
      first += p.shape[0];
    }
    if (auto [from, count] = keptColumns; count >= 0 && count < in) {
      std::vector<uint8_t> kept(size_t(rows * count));
      for (int64_t r = 0; r < rows; ++r)
        std::copy_n(codes.begin() + r * in + from, count, kept.begin() + r * count);
      codes = std::move(kept);
    }
    weights.emplace(name, Buffer::ofBits(*context, Scalar::F8E4M3, codes));
    weights.emplace(name + ".scale", Buffer::of(*context, scales));
  }

  /// Stored e4m3 weights [out, in] (stacked as they are) and their dequantization scales, one
  /// per tensor ([] or [1]) or one per output channel ([out] or [out, 1]) as compressed-tensors
  /// and FBGEMM's FP8 checkpoints keep them: w = code * scale.
  void uploadStoredFp8(const std::string &name, const std::vector<CheckpointTensor> &parts,
                       const std::vector<CheckpointTensor> &scaleTensors) {
    std::vector<uint8_t> codes;
    std::vector<float> scales;
    for (size_t k = 0; k < parts.size(); ++k) {
      const CheckpointTensor &w = parts[k], &s = scaleTensors[k];
      int64_t out = w.shape[0];
      if (w.dtype != Scalar::F8E4M3)
        throw Error(w.file + ": tensor '" + w.name + "' is not F8_E4M3 while other projections of the checkpoint are");
      bool perTensor = isPerTensorFp8Scale(s, out);
      const auto *bytes = static_cast<const uint8_t *>(w.data);
      codes.insert(codes.end(), bytes, bytes + w.bytes);
      for (int64_t o = 0; o < out; ++o) {
        float scale = floatAt(s, perTensor ? 0 : size_t(o));
        if (!(scale > 0) || !std::isfinite(scale))
          throw Error(s.file + ": tensor '" + s.name + "' holds the scale " + std::to_string(scale) +
                      ": scales must be positive and finite");
        scales.push_back(scale);
      }
    }
    weights.emplace(name, Buffer::ofBits(*context, Scalar::F8E4M3, codes));
    weights.emplace(name + ".scale", Buffer::of(*context, scales));
  }
};

constexpr const char *kWeightsAdvice = "a smaller model, FP8 weights or more tensor-parallel ranks";

LlamaModel::LlamaModel(Context &context, const std::string &folder, const LoadOptions &options)
    : impl_(std::make_unique<Impl>()) {
  Impl &m = *impl_;
  m.context = &context;
  m.fp8 = options.fp8Weights;
  m.config = LlamaConfig::load(folder + "/config.json");
  const LlamaConfig &c = m.config;
  m.parallel = options.parallel;
  checkTensorParallel(c, m.parallel, true);
  // Weights past memory are refused before any is read: here at their least (FP8 projections),
  // once the checkpoint says how it stores them at their size (a sparse file may name more
  // weights than memory holds while taking no room on disk).
  m.requireMemory("the weights", m.weightBytes(true) * m.ranksSharingMemory(), true, kWeightsAdvice);
  Checkpoint ckpt = Checkpoint::open(folder);
  int64_t d = c.hiddenSize, f = c.intermediateSize, hd = c.headDim(), kv = c.numKvHeads * hd;
  // This rank's shard of a matrix: its rows (output channels) of a column-parallel weight, its
  // columns (input channels) of a row-parallel one.
  int64_t ranks = m.parallel.size, rank = m.parallel.rank;
  std::deque<std::vector<uint8_t>> sliced; // column slices' copies (rows are views of the mapping)
  auto shard = [&](const CheckpointTensor &t, int dim) {
    return ranks == 1 || dim < 0 ? t : slice(t, dim, rank * t.shape[size_t(dim)] / ranks, t.shape[size_t(dim)] / ranks, sliced);
  };
  auto matrix = [&](const std::string &name, int64_t out, int64_t in) { return ckpt.get(name, {out, in}); };
  auto vector = [&](const std::string &name) { return bf16Bits(ckpt.get(name, {d})); };
  // An FP8 checkpoint (its projections F8_E4M3, each with its "weight_scale") runs the FP8
  // matmuls on the weights as stored.
  bool storedFp8 = c.numLayers > 0 && ckpt.get("model.layers.0.self_attn.q_proj.weight", {d, d}).dtype == Scalar::F8E4M3;
  m.fp8 = m.fp8 || storedFp8;
  m.requireMemory("the weights", m.weightBytes(m.fp8) * m.ranksSharingMemory(), true, kWeightsAdvice);
  // A projection's parts (Q, K and V: this rank's heads of each), sharded along `dim`, and
  // their stored FP8 scales: per output channel, sharded with the rows.
  auto projection = [&](const std::string &layer, std::vector<std::pair<std::string, std::array<int64_t, 2>>> parts,
                        int dim) {
    std::vector<CheckpointTensor> tensors, scales;
    for (const auto &[name, shape] : parts) {
      tensors.push_back(shard(matrix(layer + name + ".weight", shape[0], shape[1]), dim));
      if (storedFp8) {
        // (Checked against the whole weight's rows before a rank takes its share: a scale of one
        // shard's rows would otherwise pass as that shard's.)
        CheckpointTensor scale = ckpt.get(layer + name + ".weight_scale");
        bool perChannel = !isPerTensorFp8Scale(scale, shape[0]);
        scales.push_back(dim == 0 && perChannel ? shard(scale, 0) : scale);
      }
    }
    return std::make_pair(tensors, scales);
  };
  for (int64_t l = 0; l < c.numLayers; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    m.upload(layerName(l, "attn_norm"), vector(p + "input_layernorm.weight"));
    auto [qkv, qkvScales] = projection(p, {{"self_attn.q_proj", {d, d}}, {"self_attn.k_proj", {kv, d}},
                                           {"self_attn.v_proj", {kv, d}}}, 0);
    m.uploadProjection(layerName(l, "wqkv"), qkv, qkvScales);
    // (dim: 0 column-parallel, 1 row-parallel)
    for (auto [local, part, out, in, dim] :
         {std::tuple<const char *, const char *, int64_t, int64_t, int>{"wo", "self_attn.o_proj", d, d, 1},
          {"w_gate", "mlp.gate_proj", f, d, 0}, {"w_up", "mlp.up_proj", f, d, 0}, {"w_down", "mlp.down_proj", d, f, 1}}) {
      // Quantized here, a row-parallel weight is quantized whole and then sharded, so that its
      // scales are TP=1's (a shard's own maxima would round its codes otherwise).
      bool quantizeWhole = m.fp8 && !storedFp8 && dim == 1 && ranks > 1;
      auto [weight, scale] = projection(p, {{part, {out, in}}}, quantizeWhole ? -1 : dim);
      m.uploadProjection(layerName(l, local), weight, scale,
                         quantizeWhole ? std::pair<int64_t, int64_t>{rank * in / ranks, in / ranks}
                                       : std::pair<int64_t, int64_t>{0, -1});
    }
    m.upload(layerName(l, "ffn_norm"), vector(p + "post_attention_layernorm.weight"));
  }
  m.upload("norm", vector("model.norm.weight"));
  CheckpointTensor table = matrix("model.embed_tokens.weight", c.vocabSize, d);
  // Tied embeddings read the embedding table as the head.
  bool tied = c.tieWordEmbeddings; // as transformers ties them, an lm_head.weight in the file or not
  m.upload("lm_head", transposedSideBySide({shard(tied ? table : matrix("lm_head.weight", c.vocabSize, d), 0)}));
  m.upload("embed_tokens", bf16Bits(shard(table, 0)));
}

LlamaModel::~LlamaModel() = default;
LlamaModel::LlamaModel(LlamaModel &&) noexcept = default;
LlamaModel &LlamaModel::operator=(LlamaModel &&) noexcept = default;

LlamaModel::Impl &LlamaModel::self() const {
  if (!impl_)
    throw Error("llama: an empty LlamaModel (moved from)");
  return *impl_;
}

const LlamaConfig &LlamaModel::config() const { return self().config; }
const GenerateStats &LlamaModel::stats() const { return self().stats; }

std::vector<float> LlamaModel::forward(const std::vector<int32_t> &ids, int64_t batch, const Stream &stream) {
  return self().run(ids, batch, 0, {}, stream);
}

std::vector<float> LlamaModel::Impl::run(const std::vector<int32_t> &ids, int64_t batch, int64_t maxContext,
                                         const graph::Bindings &extra, const Stream &stream,
                                         std::vector<graph::KernelProfile> *profile) {
  const LlamaConfig &c = config;
  if (batch < 1 || ids.empty() || ids.size() % size_t(batch))
    throw Error("llama: " + std::to_string(ids.size()) + " token ids are not " + std::to_string(batch) +
                " sequences of equal length");
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= c.vocabSize)
      throw Error("llama: token id " + std::to_string(ids[i]) + " (position " + std::to_string(i) +
                  ") is outside the vocabulary of " + std::to_string(c.vocabSize));
  int64_t tokens = int64_t(ids.size()), seqLen = tokens / batch;
  if (std::max(seqLen, maxContext) > c.maxPositions)
    throw Error("llama: " + std::to_string(std::max(seqLen, maxContext)) +
                " positions, more than max_position_embeddings (" + std::to_string(c.maxPositions) + ")");
  graph::Executable &exe = executable(batch, seqLen, maxContext);
  Buffer idsBuffer = Buffer::of(*context, ids);
  int64_t rows = maxContext && seqLen > 1 ? batch : tokens; // a cached prefill's logits: the "last" rows
  requireMemory("the logits", double(rows) * double(c.vocabSize) * 6, false); // bf16 downloaded, f32 made
  Buffer logits(*context, Scalar::BF16, size_t(rows * c.vocabSize));
  graph::Bindings bindings = extra;
  bindings["ids"] = &idsBuffer;
  bindings["logits"] = &logits;
  bindWeights(bindings);
  exe.run(bindings, stream);
  stream.synchronize();
  std::vector<float> out = floats(logits);
  if (profile) // after the logits were read: the profile runs the same graph again
    *profile = exe.profile(bindings, stream);
  return out;
}

Generation LlamaModel::generate(const std::vector<int32_t> &prompt, const GenerateOptions &options,
                                const Stream &stream) {
  return generate(std::vector<std::vector<int32_t>>{prompt}, options, stream).front();
}

/// Greedy decoding's choices on the device (std/sampling.tk's greedy_advance after each decode
/// step): the tokens of every step and where a NaN logit was met, collected after the last
/// step; and, when kept, each step's logits, gathered on the device in chunks of at most
/// kKeptChunkRows steps and kKeptChunkBytes, each downloaded as it fills (the only waits between
/// steps: one every 32 at batch 1 of a 32000-token vocabulary).
class LlamaModel::Impl::GreedySteps {
public:
  static constexpr double kKeptChunkBytes = 256.0 * (1 << 20);
  static constexpr int64_t kKeptChunkRows = 32;

  GreedySteps(LlamaModel::Impl &m, int64_t batch, int64_t steps, bool keepLogits)
      : batch_(batch), steps_(steps), vocab_(m.config.vocabSize), keep_(keepLogits),
        keptRows_(keepLogits ? std::clamp<int64_t>(int64_t(kKeptChunkBytes / (double(batch) * double(vocab_) * 2)), 1,
                                                   std::clamp<int64_t>(steps - 1, 1, kKeptChunkRows))
                             : 1),
        tokens_(*m.context, Scalar::I32, size_t(batch * steps)),
        nanAt_(Buffer::of(*m.context, std::vector<int32_t>(size_t(2 * batch), -1))),
        kept_(*m.context, Scalar::BF16, keptCount(m)), advance_(kernelOf(m)), logits_(size_t(batch)) {}

  /// After decode step `step` (1 on): its tokens from its logits into `ids`, positions and
  /// lengths one further; its logits kept.
  void advance(int64_t step, const Buffer &logits, Buffer &ids, Buffer &positions, Buffer &lengths,
               const Stream &stream) {
    int64_t first = 1 + (step - 1) / keptRows_ * keptRows_; // the step of the chunk's first row
    advance_.launch(GridSpec(batch_), {logits, ids, positions, lengths, tokens_, kept_, nanAt_, int32_t(vocab_),
                                       int32_t(vocab_), int32_t(step), int32_t(steps_), int32_t(first),
                                       int32_t(keptRows_)},
                    {{"KEEP", Const(keep_)}}, stream);
    if (keep_ && (step - first == keptRows_ - 1 || step == steps_ - 1)) // the chunk full, or the last step's
      downloadKept(step - first + 1, stream);
  }

  /// After the last step: each sequence's tokens (and logits) of steps 1 on appended to `out`,
  /// and in `lastInputs` the tokens the last step read.
  void collect(std::vector<Generation> &out, std::vector<int32_t> &lastInputs, const Stream &stream) {
    stream.synchronize();
    std::vector<int32_t> nanAt = nanAt_.toVector<int32_t>(), tokens = tokens_.toVector<int32_t>();
    // The earliest step's NaN (the lowest sequence's of that step), as the host's choice meets it.
    std::optional<int64_t> nan;
    for (int64_t b = 0; b < batch_; ++b)
      if (nanAt[size_t(2 * b)] >= 0 && (!nan || nanAt[size_t(2 * b)] < nanAt[size_t(2 * *nan)]))
        nan = b;
    if (nan)
      throw Error("llama: the logit of token " + std::to_string(nanAt[size_t(2 * *nan + 1)]) +
                  " is NaN: the model's weights or activations are not finite");
    for (int64_t b = 0; b < batch_; ++b) {
      Generation &g = out[size_t(b)];
      for (int64_t step = 1; step < steps_; ++step)
        g.tokens.push_back(tokens[size_t(b * steps_ + step)]);
      g.logits.insert(g.logits.end(), logits_[size_t(b)].begin(), logits_[size_t(b)].end());
      lastInputs[size_t(b)] = g.tokens[size_t(steps_ - 2)];
    }
  }

private:
  size_t keptCount(const LlamaModel::Impl &m) const {
    if (!keep_)
      return 1;
    double bytes = double(batch_) * double(keptRows_) * double(vocab_) * 2;
    m.requireMemory("the logits of a chunk of decode steps kept on the GPU", bytes, true);
    return size_t(batch_ * keptRows_ * vocab_);
  }
  /// The chunk's first `rows` rows, appended to each sequence's logits.
  void downloadKept(int64_t rows, const Stream &stream) {
    stream.synchronize();
    std::vector<float> chunk = Impl::floats(kept_);
    for (int64_t b = 0; b < batch_; ++b) {
      auto first = chunk.begin() + b * keptRows_ * vocab_;
      logits_[size_t(b)].insert(logits_[size_t(b)].end(), first, first + rows * vocab_);
    }
  }
  static Kernel kernelOf(LlamaModel::Impl &m) {
    if (!m.sampling)
      m.sampling.emplace(Module::fromFile(*m.context, stdlibDir() + "/std/sampling.tk"));
    return m.sampling->kernel("greedy_advance");
  }

  int64_t batch_, steps_, vocab_;
  bool keep_;
  int64_t keptRows_; // the chunk's rows of logits a sequence
  Buffer tokens_, nanAt_, kept_;
  Kernel advance_;
  std::vector<std::vector<float>> logits_; // each sequence's kept logits so far
};

std::vector<Generation> LlamaModel::generate(const std::vector<std::vector<int32_t>> &prompts,
                                             const GenerateOptions &options, const Stream &stream) {
  if (options.maxNewTokens < 1 || options.temperature < 0 || !(options.topP > 0 && options.topP <= 1) ||
      options.topK < 0 || options.maxContext < 0 || options.decodeSplits < 0 || options.decodeSplits > 64)
    throw Error("llama: generate: maxNewTokens must be >= 1, temperature >= 0, topP in (0, 1], topK >= 0, "
                "maxContext >= 0, decodeSplits 0 to 64");
  Impl &m = self();
  m.decodeSplits = options.decodeSplits;
  m.gemvChains = options.gemvChains;
  m.fp8Kernel = options.fp8Kernel;
  m.stats = GenerateStats();
  const LlamaConfig &c = m.config;
  int64_t vocab = c.vocabSize, batch = int64_t(prompts.size()), longest = 0;
  for (const std::vector<int32_t> &p : prompts) {
    if (p.empty())
      throw Error("llama: generate: an empty prompt");
    longest = std::max<int64_t>(longest, int64_t(p.size()));
  }
  if (batch == 0)
    throw Error("llama: generate: no prompts");
  // (Before any sum of them: a huge maxNewTokens would wrap the context's size past the checks.)
  if (options.maxNewTokens > c.maxPositions || longest > c.maxPositions)
    throw Error("llama: generate: " + std::to_string(std::max(options.maxNewTokens, longest)) +
                " positions asked for, more than the model's " + std::to_string(c.maxPositions) +
                " (max_position_embeddings)");
  if (options.keepLogits)
    m.requireMemory("the logits kept", double(batch) * double(options.maxNewTokens) * double(vocab) * 4, false);
  std::mt19937_64 rng(options.seed);
  std::vector<Generation> out(static_cast<size_t>(batch));
  auto choose = [&](size_t b, const float *row) {
    int32_t next = chooseToken(row, vocab, options, rng);
    if (options.keepLogits)
      out[b].logits.insert(out[b].logits.end(), row, row + vocab);
    out[b].tokens.push_back(next);
    return next;
  };
  if (!options.kvCache) {
    for (size_t b = 0; b < size_t(batch); ++b) {
      std::vector<int32_t> ids = prompts[b];
      for (int64_t step = 0; step < options.maxNewTokens; ++step) {
        std::vector<float> logits = forward(ids, 1, stream);
        ids.push_back(choose(b, logits.data() + (ids.size() - 1) * size_t(vocab)));
      }
    }
    return out;
  }
  // Each cache holds its sequence's prompt and every new token but the last (never read); the
  // prefill's padding past a prompt lands where its decode steps write later.
  int64_t context = longest + options.maxNewTokens - 1;
  if (options.maxContext) {
    if (options.maxContext < context)
      throw Error("llama: a prompt of " + std::to_string(longest) + " tokens and " +
                  std::to_string(options.maxNewTokens) + " new ones need a context of " + std::to_string(context) +
                  " positions; maxContext is " + std::to_string(options.maxContext));
    context = options.maxContext;
  }
  if (context > c.maxPositions)
    throw Error("llama: a context of " + std::to_string(context) + " positions" +
                (options.maxContext ? std::string(" (maxContext)")
                                    : " (a prompt of " + std::to_string(longest) + " tokens and " +
                                          std::to_string(options.maxNewTokens) + " new ones)") +
                "; the model has " +
                std::to_string(c.maxPositions) + " (max_position_embeddings)");
  size_t cacheElements = size_t(batch * context * (c.numKvHeads / m.parallel.size) * c.headDim()); // this rank's heads
  m.requireMemory("the KV caches", 2.0 * double(c.numLayers) * double(cacheElements) * 2, true);
  std::vector<Buffer> caches;
  graph::Bindings bindings;
  for (int64_t i = 0; i < 2 * c.numLayers; ++i) // a key and a value cache per layer
    caches.emplace_back(*m.context, Scalar::BF16, cacheElements);
  for (int64_t l = 0; l < c.numLayers; ++l) {
    bindings[layerName(l, "k_cache")] = &caches[size_t(2 * l)];
    bindings[layerName(l, "v_cache")] = &caches[size_t(2 * l + 1)];
  }
  // Prefill: the prompts right-padded (with token 0) to the longest, all from position 0.
  std::vector<int32_t> padded(static_cast<size_t>(batch * longest), 0);
  for (size_t b = 0; b < size_t(batch); ++b)
    std::copy(prompts[b].begin(), prompts[b].end(), padded.begin() + int64_t(b) * longest);
  Buffer starts = Buffer::of(*m.context, std::vector<int32_t>(size_t(batch), 0));
  bindings["positions"] = &starts;
  std::vector<int32_t> lastRows;
  for (size_t b = 0; b < size_t(batch); ++b)
    lastRows.push_back(int32_t(int64_t(b) * longest + int64_t(prompts[b].size()) - 1));
  // Prompts of one token make a decode-shaped graph: logits one row per sequence already, and
  // "lengths" (1: each attends to its own first row) instead of "last".
  Buffer last = Buffer::of(*m.context, lastRows), ones = Buffer::of(*m.context, std::vector<int32_t>(size_t(batch), 1));
  bindings[longest > 1 ? "last" : "lengths"] = longest > 1 ? &last : &ones;
  using Clock = std::chrono::steady_clock;
  auto since = [](Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); };
  m.stats.sequences = batch;
  m.stats.prefillTokens = batch * longest;
  auto prefillStart = Clock::now();
  std::vector<float> logits = m.run(padded, batch, context, bindings, stream);
  m.stats.prefillMs = since(prefillStart);
  if (options.profile) // the prefill again, each kernel timed: its caches are written with the same values
    m.run(padded, batch, context, bindings, stream, &m.stats.prefillProfile);
  std::vector<int32_t> next(static_cast<size_t>(batch)), position(next.size()), length(next.size());
  for (size_t b = 0; b < size_t(batch); ++b)
    next[b] = choose(b, logits.data() + int64_t(b) * vocab);
  // Decode: every step the same buffers, so that on the GPU one CUDA graph, captured after the
  // first step, replays every later one. Sampling chooses each step's tokens on the host from its
  // logits, which then uploads them with each sequence's position and length. Greedy decoding
  // chooses on the device (std/sampling.tk's greedy_advance after each step, which also
  // advances the positions and lengths), so that the steps go back to back: nothing is
  // downloaded or uploaded between them, and the host waits once, for the last.
  if (options.maxNewTokens > 1) {
    Buffer ids(*m.context, Scalar::I32, size_t(batch)), positions(*m.context, Scalar::I32, size_t(batch));
    Buffer lengths(*m.context, Scalar::I32, size_t(batch)), stepLogits(*m.context, Scalar::BF16, size_t(batch * vocab));
    bindings["ids"] = &ids;
    bindings["positions"] = &positions;
    bindings["lengths"] = &lengths;
    bindings["logits"] = &stepLogits;
    m.bindWeights(bindings);
    graph::Executable &decode = m.executable(batch, 1, context);
    bool greedy = options.temperature <= 0 && options.greedyOnDevice;
    std::optional<Impl::GreedySteps> onDevice;
    if (greedy)
      onDevice.emplace(m, batch, options.maxNewTokens, options.keepLogits);
    // (A CUDA graph needs a stream of its own: on the default stream every step runs plainly.)
    bool captured = false, capture = m.context->backend() == Backend::Cuda && stream.handle();
    auto stepInputs = [&](int64_t step) {
      for (size_t b = 0; b < size_t(batch); ++b) {
        position[b] = int32_t(prompts[b].size() + size_t(step) - 1);
        length[b] = position[b] + 1;
      }
      ids.upload(next.data(), next.size() * sizeof(int32_t));
      positions.upload(position.data(), position.size() * sizeof(int32_t));
      lengths.upload(length.data(), length.size() * sizeof(int32_t));
    };
    auto decodeStart = Clock::now();
    for (int64_t step = 1; step < options.maxNewTokens; ++step) {
      if (step == 2) { // the first step compiled, tuned and captured: not timed when others follow
        if (onDevice)
          stream.synchronize();
        decodeStart = Clock::now();
      }
      if (!onDevice || step == 1)
        stepInputs(step);
      if (captured) {
        decode.replay(stream);
      } else if (capture) {
        decode.capture(bindings, stream); // runs the step once, then records it
        captured = true;
      } else {
        decode.run(bindings, stream);
      }
      if (onDevice) {
        onDevice->advance(step, stepLogits, ids, positions, lengths, stream);
        continue;
      }
      stream.synchronize();
      logits = Impl::floats(stepLogits);
      for (size_t b = 0; b < size_t(batch); ++b)
        next[b] = choose(b, logits.data() + int64_t(b) * vocab);
    }
    if (onDevice)
      onDevice->collect(out, next, stream); // (timed: the host path's last download and choice are)
    m.stats.decodeMs = since(decodeStart);
    m.stats.decodeSteps = std::max<int64_t>(1, options.maxNewTokens - 2);
    if (options.profile) { // the last step again (its keys and values rewritten as they are)
      if (onDevice) // (its inputs as they were: the device advanced them past it)
        stepInputs(options.maxNewTokens - 1);
      m.stats.decodeProfile = decode.profile(bindings, stream);
      // (Last: its graphs without a kernel leave the step's outputs and cache rows wrong. Not
      // across ranks: one whose captures failed would leave the others in a collective.)
      if (captured && !m.parallel.collectives())
        m.stats.decodeInGraph = decode.profileInGraph(bindings, stream);
    }
  }
  return out;
}

} // namespace tk::llm
