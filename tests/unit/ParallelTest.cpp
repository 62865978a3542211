// Tensor parallelism on the interpreter (graph/include/tk/Graph/Parallel.h, TensorParallel in
// Llama.h): the in-process group's collectives and its abort, the graph's collectives, and a
// tiny grouped-query LLaMA split over 2 and 4 ranks against one.
#include "tk/Graph/Llama.h"
#include "tk/Graph/Parallel.h"
#include "tk/Support/FloatFormats.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>

namespace tk::graph {
namespace {

template <typename F> std::string errorOf(F body) { return test::messageOf<Error>(body); }

std::vector<float> randomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = uniform(rng);
  return v;
}

/// A buffer of `values` as `dtype` (bf16, f16 or f32), in `context`.
Buffer bufferOf(Context &context, Scalar dtype, const std::vector<float> &values) {
  if (dtype == Scalar::F32)
    return Buffer::of(context, values);
  std::vector<uint16_t> bits;
  for (float v : values)
    bits.push_back(dtype == Scalar::BF16 ? fp::floatToBf16(v) : fp::floatToHalf(v));
  return Buffer::ofBits(context, dtype, bits);
}

/// The bytes of `value` rounded to `dtype`.
std::vector<uint8_t> bytesOf(Scalar dtype, float value) {
  std::vector<uint8_t> bytes(dtype == Scalar::F32 ? 4 : 2);
  uint16_t h = dtype == Scalar::BF16 ? fp::floatToBf16(value) : fp::floatToHalf(value);
  std::memcpy(bytes.data(), dtype == Scalar::F32 ? static_cast<const void *>(&value) : &h, bytes.size());
  return bytes;
}

float valueOf(Scalar dtype, const std::vector<uint8_t> &bytes, size_t i) {
  if (dtype == Scalar::F32) {
    float f;
    std::memcpy(&f, bytes.data() + 4 * i, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, bytes.data() + 2 * i, 2);
  return dtype == Scalar::BF16 ? fp::bf16ToFloat(h) : fp::halfToFloat(h);
}

TEST(InProcessGroup, AllReduceSumsInRankOrderAndEveryRankGetsTheSameBits) {
  constexpr int kRanks = 4;
  constexpr size_t kCount = 1000;
  for (Scalar dtype : {Scalar::BF16, Scalar::F16, Scalar::F32}) {
    InProcessGroup group(kRanks);
    std::vector<std::vector<uint8_t>> results(kRanks), inputs(kRanks);
    group.run([&](Communicator &c) {
      Context context(Backend::Interpreter);
      Buffer in = bufferOf(context, dtype, randomFloats(kCount, 7 + uint32_t(c.rank())));
      Buffer out(context, dtype, kCount + 3); // (larger than the count: the rest stays zero)
      inputs[size_t(c.rank())] = in.toVector<uint8_t>();
      c.allReduceSum(in, out, kCount, Stream());
      results[size_t(c.rank())] = out.toVector<uint8_t>();
      c.allReduceSum(in, in, kCount, Stream()); // in place: the same sum
      std::vector<uint8_t> inPlace = in.toVector<uint8_t>();
      EXPECT_EQ(0, std::memcmp(inPlace.data(), results[size_t(c.rank())].data(), inPlace.size()));
    });
    for (int r = 1; r < kRanks; ++r)
      EXPECT_EQ(results[size_t(r)], results[0]) << scalarName(dtype) << ": rank " << r;
    for (size_t i = 0; i < kCount; ++i) {
      float sum = valueOf(dtype, inputs[0], i); // rank order, in f32, rounded once
      for (int r = 1; r < kRanks; ++r)
        sum += valueOf(dtype, inputs[size_t(r)], i);
      std::vector<uint8_t> expected = bytesOf(dtype, sum);
      ASSERT_EQ(0, std::memcmp(results[0].data() + i * expected.size(), expected.data(), expected.size()))
          << scalarName(dtype) << " element " << i;
    }
    EXPECT_EQ(valueOf(dtype, results[0], kCount + 2), 0.0f);
  }
}

TEST(InProcessGroup, AllGatherPutsTheRanksSideBySideInRankOrder) {
  InProcessGroup group(3);
  std::vector<std::vector<float>> results(3);
  group.run([&](Communicator &c) {
    Context context(Backend::Interpreter);
    Buffer in = Buffer::of(context, std::vector<float>{float(c.rank()), float(10 * c.rank()), -1});
    Buffer out(context, Scalar::F32, 6);
    c.allGather(in, out, 2, Stream()); // the first two elements of each
    results[size_t(c.rank())] = out.toVector<float>();
  });
  for (const std::vector<float> &r : results)
    EXPECT_EQ(r, (std::vector<float>{0, 0, 1, 10, 2, 20}));
}

TEST(InProcessGroup, AFailedRankAbortsTheOthersInsteadOfLeavingThemWaiting) {
  // Rank 1 fails before its all-reduce: the others, waiting in theirs, throw; run() rethrows
  // rank 1's own error.
  InProcessGroup group(3);
  std::mutex mutex;
  std::vector<std::string> seen;
  EXPECT_EQ(errorOf([&] {
              group.run([&](Communicator &c) {
                Context context(Backend::Interpreter);
                Buffer b(context, Scalar::F32, 4);
                if (c.rank() == 1)
                  throw Error("rank 1 ran out of luck");
                std::string message = errorOf([&] { c.allReduceSum(b, b, 4, Stream()); });
                std::lock_guard<std::mutex> lock(mutex);
                seen.push_back(message);
              });
            }),
            "rank 1 ran out of luck");
  EXPECT_EQ(seen, (std::vector<std::string>(2, "in-process group: aborted: rank 1 failed: rank 1 ran out of luck")));
  // An aborted group stays aborted.
  EXPECT_EQ(errorOf([&] { group.run([](Communicator &c) {
              Context context(Backend::Interpreter);
              Buffer b(context, Scalar::F32, 3);
              c.allGather(b, b, 1, Stream());
            }); }),
            "in-process group: aborted: rank 1 failed: rank 1 ran out of luck");

  // A rank that returns while the others wait for it, and ranks that disagree on the collective.
  // (Whichever comes first: rank 1's return, or rank 0's arrival.)
  InProcessGroup early(2);
  EXPECT_NE(errorOf([&] {
              early.run([](Communicator &c) {
                Context context(Backend::Interpreter);
                Buffer b(context, Scalar::F32, 4);
                if (c.rank() == 0)
                  c.allReduceSum(b, b, 4, Stream());
              });
            }).find("finished"),
            std::string::npos);
  InProcessGroup mismatched(2);
  EXPECT_NE(errorOf([&] {
              mismatched.run([](Communicator &c) {
                Context context(Backend::Interpreter);
                Buffer b(context, Scalar::F32, 8);
                if (c.rank() == 0)
                  c.allReduceSum(b, b, 4, Stream());
                else
                  c.allGather(b, b, 4, Stream());
              });
            }).find("where another called"),
            std::string::npos);
  EXPECT_EQ(errorOf([] { InProcessGroup(0); }), "in-process group: 0 ranks (1 to 1024)");
  // (A thread per rank: a caller's number is bounded before anything is made for it.)
  EXPECT_EQ(errorOf([] { InProcessGroup(1 << 30); }), "in-process group: 1073741824 ranks (1 to 1024)");
}

TEST(GraphParallel, ShardedEmbeddingAndMatmulsEqualTheWholeOnes) {
  // An embedding of an 8-row table and a matmul [4, 32] x [32, 16], whole and split over two
  // ranks: the table's rows (then an all-reduce), the weight's columns (then an all-gather).
  constexpr int64_t kVocab = 8, kDim = 32, kOut = 16;
  std::vector<uint16_t> table, weight;
  for (float v : randomFloats(size_t(kVocab * kDim), 1))
    table.push_back(fp::floatToBf16(v));
  for (float v : randomFloats(size_t(kDim * kOut), 2))
    weight.push_back(fp::floatToBf16(v));
  std::vector<int32_t> ids{3, 7, 0, 4};
  auto run = [&](Context &context, Communicator *communicator) {
    int ranks = communicator ? communicator->size() : 1, rank = communicator ? communicator->rank() : 0;
    int64_t rows = kVocab / ranks, cols = kOut / ranks;
    Graph g;
    Tensor x = g.embedding(g.weight("table", Scalar::BF16, {rows, kDim}), g.indexInput("ids", 4), rank * rows);
    Tensor y = g.matmul(communicator ? g.allReduce(x) : x, g.weight("w", Scalar::BF16, {kDim, cols}));
    g.output(communicator ? g.allGather(y, ranks) : y, "y");
    GraphOptions options;
    options.communicator = communicator;
    Executable exe = Executable::compile(context, g, options);
    std::vector<uint16_t> myTable(table.begin() + rank * rows * kDim, table.begin() + (rank + 1) * rows * kDim), myWeight;
    for (int64_t k = 0; k < kDim; ++k)
      myWeight.insert(myWeight.end(), weight.begin() + k * kOut + rank * cols, weight.begin() + k * kOut + (rank + 1) * cols);
    Buffer tableBuffer = Buffer::ofBits(context, Scalar::BF16, myTable), weightBuffer = Buffer::ofBits(context, Scalar::BF16, myWeight);
    Buffer idsBuffer = Buffer::of(context, ids), out(context, Scalar::BF16, size_t(4 * kOut));
    exe.run({{"table", &tableBuffer}, {"w", &weightBuffer}, {"ids", &idsBuffer}, {"y", &out}});
    std::vector<std::string> kernels = exe.kernels();
    if (communicator) // (never fused: steps of their own)
      for (const char *collective : {"all_reduce (sum over the ranks)", "all_gather (rank-major rows)"})
        EXPECT_EQ(std::count(kernels.begin(), kernels.end(), collective), 1) << collective;
    return out.toVector<uint16_t>();
  };
  Context context(Backend::Interpreter);
  std::vector<uint16_t> whole = run(context, nullptr);
  InProcessGroup group(2);
  std::vector<std::vector<uint16_t>> split(2);
  group.run([&](Communicator &c) {
    Context mine(Backend::Interpreter);
    split[size_t(c.rank())] = run(mine, &c);
  });
  // (The zero rows a shard adds for ids outside it sum exactly; each output column is the same
  // dot product, up to the order its tiles accumulate in.)
  EXPECT_EQ(split[0], split[1]);
  for (size_t i = 0; i < whole.size(); ++i)
    EXPECT_NEAR(fp::bf16ToFloat(split[0][i]), fp::bf16ToFloat(whole[i]), 1e-2 * (1 + std::abs(fp::bf16ToFloat(whole[i]))))
        << "element " << i;
}

TEST(GraphParallel, CollectivesNeedACommunicatorOfTheirSize) {
  Graph g;
  Tensor x = g.input("x", Scalar::BF16, {2, 8});
  g.output(g.allGather(g.allReduce(x), 2), "y");
  Context context(Backend::Interpreter);
  EXPECT_EQ(errorOf([&] { Executable::compile(context, g); }),
            "graph: all_reduce needs a communicator (GraphOptions::communicator)");
  InProcessGroup three(3);
  GraphOptions options;
  options.communicator = &three.rank(0);
  EXPECT_EQ(errorOf([&] { Executable::compile(context, g, options); }),
            "graph: all_gather of 2 ranks on a communicator of 3");
  EXPECT_EQ(errorOf([&] { g.allGather(x, 0); }), "graph: all_gather: 0 ranks (1 to 1024)");
}

TEST(NcclCommunicator, NcclIsLoadedAtRunTimeWithNvlinkMulticastOff) {
  Context context(Backend::Interpreter);
  EXPECT_EQ(errorOf([&] { NcclCommunicator(context, 0, 1, NcclCommunicator::UniqueId{}); }),
            "NCCL: its communicators run on the CUDA backend (the interpreter has InProcessGroup)");
  const char *before = std::getenv("NCCL_NVLS_ENABLE");
  std::string setBefore = before ? before : "";
  // A unique id needs no GPU: where libnccl.so.2 is installed, every symbol tk takes binds.
  std::string error = errorOf([] { NcclCommunicator::uniqueId(); });
  if (error.find("cannot load libnccl.so.2") != std::string::npos)
    GTEST_SKIP() << error;
  EXPECT_EQ(error, "");
  const char *after = std::getenv("NCCL_NVLS_ENABLE");
  EXPECT_EQ(std::string(after ? after : "(unset)"), before ? setBefore : "0"); // the environment's word wins
}

} // namespace
} // namespace tk::graph

namespace tk::llm {
namespace {

using graph::errorOf;

/// A tiny LLaMA (grouped-query attention: 8 heads of 16, 4 key/value heads; two layers; a
/// vocabulary of 64), random bf16 weights, as a Hugging Face folder.
void writeTinyLlama(const std::string &folder, int64_t kvHeads = 4) {
  const int64_t d = 128, f = 128, vocab = 64, heads = 8, hd = 16, layers = 2;
  std::ofstream(folder + "/config.json")
      << R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 128, "intermediate_size": 128,
             "num_attention_heads": 8, "num_key_value_heads": )"
      << kvHeads << R"(, "num_hidden_layers": 2, "vocab_size": 64, "rms_norm_eps": 1e-5,
             "rope_theta": 10000.0, "max_position_embeddings": 32, "tie_word_embeddings": false})";
  std::vector<std::pair<std::string, std::vector<int64_t>>> tensors{
      {"model.embed_tokens.weight", {vocab, d}}, {"model.norm.weight", {d}}, {"lm_head.weight", {vocab, d}}};
  for (int64_t l = 0; l < layers; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    for (auto [name, shape] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
             {"input_layernorm.weight", {d}}, {"post_attention_layernorm.weight", {d}},
             {"self_attn.q_proj.weight", {heads * hd, d}}, {"self_attn.k_proj.weight", {kvHeads * hd, d}},
             {"self_attn.v_proj.weight", {kvHeads * hd, d}}, {"self_attn.o_proj.weight", {d, heads * hd}},
             {"mlp.gate_proj.weight", {f, d}}, {"mlp.up_proj.weight", {f, d}}, {"mlp.down_proj.weight", {d, f}}})
      tensors.emplace_back(p + name, shape);
  }
  std::string header = "{", data;
  uint32_t seed = 0;
  for (const auto &[name, shape] : tensors) {
    size_t count = 1;
    std::string dims;
    for (int64_t s : shape) {
      count *= size_t(s);
      dims += (dims.empty() ? "" : ", ") + std::to_string(s);
    }
    // Logits spread wide (an embedding of unit scale, a strong head), so that no two of the
    // most likely tokens lie within roundings of each other (checked below).
    bool norm = shape.size() == 1;
    float scale = norm ? 0.1f
                  : name == "model.embed_tokens.weight" ? 1.0f
                  : (name == "lm_head.weight" ? 4.0f : 1.0f) / std::sqrt(float(shape.back()));
    std::vector<float> values = tk::graph::randomFloats(count, ++seed);
    size_t begin = data.size();
    for (float v : values) {
      uint16_t bits = fp::floatToBf16(norm ? 1 + scale * v : 2 * scale * v);
      data.append(reinterpret_cast<const char *>(&bits), 2);
    }
    header += std::string(header.size() > 1 ? ", " : "") + "\"" + name + "\": {\"dtype\": \"BF16\", \"shape\": [" +
              dims + "], \"data_offsets\": [" + std::to_string(begin) + ", " + std::to_string(data.size()) + "]}";
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' '); // (the data 8-byte aligned, as safetensors writes it)
  uint64_t length = header.size();
  std::ofstream file(folder + "/model.safetensors", std::ios::binary);
  file.write(reinterpret_cast<const char *>(&length), 8);
  file << header << data;
}

/// What `ranks` ranks generate (rank 0's; every rank's logits must be the same bits), prefill
/// and decode over the KV cache, and the logits of a forward pass without it.
struct Outcome {
  Generation generation;
  std::vector<float> forward;
};

/// `throughGroup`: one rank too runs in an in-process group (its collectives over a communicator
/// of one) instead of the plain path.
Outcome generateOver(const std::string &folder, int ranks, bool throughGroup = false) {
  std::vector<int32_t> prompt{5, 17, 42, 63};
  GenerateOptions options;
  options.maxNewTokens = 4;
  auto generate = [&](Context &context, const TensorParallel &parallel) {
    LoadOptions load;
    load.parallel = parallel;
    LlamaModel model(context, folder, load);
    Outcome outcome{model.generate(prompt, options), model.forward({3, 1, 4, 1, 5, 9}, 2)};
    return outcome;
  };
  if (ranks == 1 && !throughGroup) {
    Context context(Backend::Interpreter);
    return generate(context, {});
  }
  graph::InProcessGroup group(ranks);
  std::vector<Outcome> outcomes(static_cast<size_t>(ranks));
  group.run([&](graph::Communicator &c) {
    Context context(Backend::Interpreter);
    outcomes[size_t(c.rank())] = generate(context, {c.rank(), c.size(), &c});
  });
  for (int r = 1; r < ranks; ++r) {
    EXPECT_EQ(outcomes[size_t(r)].generation.tokens, outcomes[0].generation.tokens);
    EXPECT_EQ(outcomes[size_t(r)].generation.logits, outcomes[0].generation.logits) << "rank " << r;
    EXPECT_EQ(outcomes[size_t(r)].forward, outcomes[0].forward) << "rank " << r;
  }
  return outcomes[0];
}

/// |a - b| / |b| (L2).
double relativeError(const std::vector<float> &a, const std::vector<float> &b) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return std::sqrt(diff / norm);
}

TEST(LlamaParallel, TwoAndFourRanksGiveOneRanksTokensAndLogits) {
  test::TempDir folder("tk-llama-tp");
  writeTinyLlama(folder.path());
  Outcome one = generateOver(folder.path(), 1);
  ASSERT_EQ(one.generation.logits.size(), 4u * 64);
  // (The test's own premise: each token wins by far more than a rounding, or the same tokens
  // could not be asked of other roundings.)
  for (size_t step = 0; step < 4; ++step) {
    std::vector<float> row(one.generation.logits.begin() + long(step * 64), one.generation.logits.begin() + long(step * 64 + 64));
    std::partial_sort(row.begin(), row.begin() + 2, row.end(), std::greater<float>());
    ASSERT_GT(row[0] - row[1], 0.1f) << "step " << step << ": a near-tie";
  }
  for (int ranks : {2, 4}) {
    Outcome split = generateOver(folder.path(), ranks);
    EXPECT_EQ(split.generation.tokens, one.generation.tokens) << ranks << " ranks";
    ASSERT_EQ(split.generation.logits.size(), one.generation.logits.size());
    // Rounding only: the row-parallel matmuls' partial sums are rounded to bf16 before the sum.
    EXPECT_LT(relativeError(split.generation.logits, one.generation.logits), 1e-2) << ranks << " ranks";
    EXPECT_LT(relativeError(split.forward, one.forward), 1e-2) << ranks << " ranks";
  }
}

TEST(LlamaParallel, OneRankThroughACommunicatorIsThePlainPath) {
  // The residual is added by rank 0 before each all-reduce, in its matmul's epilogue as
  // without tensor parallelism: a communicator of one changes no bit (an add after the
  // all-reduce rounded the projection to bf16 first: 0.006 apart on the H200).
  test::TempDir folder("tk-llama-tp1");
  writeTinyLlama(folder.path());
  Outcome plain = generateOver(folder.path(), 1), grouped = generateOver(folder.path(), 1, /*throughGroup=*/true);
  EXPECT_EQ(grouped.generation.tokens, plain.generation.tokens);
  EXPECT_EQ(grouped.generation.logits, plain.generation.logits);
  EXPECT_EQ(grouped.forward, plain.forward);
}

TEST(LlamaParallel, BadWorldSizesAreErrorsThatNameTheNumbers) {
  test::TempDir folder("tk-llama-tp");
  writeTinyLlama(folder.path(), 2);
  LlamaConfig config = LlamaConfig::load(folder.path() + "/config.json");
  EXPECT_EQ(errorOf([&] { buildLlamaGraph(config, 1, 4, false, {0, 4}); }),
            "llama: tensor parallelism over 4 ranks: each rank takes an equal share of the heads, key/value heads, "
            "intermediate size and vocabulary, but 4 does not divide the key/value heads 2");
  EXPECT_EQ(errorOf([&] { buildLlamaGraph(config, 1, 4, false, {0, 3}); }),
            "llama: tensor parallelism over 3 ranks: each rank takes an equal share of the heads, key/value heads, "
            "intermediate size and vocabulary, but 3 does not divide the attention heads 8, key/value heads 2, "
            "intermediate size 128, vocabulary size 64");
  EXPECT_EQ(errorOf([&] { buildCachedLlamaGraph(config, 1, 1, 8, 0, false, {0, 0}); }),
            "llama: tensor parallelism over 0 ranks: the world size must be at least 1");
  EXPECT_EQ(errorOf([&] { buildLlamaGraph(config, 1, 4, false, {2, 2}); }),
            "llama: tensor parallelism over 2 ranks: rank 2 is not among them (0 to 1)");
  Context context(Backend::Interpreter);
  LoadOptions load;
  load.parallel = {1, 2};
  EXPECT_EQ(errorOf([&] { LlamaModel(context, folder.path(), load); }),
            "llama: tensor parallelism over 2 ranks needs a communicator (TensorParallel::communicator)");
  graph::InProcessGroup group(2);
  load.parallel.communicator = &group.rank(0);
  EXPECT_EQ(errorOf([&] { LlamaModel(context, folder.path(), load); }),
            "llama: tensor parallelism over 2 ranks, rank 1: the communicator is rank 0 of 2");
}

} // namespace
} // namespace tk::llm
