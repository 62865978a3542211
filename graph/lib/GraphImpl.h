// The graph's nodes, and the plan of fused kernels the executor runs (Fusion.cpp builds it).
#ifndef TK_GRAPH_GRAPHIMPL_H
#define TK_GRAPH_GRAPHIMPL_H

#include "tk/Graph/Graph.h"

namespace tk::graph {

enum class Op {
  Input, Weight, MatMul, Add, Mul, Silu, Gelu, Scale, RmsNorm, LayerNorm, Softmax, Rope, Attention,
  Reshape, Split, Concat, Transpose, AppendKV, DecodeAttention, Embedding, AllReduce, AllGather
};
const char *opName(Op op);
bool isElementwise(Op op);

struct Node {
  Op op;
  std::vector<int> inputs;
  TensorInfo out;
  std::string name;        // inputs and weights: the binding's name
  double value = 0;        // eps, scale factor, rope base
  int heads = 0, seqLen = 0;
  int kvHeads = 0;         // Attention: the heads of k and v (grouped-query attention)
  bool causal = true;
  int64_t column = 0;      // Split: the first column of this part in its input
  int64_t firstRow = 0;    // Embedding: the id of the table's first row
  int ranks = 0;           // AllGather: the communicator's size
  bool fp8 = false;        // MatMul: inputs a, an f8e4m3 weight [N, K], its f32 scales [N]
};

struct Graph::Impl {
  std::vector<Node> nodes;
  std::vector<std::pair<int, std::string>> outputs;
  Tensor add(Node node);
  const Node &at(Tensor t, const char *op) const;
};

/// Where a kernel reads or writes a tensor: the tensor holding the storage (a view resolves to
/// its base), a row stride and a first column (split's views). A vector read as a row of a
/// matrix (a bias) has stride 0.
struct Operand {
  int tensor = -1;
  int64_t rowStride = 0, column = 0;
};

enum class StepKind {
  MatMul, RowRstd, RowMoments, Elementwise, RmsNorm, LayerNorm, Softmax, Rope, Attention, Transpose,
  AppendKV, DecodeSplit, DecodeCombine, Embedding, QuantizeRows,
  GemvChain, // fp8_gemv_row steps that follow each other, run by one persistent kernel (GraphOptions::gemvChains)
  AllReduce, AllGather // collectives (Communicator), no kernel: all_gather writes rank-major rows, copies reorder them
};

/// One kernel launch of the plan.
struct Step {
  StepKind kind;
  std::vector<int> nodes;  // the graph nodes it computes (fused), in order
  int out = -1;            // the tensor it writes (a node, or one of Plan::extra)
  int out2 = -1;           // RowMoments: the means (out holds the rstds)
  Operand outAt;           // where: concat's parts write into column blocks of one tensor
  std::vector<Operand> in; // by kind (Executor.cpp): matmul a, b, bias, residual, gate, row scale, row shift,
                           // and (fp8_gemv_row with a norm's rstd to compute) the norm's input rows
                           // (an FP8 matmul: a's FP8 rows, the weight, bias, residual, gate, a's row
                           // scales, the weight's scales; weightOnly: see there); QuantizeRows x (and a
                           // folded RMSNorm's weight)
  // MatMul
  int act = 0; // 0 none, 1 silu, 2 gelu
  bool bias = false, residual = false, gate = false, rowScale = false, center = false, fp8 = false;
  bool weightOnly = false; // an FP8 matmul of few rows by fp8_gemv: in[0] a's own (bf16) rows
  bool oneRow = false;      // weight-only of a single row: fp8_gemv_row (the CUDA cores)
  int foldedNormWeight = -1; // b is diag(w) * b, made once from this weight node
  /// fp8_gemv_row: the RMSNorm weight (node) by which its epilogue also writes its output,
  /// into out2, for the norm's matmuls (normsIntoGemvRows); -1 none.
  int normOutWeight = -1;
  int foldedNormBias = -1;   // a LayerNorm's bias, folded in as (bias @ b) with the centering
  double factor = 1, eps = 0; // MatMul: eps > 0 computes its folded RMSNorm's rstd itself
  int heads = 0; // Rope: the heads its launch covers (two ropes merged cover both)
  /// Rope: the key and value cache appends (AppendKV nodes) its launch also makes, -1 none:
  /// the rotated keys and the values after them go straight into the caches (intoRope).
  int keyCache = -1, valueCache = -1;
  // Elementwise: the generated kernel's source and name, and the columns it covers (a copy into
  // a column block of a wider tensor; 0: all of the output's)
  std::string source, kernel;
  int64_t columns = 0;
  /// GemvChain: its fp8_gemv_row steps in order (nodes and in are all of theirs, out and out2
  /// the last one's); each reads only what the steps before it wrote or what no step of the
  /// chain writes.
  std::vector<Step> chain;
  std::string describe(const Graph::Impl &graph) const;
};

struct Slot {
  Scalar dtype;
  int64_t count;
};

struct Plan {
  std::vector<Step> steps;
  std::vector<TensorInfo> extra;         // tensors that are no node (row rstd): id nodes.size() + k
  std::map<int, std::string> bindingOf;  // tensors held by a binding: inputs, weights, outputs
  std::map<int, int> slotOf;             // tensors held by a planned buffer
  std::vector<Slot> slots;               // the planned buffers, reused along the steps
  std::map<int, Operand> at;             // every node's place (views resolved)
  const TensorInfo &info(const Graph::Impl &graph, int tensor) const {
    return size_t(tensor) < graph.nodes.size() ? graph.nodes[tensor].out : extra[tensor - graph.nodes.size()];
  }
};

/// Fuses the graph into kernel steps and plans their buffers; with `gemvChains`, fp8_gemv_row
/// steps that follow each other become one GemvChain step.
Plan planGraph(const Graph::Impl &graph, bool gemvChains = false);
/// std/work_queue.tk's QUEUE_STRIDE: the i32s from one counter of a work queue to the next.
constexpr int64_t kGemvChainQueueStride = 32;
/// The most GEMVs one chain runs (each adds 18 parameters; a kernel's take at most 4 KB).
constexpr size_t kGemvChainLength = 8;
/// The .tk source of a GemvChain step's kernel, fp8_gemv_chain: its parameters are a work queue
/// (kGemvChainQueueStride x (1 + GEMVs) zeroed i32) and each GEMV's fp8_gemv_row parameters a
/// to norm_out in turn, its element type `dtype`; its grid is PER_SM programs a
/// multiprocessor, at most as many as fit and one per block.
std::string gemvChainSource(const Graph::Impl &graph, const Plan &plan, const Step &step, Scalar dtype);
/// The fused graph in Graphviz DOT.
std::string planDot(const Graph::Impl &graph, const Plan &plan);

} // namespace tk::graph

#endif
