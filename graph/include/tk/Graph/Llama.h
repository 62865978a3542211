// A LLaMA model (Hugging Face `LlamaForCausalLM`) on the graph layer: the embedding of i32 ids,
// N decoder layers (pre-norm attention with rotate-half RoPE at `rope_theta` and grouped-query
// heads, SwiGLU MLP), the final RMSNorm and the LM head, from a checkpoint folder
// (Checkpoint.h). Generation prefills the prompt into per-layer KV caches and
// decodes one token per step over them (flash-decoding), or recomputes the whole prefix.
#ifndef TK_GRAPH_LLAMA_H
#define TK_GRAPH_LLAMA_H

#include "tk/Graph/Checkpoint.h"
#include "tk/Graph/Graph.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tk::graph {
class Communicator; // Parallel.h
}

namespace tk::llm {

/// Megatron-style tensor parallelism: rank `rank` of `size` holds whole attention heads
/// [rank * heads / size, ...) and key/value heads [rank * kv heads / size, ...) (its part of the
/// fused QKV projection: its Q heads, then its K heads, then its V heads; its KV caches hold its
/// key/value heads only), its columns of the gate and up projections and the rows of O and down
/// that read them (each followed by an all-reduce), vocab / size rows of the embedding (ids
/// outside them give zeros, then an all-reduce) and vocab / size columns of the LM head (an
/// all-gather then makes every rank's logits whole). size 1 without a communicator is the plain
/// model, with no collectives.
struct TensorParallel {
  int rank = 0, size = 1;
  /// This rank's end of its group (Parallel.h); needed when size > 1, and with size 1 it runs
  /// the collectives (TP=1 through NCCL).
  graph::Communicator *communicator = nullptr;
  bool collectives() const { return size > 1 || communicator; }
};

/// A tk::Error unless `parallel` fits the model: a size of at least 1 dividing its attention
/// heads, key/value heads, intermediate size and vocabulary, a rank in [0, size), and (with
/// `needCommunicator`) a communicator of that rank and size when size > 1.
void checkTensorParallel(const LlamaConfig &config, const TensorParallel &parallel, bool needCommunicator);

/// The graph of a forward pass over `batch` sequences of `seqLen` tokens each, from index input
/// "ids" [batch * seqLen] to output "logits" [batch * seqLen, vocab], bf16. Weights, as
/// LlamaModel binds them: "embed_tokens" [vocab, hidden], "norm", "lm_head" [hidden, vocab],
/// and per layer l "l.attn_norm", "l.wqkv" [hidden, (heads + 2 kv heads) * head dim], "l.wo",
/// "l.ffn_norm", "l.w_gate", "l.w_up", "l.w_down" (matrices as [in, out]: Hugging Face's
/// transposed).
/// `fp8Weights`: the five projections of every layer are FP8 matmuls (Graph::matmulFp8) whose
/// weights "l.wqkv" ... are f8e4m3 [out, in] (Hugging Face's layout) with f32 scales "l.wqkv.scale"
/// [out]; the embedding and the LM head stay bf16.
/// `parallel`: rank `parallel.rank`'s graph, on its shards of the weights (TensorParallel); the
/// logits are whole (all ranks' columns).
graph::Graph buildLlamaGraph(const LlamaConfig &config, int64_t batch, int64_t seqLen, bool fp8Weights = false,
                             const TensorParallel &parallel = {});

/// The same over a KV cache of `maxContext` positions per sequence: index inputs "positions"
/// (where each sequence's tokens start) and, when decoding (seqLen 1), "lengths" (positions + 1);
/// per layer l the cache inputs "l.k_cache" and "l.v_cache" [batch * maxContext, kv heads *
/// head dim], which every run appends its keys and values to. Prefill (seqLen > 1, positions
/// 0) attends within the call, and its "logits" are [batch, vocab]: those of the rows of index
/// input "last" (each sequence's last prompt token) only; decoding attends to the cache by
/// flash-decoding.
/// `decodeSplits`: the ranges flash-decoding cuts each sequence's cache into (0: chosen from
/// the batch and the heads, see decodeSplitsFor).
graph::Graph buildCachedLlamaGraph(const LlamaConfig &config, int64_t batch, int64_t seqLen, int64_t maxContext,
                                   int decodeSplits = 0, bool fp8Weights = false, const TensorParallel &parallel = {});

/// The split count flash-decoding uses for `batch` sequences of `heads` query heads when none is
/// asked for.
int decodeSplitsFor(int64_t batch, int64_t heads);

/// How LlamaModel::generate picks tokens: greedy at temperature 0; else transformers' order
/// (logits / temperature, the topK most likely (0: all), the smallest set whose probability
/// reaches topP, one draw from mt19937_64 seeded with `seed`, its bits turned into a double
/// here so that the same seed gives the same tokens everywhere).
struct GenerateOptions {
  int64_t maxNewTokens = 16;
  double temperature = 0, topP = 1;
  int64_t topK = 0;
  uint64_t seed = 0;
  /// Prefill the prompt into a KV cache, then decode one token per step over it; without,
  /// every token runs the whole prefix again (the reference the cache is tested against).
  bool kvCache = true;
  /// The positions each sequence's cache holds; 0: the longest prompt plus the new tokens but
  /// the last (never read). A cached run's compiled graphs are kept per size, so a warm-up
  /// generation that should compile what a later one runs must ask for the same.
  int64_t maxContext = 0;
  /// Profile the prefill and one decode step (GenerateStats), after they ran.
  bool profile = false;
  /// Keep each new token's logits in Generation::logits (new tokens x vocab floats a sequence).
  bool keepLogits = true;
  /// The ranges flash-decoding cuts each sequence's cache into, 1 to 64 (0: decodeSplitsFor).
  int decodeSplits = 0;
  /// Run the FP8 decode step's batch-1 GEMVs between two attentions as one persistent kernel
  /// (graph::GraphOptions::gemvChains); the tokens are the same.
  bool gemvChains = false;
  /// The kernel of the FP8 prefill's matmuls (graph::GraphOptions::fp8Kernel): by default the
  /// faster of fp8_matmul and fp8_matmul_persistent at each shape.
  graph::GraphOptions::Fp8Kernel fp8Kernel = graph::GraphOptions::Fp8Kernel::Auto;
  /// Greedy decoding chooses each step's tokens on the device (std/sampling.tk), the steps
  /// enqueued back to back; false chooses them on the host from each step's downloaded logits,
  /// as sampling does. The tokens and logits are the same.
  bool greedyOnDevice = true;
};

/// What the last generate() measured, on the host's clock around work it waited for.
struct GenerateStats {
  int64_t prefillTokens = 0; // the prompts as prefilled: sequences times the longest (padding included)
  double prefillMs = 0;      // the prefill, its logits downloaded
  /// The decode steps timed: every step after the first (which compiles, tunes and captures the
  /// CUDA graph), or the first when it is the only one: greedy on the device, the steps enqueued
  /// back to back and waited for after the last (the kept logits downloaded as each chunk
  /// fills), or, choosing on the host, each uploading its tokens, running, downloading the
  /// logits and choosing the next tokens.
  int64_t decodeSteps = 0;
  double decodeMs = 0;
  int64_t sequences = 0;
  /// With GenerateOptions::profile: each kernel of the prefill and of the last decode step.
  std::vector<graph::KernelProfile> prefillProfile, decodeProfile;
  /// With GenerateOptions::profile, when the decode steps ran as a CUDA graph: each kernel's
  /// cost inside the last step's graph (Executable::profileInGraph: the step captured without
  /// it), where dependent launches overlap what the events of decodeProfile keep apart.
  graph::InGraphProfile decodeInGraph;
};

struct Generation {
  std::vector<int32_t> tokens; // the new tokens
  std::vector<float> logits;   // [tokens, vocab]: the logits each was chosen from (keepLogits)
};

struct LoadOptions {
  /// Quantize the five projections of every layer to e4m3 once, here, one scale per output
  /// channel (max |w| / 448); their matmuls then quantize their inputs' rows as they run and
  /// multiply on FP8 tensor cores (Hopper's wgmma; mma.sync on sm_89 and sm_90), except a
  /// decode step's few rows, multiplied as they are (weight-only, Graph::matmulFp8). The embedding,
  /// the norms and the LM head stay bf16. An FP8 checkpoint (its projections F8_E4M3, each with
  /// its "weight_scale" per channel or per tensor) runs so without it, on its stored weights.
  bool fp8Weights = false;
  /// Load only this rank's shards of the weights (each sliced from the full checkpoint, FP8
  /// scales with their output channels) and run its graphs (TensorParallel).
  TensorParallel parallel;
};

class LlamaModel {
public:
  /// Reads `folder` (config.json and the safetensors), checks every tensor's shape against the
  /// config, and uploads the weights as bf16 (F16 and F32 checkpoints converted), or the
  /// projections as FP8 (LoadOptions).
  LlamaModel(Context &context, const std::string &folder, const LoadOptions &options = {});
  ~LlamaModel();
  LlamaModel(LlamaModel &&) noexcept;
  LlamaModel &operator=(LlamaModel &&) noexcept;

  const LlamaConfig &config() const;
  /// The logits (f32, [batch * seqLen, vocab]) of `ids`: `batch` rows of equally many token
  /// ids each, every id in [0, vocab) (a tk::Error names the first that is not).
  std::vector<float> forward(const std::vector<int32_t> &ids, int64_t batch, const Stream &stream = Stream());
  /// New tokens after `prompt` (one sequence), each chosen from the last row of the logits.
  Generation generate(const std::vector<int32_t> &prompt, const GenerateOptions &options = {},
                      const Stream &stream = Stream());
  /// A static batch: the prompts (of their own lengths) prefilled together, right-padded to
  /// the longest, then decoded together, each sequence at its own position; the same tokens as
  /// generating each alone (sampling draws in the order of the sequences at every step). On the
  /// CUDA backend with a stream of its own (context.createStream()), the decode steps after the
  /// first replay one captured CUDA graph.
  std::vector<Generation> generate(const std::vector<std::vector<int32_t>> &prompts,
                                   const GenerateOptions &options = {}, const Stream &stream = Stream());

  /// What the last generate() measured (zeros before the first, and without a KV cache).
  const GenerateStats &stats() const;

private:
  struct Impl;
  Impl &self() const; // throws tk::Error for a moved-from LlamaModel
  std::unique_ptr<Impl> impl_;
};

} // namespace tk::llm

#endif
