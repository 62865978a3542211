// Fusion: which graph nodes become which kernel, and the memory plan.
//  1. A norm read only by matmuls with constant weights is folded into them: a row kernel
//     computes each row's rstd (and, for a LayerNorm, its mean), the matmuls read the norm's
//     input, multiply by diag(w) * W, made once from the weights, and apply the rstd in their
//     epilogue (a LayerNorm's centering too: rstd * (acc - mean * colsum(diag(w) W)) + b @ W).
//     An RMSNorm of at most 64 rows (a decode step's) has no row kernel: the matmuls compute
//     the rstd from the rows their K loop reads.
//  2. A matmul absorbs what follows it through single uses, in the epilogue's order: a scale,
//     a bias, an activation, a gate (a product with another tensor), a residual.
//  3. Elementwise ops fuse into trees: a node read once, by an elementwise op of its shape, is
//     computed inside that op's kernel (generated .tk source, f32 inside).
//  4. Splits (and reshapes of contiguous tensors) are views: kernels read strided rows; ropes of
//     adjacent column blocks of one tensor (a fused QKV's q and k) are one launch, and so are a
//     layer's key and value cache appends; those join the rope's launch when the keys are its
//     and the values the column block after them (intoRope).
//  5. Collectives (all-reduce, all-gather) are steps of their own on dense rows, never fused.
//  Buffers: every tensor that is no binding gets a planned slot, reused once it is dead.
#include "GraphImpl.h"

#include <algorithm>
#include <limits>
#include <set>
#include <sstream>

namespace tk::graph {

namespace {

struct Planner {
  const Graph::Impl &g;
  Plan plan;
  std::vector<std::vector<int>> users; // consumer nodes (one entry per operand use)
  std::set<int> outputs;
  std::vector<int> groupOf;            // node -> index of the step computing it, or -1, or kInMatmuls
  /// groupOf of a norm that no step of its own computes: its matmuls do (kRstdInMatmulRows).
  static constexpr int kInMatmuls = std::numeric_limits<int>::max();

  explicit Planner(const Graph::Impl &graph) : g(graph), users(graph.nodes.size()), groupOf(graph.nodes.size(), -1) {
    for (size_t n = 0; n < g.nodes.size(); ++n)
      for (int in : g.nodes[n].inputs)
        users[in].push_back(int(n));
    for (const auto &[id, name] : g.outputs) {
      outputs.insert(id);
      plan.bindingOf[id] = name;
    }
    for (size_t n = 0; n < g.nodes.size(); ++n)
      if (g.nodes[n].op == Op::Input || g.nodes[n].op == Op::Weight)
        plan.bindingOf[int(n)] = g.nodes[n].name;
    // A cache after its append lives in the cache's buffer (written by the append's step).
    for (size_t n = 0; n < g.nodes.size(); ++n)
      if (g.nodes[n].op == Op::AppendKV)
        plan.bindingOf[int(n)] = g.nodes[g.nodes[n].inputs[0]].name;
  }

  const Node &node(int n) const { return g.nodes[n]; }
  bool singleUse(int n) const { return users[n].size() == 1 && !outputs.count(n); }
  int64_t columns(int n) const { return node(n).out.shape.back(); }

  /// Views: splits and reshapes of contiguous tensors; everything else is its own storage.
  void resolvePlaces() {
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const Node &nd = node(int(n));
      Operand self{int(n), nd.out.shape.size() == 2 ? nd.out.shape[1] : 0, 0};
      if (nd.op == Op::Split && !outputs.count(int(n))) {
        Operand base = plan.at[nd.inputs[0]];
        self = Operand{base.tensor, base.rowStride, base.column + nd.column};
      } else if (nd.op == Op::Reshape && !outputs.count(int(n))) {
        Operand base = plan.at[nd.inputs[0]];
        const TensorInfo &in = node(nd.inputs[0]).out;
        bool contiguous = base.column == 0 && (in.shape.size() == 1 || base.rowStride == in.shape[1]);
        if (contiguous)
          self = Operand{base.tensor, nd.out.shape.size() == 2 ? nd.out.shape[1] : 0, 0};
      }
      plan.at[int(n)] = self;
    }
  }
  bool isView(int n) const { return plan.at.at(n).tensor != n; }

  int newStep(Step step) {
    plan.steps.push_back(std::move(step));
    int index = int(plan.steps.size() - 1);
    for (int n : plan.steps.back().nodes)
      if (groupOf[n] < 0)
        groupOf[n] = index;
    return index;
  }

  Operand place(int n) const { return plan.at.at(n); }
  /// A vector read as a row of a matrix: stride 0.
  Operand rowOf(int n) const { return Operand{place(n).tensor, 0, place(n).column}; }

  /// Whether a view (a split or reshape, resolved before ropes merge) reads `n`'s storage: it
  /// would keep reading the rope's own tensor, which a merged launch no longer writes.
  bool viewed(int n) const {
    for (size_t v = 0; v < g.nodes.size(); ++v)
      if (int(v) != n && plan.at.at(int(v)).tensor == n)
        return true;
    return false;
  }

  /// Ropes of adjacent column blocks of one tensor with the same sequence length, head size and
  /// base become one launch over both blocks; each rope is then a column block of its output.
  void mergeRopes() {
    for (size_t a = 0; a < g.nodes.size(); ++a)
      for (size_t b = a + 1; b < g.nodes.size(); ++b) {
        const Node &ra = node(int(a)), &rb = node(int(b));
        if (ra.op != Op::Rope || rb.op != Op::Rope || groupOf[a] >= 0 || groupOf[b] >= 0 || outputs.count(int(a)) ||
            outputs.count(int(b)) || viewed(int(a)) || viewed(int(b)))
          continue;
        Operand pa = place(ra.inputs[0]), pb = place(rb.inputs[0]);
        int64_t wa = columns(ra.inputs[0]), wb = columns(rb.inputs[0]);
        if (pa.tensor != pb.tensor || pa.rowStride != pb.rowStride || pb.column != pa.column + wa ||
            ra.seqLen != rb.seqLen || ra.value != rb.value || wa / ra.heads != wb / rb.heads ||
            ra.inputs.size() != rb.inputs.size() || (ra.inputs.size() > 1 && ra.inputs[1] != rb.inputs[1]))
          continue;
        int merged = newExtra(TensorInfo{ra.out.dtype, {ra.out.shape[0], wa + wb}});
        Step step{StepKind::Rope};
        step.nodes = {int(a), int(b)};
        step.out = merged;
        step.in = {pa};
        if (ra.inputs.size() > 1)
          step.in.push_back(place(ra.inputs[1])); // the positions
        step.heads = ra.heads + rb.heads;
        newStep(std::move(step));
        plan.at[int(a)] = Operand{merged, wa + wb, 0};
        plan.at[int(b)] = Operand{merged, wa + wb, wa};
      }
  }

  /// Whether `target` is among n's inputs, transitively (n itself included), where a node
  /// merged into one launch with another (appendPartner) needs that one's inputs too.
  bool dependsOn(int n, int target) const {
    std::vector<int> stack{n};
    std::set<int> seen;
    while (!stack.empty()) {
      int at = stack.back();
      stack.pop_back();
      if (at == target)
        return true;
      if (!seen.insert(at).second)
        continue;
      for (int in : node(at).inputs)
        stack.push_back(in);
      if (auto partner = appendPartner.find(at); partner != appendPartner.end())
        stack.push_back(partner->second);
    }
    return false;
  }
  std::map<int, int> appendPartner; // mergeAppends' pairs, both ways

  /// A layer's key and value appends (same positions, sequence length and widths) become one
  /// launch writing both caches: out is the first cache, out2 the second.
  void mergeAppends() {
    for (size_t a = 0; a < g.nodes.size(); ++a)
      for (size_t b = a + 1; b < g.nodes.size(); ++b) {
        const Node &ka = node(int(a)), &kb = node(int(b));
        if (ka.op != Op::AppendKV || kb.op != Op::AppendKV || groupOf[a] >= 0 || groupOf[b] >= 0 ||
            outputs.count(int(a)) || outputs.count(int(b)) || ka.inputs[2] != kb.inputs[2] || ka.seqLen != kb.seqLen ||
            ka.out.shape != kb.out.shape || columns(ka.inputs[1]) != columns(kb.inputs[1]) ||
            dependsOn(kb.inputs[1], int(a)) || dependsOn(ka.inputs[1], int(b)))
          continue; // (a launch whose rows need its own caches, or another merged pair's that need its, would wait on itself)
        if (intoRope(int(a), int(b)))
          continue;
        appendPartner[int(a)] = int(b);
        appendPartner[int(b)] = int(a);
        Step step{StepKind::AppendKV};
        step.nodes = {int(a), int(b)};
        step.out = int(a);
        step.out2 = int(b);
        step.in = {place(ka.inputs[1]), place(ka.inputs[2]), place(kb.inputs[1])};
        newStep(std::move(step));
      }
  }

  /// A key and value append pair whose keys are the last heads of a rope step (mergeRopes' q and
  /// k) and whose values are the column block right after the rope's input, at the same positions
  /// (a fused QKV's v): the rope's launch appends them (rope.tk's APPEND), one kernel fewer.
  bool intoRope(int keys, int values) {
    const Node &ka = node(keys), &kb = node(values);
    int r = groupOf[ka.inputs[1]];
    if (r < 0 || r == kInMatmuls)
      return false;
    Step &rope = plan.steps[size_t(r)];
    if (rope.kind != StepKind::Rope || rope.keyCache >= 0 || rope.nodes.back() != ka.inputs[1] || rope.in.size() < 2)
      return false;
    const Node &keyRope = node(ka.inputs[1]);
    int64_t headDim = columns(keyRope.inputs[0]) / keyRope.heads;
    Operand v = place(kb.inputs[1]), x = rope.in[0];
    if (node(rope.nodes[0]).inputs[1] != ka.inputs[2] || keyRope.seqLen != ka.seqLen || v.tensor != x.tensor ||
        v.rowStride != x.rowStride || v.column != x.column + rope.heads * headDim)
      return false;
    rope.keyCache = keys;
    rope.valueCache = values;
    rope.nodes.push_back(keys);
    rope.nodes.push_back(values);
    groupOf[keys] = groupOf[values] = r;
    return true;
  }

  /// A folded RMSNorm of at most this many rows has its rstd computed by the matmuls.
  static constexpr int64_t kRstdInMatmulRows = 64;
  struct Folded {
    int rstd = -1, mean = -1, norm = -1; // rstd -1: computed in the matmul
  };

  int newExtra(TensorInfo info) {
    plan.extra.push_back(std::move(info));
    return int(g.nodes.size() + plan.extra.size() - 1);
  }

  void foldNorms(std::map<int, Folded> &folded /* by consumer matmul */) {
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const Node &norm = node(int(n));
      if ((norm.op != Op::RmsNorm && norm.op != Op::LayerNorm) || outputs.count(int(n)) || users[n].empty())
        continue;
      bool foldable = true, intoQuantize = norm.op == Op::RmsNorm;
      for (int u : users[n]) {
        foldable &= node(u).op == Op::MatMul && !node(u).fp8 && node(u).inputs[0] == int(n) &&
                    node(u).inputs[1] != int(n) && node(node(u).inputs[1]).op == Op::Weight && !isView(node(u).inputs[1]);
        // (A weight-only FP8 matmul reads the norm's rows as a launch of their own writes them.)
        intoQuantize &= node(u).op == Op::MatMul && node(u).fp8 && node(u).inputs[0] == int(n) && !weightOnlyFp8(u);
      }
      if (intoQuantize) {
        // FP8 matmuls quantize their input's rows anyway: the norm is computed there.
        for (int u : users[n])
          quantizeNorm[u] = int(n);
        groupOf[n] = kInMatmuls;
        continue;
      }
      if (!foldable)
        continue;
      bool layer = norm.op == Op::LayerNorm;
      // (The matmul tells its rstd mode by RSTD_EPS > 0 in f32: an eps that is not stays with
      // the row kernel.)
      if (!layer && norm.out.shape[0] <= kRstdInMatmulRows && float(norm.value) > 0) {
        // Decode's few rows: each matmul reading the norm computes the rstd in its K loop,
        // from the rows it loads anyway, instead of a launch of its own.
        for (int u : users[n])
          folded[u] = Folded{-1, -1, int(n)};
        groupOf[n] = kInMatmuls;
        continue;
      }
      int rstd = newExtra(TensorInfo{Scalar::F32, {norm.out.shape[0]}});
      int mean = layer ? newExtra(TensorInfo{Scalar::F32, {norm.out.shape[0]}}) : -1;
      Step step{layer ? StepKind::RowMoments : StepKind::RowRstd};
      step.nodes = {int(n)};
      step.out = rstd;
      step.out2 = mean;
      step.outAt = Operand{rstd, 0, 0};
      step.in = {contiguous(norm.inputs[0])};
      step.eps = norm.value;
      newStep(std::move(step));
      for (int u : users[n])
        folded[u] = Folded{rstd, mean, int(n)};
    }
  }

  /// FP8 matmuls whose input is an RMSNorm computed by their quantization (foldNorms).
  std::map<int, int> quantizeNorm; // matmul -> norm
  /// The row-quantized (e4m3, per-row scales) copies of FP8 matmuls' inputs, one per source
  /// node (a norm folded in, or the input itself): (rows, scales) extra tensors.
  std::map<int, std::pair<int, int>> quantized;

  /// FP8 matmuls of at most this many rows (decode's) run weight-only (fp8_gemv): their bf16 rows
  /// as they are, with no quantization launch; fp8_gemv takes 8 rows a program (one n8 MMA tile),
  /// fp8_gemv_row a single row (batch 1: faster there on the H200).
  static constexpr int64_t kWeightOnlyFp8Rows = 8;
  bool weightOnlyFp8(int matmul) const { return node(matmul).out.shape[0] <= kWeightOnlyFp8Rows; }

  /// The QuantizeRows step of an FP8 matmul's input, made once per source.
  std::pair<int, int> quantizeInput(int matmul) {
    const Node &mm = node(matmul);
    auto norm = quantizeNorm.find(matmul);
    int source = norm != quantizeNorm.end() ? norm->second : mm.inputs[0];
    if (auto it = quantized.find(source); it != quantized.end())
      return it->second;
    const TensorInfo &x = node(source).out;
    int rows = newExtra(TensorInfo{Scalar::F8E4M3, x.shape}), scales = newExtra(TensorInfo{Scalar::F32, {x.shape[0]}});
    Step step{StepKind::QuantizeRows};
    step.nodes = {source};
    step.out = rows;
    step.out2 = scales;
    if (norm != quantizeNorm.end()) {
      step.in = {contiguous(node(source).inputs[0]), rowOf(node(source).inputs[1])};
      step.eps = node(source).value;
    } else {
      step.in = {contiguous(source)};
    }
    // (Not newStep: the source is computed by its own step, or, a norm, by none.)
    plan.steps.push_back(std::move(step));
    return quantized[source] = {rows, scales};
  }

  void matmulGroups(const std::map<int, Folded> &folded) {
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      if (node(int(n)).op != Op::MatMul)
        continue;
      const Node &mm = node(int(n));
      Step step{StepKind::MatMul};
      step.nodes = {int(n)};
      Operand a, b = contiguous(mm.inputs[1]);
      auto fold = folded.find(int(n));
      Operand rowScale, rowShift;
      if (mm.fp8 && weightOnlyFp8(int(n))) {
        // Decode's few rows: a as it is times the FP8 weight, no quantization; the weight's
        // scales ride in row shift's place.
        step.fp8 = step.weightOnly = true;
        step.oneRow = mm.out.shape[0] == 1;
        a = contiguous(mm.inputs[0]);
        rowShift = rowOf(mm.inputs[2]);
      } else if (mm.fp8) {
        // a's FP8 rows and their scales; the weight's per-channel scales ride in row shift's place.
        auto [rows, scales] = quantizeInput(int(n));
        step.fp8 = true;
        a = Operand{rows, columns(mm.inputs[0]), 0};
        rowScale = Operand{scales, 0, 0};
        rowShift = rowOf(mm.inputs[2]);
      } else {
        a = contiguous(mm.inputs[0]);
      }
      if (fold != folded.end()) {
        const Node &norm = node(fold->second.norm);
        a = contiguous(norm.inputs[0]);
        step.rowScale = true;
        step.foldedNormWeight = norm.inputs[1];
        if (fold->second.rstd >= 0)
          rowScale = Operand{fold->second.rstd, 0, 0};
        else
          step.eps = norm.value;
        if (norm.op == Op::LayerNorm) {
          step.center = true;
          step.foldedNormBias = norm.inputs[2];
          rowShift = Operand{fold->second.mean, 0, 0};
        }
      }
      Operand bias, residual, gate;
      int cur = int(n);
      while (singleUse(cur)) {
        int u = users[cur][0];
        const Node &user = node(u);
        int other = user.inputs.size() == 2 ? (user.inputs[0] == cur ? user.inputs[1] : user.inputs[0]) : -1;
        // What the epilogue reads must not depend on this matmul: made from earlier nodes only.
        if (groupOf[u] >= 0 || other >= int(n))
          break;
        bool untouched = !step.bias && step.act == 0 && !step.gate && !step.residual;
        if (user.op == Op::Scale && untouched && !step.fp8) { // (fp8_matmul has no SCALE)
          step.factor *= user.value;
        } else if (user.op == Op::Add && other != cur && node(other).out.shape.size() == 1 && untouched &&
                   place(other).column == 0) {
          step.bias = true;
          bias = rowOf(other);
        } else if ((user.op == Op::Silu || user.op == Op::Gelu) && step.act == 0 && !step.gate && !step.residual) {
          step.act = user.op == Op::Silu ? 1 : 2;
        } else if (user.op == Op::Mul && other != cur && node(other).out.shape.size() == 2 && !step.gate &&
                   !step.residual && place(other).column == 0) {
          step.gate = true;
          gate = place(other);
        } else if (user.op == Op::Add && other != cur && node(other).out.shape.size() == 2 && !step.residual &&
                   place(other).column == 0) {
          step.residual = true;
          residual = place(other);
        } else {
          break;
        }
        step.nodes.push_back(u);
        cur = u;
      }
      step.out = cur;
      step.in = {a, b, bias, residual, gate, rowScale, rowShift};
      newStep(std::move(step));
    }
  }

  /// An RMSNorm read only by single-row weight-only FP8 matmuls (a batch-1 decode step's
  /// fp8_gemv_row) whose input another such matmul computes in full (the residual stream after
  /// an attention or MLP block): that matmul's epilogue also writes its output times the norm's
  /// weight, by column (out2), which the norm's matmuls read as their rows, scaling their sums
  /// by the rstd they compute from the norm's input in their K loop. No launch for the norm.
  void normsIntoGemvRows() {
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const Node &norm = node(int(n));
      if (norm.op != Op::RmsNorm || groupOf[n] >= 0 || outputs.count(int(n)) || users[n].empty() ||
          !(float(norm.value) > 0))
        continue;
      // (The weight is a binding, no step's output: the producer reads it outside `in`.)
      if (Op weight = node(norm.inputs[1]).op; weight != Op::Weight && weight != Op::Input)
        continue;
      int x = norm.inputs[0], producer = groupOf[x];
      if (producer < 0 || producer == kInMatmuls || isView(x))
        continue;
      Step &p = plan.steps[size_t(producer)];
      if (p.kind != StepKind::MatMul || !p.oneRow || p.out != x || p.out2 >= 0)
        continue;
      bool readers = true;
      for (int u : users[n]) {
        int r = groupOf[u];
        readers &= node(u).op == Op::MatMul && node(u).inputs[0] == int(n) && node(u).inputs[1] != int(n) &&
                   r >= 0 && r != kInMatmuls && plan.steps[size_t(r)].oneRow && plan.steps[size_t(r)].nodes[0] == u &&
                   plan.steps[size_t(r)].eps == 0;
      }
      if (!readers)
        continue;
      int scaled = newExtra(node(x).out);
      p.out2 = scaled;
      p.normOutWeight = norm.inputs[1];
      for (int u : users[n]) {
        Step &reader = plan.steps[size_t(groupOf[u])];
        reader.in[0] = Operand{scaled, columns(x), 0};
        reader.in.resize(8);
        reader.in[7] = place(x);
        reader.rowScale = true;
        reader.eps = norm.value;
      }
      groupOf[n] = kInMatmuls;
    }
  }

  /// Elementwise trees, built from their roots (the last node) backwards.
  /// The most elementwise ops one kernel fuses: more would make one straight-line kernel as long
  /// as the graph (slow to compile, registers spilled) for no fewer bytes moved per op.
  static constexpr size_t kMaxFusedOps = 64;

  void elementwiseGroups() {
    for (int root = int(g.nodes.size()) - 1; root >= 0; --root) {
      if (!isElementwise(node(root).op) || groupOf[root] >= 0)
        continue;
      // Gathered without recursion (a chain of 150,000 ops overflowed the stack), at most
      // kMaxFusedOps a kernel: the inputs left out are the roots of kernels of their own.
      std::vector<int> members, pending{root};
      std::set<int> seen{root};
      while (!pending.empty() && members.size() < kMaxFusedOps) {
        int n = pending.back();
        pending.pop_back();
        members.push_back(n);
        for (int in : node(n).inputs)
          if (isElementwise(node(in).op) && groupOf[in] < 0 && singleUse(in) && node(in).out.shape == node(n).out.shape &&
              seen.insert(in).second)
            pending.push_back(in);
      }
      std::sort(members.begin(), members.end());
      Step step{StepKind::Elementwise};
      step.nodes = members;
      step.out = root;
      newStep(std::move(step));
      generateElementwise(plan.steps.back());
    }
  }

  /// An elementwise kernel over the rows of a matrix: program (row, block of columns), each input
  /// k read at row stride s<k> from column c<k>, `body` computing `result`, stored at (so, co).
  static std::string rowKernel(const std::string &name, const char *type, int inputs, const std::string &body,
                               const std::string &result) {
    std::ostringstream source;
    source << "import \"std/math.tk\";\n\nkernel " << name << "(";
    for (int k = 0; k < inputs; ++k)
      source << "in" << k << ": ptr<" << type << ">, ";
    source << "out: ptr<" << type << ">, rows: i32, cols: i32, ";
    for (int k = 0; k < inputs; ++k)
      source << "s" << k << ": i32, c" << k << ": i32, ";
    source << "so: i32, co: i32, const BLOCK: i32 = 1024) {\n    let r = program_id(0);\n"
           << "    let c = program_id(1) * BLOCK + arange(0, BLOCK);\n    let m = c < cols;\n"
           << body << "    store(out + r * so + co + c, " << result << " as " << type << ", mask = m);\n}\n";
    return source.str();
  }

  /// The kernel of an elementwise tree: each input loaded once (a vector as a row), each node
  /// one line in f32, the root stored.
  void generateElementwise(Step &step) {
    const char *type = scalarName(node(step.out).out.dtype);
    std::map<int, std::string> value;
    std::ostringstream body;
    int inputs = 0;
    auto operand = [&](int n) -> std::string {
      if (auto it = value.find(n); it != value.end())
        return it->second;
      std::string name = "v" + std::to_string(inputs);
      Operand where = node(n).out.shape.size() == 1 ? rowOf(n) : place(n);
      step.in.push_back(where);
      body << "    let " << name << " = load(in" << inputs << " + r * s" << inputs << " + c" << inputs
           << " + c, mask = m, other = 0.0) as f32;\n";
      ++inputs;
      return value[n] = name;
    };
    for (int n : step.nodes) {
      const Node &nd = node(n);
      std::vector<std::string> args;
      for (int in : nd.inputs)
        args.push_back(operand(in));
      std::string expr;
      char factor[40];
      std::snprintf(factor, sizeof(factor), "%.17g", nd.value);
      switch (nd.op) {
      case Op::Add: expr = args[0] + " + " + args[1]; break;
      case Op::Mul: expr = args[0] + " * " + args[1]; break;
      case Op::Silu: expr = "silu(" + args[0] + ")"; break;
      case Op::Gelu: expr = "gelu(" + args[0] + ")"; break;
      default: expr = args[0] + " * (" + std::string(factor) + " as f32)"; break;
      }
      std::string name = "t" + std::to_string(n);
      body << "    let " << name << " = " << expr << ";\n";
      value[n] = name;
    }
    step.kernel = "fused_" + std::to_string(step.out);
    step.source = rowKernel(step.kernel, type, inputs, body.str(), value[step.out]);
  }

  /// Where kernels that take no first column read `n`: its place, or a copy (made once) when
  /// it is a column block of another tensor.
  std::map<int, int> copies;
  Operand contiguous(int n) { return place(n).column == 0 ? place(n) : copyOf(n); }
  /// Where collectives read `n`: its rows back to back (a copy when it is a view of a wider tensor).
  Operand dense(int n) { return place(n).column == 0 && place(n).rowStride == columns(n) ? place(n) : copyOf(n); }
  Operand copyOf(int n) {
    if (!copies.count(n)) {
      int copy = newExtra(node(n).out);
      copyStep(n, copy, 0, n);
      copies[n] = copy;
    }
    return Operand{copies[n], columns(n), 0};
  }

  /// A copy of a tensor into a column block of another (concat's parts, an output that is a
  /// view): an elementwise kernel of one input.
  void copyStep(int from, int to, int64_t column, int node) { copyStep(place(from), columns(from), to, column, node); }
  /// The same from any place: `columns` columns of rows `from.rowStride` apart, from its first column
  /// (an all-gather's rank-major rows: rank k's block starts at "column" k * rows * cols).
  void copyStep(Operand from, int64_t columns, int to, int64_t column, int node) {
    const char *type = scalarName(plan.info(g, to).dtype);
    Step step{StepKind::Elementwise};
    step.nodes = {node};
    step.out = to;
    step.kernel = "copy_" + std::to_string(to) + "_" + std::to_string(column);
    step.source = rowKernel(step.kernel, type, 1, "    let v0 = load(in0 + r * s0 + c0 + c, mask = m, other = 0.0);\n", "v0");
    step.in = {from};
    step.outAt = Operand{to, plan.info(g, to).shape.back(), column};
    step.columns = columns;
    newStep(std::move(step));
  }

  void otherSteps() {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      int n = int(i);
      const Node &nd = node(n);
      if (groupOf[n] >= 0 || nd.op == Op::Input || nd.op == Op::Weight)
        continue;
      if (isView(n)) {
        if (outputs.count(n))
          copyStep(n, n, 0, n);
        continue;
      }
      Step step{StepKind::Elementwise};
      step.nodes = {n};
      step.out = n;
      switch (nd.op) {
      case Op::RmsNorm:
        step.kind = StepKind::RmsNorm;
        step.in = {contiguous(nd.inputs[0]), rowOf(nd.inputs[1])};
        step.eps = nd.value;
        break;
      case Op::LayerNorm:
        step.kind = StepKind::LayerNorm;
        step.in = {contiguous(nd.inputs[0]), rowOf(nd.inputs[1]), rowOf(nd.inputs[2])};
        step.eps = nd.value;
        break;
      case Op::Softmax: step.kind = StepKind::Softmax; step.in = {contiguous(nd.inputs[0])}; break;
      case Op::Rope:
        step.kind = StepKind::Rope;
        step.in = {place(nd.inputs[0])};
        if (nd.inputs.size() > 1)
          step.in.push_back(place(nd.inputs[1])); // the positions
        step.heads = nd.heads;
        break;
      case Op::Attention:
        step.kind = StepKind::Attention;
        step.in = {place(nd.inputs[0]), place(nd.inputs[1]), place(nd.inputs[2])};
        break;
      case Op::Transpose: step.kind = StepKind::Transpose; step.in = {place(nd.inputs[0])}; break;
      case Op::Embedding:
        step.kind = StepKind::Embedding;
        step.in = {contiguous(nd.inputs[0]), place(nd.inputs[1])}; // rows at their stride, from column 0
        break;
      case Op::AppendKV:
        step.kind = StepKind::AppendKV;
        step.in = {place(nd.inputs[1]), place(nd.inputs[2])};
        break;
      case Op::DecodeAttention: {
        // The split kernel's partial outputs and (max, sum) pairs, f32, then the combine.
        int64_t batch = nd.out.shape[0], headDim = nd.out.shape[1] / nd.heads;
        int64_t splits = nd.seqLen ? nd.seqLen : 16;
        Step split{StepKind::DecodeSplit};
        split.nodes = {n};
        split.out = newExtra(TensorInfo{Scalar::F32, {batch * nd.heads * splits, headDim}});
        split.out2 = newExtra(TensorInfo{Scalar::F32, {batch * nd.heads * splits, 2}});
        split.in = {place(nd.inputs[0]), place(nd.inputs[1]), place(nd.inputs[2]), place(nd.inputs[3])};
        split.heads = int(splits);
        step.kind = StepKind::DecodeCombine;
        step.in = {Operand{split.out, headDim, 0}, Operand{split.out2, 2, 0}};
        step.heads = int(splits);
        newStep(std::move(split));
        break;
      }
      case Op::AllReduce:
        step.kind = StepKind::AllReduce;
        step.in = {dense(nd.inputs[0])};
        break;
      case Op::AllGather: {
        // The communicator gathers whole buffers, rank after rank ([ranks * rows, cols]); a copy
        // per rank puts its rows into its column block (none at one row: a decode step's logits).
        int64_t rows = nd.out.shape[0], cols = columns(nd.inputs[0]);
        Step gather{StepKind::AllGather};
        gather.nodes = {n};
        gather.in = {dense(nd.inputs[0])};
        if (rows == 1) { // (one row a rank: rank-major rows are the column blocks already)
          gather.out = n;
          newStep(std::move(gather));
          continue;
        }
        gather.out = newExtra(TensorInfo{nd.out.dtype, {nd.ranks * rows, cols}});
        int gathered = gather.out;
        newStep(std::move(gather));
        for (int k = 0; k < nd.ranks; ++k)
          copyStep(Operand{gathered, cols, k * rows * cols}, cols, n, k * cols, n);
        continue;
      }
      case Op::Reshape: { // an output, or of a column block: copied in the elements' order
        // The input's storage read as rows of the output's width; a column block of a wider
        // tensor first copied into storage of its own.
        Operand from = place(nd.inputs[0]);
        const TensorInfo &in = node(nd.inputs[0]).out;
        if (from.column != 0 || (in.shape.size() == 2 && from.rowStride != in.shape[1])) {
          int dense = newExtra(in);
          copyStep(from, columns(nd.inputs[0]), dense, 0, n);
          from = Operand{dense, columns(nd.inputs[0]), 0};
        }
        copyStep(Operand{from.tensor, columns(n), 0}, columns(n), n, 0, n);
        continue;
      }
      case Op::Concat: {
        int64_t column = 0;
        for (int part : nd.inputs) {
          copyStep(part, n, column, n);
          column += columns(part);
        }
        continue;
      }
      default: continue;
      }
      newStep(std::move(step));
    }
  }

  /// The steps in an order that respects their inputs (each after the steps writing what it
  /// reads), then slots for every tensor that is no binding, reused once dead.
  void order() {
    std::vector<Step> steps = std::move(plan.steps);
    std::vector<bool> done(steps.size());
    std::set<int> written;
    for (const auto &[id, name] : plan.bindingOf)
      if (!outputs.count(id) && !(size_t(id) < g.nodes.size() && node(id).op == Op::AppendKV))
        written.insert(id);
    plan.steps.clear();
    while (plan.steps.size() < steps.size()) {
      bool progressed = false;
      for (size_t s = 0; s < steps.size(); ++s) {
        if (done[s])
          continue;
        bool ready = true;
        for (const Operand &o : steps[s].in)
          ready &= o.tensor < 0 || written.count(o.tensor);
        if (!ready)
          continue;
        done[s] = true;
        progressed = true;
        plan.steps.push_back(steps[s]);
        // A tensor is written when its last writer ran (concat's parts write one tensor).
        bool more = false;
        for (size_t t = 0; t < steps.size(); ++t)
          more |= !done[t] && steps[t].out == steps[s].out;
        if (!more)
          written.insert(steps[s].out);
        for (int also : {steps[s].out2, steps[s].keyCache, steps[s].valueCache})
          if (also >= 0)
            written.insert(also);
      }
      if (!progressed) {
        std::string waiting;
        for (size_t s = 0; s < steps.size(); ++s)
          if (!done[s]) {
            waiting += "\n  " + steps[s].describe(g) + " writing " + std::to_string(steps[s].out) + " reads";
            for (const Operand &o : steps[s].in)
              waiting += " " + std::to_string(o.tensor);
          }
        throw Error("graph: internal error: these fused steps wait on each other:" + waiting);
      }
    }
    for (Step &step : plan.steps)
      if (step.outAt.tensor < 0)
        step.outAt = Operand{step.out, plan.info(g, step.out).shape.size() == 2 ? plan.info(g, step.out).shape[1] : 0, 0};
  }

  /// GraphOptions::gemvChains: the runs [first, end) of two to kGemvChainLength fp8_gemv_row
  /// steps that follow each other, each to become one GemvChain step (mergeGemvChains).
  std::vector<std::pair<size_t, size_t>> chains;

  void findGemvChains() {
    auto chainable = [&](size_t s) { return plan.steps[s].kind == StepKind::MatMul && plan.steps[s].oneRow; };
    for (size_t first = 0; first < plan.steps.size();) {
      size_t end = first;
      while (end < plan.steps.size() && chainable(end) && end - first < kGemvChainLength)
        ++end;
      if (end - first >= 2)
        chains.emplace_back(first, end);
      first = std::max(end, first + 1);
    }
  }

  /// One step for each run of findGemvChains, after assignSlots.
  void mergeGemvChains() {
    for (auto run = chains.rbegin(); run != chains.rend(); ++run) {
      auto first = plan.steps.begin() + std::ptrdiff_t(run->first), end = plan.steps.begin() + std::ptrdiff_t(run->second);
      Step merged;
      merged.kind = StepKind::GemvChain;
      merged.chain.assign(first, end);
      for (const Step &part : merged.chain) {
        merged.nodes.insert(merged.nodes.end(), part.nodes.begin(), part.nodes.end());
        merged.in.insert(merged.in.end(), part.in.begin(), part.in.end());
      }
      merged.out = merged.chain.back().out;
      merged.out2 = merged.chain.back().out2;
      merged.outAt = merged.chain.back().outAt;
      *first = std::move(merged);
      plan.steps.erase(first + 1, end);
    }
  }

  void assignSlots() {
    std::map<int, size_t> lastUse;
    for (size_t s = 0; s < plan.steps.size(); ++s)
      for (const Operand &o : plan.steps[s].in)
        if (o.tensor >= 0)
          lastUse[o.tensor] = s;
    // A chain's kernel may run again on the same buffers (the autotuner's timed runs, a
    // profile): what any of its GEMVs reads stays in its slot until the chain's end, so that no
    // later GEMV of it writes there and every run reads the same inputs.
    for (auto [first, end] : chains)
      for (auto &[tensor, last] : lastUse)
        if (last >= first && last < end)
          last = end - 1;
    std::vector<bool> busy;
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      for (int out : {plan.steps[s].out, plan.steps[s].out2}) {
        if (out < 0 || plan.bindingOf.count(out) || plan.slotOf.count(out))
          continue;
        const TensorInfo &info = plan.info(g, out);
        int64_t count = 1;
        for (int64_t d : info.shape)
          count *= d;
        int chosen = -1;
        for (size_t k = 0; k < plan.slots.size(); ++k)
          if (!busy[k] && plan.slots[k].dtype == info.dtype && plan.slots[k].count >= count &&
              (chosen < 0 || plan.slots[k].count < plan.slots[chosen].count))
            chosen = int(k);
        if (chosen < 0) {
          plan.slots.push_back(Slot{info.dtype, count});
          busy.push_back(false);
          chosen = int(plan.slots.size() - 1);
        }
        busy[chosen] = true;
        plan.slotOf[out] = chosen;
      }
      int out = plan.steps[s].out, out2 = plan.steps[s].out2;
      for (const auto &[tensor, last] : lastUse)
        if (last == s && plan.slotOf.count(tensor) && tensor != out && tensor != out2)
          busy[plan.slotOf[tensor]] = false;
    }
  }
};

} // namespace

Plan planGraph(const Graph::Impl &graph, bool gemvChains) {
  if (graph.outputs.empty())
    throw Error("graph: nothing to compute: no output() was named");
  Planner planner(graph);
  planner.resolvePlaces();
  planner.mergeRopes();
  planner.mergeAppends();
  std::map<int, Planner::Folded> folded;
  planner.foldNorms(folded);
  planner.matmulGroups(folded);
  planner.normsIntoGemvRows();
  planner.elementwiseGroups();
  planner.otherSteps();
  planner.order();
  if (gemvChains)
    planner.findGemvChains();
  planner.assignSlots();
  planner.mergeGemvChains();
  return std::move(planner.plan);
}

std::string Step::describe(const Graph::Impl &graph) const {
  std::string text;
  switch (kind) {
  case StepKind::MatMul: {
    text = oneRow ? "fp8_gemv_row" : weightOnly ? "fp8_gemv" : fp8 ? "fp8_matmul" : "matmul_epilogue";
    std::vector<std::string> parts;
    if (rowScale) parts.push_back(center ? "layernorm folded in" : eps > 0 ? "rmsnorm and its rstd folded in" : "rmsnorm folded in");
    if (factor != 1) parts.push_back("scale");
    if (bias) parts.push_back("bias");
    if (act) parts.push_back(act == 1 ? "silu" : "gelu");
    if (gate) parts.push_back("gate");
    if (residual) parts.push_back("residual");
    if (normOutWeight >= 0) parts.push_back("times the next rmsnorm's weight");
    for (size_t k = 0; k < parts.size(); ++k)
      text += (k ? ", " : " (") + parts[k] + (k + 1 == parts.size() ? ")" : "");
    return text;
  }
  case StepKind::GemvChain: {
    text = "fp8_gemv_chain (" + std::to_string(chain.size()) + " GEMVs in one persistent launch: ";
    for (size_t k = 0; k < chain.size(); ++k)
      text += (k ? "; " : "") + chain[k].describe(graph);
    return text + ")";
  }
  case StepKind::QuantizeRows: return in.size() > 1 ? "quantize_rows (e4m3, an rmsnorm folded in)" : "quantize_rows (e4m3)";
  case StepKind::RowRstd: return "row_rstd (of an rmsnorm folded into its matmuls)";
  case StepKind::RowMoments: return "row_moments (of a layernorm folded into its matmuls)";
  case StepKind::Elementwise: {
    text = kernel + " (";
    for (size_t k = 0; k < nodes.size(); ++k)
      text += (k ? ", " : "") + std::string(opName(graph.nodes[nodes[k]].op));
    return text + ")";
  }
  case StepKind::RmsNorm: return "rmsnorm";
  case StepKind::LayerNorm: return "layernorm";
  case StepKind::Softmax: return "softmax";
  case StepKind::Rope: {
    size_t ropes = nodes.size() - (keyCache >= 0 ? 2 : 0);
    text = ropes > 1 ? "rope (of " + std::to_string(ropes) + " column blocks at once" : "rope (";
    if (keyCache >= 0)
      text += std::string(ropes > 1 ? ", " : "") + "keys and values appended";
    return text == "rope (" ? "rope" : text + ")";
  }
  case StepKind::Attention: return graph.nodes[nodes[0]].causal ? "attention (causal)" : "attention";
  case StepKind::Transpose: return "transpose";
  case StepKind::AppendKV: return nodes.size() > 1 ? "kv_append (keys and values at once)" : "kv_append";
  case StepKind::Embedding: return "embedding";
  case StepKind::DecodeSplit: return "decode_attention_split (" + std::to_string(heads) + " splits)";
  case StepKind::DecodeCombine: return "decode_attention_combine";
  case StepKind::AllReduce: return "all_reduce (sum over the ranks)";
  case StepKind::AllGather: return "all_gather (rank-major rows)";
  }
  return text;
}

} // namespace tk::graph
