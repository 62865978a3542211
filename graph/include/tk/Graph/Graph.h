// The graph layer: model operators as a graph of typed 2-D tensors ([rows, cols], row-major;
// vectors are 1-D), compiled into fused tk kernels (generated .tk source and the stdlib's
// templates, through the JIT, its cache and autotuner) and run over the CUDA backend or the
// interpreter, optionally replayed as one CUDA graph.
#ifndef TK_GRAPH_GRAPH_H
#define TK_GRAPH_GRAPH_H

#include "tk/Runtime/Jit.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tk::graph {

class Communicator; // Parallel.h

/// A tensor of a Graph (a handle: its node's index).
struct Tensor {
  int id = -1;
};

/// What a graph may hold (a tk::Error past it): dimensions of 1 to 2^31 - 1 (the kernels' i32
/// indices), 2^20 tensors, collectives over 1024 ranks.
inline constexpr int64_t kMaxDimension = (int64_t(1) << 31) - 1;
inline constexpr size_t kMaxNodes = size_t(1) << 20;
inline constexpr int kMaxRanks = 1024;

struct TensorInfo {
  Scalar dtype = Scalar::BF16;
  std::vector<int64_t> shape;
  std::string str() const; // "bf16[32, 4096]"
};

/// Builds the graph; every op checks shapes and dtypes and throws tk::Error naming the op and
/// its operands ("graph: matmul: K dimension mismatch: a is bf16[8, 64], b is bf16[32, 96]").
class Graph {
public:
  Graph();
  ~Graph();
  Graph(Graph &&) noexcept;
  Graph &operator=(Graph &&) noexcept;

  Tensor input(const std::string &name, Scalar dtype, std::vector<int64_t> shape);
  /// Constant across runs: the executor may transform it once per bound buffer (a norm's weight
  /// folded in), so new contents need another buffer (or a new Executable), not an overwrite.
  Tensor weight(const std::string &name, Scalar dtype, std::vector<int64_t> shape);
  /// An i32 vector bound like an input, read only by ops that take indices (rope's positions).
  Tensor indexInput(const std::string &name, int64_t length);
  void output(Tensor t, const std::string &name);

  Tensor matmul(Tensor a, Tensor b);   // [M, K] x [K, N]
  /// [M, K] (bf16 or f16) times an FP8 weight: `weight` an f8e4m3 weight [N, K] (K-major,
  /// nn.Linear's layout) with `scale` its f32 weight [N], one dequantization factor per output
  /// channel; the result [M, N] in a's type, with the epilogues matmul takes. Above 8 rows a is
  /// quantized per row first (dynamic e4m3 scales, std/quantize.tk; an RMSNorm whose output only
  /// such matmuls read is folded into that) and std/fp8_matmul.tk multiplies on FP8 tensor
  /// cores; up to 8 rows (a decode step's) the product is weight-only, a's rows as they are:
  /// fp8_gemv on mma.sync, one row fp8_gemv_row on the CUDA cores (see GraphOptions::gemvChains).
  /// Weights are e4m3 (an e5m2 weight is refused).
  Tensor matmulFp8(Tensor a, Tensor weight, Tensor scale);
  Tensor add(Tensor a, Tensor b);      // same shapes, or b a vector of a's columns (a bias)
  Tensor mul(Tensor a, Tensor b);
  Tensor silu(Tensor x);
  Tensor gelu(Tensor x);
  Tensor scale(Tensor x, double factor);
  Tensor rmsnorm(Tensor x, Tensor weight, double eps = 1e-6);          // over each row
  Tensor layernorm(Tensor x, Tensor weight, Tensor bias, double eps = 1e-5);
  Tensor softmax(Tensor x);                                            // over each row
  /// Rotary embedding of [batch * seqLen, heads * headDim] (LLaMA's rotate-half form).
  Tensor rope(Tensor x, int heads, int seqLen, double base = 10000.0);
  /// The same with sequence b's tokens at positions[b] + 0, 1, ... (a KV cache's length):
  /// positions is an indexInput of one entry per sequence.
  Tensor rope(Tensor x, int heads, int seqLen, double base, Tensor positions);
  /// Attention of [batch * seqLen, heads * headDim] queries to keys and values, per sequence.
  /// Grouped-query attention: k and v are [batch * seqLen, kvHeads * headDim], each of their
  /// heads shared by heads / kvHeads consecutive query heads (0: kvHeads = heads).
  Tensor attention(Tensor q, Tensor k, Tensor v, int heads, int seqLen, bool causal = true, int kvHeads = 0);
  /// Rows of `table` ([vocab, dim]: a weight such as a token embedding, or any matrix whose rows
  /// are gathered) by the ids of an index input: [ids, dim]; an id outside the table gives a row
  /// of zeros. `firstRow`: the table holds rows firstRow, firstRow + 1, ... of a larger one (a
  /// rank's shard of a vocabulary-parallel embedding): id i reads its row i - firstRow, and ids
  /// outside the shard give zeros.
  Tensor embedding(Tensor table, Tensor ids, int64_t firstRow = 0);
  /// A KV cache's write: x's row s of sequence b ([batch * seqLen, width]) goes to row
  /// b * maxContext + positions[b] + s of `cache` (an input, [batch * maxContext, width], whose
  /// bound buffer keeps its contents between runs); positions past the cache write nothing.
  /// The result is the cache after the write, in the same buffer: read it, not `cache`.
  Tensor appendKV(Tensor cache, Tensor x, Tensor positions, int seqLen);
  /// Decoding attention (flash-decoding): q's row b ([batch, heads * headDim], one new token
  /// per sequence) attends to the first lengths[b] rows of its sequence in the caches
  /// ([batch * maxContext, kvHeads * headDim], grouped-query heads), in `splits` ranges of the
  /// cache computed apart and then combined (0: as many as fill the GPU; at most 64).
  Tensor decodeAttention(Tensor q, Tensor kCache, Tensor vCache, Tensor lengths, int heads, int kvHeads, int splits = 0);
  Tensor reshape(Tensor x, std::vector<int64_t> shape);
  /// Column blocks of `x` (views: no copy when their consumers read strided rows).
  std::vector<Tensor> split(Tensor x, std::vector<int64_t> sizes);
  Tensor concat(std::vector<Tensor> parts); // along columns
  Tensor transpose(Tensor x);

  /// Tensor parallelism's collectives (Parallel.h), each a step of its own, never fused: the
  /// element-wise sum of x over the ranks of the executable's communicator; the ranks' x side by
  /// side, in rank order ([rows, cols * ranks], `ranks` the communicator's size).
  Tensor allReduce(Tensor x);
  Tensor allGather(Tensor x, int ranks);

  const TensorInfo &info(Tensor t) const;

  struct Impl;
  const Impl &impl() const { return self(); }

private:
  Impl &self() const; // throws tk::Error for a moved-from Graph
  std::unique_ptr<Impl> impl_;
};

/// Quantizes one output channel of a weight for Graph::matmulFp8, as LlamaModel's FP8 loading
/// does: `cols` values to e4m3 `codes` (each value / scale, rounded to nearest even, saturating
/// at 448), the scale max |value| / 448 returned (the channel's f32 "scale"; 1e-30 / 448 for an
/// all-zero channel).
float quantizeFp8Row(const float *values, int64_t cols, uint8_t *codes);

/// A [rows, cols] weight (nn.Linear's [out, in] layout, row-major floats) as matmulFp8's e4m3
/// weight and its per-row scales.
struct Fp8Weight {
  std::vector<uint8_t> codes; // rows x cols
  std::vector<float> scales;  // rows
};
Fp8Weight quantizeFp8Rows(const std::vector<float> &values, int64_t rows, int64_t cols);

struct GraphOptions {
  /// Write the fused graph as Graphviz DOT here (and an SVG beside it when `dot` is installed).
  std::string dumpGraph;
  /// This rank's end of its group: what the graph's allReduce and allGather run on (a graph
  /// with collectives and none is a tk::Error at compile). It must outlive the Executable.
  Communicator *communicator = nullptr;
  /// Batch-1 FP8 weight-only matmuls (fp8_gemv_row) that follow each other in the plan run as
  /// one persistent kernel (a "GEMV chain": a decode step's O, gate, up, down and the next
  /// layer's QKV projections between two attentions): its programs take the GEMVs' blocks of
  /// rows in order from a work queue, and a block waits only for the GEMV before it to be
  /// complete, after it has started streaming its own weights, so the weight stream does not
  /// stop at each GEMV's end as it does between launches (std/work_queue.tk). Each chain's
  /// work queue belongs to the Executable (as FP8 split-K's workspace does): one Executable
  /// runs on one stream at a time. A launch that faults leaves its queue as it was: after a
  /// fault, compile the graph again.
  bool gemvChains = false;
  /// Which kernel runs an FP8 matmul of more than 128 rows (a prefill's; fewer rows take
  /// fp8_matmul with split-K, or fp8_gemv): fp8_matmul (Tiled: a program a tile),
  /// fp8_matmul_persistent (Persistent: a program a multiprocessor, or two with ping-pong
  /// consumers, looping over the tiles), or (Auto) the faster of the two at the step's first
  /// run, each tuned over its own configs and their winners then timed in turn (once per
  /// shape and epilogue; on the interpreter, which times nothing, Tiled).
  enum class Fp8Kernel { Auto, Tiled, Persistent };
  Fp8Kernel fp8Kernel = Fp8Kernel::Auto;
};

/// Buffers by the names of the graph's inputs, weights and outputs.
using Bindings = std::map<std::string, Buffer *>;

/// One kernel of a profiled run (Executable::profile).
struct KernelProfile {
  std::string kernel; // as Executable::kernels() names it
  double ms = 0;      // the median over the timed runs
  /// What it moves: every tensor it reads or writes counted once and whole (a KV cache with
  /// all of its positions: an upper bound for a decode step), a cache append its new rows.
  double bytes = 0;
  double flops = 0; // matmuls and attention: two per multiply-add (causal attention half)
};

/// What one kernel costs inside a CUDA graph of a run (Executable::profileInGraph).
struct KernelCostInGraph {
  std::string kernel;   // as Executable::kernels() and profile() name it: all its launches together
  int launches = 0;
  double msWithout = 0; // the run captured without them, the median replay
  /// The median over the rounds of the whole run's replay less this one's (taken in the same
  /// round): what its launches, waits and tails add where dependent launches overlap the
  /// kernels (events between kernels, as profile() puts them, keep them apart). Noise can make
  /// a small cost negative.
  double ms = 0;
};

/// A run's CUDA graph timed whole and without each kernel.
struct InGraphProfile {
  double ms = 0; // the whole run's graph, the median replay
  std::vector<KernelCostInGraph> kernels; // in the order each first runs
};

/// Profiled runs as a Chrome trace (the JSON that chrome://tracing and Perfetto open): each run
/// one process named by its label, its kernels back to back in launch order, each as long as
/// its median time, with its bytes and flops as arguments.
std::string chromeTrace(const std::vector<std::pair<std::string, std::vector<KernelProfile>>> &runs);

/// A graph compiled for one Context: its kernels (fused), their launch order, and a memory plan
/// that reuses intermediate buffers.
class Executable {
public:
  static Executable compile(Context &context, const Graph &graph, const GraphOptions &options = {});
  ~Executable();
  Executable(Executable &&) noexcept;
  Executable &operator=(Executable &&) noexcept;

  /// Runs every kernel on `stream`. The first run of a binding also transforms its weights
  /// (once) and autotunes kernels on first use. Throws tk::Error naming a missing binding or
  /// one of the wrong dtype or size.
  void run(const Bindings &bindings, const Stream &stream = Stream());
  /// Captures one run into a CUDA graph (after a run outside capture, so that nothing compiles
  /// or tunes inside it); replay() launches it again on the same buffers. CUDA backend only.
  void capture(const Bindings &bindings, const Stream &stream);
  void replay(const Stream &stream);

  /// The time of every kernel of a run, in the order they run: after one run outside the
  /// timing (compiles, tunes, prepares weights), `runs` runs with a CUDA event before every
  /// kernel (Context::timeSteps), the median of each. Runs the graph like run(): its outputs
  /// (and caches appended to) are written again.
  std::vector<KernelProfile> profile(const Bindings &bindings, const Stream &stream = Stream(), int runs = 5);

  /// Each kernel's cost inside the run's CUDA graph (InGraphProfile): after one run outside the
  /// captures, the run is captured whole and once without each kernel's launches, and `runs`
  /// rounds of one replay of each are timed. The graphs without a kernel compute wrong values:
  /// they leave the outputs, and the rows a run appends to a cache, wrong until the next run.
  /// CUDA backend, a stream of its own, no collectives (tensor parallelism); at most 2^20
  /// replays in all (runs times the graphs).
  InGraphProfile profileInGraph(const Bindings &bindings, const Stream &stream, int runs = 20);

  /// One line per kernel: its template and what was fused into it (an FP8 matmul that runs
  /// fp8_matmul_persistent, GraphOptions::fp8Kernel, says so once it has run).
  std::vector<std::string> kernels() const;
  size_t intermediateBytes() const; // the memory plan's total
  size_t scratchBytes() const;      // FP8 matmuls' split-K workspace and tile counters
  std::string dot() const;          // the fused graph in Graphviz DOT

  struct Impl;

private:
  Executable();
  Impl &self() const; // throws tk::Error for a moved-from Executable
  std::unique_ptr<Impl> impl_;
};

} // namespace tk::graph

#endif
