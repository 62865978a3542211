// Building a graph: every op infers its result's type and refuses operands that do not fit.
#include "GraphImpl.h"

#include "tk/Support/FloatFormats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tk::graph {

const char *opName(Op op) {
  static const char *names[] = {"input",     "weight",  "matmul", "add",  "mul",       "silu",
                                "gelu",      "scale",   "rmsnorm", "layernorm", "softmax", "rope",
                                "attention", "reshape", "split",  "concat", "transpose", "append_kv",
                                "decode_attention", "embedding", "all_reduce", "all_gather"};
  return names[int(op)];
}

bool isElementwise(Op op) {
  return op == Op::Add || op == Op::Mul || op == Op::Silu || op == Op::Gelu || op == Op::Scale;
}

std::string TensorInfo::str() const {
  std::string text = std::string(scalarName(dtype)) + "[";
  for (size_t d = 0; d < shape.size(); ++d)
    text += (d ? ", " : "") + std::to_string(shape[d]);
  return text + "]";
}

float quantizeFp8Row(const float *values, int64_t cols, uint8_t *codes) {
  float amax = 0;
  for (int64_t i = 0; i < cols; ++i)
    amax = std::max(amax, std::abs(values[i]));
  float scale = std::max(amax, 1e-30f) / 448;
  for (int64_t i = 0; i < cols; ++i)
    codes[i] = fp::floatToF8e4m3(values[i] / scale);
  return scale;
}

Fp8Weight quantizeFp8Rows(const std::vector<float> &values, int64_t rows, int64_t cols) {
  if (rows < 0 || cols < 0 || values.size() != size_t(rows) * size_t(cols))
    throw Error("graph: quantizeFp8Rows: " + std::to_string(values.size()) + " values for a [" + std::to_string(rows) +
                ", " + std::to_string(cols) + "] weight");
  Fp8Weight w{std::vector<uint8_t>(values.size()), std::vector<float>(size_t(rows))};
  for (int64_t r = 0; r < rows; ++r)
    w.scales[size_t(r)] = quantizeFp8Row(values.data() + r * cols, cols, w.codes.data() + r * cols);
  return w;
}

namespace {

[[noreturn]] void fail(const char *op, const std::string &what) { throw Error(std::string("graph: ") + op + ": " + what); }

void requireMatrix(const char *op, const char *what, const TensorInfo &t) {
  if (t.shape.size() != 2)
    fail(op, std::string(what) + " must be a matrix [rows, cols], got " + t.str());
}

/// An index input of `length` entries, or an error naming the op and what it is for.
void requireIndex(const Graph::Impl &impl, Tensor t, const char *op, const char *what, int64_t length) {
  const Node &n = impl.at(t, op);
  if (n.op != Op::Input || n.out.dtype != Scalar::I32 || n.out.shape != std::vector<int64_t>{length})
    fail(op, std::string(what) + " must be an index input of " + std::to_string(length) +
                 " entries (one per sequence), got " + n.out.str());
}

void requireSameType(const char *op, const TensorInfo &a, const TensorInfo &b) {
  if (a.dtype != b.dtype)
    fail(op, "dtype mismatch: " + a.str() + " and " + b.str());
}

} // namespace

Tensor Graph::Impl::add(Node node) {
  // Every tensor's dimensions in [1, 2^31) (the kernels' i32 indices; products of two cannot
  // overflow int64), and a bounded graph: sizes computed from a caller's numbers (a split's, a
  // reshape's, an all-gather's) that wrapped around, or a runaway builder, stop here.
  for (int64_t d : node.out.shape)
    if (d < 1 || d > kMaxDimension)
      fail(opName(node.op), "a dimension of " + std::to_string(d) + " in " + node.out.str() + " (each is 1 to " +
                                std::to_string(kMaxDimension) + ")");
  if (nodes.size() >= kMaxNodes)
    fail(opName(node.op), "the graph has " + std::to_string(nodes.size()) + " tensors, the most one holds");
  // An FP8 matmul's f8e4m3 weight and f32 scales are its own: no other op reads such a tensor.
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const TensorInfo &in = nodes[size_t(node.inputs[k])].out;
    bool fp8Operand = node.op == Op::MatMul && node.fp8 && k > 0;
    if ((in.dtype == Scalar::F8E4M3 || in.dtype == Scalar::F32) && !fp8Operand)
      fail(opName(node.op), "operand " + std::to_string(k + 1) + " is " + in.str() +
                                "; only matmul_fp8 takes f8e4m3 weights and their f32 scales");
  }
  nodes.push_back(std::move(node));
  return Tensor{int(nodes.size() - 1)};
}

const Node &Graph::Impl::at(Tensor t, const char *op) const {
  if (t.id < 0 || size_t(t.id) >= nodes.size())
    fail(op, "tensor " + std::to_string(t.id) + " is not of this graph");
  return nodes[t.id];
}

Graph::Graph() : impl_(std::make_unique<Impl>()) {}

Graph::Impl &Graph::self() const {
  if (!impl_)
    throw Error("graph: an empty Graph (moved from)");
  return *impl_;
}
Graph::~Graph() = default;
Graph::Graph(Graph &&) noexcept = default;
Graph &Graph::operator=(Graph &&) noexcept = default;

const TensorInfo &Graph::info(Tensor t) const { return self().at(t, "info").out; }

static Tensor leaf(Graph::Impl &impl, Op op, const std::string &name, Scalar dtype, std::vector<int64_t> shape) {
  const char *what = opName(op);
  if (shape.empty() || shape.size() > 2)
    fail(what, "'" + name + "' must have 1 or 2 dimensions");
  for (int64_t d : shape)
    if (d <= 0)
      fail(what, "'" + name + "' has a dimension of " + std::to_string(d));
  bool index = dtype == Scalar::I32 && op == Op::Input && shape.size() == 1;
  // (FP8 matmuls' weights and their scales: matmulFp8 alone takes them.)
  bool fp8Operand = op == Op::Weight && ((dtype == Scalar::F8E4M3 && shape.size() == 2) ||
                                         (dtype == Scalar::F32 && shape.size() == 1));
  if (dtype != Scalar::BF16 && dtype != Scalar::F16 && !index && !fp8Operand)
    fail(what, "'" + name + "' is " + scalarName(dtype) +
                   "; the fused kernels take bf16 or f16 tensors (and matmul_fp8 f8e4m3 weights and f32 scales)");
  auto elementType = [](Scalar t) { return t != Scalar::I32 && t != Scalar::F8E4M3 && t != Scalar::F32; };
  for (const Node &n : impl.nodes)
    if ((n.op == Op::Input || n.op == Op::Weight) && n.out.dtype != dtype && elementType(dtype) && elementType(n.out.dtype))
      fail(what, "'" + name + "' is " + scalarName(dtype) + " but '" + n.name + "' is " + scalarName(n.out.dtype) +
                     ": a graph has one element type");
  for (const Node &n : impl.nodes)
    if ((n.op == Op::Input || n.op == Op::Weight) && n.name == name)
      fail(what, "the name '" + name + "' is taken");
  for (const auto &[id, output] : impl.outputs)
    if (output == name)
      fail(what, "the name '" + name + "' is taken by an output");
  Node node{op, {}, TensorInfo{dtype, std::move(shape)}};
  node.name = name;
  return impl.add(std::move(node));
}

Tensor Graph::input(const std::string &name, Scalar dtype, std::vector<int64_t> shape) {
  return leaf(self(), Op::Input, name, dtype, std::move(shape));
}

Tensor Graph::weight(const std::string &name, Scalar dtype, std::vector<int64_t> shape) {
  return leaf(self(), Op::Weight, name, dtype, std::move(shape));
}

Tensor Graph::indexInput(const std::string &name, int64_t length) {
  return leaf(self(), Op::Input, name, Scalar::I32, {length});
}

void Graph::output(Tensor t, const std::string &name) {
  const Node &node = self().at(t, "output");
  requireMatrix("output", ("'" + name + "'").c_str(), node.out);
  for (const auto &[id, other] : self().outputs)
    if (other == name)
      fail("output", "the name '" + name + "' is taken");
  // (Bindings go by name: an output named as an input or weight would be bound to its buffer.)
  for (const Node &n : self().nodes)
    if ((n.op == Op::Input || n.op == Op::Weight) && n.name == name)
      fail("output", "the name '" + name + "' is taken by an " + (n.op == Op::Input ? "input" : "weight"));
  self().outputs.emplace_back(t.id, name);
}

Tensor Graph::matmul(Tensor a, Tensor b) {
  const TensorInfo &ta = self().at(a, "matmul").out, &tb = self().at(b, "matmul").out;
  requireMatrix("matmul", "a", ta);
  requireMatrix("matmul", "b", tb);
  requireSameType("matmul", ta, tb);
  if (ta.shape[1] != tb.shape[0])
    fail("matmul", "K dimension mismatch: a is " + ta.str() + ", b is " + tb.str());
  return self().add(Node{Op::MatMul, {a.id, b.id}, TensorInfo{ta.dtype, {ta.shape[0], tb.shape[1]}}});
}

Tensor Graph::matmulFp8(Tensor a, Tensor weight, Tensor scale) {
  const TensorInfo &ta = self().at(a, "matmul_fp8").out;
  const Node &w = self().at(weight, "matmul_fp8"), &s = self().at(scale, "matmul_fp8");
  requireMatrix("matmul_fp8", "a", ta);
  requireMatrix("matmul_fp8", "weight", w.out);
  if (ta.dtype != Scalar::BF16 && ta.dtype != Scalar::F16)
    fail("matmul_fp8", "a must be bf16 or f16, not " + ta.str());
  if (w.op != Op::Weight || w.out.dtype != Scalar::F8E4M3)
    fail("matmul_fp8", "the weight must be an f8e4m3 weight [N, K], not " + w.out.str());
  if (s.op != Op::Weight || s.out.dtype != Scalar::F32 || s.out.shape != std::vector<int64_t>{w.out.shape[0]})
    fail("matmul_fp8", "the scale must be an f32 weight [" + std::to_string(w.out.shape[0]) + "], not " + s.out.str());
  if (ta.shape[1] != w.out.shape[1])
    fail("matmul_fp8", "K dimension mismatch: a is " + ta.str() + ", the weight (N x K) is " + w.out.str());
  Node node{Op::MatMul, {a.id, weight.id, scale.id}, TensorInfo{ta.dtype, {ta.shape[0], w.out.shape[0]}}};
  node.fp8 = true;
  return self().add(std::move(node));
}

static Tensor binary(Graph::Impl &impl, Op op, Tensor a, Tensor b) {
  const char *what = opName(op);
  const TensorInfo &ta = impl.at(a, what).out, &tb = impl.at(b, what).out;
  requireMatrix(what, "a", ta);
  requireSameType(what, ta, tb);
  bool rowVector = tb.shape.size() == 1 && tb.shape[0] == ta.shape[1];
  if (ta.shape != tb.shape && !rowVector)
    fail(what, "shape mismatch: " + ta.str() + " and " + tb.str() + " (b must match a or be a vector of its " +
                   std::to_string(ta.shape[1]) + " columns)");
  return impl.add(Node{op, {a.id, b.id}, ta});
}

Tensor Graph::add(Tensor a, Tensor b) { return binary(self(), Op::Add, a, b); }
Tensor Graph::mul(Tensor a, Tensor b) { return binary(self(), Op::Mul, a, b); }

static Tensor unary(Graph::Impl &impl, Op op, Tensor x, double value = 0) {
  const TensorInfo &t = impl.at(x, opName(op)).out;
  requireMatrix(opName(op), "x", t);
  Node node{op, {x.id}, t};
  node.value = value;
  return impl.add(std::move(node));
}

Tensor Graph::silu(Tensor x) { return unary(self(), Op::Silu, x); }
Tensor Graph::gelu(Tensor x) { return unary(self(), Op::Gelu, x); }
Tensor Graph::scale(Tensor x, double factor) { return unary(self(), Op::Scale, x, factor); }
Tensor Graph::softmax(Tensor x) { return unary(self(), Op::Softmax, x); }

Tensor Graph::rmsnorm(Tensor x, Tensor weight, double eps) {
  const TensorInfo &t = self().at(x, "rmsnorm").out, &w = self().at(weight, "rmsnorm").out;
  requireMatrix("rmsnorm", "x", t);
  if (w.shape != std::vector<int64_t>{t.shape[1]})
    fail("rmsnorm", "the weight is " + w.str() + "; it must be a vector of x's " + std::to_string(t.shape[1]) +
                        " columns (x is " + t.str() + ")");
  Node node{Op::RmsNorm, {x.id, weight.id}, t};
  node.value = eps;
  return self().add(std::move(node));
}

Tensor Graph::layernorm(Tensor x, Tensor weight, Tensor bias, double eps) {
  const TensorInfo &t = self().at(x, "layernorm").out;
  requireMatrix("layernorm", "x", t);
  for (Tensor v : {weight, bias})
    if (self().at(v, "layernorm").out.shape != std::vector<int64_t>{t.shape[1]})
      fail("layernorm", "the weight and bias must be vectors of x's " + std::to_string(t.shape[1]) + " columns, got " +
                            self().at(v, "layernorm").out.str());
  Node node{Op::LayerNorm, {x.id, weight.id, bias.id}, t};
  node.value = eps;
  return self().add(std::move(node));
}

static void checkHeads(const char *op, const TensorInfo &t, int heads, int seqLen) {
  requireMatrix(op, "x", t);
  if (heads <= 0 || t.shape[1] % heads != 0)
    fail(op, std::to_string(heads) + " heads do not divide the " + std::to_string(t.shape[1]) + " columns of " + t.str());
  int64_t headDim = t.shape[1] / heads;
  if (headDim < 16 || (headDim & (headDim - 1)))
    fail(op, "the head dimension " + std::to_string(headDim) + " must be a power of two of at least 16");
  if (seqLen <= 0 || t.shape[0] % seqLen != 0)
    fail(op, "the sequence length " + std::to_string(seqLen) + " does not divide the " + std::to_string(t.shape[0]) +
                 " rows (tokens) of " + t.str());
}

Tensor Graph::rope(Tensor x, int heads, int seqLen, double base) {
  const TensorInfo &t = self().at(x, "rope").out;
  checkHeads("rope", t, heads, seqLen);
  Node node{Op::Rope, {x.id}, t};
  node.heads = heads;
  node.seqLen = seqLen;
  node.value = base;
  return self().add(std::move(node));
}

Tensor Graph::rope(Tensor x, int heads, int seqLen, double base, Tensor positions) {
  // Checked before the rope is added: a failed call leaves the graph as it was.
  const TensorInfo &t = self().at(x, "rope").out;
  checkHeads("rope", t, heads, seqLen);
  requireIndex(self(), positions, "rope", "positions", t.shape[0] / seqLen);
  Tensor y = rope(x, heads, seqLen, base);
  self().nodes[y.id].inputs.push_back(positions.id);
  return y;
}

Tensor Graph::embedding(Tensor table, Tensor ids, int64_t firstRow) {
  const Node &t = self().at(table, "embedding");
  const Node &i = self().at(ids, "embedding");
  if (t.out.shape.size() != 2 || t.out.dtype == Scalar::I32)
    fail("embedding", "the table must be a matrix [rows, dim], got " + t.out.str());
  if (i.op != Op::Input || i.out.dtype != Scalar::I32)
    fail("embedding", "the ids must be an index input, got " + i.out.str());
  if (firstRow < 0 || firstRow > INT32_MAX)
    fail("embedding", "the first row " + std::to_string(firstRow) + " is no i32 id");
  Node node{Op::Embedding, {table.id, ids.id}, TensorInfo{t.out.dtype, {i.out.shape[0], t.out.shape[1]}}};
  node.firstRow = firstRow;
  return self().add(std::move(node));
}

Tensor Graph::allReduce(Tensor x) {
  const TensorInfo &t = self().at(x, "all_reduce").out;
  requireMatrix("all_reduce", "x", t);
  return self().add(Node{Op::AllReduce, {x.id}, t});
}

Tensor Graph::allGather(Tensor x, int ranks) {
  const TensorInfo &t = self().at(x, "all_gather").out;
  requireMatrix("all_gather", "x", t);
  if (ranks < 1 || ranks > kMaxRanks)
    fail("all_gather", std::to_string(ranks) + " ranks (1 to " + std::to_string(kMaxRanks) + ")");
  Node node{Op::AllGather, {x.id}, TensorInfo{t.dtype, {t.shape[0], t.shape[1] * ranks}}};
  node.ranks = ranks;
  return self().add(std::move(node));
}

Tensor Graph::appendKV(Tensor cache, Tensor x, Tensor positions, int seqLen) {
  const Node &c = self().at(cache, "append_kv");
  const TensorInfo &tx = self().at(x, "append_kv").out;
  requireMatrix("append_kv", "x", tx);
  if (c.op != Op::Input || c.out.shape.size() != 2 || c.out.shape[1] != tx.shape[1] || c.out.dtype != tx.dtype)
    fail("append_kv", "the cache must be an input [batch * max_context, " + std::to_string(tx.shape[1]) + "] of " +
                          scalarName(tx.dtype) + ", got " + c.out.str() + (c.op != Op::Input ? " (not an input)" : ""));
  if (seqLen <= 0 || tx.shape[0] % seqLen)
    fail("append_kv", "a sequence length of " + std::to_string(seqLen) + " does not divide the " +
                          std::to_string(tx.shape[0]) + " rows of " + tx.str());
  int64_t batch = tx.shape[0] / seqLen;
  if (c.out.shape[0] % batch)
    fail("append_kv", "the cache's " + std::to_string(c.out.shape[0]) + " rows are not " + std::to_string(batch) +
                          " sequences' worth");
  requireIndex(self(), positions, "append_kv", "positions", batch);
  Node node{Op::AppendKV, {cache.id, x.id, positions.id}, c.out};
  node.seqLen = seqLen;
  return self().add(std::move(node));
}

Tensor Graph::decodeAttention(Tensor q, Tensor kCache, Tensor vCache, Tensor lengths, int heads, int kvHeads, int splits) {
  const TensorInfo &tq = self().at(q, "decode_attention").out;
  requireMatrix("decode_attention", "q", tq);
  if (heads <= 0 || tq.shape[1] % heads)
    fail("decode_attention", std::to_string(heads) + " heads do not divide the " + std::to_string(tq.shape[1]) +
                                 " columns of " + tq.str());
  if (kvHeads <= 0 || heads % kvHeads)
    fail("decode_attention", std::to_string(kvHeads) + " key/value heads do not divide " + std::to_string(heads) + " heads");
  int64_t batch = tq.shape[0], headDim = tq.shape[1] / heads;
  for (Tensor cache : {kCache, vCache}) {
    const TensorInfo &t = self().at(cache, "decode_attention").out;
    if (t.shape.size() != 2 || t.shape[1] != kvHeads * headDim || t.shape[0] % batch || t.dtype != tq.dtype)
      fail("decode_attention", "the caches must be [batch * max_context, " + std::to_string(kvHeads * headDim) + "] of " +
                                   scalarName(tq.dtype) + ", got " + t.str());
  }
  if (self().at(kCache, "decode_attention").out.shape != self().at(vCache, "decode_attention").out.shape)
    fail("decode_attention", "the key and value caches differ in shape");
  requireIndex(self(), lengths, "decode_attention", "lengths", batch);
  if (splits < 0 || splits > 64)
    fail("decode_attention", "splits must be 0 to 64, not " + std::to_string(splits));
  Node node{Op::DecodeAttention, {q.id, kCache.id, vCache.id, lengths.id}, tq};
  node.heads = heads;
  node.kvHeads = kvHeads;
  node.seqLen = splits;
  return self().add(std::move(node));
}

Tensor Graph::attention(Tensor q, Tensor k, Tensor v, int heads, int seqLen, bool causal, int kvHeads) {
  const TensorInfo &tq = self().at(q, "attention").out;
  checkHeads("attention", tq, heads, seqLen);
  if (kvHeads == 0)
    kvHeads = heads;
  if (kvHeads < 0 || heads % kvHeads != 0)
    fail("attention", std::to_string(kvHeads) + " key/value heads do not divide the " + std::to_string(heads) +
                          " query heads");
  std::vector<int64_t> kvShape{tq.shape[0], tq.shape[1] / heads * kvHeads};
  for (Tensor other : {k, v}) {
    const TensorInfo &t = self().at(other, "attention").out;
    if (t.shape != kvShape || t.dtype != tq.dtype)
      fail("attention", "k and v must be " + TensorInfo{tq.dtype, kvShape}.str() + " (q " + tq.str() + ", " +
                            std::to_string(kvHeads) + " key/value heads), got " + t.str());
  }
  Node node{Op::Attention, {q.id, k.id, v.id}, tq};
  node.heads = heads;
  node.kvHeads = kvHeads;
  node.seqLen = seqLen;
  node.causal = causal;
  return self().add(std::move(node));
}

Tensor Graph::reshape(Tensor x, std::vector<int64_t> shape) {
  const TensorInfo &t = self().at(x, "reshape").out;
  if (shape.empty() || shape.size() > 2)
    fail("reshape", "cannot reshape " + t.str() + " into " + TensorInfo{t.dtype, shape}.str());
  int64_t count = 1, have = 1;
  for (int64_t d : shape) {
    if (d < 1 || d > kMaxDimension)
      fail("reshape", "cannot reshape " + t.str() + " into a dimension of " + std::to_string(d));
    count *= d; // at most two dimensions below 2^31: no overflow
  }
  for (int64_t d : t.shape)
    have *= d;
  if (shape.empty() || shape.size() > 2 || count != have)
    fail("reshape", "cannot reshape " + t.str() + " into " + TensorInfo{t.dtype, shape}.str());
  return self().add(Node{Op::Reshape, {x.id}, TensorInfo{t.dtype, std::move(shape)}});
}

std::vector<Tensor> Graph::split(Tensor x, std::vector<int64_t> sizes) {
  const TensorInfo t = self().at(x, "split").out; // a copy: adding nodes moves them
  requireMatrix("split", "x", t);
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 1 || s > t.shape[1])
      fail("split", "a part of " + std::to_string(s) + " columns of " + t.str());
    total += s; // at most 2^31 parts' worth before it passes the columns: no overflow
    if (total > t.shape[1])
      break;
  }
  if (sizes.empty() || total != t.shape[1])
    fail("split", "the sizes add up to " + std::to_string(total) + ", not the " + std::to_string(t.shape[1]) +
                      " columns of " + t.str());
  std::vector<Tensor> parts;
  int64_t column = 0;
  for (int64_t s : sizes) {
    Node node{Op::Split, {x.id}, TensorInfo{t.dtype, {t.shape[0], s}}};
    node.column = column;
    column += s;
    parts.push_back(self().add(std::move(node)));
  }
  return parts;
}

Tensor Graph::concat(std::vector<Tensor> parts) {
  if (parts.empty())
    fail("concat", "nothing to concatenate");
  const TensorInfo &first = self().at(parts[0], "concat").out;
  requireMatrix("concat", "parts", first);
  int64_t columns = 0;
  std::vector<int> ids;
  for (Tensor p : parts) {
    const TensorInfo &t = self().at(p, "concat").out;
    requireMatrix("concat", "parts", t);
    requireSameType("concat", first, t);
    if (t.shape[0] != first.shape[0])
      fail("concat", "row counts differ: " + first.str() + " and " + t.str());
    columns += t.shape[1];
    ids.push_back(p.id);
  }
  return self().add(Node{Op::Concat, ids, TensorInfo{first.dtype, {first.shape[0], columns}}});
}

Tensor Graph::transpose(Tensor x) {
  const TensorInfo &t = self().at(x, "transpose").out;
  requireMatrix("transpose", "x", t);
  return self().add(Node{Op::Transpose, {x.id}, TensorInfo{t.dtype, {t.shape[1], t.shape[0]}}});
}

} // namespace tk::graph
