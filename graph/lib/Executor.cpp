// Running a plan: each step is a tk kernel (the stdlib's templates, or generated source) launched
// through the JIT on the bound and planned buffers; a CUDA graph can replay a whole run.
#include "GraphImpl.h"
#include "tk/Graph/Parallel.h"
#include "tk/Support/JsonText.h"

#include "tk/Runtime/Files.h"
#include "tk/Runtime/Nvtx.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

namespace tk::graph {

namespace {

int64_t nextPowerOfTwo(int64_t n) {
  int64_t p = 1;
  while (p < n)
    p *= 2;
  return p;
}

/// Whether split-K may pay for an FP8 matmul of `rows` rows: its split configs' 64-row tiles
/// leave the GPU short of programs only for few rows (decode's batches); above 128 rows every
/// config fills it unsplit, and the tuner is not offered the split ones.
bool splitKMayPay(int64_t rows) { return rows <= 128; }

int64_t elements(const TensorInfo &t) {
  int64_t n = 1;
  for (int64_t d : t.shape)
    n *= d;
  return n;
}

Const flag(bool on) { return Const(on); }

} // namespace

struct Executable::Impl {
  Context *context = nullptr;
  Communicator *communicator = nullptr; // GraphOptions::communicator: the collectives' steps
  Graph::Impl graph;
  Plan plan;
  std::map<std::string, Module> modules; // stdlib files and generated sources, by name
  std::vector<Kernel> kernels;           // one per step
  std::map<std::string, Kernel> chainKernels; // GemvChain steps' generated kernels, by source
  std::vector<Buffer> slots;
  std::unique_ptr<Buffer> dummy, dummyF32, dummyI32; // what unused pointer parameters get
  /// FP8 matmuls' split-K partials and per-tile counters (zero between launches), shared by all
  /// of them: the steps run one after another on one stream.
  std::unique_ptr<Buffer> splitWorkspace, splitCounters;
  /// What a matmul with a norm folded in multiplies by, made once per bound weight: diag(w) * W
  /// and, for a LayerNorm, the column sums of it and the norm's bias times W.
  struct Prepared {
    const Buffer *weight = nullptr, *norm = nullptr, *normBias = nullptr;
    std::unique_ptr<Buffer> buffer, colShift, colBias;
  };
  std::vector<Prepared> prepared; // per step
  Kernel scaleRows, colSums;
  CudaGraph captured; // capture()'s, for replay()

  Scalar dtype = Scalar::BF16;

  /// A stdlib template: its element type is its `const T: dtype` parameter (see typed()).
  /// `variant` names a Module of its own for the file, whose kernels' tuning space may be
  /// narrowed without touching the shared one's.
  Kernel stdlibKernel(const std::string &file, const std::string &name, const std::string &variant = "") {
    std::string key = variant.empty() ? file : file + " (" + variant + ")";
    auto it = modules.find(key);
    if (it == modules.end())
      it = modules.emplace(key, Module::fromFile(*context, stdlibDir() + "/std/" + file)).first;
    return it->second.kernel(name);
  }

  /// fp8_matmul for a matmul of `rows` rows: with split-K only where it can pay (few rows, as
  /// decode's), so that the shared workspace (SPLIT_K x M x N partials) is sized by those
  /// alone: a 4096-token prefill's QKV would otherwise have needed 805 MB of it.
  Kernel fp8Matmul(int64_t rows) {
    if (splitKMayPay(rows))
      return stdlibKernel("fp8_matmul.tk", "fp8_matmul");
    Kernel kernel = stdlibKernel("fp8_matmul.tk", "fp8_matmul", "no split-K");
    kernel.restrictTuneSpace([](const Config &c) { return c.integer("SPLIT_K").value_or(1) == 1; });
    return kernel;
  }

  /// FP8 matmuls of more than 128 rows: fp8_matmul_persistent, the alternative to the step's
  /// fp8_matmul that GraphOptions::fp8Kernel names or (Auto) times against it.
  Kernel fp8Persistent;
  GraphOptions::Fp8Kernel fp8Choice = GraphOptions::Fp8Kernel::Auto;
  /// Auto's verdicts, by M, N, K, the row strides and the epilogue's constants: whether the
  /// persistent kernel ran faster; and each step's, once known (its shape is fixed).
  std::map<std::string, bool> persistentFaster;
  std::map<size_t, bool> stepPersistent;

  /// fp8_matmul_persistent's grid: a program a multiprocessor (with two programs a CTA, as many
  /// as are resident), at most one a tile.
  static GridSpec persistentGrid(int64_t M, int64_t N) {
    return GridSpec([=](const Config &c) {
      int64_t programs = c[kMultiprocessors] * (c.integer("warp_specialize").value_or(0) == 3 ? c[kResidentPrograms] : 1);
      return Grid(std::min(programs, cdiv(M, c["BM"]) * cdiv(N, c["BN"])));
    });
  }

  /// Whether step `s`, an FP8 matmul of M x N x K (more than 128 rows), runs fp8_matmul_persistent
  /// rather than `tiled`: GraphOptions::fp8Kernel, or with Auto on the CUDA backend the faster of
  /// the two on this launch's arguments, timed once per shape, row strides (`strides`) and
  /// constants (each kernel's tuning first, so that its winner runs). A persistent kernel that
  /// cannot run here (none of its configs fits the GPU) leaves the tiled one.
  bool runsPersistent(size_t s, int64_t M, int64_t N, int64_t K, std::initializer_list<int64_t> strides, Kernel &tiled,
                      const GridSpec &tiledGrid, const std::vector<Arg> &args, const Consts &consts,
                      const Stream &stream) {
    if (fp8Choice != GraphOptions::Fp8Kernel::Auto || context->backend() != Backend::Cuda)
      return fp8Choice == GraphOptions::Fp8Kernel::Persistent;
    if (auto known = stepPersistent.find(s); known != stepPersistent.end())
      return known->second;
    std::string key = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
    for (int64_t stride : strides)
      key += " " + std::to_string(stride);
    for (const auto &[name, value] : consts)
      key += " " + name + "=" + value.str();
    auto known = persistentFaster.find(key);
    if (known == persistentFaster.end()) {
      bool faster = false;
      try {
        GridSpec grid = persistentGrid(M, N);
        tiled.tune(tiledGrid, args, consts, stream);
        fp8Persistent.tune(grid, args, consts, stream);
        // 30 runs each in turn, each from a cold L2 after the rest, as the tuner's final round
        // decides (a 2048-row LLaMA-7B projection: about 10 ms of runs and 12 of rests).
        // Without the rest, at the power cap, kernels time alike that differ by 12% rested.
        std::vector<double> ms = context->timeInterleaved({[&] { tiled.launch(tiledGrid, args, consts, stream); },
                                                           [&] { fp8Persistent.launch(grid, args, consts, stream); }},
                                                          30, stream, /*flushL2=*/true, Context::kRestMicroseconds);
        faster = ms[1] < ms[0];
      } catch (const Error &e) {
        std::cerr << "tk: warning: graph: " << stepNames[s] << " (" << key << ") runs fp8_matmul: " << e.what() << "\n";
      }
      known = persistentFaster.emplace(key, faster).first;
    }
    return stepPersistent[s] = known->second;
  }

  /// Step `s` (an fp8_matmul step) named for the persistent kernel once it runs it, in profiles,
  /// NVTX ranges and kernels(): "fp8_matmul (silu, gate)" -> "fp8_matmul_persistent (silu, gate)".
  void namePersistent(size_t s) {
    const std::string tiled = "fp8_matmul", persistent = "fp8_matmul_persistent";
    std::string &name = stepNames[s];
    if (name.rfind(tiled, 0) == 0 && name.rfind(persistent, 0) != 0)
      name = persistent + name.substr(tiled.size());
  }

  /// A stdlib template's constants with the graph's element type as its dtype parameter T.
  Consts typed(Consts consts) const {
    consts.insert_or_assign("T", Const(dtype));
    return consts;
  }

  Buffer &storage(const Bindings &bindings, int tensor) {
    if (auto slot = plan.slotOf.find(tensor); slot != plan.slotOf.end())
      return slots[slot->second];
    return *bindings.at(plan.bindingOf.at(tensor));
  }

  void checkBindings(const Bindings &bindings) const {
    for (const auto &[tensor, name] : plan.bindingOf) {
      const TensorInfo &info = plan.info(graph, tensor);
      auto it = bindings.find(name);
      if (it == bindings.end() || !it->second)
        throw Error("graph: no buffer bound to '" + name + "' (" + info.str() + ")");
      const Buffer &b = *it->second;
      if (b.elem() != info.dtype || int64_t(b.count()) != elements(info))
        throw Error("graph: the buffer bound to '" + name + "' holds " + std::to_string(b.count()) + " " +
                    scalarName(b.elem()) + " elements; it must be " + info.str());
      if (&b.context() != context)
        throw Error("graph: the buffer bound to '" + name + "' belongs to another tk::Context");
    }
    // A buffer the run writes (an output, a KV cache appended to) is no other binding's: the
    // kernels read inputs and weights while those are written (a matmul's output over its input
    // gave half its values wrong). Inputs may share one, being only read; a KV cache is one
    // binding, read and appended to.
    std::set<std::string> written; // outputs, and the KV caches appends write
    for (const auto &[id, name] : graph.outputs)
      written.insert(name);
    for (const Node &n : graph.nodes)
      if (n.op == Op::AppendKV)
        written.insert(graph.nodes[n.inputs[0]].name);
    std::map<const Buffer *, std::string> boundTo;
    for (const auto &[tensor, name] : plan.bindingOf) {
      auto [first, fresh] = boundTo.emplace(bindings.at(name), name);
      if (!fresh && first->second != name && (written.count(name) || written.count(first->second)))
        throw Error("graph: one buffer is bound to '" + first->second + "' and to '" + name +
                    "', and the run writes one of them: bind a buffer of its own");
    }
  }

  const Prepared &preparedWeight(size_t s, const Bindings &bindings, const Stream &stream) {
    const Step &step = plan.steps[s];
    const Buffer &weight = storage(bindings, step.in[1].tensor);
    const Buffer &norm = storage(bindings, step.foldedNormWeight);
    const Buffer *normBias = step.center ? &storage(bindings, step.foldedNormBias) : nullptr;
    Prepared &p = prepared[s];
    if (p.buffer && p.weight == &weight && p.norm == &norm && p.normBias == normBias)
      return p;
    const TensorInfo &info = plan.info(graph, step.in[1].tensor);
    int64_t rows = info.shape[0], cols = info.shape[1];
    p.buffer = std::make_unique<Buffer>(*context, info.dtype, size_t(elements(info)));
    p.weight = &weight;
    p.norm = &norm;
    p.normBias = normBias;
    scaleRows.launch(Grid(rows, cdiv(cols, 1024)), {weight, *p.buffer, norm, int32_t(cols)}, typed({}), stream);
    if (step.center) {
      p.colShift = std::make_unique<Buffer>(*context, Scalar::F32, size_t(cols));
      p.colBias = std::make_unique<Buffer>(*context, Scalar::F32, size_t(cols));
      for (auto [weights, out] : {std::pair{&norm, p.colShift.get()}, std::pair{normBias, p.colBias.get()}})
        colSums.launch(Grid(cdiv(cols, 256)), {weight, *weights, *out, int32_t(rows), int32_t(cols)}, typed({}),
                       stream);
    }
    return p;
  }

  /// fp8_gemv_row's arguments a to norm_out for one of its steps (alone, or in a GemvChain).
  void gemvRowArgs(const Step &step, const Bindings &bindings, std::vector<Arg> &args) {
    auto in = [&](size_t k) -> Buffer & { return storage(bindings, step.in[k].tensor); };
    auto i32 = [](int64_t v) { return int32_t(v); };
    const TensorInfo &outInfo = plan.info(graph, step.out);
    int64_t M = outInfo.shape[0], N = outInfo.shape[1], K = plan.info(graph, graph.nodes[step.nodes[0]].inputs[1]).shape[1];
    bool rstd = step.eps > 0, normOut = step.normOutWeight >= 0;
    for (Arg arg : {Arg(in(0)), Arg(in(1)), Arg(storage(bindings, step.out)), Arg(in(6)),
                    Arg(step.bias ? in(2) : *dummy), Arg(step.residual ? in(3) : *dummy), Arg(step.gate ? in(4) : *dummy),
                    Arg(i32(M)), Arg(i32(N)), Arg(i32(K)), Arg(i32(step.in[0].rowStride)), Arg(i32(step.in[1].rowStride)),
                    Arg(i32(step.outAt.rowStride)), Arg(i32(step.in[3].rowStride)), Arg(i32(step.in[4].rowStride)),
                    Arg(rstd ? in(7) : *dummy), Arg(normOut ? storage(bindings, step.normOutWeight) : *dummy),
                    Arg(normOut ? storage(bindings, step.out2) : *dummy)})
      args.push_back(arg);
  }

  /// GemvChain steps' work queues (kGemvChainQueueStride x (1 + GEMVs) i32, zero between
  /// launches: each launch's last program zeroes it), by step.
  std::map<size_t, std::unique_ptr<Buffer>> chainQueues;

  void runStep(size_t s, const Bindings &bindings, const Stream &stream);
  /// One run's steps that `launched` keeps, captured into a CUDA graph (nothing compiles or
  /// tunes inside: a run came first).
  CudaGraph captureSteps(const Bindings &bindings, const Stream &stream, const std::function<bool(size_t)> &launched);
  /// Throws unless `what` (capture, profileInGraph) can capture on `stream`.
  void checkCapturable(const std::string &what, const Stream &stream) const;
  std::vector<std::string> stepNames; // each step's NVTX range (as its profile names it)
};

void Executable::Impl::runStep(size_t s, const Bindings &bindings, const Stream &stream) {
  NvtxRange range(stepNames[s]);
  const Step &step = plan.steps[s];
  Kernel &kernel = kernels[s];
  const Node &first = graph.nodes[step.nodes[0]];
  const TensorInfo &outInfo = plan.info(graph, step.out);
  Buffer &out = storage(bindings, step.out);
  auto in = [&](size_t k) -> Buffer & { return storage(bindings, step.in[k].tensor); };
  auto i32 = [](int64_t v) { return int32_t(v); };
  switch (step.kind) {
  case StepKind::MatMul: {
    if (step.weightOnly) {
      // a's own rows times the FP8 weight [N, K].
      int64_t M = outInfo.shape[0], N = outInfo.shape[1], K = plan.info(graph, first.inputs[1]).shape[1];
      Consts consts{{"SCALE_MODE", int64_t(1)}, {"HAS_BIAS", flag(step.bias)}, {"ACT", step.act},
                    {"HAS_MUL", flag(step.gate)}, {"HAS_RESIDUAL", flag(step.residual)}};
      if (step.oneRow) {
        // An RMSNorm between two of these (normsIntoGemvRows): this one's rows are x * w, its
        // rstd computed from x (in[7]); or this one also writes its output times w (out2).
        if (step.eps > 0)
          consts.emplace("RSTD_EPS", Const(step.eps));
        consts.emplace("NORM_OUT", flag(step.normOutWeight >= 0));
        std::vector<Arg> args;
        gemvRowArgs(step, bindings, args);
        kernel.launch(GridSpec([N](const Config &c) { return Grid(cdiv(N, c["BN"]), 1); }), args, typed(consts), stream);
        return;
      }
      if (dtype == Scalar::F16)
        consts.emplace("A_SCALE", Const(1.0)); // f16 activations are in the MMAs' range as they are
      GridSpec grid([M, N](const Config &c) { return Grid(cdiv(N, c["BN"]), cdiv(M, c["BM"]), c["SPLIT_K"]); });
      kernel.launch(grid,
                    {in(0), in(1), out, in(6), step.bias ? in(2) : *dummy, step.residual ? in(3) : *dummy,
                     step.gate ? in(4) : *dummy, *splitWorkspace, *splitCounters, i32(M), i32(N), i32(K),
                     i32(step.in[0].rowStride),
                     i32(step.in[1].rowStride), i32(step.outAt.rowStride), i32(step.in[3].rowStride),
                     i32(step.in[4].rowStride)},
                    typed(consts), stream);
      return;
    }
    if (step.fp8) {
      // a's e4m3 rows times the weight [N, K], per-row (a) and per-column (weight) scales.
      int64_t M = outInfo.shape[0], N = outInfo.shape[1], K = plan.info(graph, first.inputs[1]).shape[1];
      Consts consts{{"SCALE_MODE", int64_t(1)}, {"HAS_BIAS", flag(step.bias)}, {"ACT", step.act},
                    {"HAS_MUL", flag(step.gate)}, {"HAS_RESIDUAL", flag(step.residual)}};
      GridSpec grid([M, N](const Config &c) { return Grid(cdiv(M, c["BM"]) * cdiv(N, c["BN"]), c["SPLIT_K"]); });
      std::vector<Arg> args{in(0), in(1), out, in(5), in(6), step.bias ? in(2) : *dummy, step.residual ? in(3) : *dummy,
                            step.gate ? in(4) : *dummy, *splitWorkspace, *splitCounters, i32(M), i32(N), i32(K),
                            i32(step.in[0].rowStride), i32(step.in[1].rowStride), i32(step.outAt.rowStride),
                            i32(step.in[3].rowStride), i32(step.in[4].rowStride)};
      if (!splitKMayPay(M) && runsPersistent(s, M, N, K,
                                             {step.in[0].rowStride, step.in[1].rowStride, step.outAt.rowStride,
                                              step.in[3].rowStride, step.in[4].rowStride},
                                             kernel, grid, args, typed(consts), stream)) {
        namePersistent(s);
        fp8Persistent.launch(persistentGrid(M, N), args, typed(consts), stream);
      } else
        kernel.launch(grid, args, typed(consts), stream);
      return;
    }
    int64_t M = outInfo.shape[0], N = outInfo.shape[1], K = plan.info(graph, first.inputs[1]).shape[0];
    const Prepared *folded = step.foldedNormWeight >= 0 ? &preparedWeight(s, bindings, stream) : nullptr;
    const Buffer &b = folded ? *folded->buffer : in(1);
    const Buffer &bias = step.bias ? in(2) : *dummy, &residual = step.residual ? in(3) : *dummy,
                 &gate = step.gate ? in(4) : *dummy,
                 &rowScale = step.rowScale && step.in[5].tensor >= 0 ? in(5) : *dummyF32,
                 &rowShift = step.center ? in(6) : *dummyF32, &colShift = step.center ? *folded->colShift : *dummyF32,
                 &colBias = step.center ? *folded->colBias : *dummyF32;
    Consts consts{{"HAS_BIAS", flag(step.bias)}, {"ACT", step.act}, {"HAS_MUL", flag(step.gate)},
                  {"HAS_RESIDUAL", flag(step.residual)}, {"HAS_ROW_SCALE", flag(step.rowScale)},
                  {"HAS_CENTER", flag(step.center)}};
    if (step.factor != 1)
      consts.emplace("SCALE", Const(step.factor));
    if (step.eps > 0) // the folded RMSNorm's rstd, computed in the K loop
      consts.emplace("RSTD_EPS", Const(step.eps));
    GridSpec grid([M, N](const Config &c) { return Grid(cdiv(M, c["BM"]) * cdiv(N, c["BN"])); });
    kernel.launch(grid,
                  {in(0), b, out, bias, residual, gate, rowScale, rowShift, colShift, colBias, i32(M), i32(N), i32(K),
                   i32(step.in[0].rowStride), i32(step.in[1].rowStride), i32(step.outAt.rowStride),
                   i32(step.in[3].rowStride), i32(step.in[4].rowStride)},
                  typed(consts), stream);
    return;
  }
  case StepKind::GemvChain: {
    std::vector<Arg> args{*chainQueues.at(s)};
    std::vector<int64_t> columns;
    for (const Step &part : step.chain) {
      gemvRowArgs(part, bindings, args);
      columns.push_back(plan.info(graph, part.out).shape[1]);
    }
    // PER_SM programs a multiprocessor, at most as many as fit at once (more would only start
    // as the others end, to find no block left) and one a block (the interpreter: as if it had
    // one multiprocessor).
    int64_t multiprocessors = std::max(1, context->device().multiprocessors);
    GridSpec grid([columns, multiprocessors](const Config &c) {
      int64_t blocks = 0;
      for (int64_t n : columns)
        blocks += cdiv(n, c["BN"]);
      int64_t perMultiprocessor = std::max<int64_t>(1, std::min(c["PER_SM"], c[kResidentPrograms]));
      return Grid(std::max<int64_t>(1, std::min(blocks, multiprocessors * perMultiprocessor)));
    });
    kernel.launch(grid, args, {}, stream);
    return;
  }
  case StepKind::QuantizeRows: {
    const TensorInfo &x = plan.info(graph, step.in[0].tensor);
    int64_t rows = plan.info(graph, step.out).shape[0], cols = plan.info(graph, step.out).shape[1];
    (void)x;
    bool norm = step.in.size() > 1;
    kernel.launch(Grid(rows),
                  {in(0), norm ? in(1) : *dummy, out, storage(bindings, step.out2), i32(cols), i32(step.in[0].rowStride),
                   float(step.eps)},
                  typed({{"NORM", flag(norm)}, {"BLOCK", nextPowerOfTwo(cols)}}), stream); // num_warps: tuned
    return;
  }
  case StepKind::RowRstd: {
    const TensorInfo &x = plan.info(graph, graph.nodes[step.nodes[0]].inputs[0]);
    int64_t block = nextPowerOfTwo(x.shape[1]);
    kernel.launch(Grid(x.shape[0]), {in(0), out, i32(x.shape[1]), i32(step.in[0].rowStride), float(step.eps)},
                  typed({{"BLOCK", block}}), stream); // num_warps: tuned
    return;
  }
  case StepKind::RowMoments: {
    const TensorInfo &x = plan.info(graph, first.inputs[0]);
    int64_t block = nextPowerOfTwo(x.shape[1]);
    kernel.launch(
        Grid(x.shape[0]),
        {in(0), storage(bindings, step.out2), out, i32(x.shape[1]), i32(step.in[0].rowStride), float(step.eps)},
        typed({{"BLOCK", block}}), stream);
    return;
  }
  case StepKind::RmsNorm:
  case StepKind::LayerNorm:
  case StepKind::Softmax: {
    int64_t rows = outInfo.shape[0], cols = outInfo.shape[1], block = nextPowerOfTwo(cols);
    Consts consts = typed({{"BLOCK", block}}); // num_warps: tuned
    if (step.kind == StepKind::RmsNorm)
      kernel.launch(Grid(rows), {in(0), out, in(1), i32(cols), i32(step.in[0].rowStride), float(step.eps)}, consts, stream);
    else if (step.kind == StepKind::LayerNorm)
      kernel.launch(Grid(rows), {in(0), out, in(1), in(2), i32(cols), i32(step.in[0].rowStride), float(step.eps)}, consts,
                    stream);
    else
      kernel.launch(Grid(rows), {in(0), out, i32(cols), i32(step.in[0].rowStride)}, consts, stream);
    return;
  }
  case StepKind::Rope: {
    int64_t tokens = outInfo.shape[0], headDim = outInfo.shape[1] / step.heads;
    bool append = step.keyCache >= 0; // the keys and values into their caches too (rope.tk's APPEND)
    const TensorInfo *cache = append ? &plan.info(graph, step.keyCache) : nullptr;
    int64_t kvHeads = append ? cache->shape[1] / headDim : 0, maxContext = append ? cache->shape[0] / (tokens / first.seqLen) : 0;
    int64_t heads = step.heads + kvHeads;
    kernel.launch(GridSpec([tokens, heads](const Config &c) { return Grid(cdiv(tokens, c["BT"]), heads); }),
                  {in(0), out, i32(tokens), i32(first.seqLen), i32(step.in[0].rowStride), i32(step.in[0].column),
                   i32(step.outAt.rowStride), float(std::log2(first.value)), step.in.size() > 1 ? in(1) : *dummyI32,
                   i32(step.heads), append ? storage(bindings, step.keyCache) : *dummy,
                   append ? storage(bindings, step.valueCache) : *dummy, i32(maxContext), i32(step.heads - kvHeads)},
                  typed({{"HALF", headDim / 2}, {"POSITIONS", step.in.size() > 1}, {"APPEND", flag(append)}}),
                  stream); // BT and num_warps: tuned
    return;
  }
  case StepKind::Attention: {
    int64_t tokens = outInfo.shape[0], headDim = outInfo.shape[1] / first.heads, seq = first.seqLen;
    int64_t programs = tokens / seq * first.heads;
    GridSpec grid([seq, programs](const Config &c) { return Grid(cdiv(seq, c["BLOCK_M"]), programs); });
    kernel.launch(grid,
                  {in(0), in(1), in(2), out, i32(seq), i32(first.heads), i32(first.kvHeads), i32(step.in[0].rowStride),
                   i32(step.in[1].rowStride), i32(step.in[2].rowStride), i32(step.outAt.rowStride),
                   i32(step.in[0].column), i32(step.in[1].column), i32(step.in[2].column),
                   float(1.0 / std::sqrt(double(headDim)))},
                  typed({{"HEAD_DIM", headDim}, {"CAUSAL", flag(first.causal)}}), stream);
    return;
  }
  case StepKind::Embedding: {
    const TensorInfo &table = plan.info(graph, first.inputs[0]);
    int64_t tokens = outInfo.shape[0], dim = outInfo.shape[1];
    kernel.launch(GridSpec([tokens, dim](const Config &c) { return Grid(tokens, cdiv(dim, c["BLOCK"])); }),
                  {in(1), in(0), out, i32(table.shape[0]), i32(dim), i32(step.in[0].rowStride ? step.in[0].rowStride : dim),
                   i32(first.firstRow)},
                  typed({}), stream);
    return;
  }
  case StepKind::AllReduce:
    communicator->allReduceSum(in(0), out, size_t(elements(outInfo)), stream);
    return;
  case StepKind::AllGather:
    // (Each rank sends its whole input: the node's, which a dense operand holds row after row.)
    communicator->allGather(in(0), out, size_t(elements(plan.info(graph, first.inputs[0]))), stream);
    return;
  case StepKind::AppendKV: {
    const TensorInfo &x = plan.info(graph, first.inputs[1]);
    int64_t width = x.shape[1], batch = x.shape[0] / first.seqLen, maxContext = outInfo.shape[0] / batch;
    int64_t tokens = x.shape[0];
    bool pair = step.nodes.size() > 1; // keys and values at once (the second cache is out2)
    kernel.launch(GridSpec([tokens, width](const Config &c) { return Grid(tokens, cdiv(width, c["BLOCK"])); }),
                  {in(0), out, in(1), i32(first.seqLen), i32(maxContext), i32(width), i32(step.in[0].rowStride),
                   i32(step.in[0].column), pair ? in(2) : *dummy, pair ? storage(bindings, step.out2) : *dummy,
                   i32(pair ? step.in[2].rowStride : 0), i32(pair ? step.in[2].column : 0)},
                  typed({{"PAIR", flag(pair)}}), stream);
    return;
  }
  case StepKind::DecodeSplit: {
    const TensorInfo &q = first.out;
    int64_t batch = q.shape[0], headDim = q.shape[1] / first.heads;
    int64_t maxContext = plan.info(graph, first.inputs[1]).shape[0] / batch;
    kernel.launch(Grid(batch * first.heads, step.heads),
                  {in(0), in(1), in(2), in(3), out, storage(bindings, step.out2), i32(first.heads), i32(first.kvHeads),
                   i32(maxContext), i32(step.heads), float(1.0 / std::sqrt(double(headDim))), i32(step.in[0].rowStride),
                   i32(step.in[0].column)},
                  typed({{"HEAD_DIM", headDim}}), stream);
    return;
  }
  case StepKind::DecodeCombine: {
    int64_t batch = outInfo.shape[0], headDim = outInfo.shape[1] / first.heads;
    kernel.launch(Grid(batch * first.heads), {in(0), in(1), out, i32(step.heads)},
                  typed({{"HEAD_DIM", headDim}, {"SPLITS", nextPowerOfTwo(step.heads)}}), stream);
    return;
  }
  case StepKind::Transpose: {
    const TensorInfo &x = plan.info(graph, first.inputs[0]);
    kernel.launch(Grid(cdiv(x.shape[0], 32), cdiv(x.shape[1], 32)),
                  {in(0), out, i32(x.shape[0]), i32(x.shape[1]), i32(step.in[0].rowStride), i32(step.in[0].column)},
                  typed({}), stream);
    return;
  }
  case StepKind::Elementwise: {
    // A vector is one row (a reshape to 1-D copied 16 rows of its 16 elements before).
    bool vector = outInfo.shape.size() == 1;
    int64_t rows = vector ? 1 : outInfo.shape[0], cols = step.columns ? step.columns : outInfo.shape.back();
    int64_t block = std::min<int64_t>(1024, nextPowerOfTwo(cols));
    std::vector<Arg> args;
    for (size_t k = 0; k < step.in.size(); ++k)
      args.emplace_back(in(k));
    args.emplace_back(out);
    args.emplace_back(i32(rows));
    args.emplace_back(i32(cols));
    for (const Operand &o : step.in) {
      args.emplace_back(i32(o.rowStride));
      args.emplace_back(i32(o.column));
    }
    args.emplace_back(i32(step.outAt.rowStride));
    args.emplace_back(i32(step.outAt.column));
    kernel.launch(Grid(rows, cdiv(cols, block)), args, {{"BLOCK", block}}, stream);
    return;
  }
  }
}

Executable::Executable() : impl_(std::make_unique<Impl>()) {}

Executable::Impl &Executable::self() const {
  if (!impl_)
    throw Error("graph: an empty Executable (moved from)");
  return *impl_;
}
Executable::~Executable() = default;
Executable::Executable(Executable &&) noexcept = default;
Executable &Executable::operator=(Executable &&) noexcept = default;

Executable Executable::compile(Context &context, const Graph &graph, const GraphOptions &options) {
  Executable exe;
  Impl &impl = *exe.impl_;
  impl.context = &context;
  impl.communicator = options.communicator;
  impl.graph = graph.impl();
  impl.plan = planGraph(impl.graph, options.gemvChains);
  for (const Node &n : impl.graph.nodes) {
    if ((n.op == Op::AllReduce || n.op == Op::AllGather) && !options.communicator)
      throw Error(std::string("graph: ") + opName(n.op) + " needs a communicator (GraphOptions::communicator)");
    if (n.op == Op::AllGather && n.ranks != options.communicator->size())
      throw Error("graph: all_gather of " + std::to_string(n.ranks) + " ranks on a communicator of " +
                  std::to_string(options.communicator->size()));
  }
  // The stdlib kernels index a tensor with 32-bit offsets (row times row stride): every tensor,
  // bound or planned, stays under 2^31 elements, checked before anything is allocated.
  for (size_t t = 0; t < impl.graph.nodes.size() + impl.plan.extra.size(); ++t) {
    const TensorInfo &info = impl.plan.info(impl.graph, int(t));
    if (double(elements(info)) >= double(int64_t(1) << 31))
      throw Error("graph: " + info.str() + " has " + std::to_string(elements(info)) +
                  " elements; the kernels index tensors with 32-bit offsets (at most 2^31 - 1 elements)");
  }
  // One element type per graph (Graph checks), besides i32 index inputs and FP8 matmuls' weights
  // and scales.
  std::set<int> fp8Operands;
  int64_t workspace = 1, tiles = 1;
  for (const Node &n : impl.graph.nodes)
    if (n.op == Op::MatMul && n.fp8) {
      fp8Operands.insert({n.inputs[1], n.inputs[2]});
      // fp8_matmul's configs split K at most 4 ways, over tiles of at least 64 x 32; only the
      // matmuls that may split need room (Impl::fp8Matmul).
      if (splitKMayPay(n.out.shape[0])) {
        workspace = std::max(workspace, 4 * n.out.shape[0] * n.out.shape[1]);
        tiles = std::max(tiles, cdiv(n.out.shape[0], 64) * cdiv(n.out.shape[1], 32));
      }
    }
  // fp8_gemv (weight-only steps) splits K at most 16 ways, over tiles of 8 x 16.
  for (const Step &step : impl.plan.steps)
    if (step.weightOnly && !step.oneRow) {
      const TensorInfo &out = impl.plan.info(impl.graph, step.out);
      workspace = std::max(workspace, 16 * out.shape[0] * out.shape[1]);
      tiles = std::max(tiles, cdiv(out.shape[0], 8) * cdiv(out.shape[1], 16));
    }
  impl.dtype = Scalar::BF16;
  for (size_t k = 0; k < impl.graph.nodes.size(); ++k) {
    const Node &n = impl.graph.nodes[k];
    if ((n.op == Op::Input || n.op == Op::Weight) && (n.out.dtype == Scalar::BF16 || n.out.dtype == Scalar::F16) &&
        !fp8Operands.count(int(k))) {
      impl.dtype = n.out.dtype;
      break;
    }
  }
  if (!fp8Operands.empty()) {
    impl.splitWorkspace = std::make_unique<Buffer>(context, Scalar::F32, size_t(workspace));
    impl.splitCounters = std::make_unique<Buffer>(context, Scalar::I32, size_t(tiles));
    std::vector<int32_t> zeros(size_t(tiles), 0);
    impl.splitCounters->upload(zeros.data(), zeros.size() * sizeof(int32_t));
  }
  impl.dummy = std::make_unique<Buffer>(context, impl.dtype, 16);
  impl.dummyF32 = std::make_unique<Buffer>(context, Scalar::F32, 16);
  impl.dummyI32 = std::make_unique<Buffer>(context, Scalar::I32, 16);
  impl.fp8Choice = options.fp8Kernel;
  if (!fp8Operands.empty())
    impl.fp8Persistent = impl.stdlibKernel("fp8_matmul.tk", "fp8_matmul_persistent");
  impl.scaleRows = impl.stdlibKernel("norm.tk", "scale_rows");
  impl.colSums = impl.stdlibKernel("norm.tk", "weighted_col_sums");
  for (const Step &step : impl.plan.steps) {
    switch (step.kind) {
    case StepKind::MatMul:
      impl.kernels.push_back(step.oneRow       ? impl.stdlibKernel("fp8_matmul.tk", "fp8_gemv_row")
                             : step.weightOnly ? impl.stdlibKernel("fp8_matmul.tk", "fp8_gemv")
                             : step.fp8      ? impl.fp8Matmul(impl.plan.info(impl.graph, step.out).shape[0])
                                             : impl.stdlibKernel("matmul.tk", "matmul_epilogue"));
      break;
    case StepKind::GemvChain: {
      // One module per distinct source (a model's layers share theirs), named for the stdlib
      // folder so that its imports resolve there.
      size_t s = impl.kernels.size();
      std::string source = gemvChainSource(impl.graph, impl.plan, step, impl.dtype);
      auto known = impl.chainKernels.find(source);
      if (known == impl.chainKernels.end()) {
        std::string path = stdlibDir() + "/graph-fp8_gemv_chain_" + std::to_string(impl.chainKernels.size()) + ".tk";
        auto module = impl.modules.emplace(path, Module::fromString(context, source, path)).first;
        known = impl.chainKernels.emplace(source, module->second.kernel("fp8_gemv_chain")).first;
      }
      impl.kernels.push_back(known->second);
      size_t queueInts = size_t(kGemvChainQueueStride) * (step.chain.size() + 1);
      impl.chainQueues[s] = std::make_unique<Buffer>(context, Scalar::I32, queueInts);
      std::vector<int32_t> zeros(queueInts, 0);
      impl.chainQueues[s]->upload(zeros.data(), zeros.size() * sizeof(int32_t));
      break;
    }
    case StepKind::QuantizeRows: impl.kernels.push_back(impl.stdlibKernel("quantize.tk", "quantize_rows")); break;
    case StepKind::RowRstd: impl.kernels.push_back(impl.stdlibKernel("norm.tk", "row_rstd")); break;
    case StepKind::RowMoments: impl.kernels.push_back(impl.stdlibKernel("norm.tk", "row_moments")); break;
    case StepKind::RmsNorm: impl.kernels.push_back(impl.stdlibKernel("norm.tk", "rmsnorm")); break;
    case StepKind::LayerNorm: impl.kernels.push_back(impl.stdlibKernel("norm.tk", "layernorm")); break;
    case StepKind::Softmax: impl.kernels.push_back(impl.stdlibKernel("norm.tk", "softmax")); break;
    case StepKind::Rope: impl.kernels.push_back(impl.stdlibKernel("rope.tk", "rope")); break;
    case StepKind::Attention: impl.kernels.push_back(impl.stdlibKernel("attention.tk", "attention")); break;
    case StepKind::Transpose: impl.kernels.push_back(impl.stdlibKernel("shape.tk", "transpose")); break;
    case StepKind::AppendKV: impl.kernels.push_back(impl.stdlibKernel("kv_cache.tk", "kv_append")); break;
    case StepKind::Embedding: impl.kernels.push_back(impl.stdlibKernel("embedding.tk", "embedding")); break;
    case StepKind::DecodeSplit:
      impl.kernels.push_back(impl.stdlibKernel("decode_attention.tk", "decode_attention_split"));
      break;
    case StepKind::DecodeCombine:
      impl.kernels.push_back(impl.stdlibKernel("decode_attention.tk", "decode_attention_combine"));
      break;
    case StepKind::AllReduce:
    case StepKind::AllGather: impl.kernels.emplace_back(); break; // (the communicator's, no kernel)
    case StepKind::Elementwise: {
      // Generated source, named for the stdlib folder so that its imports resolve there.
      std::string path = stdlibDir() + "/graph-" + step.kernel + ".tk";
      auto module = impl.modules.emplace(path, Module::fromString(context, step.source, path)).first;
      impl.kernels.push_back(module->second.kernel(step.kernel));
      break;
    }
    }
  }
  impl.prepared.resize(impl.plan.steps.size());
  for (const Step &step : impl.plan.steps) // (an FP8 matmul renamed when it runs the persistent kernel: runStep)
    impl.stepNames.push_back(step.describe(impl.graph));
  for (const Slot &slot : impl.plan.slots)
    impl.slots.emplace_back(context, slot.dtype, size_t(slot.count));
  if (!options.dumpGraph.empty()) {
    try {
      writeOutput(options.dumpGraph, planDot(impl.graph, impl.plan));
    } catch (const Error &e) {
      throw Error(std::string("graph: writing the DOT dump: ") + e.what());
    }
    // The SVG beside it when Graphviz is installed: `dot` run without a shell (the paths are
    // arguments, whatever they hold), into a temporary file renamed as every output.
    // (The extension of the file name, not a '.' of a folder's; a name that starts with '-' as
    // ./-name, so that dot does not read it as an option.)
    std::filesystem::path dotPath(options.dumpGraph);
    if (dotPath.is_relative() && options.dumpGraph.rfind('-', 0) == 0)
      dotPath = std::filesystem::path(".") / dotPath;
    std::string svg = std::filesystem::path(dotPath).replace_extension(".svg").string(), temporary = svg + ".tmp";
    std::vector<std::string> argv{"dot", "-Tsvg", dotPath.string(), "-o", temporary};
    std::vector<char *> pointers;
    for (std::string &a : argv)
      pointers.push_back(a.data());
    pointers.push_back(nullptr);
    pid_t child = -1;
    int status = 0;
    if (::posix_spawnp(&child, "dot", nullptr, nullptr, pointers.data(), environ) == 0) {
      while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
      }
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || std::rename(temporary.c_str(), svg.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw Error("graph: dot -Tsvg " + options.dumpGraph + " -o " + temporary + " failed");
      }
    }
  }
  return exe;
}

void Executable::run(const Bindings &bindings, const Stream &stream) {
  NvtxRange range("graph");
  self().checkBindings(bindings);
  for (size_t s = 0; s < self().plan.steps.size(); ++s)
    self().runStep(s, bindings, stream);
}

void Executable::capture(const Bindings &bindings, const Stream &stream) {
  self().checkCapturable("capture", stream);
  run(bindings, stream); // compiles, tunes and prepares the weights outside the capture
  stream.synchronize();
  self().captured = CudaGraph(); // (the old graph freed first: a failed capture leaves none)
  self().captured = self().captureSteps(bindings, stream, [](size_t) { return true; });
}

void Executable::Impl::checkCapturable(const std::string &what, const Stream &stream) const {
  if (context->backend() != Backend::Cuda)
    throw Error("graph: " + what + " needs the CUDA backend");
  if (!stream.handle())
    throw Error("graph: " + what + " needs a stream of its own (context.createStream()), not the default stream");
}

CudaGraph Executable::Impl::captureSteps(const Bindings &bindings, const Stream &stream,
                                         const std::function<bool(size_t)> &launched) {
  stream.beginCapture();
  try {
    for (size_t s = 0; s < plan.steps.size(); ++s)
      if (launched(s))
        runStep(s, bindings, stream);
  } catch (...) {
    stream.abandonCapture();
    throw;
  }
  return stream.endCapture();
}

void Executable::replay(const Stream &stream) {
  if (!self().captured)
    throw Error("graph: replay() before capture()");
  self().captured.launch(stream);
  self().context->noteLaunch("graph replay", stream);
}

namespace {

/// The median of timed runs (the upper middle one of an even count), as the profiles report.
double medianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

double tensorBytes(const TensorInfo &info) { return double(elements(info)) * double(Buffer::elementBytes(info.dtype)); }

/// KernelProfile's bytes and flops of one step.
std::pair<double, double> stepCost(const Graph::Impl &graph, const Plan &plan, const Step &step) {
  if (step.kind == StepKind::GemvChain) { // its GEMVs' (each tensor counted once by each)
    std::pair<double, double> sum;
    for (const Step &part : step.chain) {
      auto [bytes, flops] = stepCost(graph, plan, part);
      sum.first += bytes;
      sum.second += flops;
    }
    return sum;
  }
  const Node &first = graph.nodes[step.nodes[0]];
  const TensorInfo &out = plan.info(graph, step.out);
  if (step.kind == StepKind::Embedding) // the ids, and the rows it gathers, read once and written once
    return {tensorBytes(plan.info(graph, first.inputs[1])) + 2 * tensorBytes(out), 0};
  if (step.kind == StepKind::AppendKV) { // reads its new rows and writes them into the cache
    double rows = tensorBytes(plan.info(graph, first.inputs[1]));
    return {2 * rows * double(step.nodes.size()), 0};
  }
  std::set<int> tensors{step.out};
  if (step.out2 >= 0)
    tensors.insert(step.out2);
  for (const Operand &o : step.in)
    if (o.tensor >= 0)
      tensors.insert(o.tensor);
  double bytes = 0;
  for (int t : tensors)
    bytes += tensorBytes(plan.info(graph, t));
  if (step.keyCache >= 0) // a rope that also writes its keys and the values into the caches
    for (int append : {step.keyCache, step.valueCache})
      bytes += tensorBytes(graph.nodes[graph.nodes[append].inputs[1]].out);
  double flops = 0;
  if (step.kind == StepKind::MatMul) {
    double k = double(plan.info(graph, first.inputs[1]).shape[step.fp8 ? 1 : 0]);
    flops = 2 * double(out.shape[0]) * double(out.shape[1]) * k;
  } else if (step.kind == StepKind::Attention) {
    // Every query against seqLen keys: QK^T and PV, two flops per multiply-add each.
    flops = 4 * double(out.shape[0]) * double(first.seqLen) * double(out.shape[1]);
    if (first.causal)
      flops /= 2;
  } else if (step.kind == StepKind::DecodeSplit) {
    const TensorInfo &q = first.out, &cache = plan.info(graph, first.inputs[1]);
    flops = 4 * double(q.shape[1]) * double(cache.shape[0]); // every head against all its cached rows
  }
  return {bytes, flops};
}

} // namespace

std::vector<KernelProfile> Executable::profile(const Bindings &bindings, const Stream &stream, int runs) {
  Impl &impl = self();
  run(bindings, stream);
  stream.synchronize();
  int count = int(impl.plan.steps.size());
  std::vector<std::vector<double>> times(static_cast<size_t>(count));
  for (int r = 0; r < std::max(runs, 1); ++r) {
    std::vector<double> ms = impl.context->timeSteps(count, [&](int s) { impl.runStep(size_t(s), bindings, stream); }, stream);
    for (int s = 0; s < count; ++s)
      times[size_t(s)].push_back(ms[size_t(s)]);
  }
  std::vector<KernelProfile> out;
  for (int s = 0; s < count; ++s) {
    const Step &step = impl.plan.steps[size_t(s)];
    KernelProfile p;
    p.kernel = impl.stepNames[size_t(s)];
    p.ms = medianOf(times[size_t(s)]);
    std::tie(p.bytes, p.flops) = stepCost(impl.graph, impl.plan, step);
    out.push_back(std::move(p));
  }
  return out;
}

InGraphProfile Executable::profileInGraph(const Bindings &bindings, const Stream &stream, int runs) {
  Impl &impl = self();
  // (At most a graph a step and the whole run's, replayed once a round.)
  int rounds = std::max(runs, 1);
  if (int64_t(rounds) * int64_t(impl.plan.steps.size() + 1) > (int64_t(1) << 20))
    throw Error("graph: profileInGraph: " + std::to_string(rounds) + " rounds of up to " +
                std::to_string(impl.plan.steps.size() + 1) + " graphs is more than 2^20 replays");
  impl.checkCapturable("profileInGraph", stream);
  // Not across ranks: one whose captures failed would leave the others waiting in a collective.
  for (const Step &step : impl.plan.steps)
    if (step.kind == StepKind::AllReduce || step.kind == StepKind::AllGather)
      throw Error("graph: profileInGraph does not profile a graph with collectives (tensor parallel)");
  run(bindings, stream); // compiles, tunes and prepares the weights outside the captures
  stream.synchronize();
  // The kernels by name, in the order they first run.
  InGraphProfile out;
  for (size_t s = 0; s < impl.plan.steps.size(); ++s) {
    auto known = std::find_if(out.kernels.begin(), out.kernels.end(),
                              [&](const KernelCostInGraph &k) { return k.kernel == impl.stepNames[s]; });
    if (known == out.kernels.end())
      known = out.kernels.insert(out.kernels.end(), KernelCostInGraph{impl.stepNames[s], 0, 0, 0});
    ++known->launches;
  }
  std::vector<CudaGraph> graphs; // the whole run first, then the run without each kernel
  graphs.push_back(impl.captureSteps(bindings, stream, [](size_t) { return true; }));
  for (const KernelCostInGraph &k : out.kernels)
    graphs.push_back(impl.captureSteps(bindings, stream, [&](size_t s) { return impl.stepNames[s] != k.kernel; }));
  for (const CudaGraph &g : graphs) // (once each, untimed: the first replay uploads the graph)
    g.launch(stream);
  // Replays interleaved, so that the clocks' drift over the measurement falls on all alike.
  int count = int(graphs.size());
  std::vector<double> ms = impl.context->timeSteps(count * rounds, [&](int i) { graphs[size_t(i % count)].launch(stream); },
                                                   stream);
  // A cost is the median of each round's difference: a round's replays run close together.
  auto median = [&](const std::function<double(int)> &ofRound) {
    std::vector<double> t;
    for (int r = 0; r < rounds; ++r)
      t.push_back(ofRound(r));
    return medianOf(std::move(t));
  };
  auto replay = [&](int round, size_t g) { return ms[size_t(round * count) + g]; };
  out.ms = median([&](int r) { return replay(r, 0); });
  for (size_t k = 0; k < out.kernels.size(); ++k) {
    out.kernels[k].msWithout = median([&](int r) { return replay(r, k + 1); });
    out.kernels[k].ms = median([&](int r) { return replay(r, 0) - replay(r, k + 1); });
  }
  return out;
}

std::string chromeTrace(const std::vector<std::pair<std::string, std::vector<KernelProfile>>> &runs) {
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [";
  char number[64];
  auto microseconds = [&](double ms) { // (a time that is no number as 0: JSON has no nan)
    std::snprintf(number, sizeof(number), "%.3f", std::isfinite(ms) ? ms * 1e3 : 0.0);
    return std::string(number);
  };
  bool first = true;
  for (size_t r = 0; r < runs.size(); ++r) {
    const auto &[label, kernels] = runs[r];
    std::string pid = std::to_string(r + 1);
    out += std::string(first ? "\n" : ",\n") + "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " + pid +
           ", \"tid\": 1, \"args\": {\"name\": " + jsonQuoted(label) + "}}";
    first = false;
    double at = 0;
    for (const KernelProfile &k : kernels) {
      std::snprintf(number, sizeof(number), "%.6g", k.bytes);
      std::string bytes = number;
      std::snprintf(number, sizeof(number), "%.6g", k.flops);
      std::string flops = number;
      out += ",\n  {\"name\": " + jsonQuoted(k.kernel) + ", \"cat\": \"kernel\", \"ph\": \"X\", \"pid\": " + pid +
             ", \"tid\": 1, \"ts\": " + microseconds(at) + ", \"dur\": " + microseconds(k.ms) +
             ", \"args\": {\"bytes\": " + bytes + ", \"flops\": " + flops + "}}";
      at += k.ms;
    }
  }
  return out + "\n]}\n";
}

std::vector<std::string> Executable::kernels() const { return self().stepNames; }

size_t Executable::scratchBytes() const {
  size_t bytes = 0;
  for (const std::unique_ptr<Buffer> *b : {&self().splitWorkspace, &self().splitCounters})
    if (*b)
      bytes += (*b)->bytes();
  return bytes;
}

size_t Executable::intermediateBytes() const {
  size_t bytes = 0;
  for (const Slot &slot : self().plan.slots)
    bytes += size_t(slot.count) * Buffer::elementBytes(slot.dtype);
  return bytes;
}

std::string Executable::dot() const { return planDot(self().graph, self().plan); }

} // namespace tk::graph
