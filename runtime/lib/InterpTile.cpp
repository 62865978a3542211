// Tile-shaping ops, dot, reductions and scans (in increasing index order), Philox random
// numbers, hints, print and assert.
#include "Interp.h"
#include "tk/Support/Philox.h"

#include "tk/Support/FloatFormats.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>
#include <sstream>

using namespace mlir;

namespace tk::interp {

namespace {

void copyElement(Tile &dst, size_t di, const Tile &src, size_t si) {
  if (!dst.i.empty()) dst.i[di] = src.i[si];
  else if (!dst.f.empty()) dst.f[di] = src.f[si];
  else dst.d[di] = src.d[si];
}

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int d = int(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls fn(resultIndex, sourceIndex) for every result element, where `sourceStride[d]` is
/// how far the source index moves per step of result dimension d (0 for broadcast dims).
template <typename Fn> void forEachIndex(const std::vector<int64_t> &shape, const std::vector<int64_t> &sourceStride, Fn fn) {
  size_t rank = shape.size(), total = 1;
  for (int64_t d : shape)
    total *= d;
  std::vector<int64_t> counter(rank, 0);
  int64_t source = 0;
  for (size_t k = 0; k < total; ++k) {
    fn(k, size_t(source));
    for (int d = int(rank) - 1; d >= 0; --d) {
      source += sourceStride[d];
      if (++counter[d] < shape[d])
        break;
      source -= sourceStride[d] * shape[d];
      counter[d] = 0;
    }
  }
}

Tile reshaped(const Tile &src, std::vector<int64_t> shape) {
  Tile r = src;
  r.shape = std::move(shape);
  return r;
}

/// The slice of `src` at `index` along `axis` (rank - 1 dimensions).
Tile slice(const Tile &src, size_t axis, int64_t index) {
  std::vector<int64_t> shape = src.shape;
  int64_t outer = 1, inner = 1, n = shape[axis];
  for (size_t d = 0; d < axis; ++d) outer *= shape[d];
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  shape.erase(shape.begin() + axis);
  Tile r = Tile::make(src.dtype, shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      copyElement(r, o * inner + i, src, (o * n + index) * inner + i);
  return r;
}

void putSlice(Tile &dst, size_t axis, int64_t index, const Tile &part) {
  int64_t outer = 1, inner = 1, n = dst.shape[axis];
  for (size_t d = 0; d < axis; ++d) outer *= dst.shape[d];
  for (size_t d = axis + 1; d < dst.shape.size(); ++d) inner *= dst.shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      copyElement(dst, (o * n + index) * inner + i, part, part.size() == 1 ? 0 : o * inner + i);
}

/// A combine region that is one arith op on its two arguments folds natively; the generic path
/// runs the region on whole slices. Both combine in the same order, so results are identical.
Operation *simpleCombine(Region &region) {
  Block &block = region.front();
  if (block.getNumArguments() != 2 || !llvm::hasSingleElement(block.without_terminator()))
    return nullptr;
  Operation &op = block.front();
  if (op.getNumOperands() != 2 || op.getNumResults() != 1 || block.getTerminator()->getOperand(0) != op.getResult(0))
    return nullptr;
  if (op.getOperand(0) != block.getArgument(0) || op.getOperand(1) != block.getArgument(1))
    return nullptr;
  if (isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp, arith::AddIOp, arith::MulIOp,
          arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp, arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op))
    return &op;
  return nullptr;
}

template <typename T> T maxNaN(T x, T y) { return (std::isnan(x) || std::isnan(y)) ? NAN : (x == y ? (std::signbit(x) ? y : x) : (x > y ? x : y)); }
template <typename T> T minNaN(T x, T y) { return (std::isnan(x) || std::isnan(y)) ? NAN : (x == y ? (std::signbit(x) ? x : y) : (x < y ? x : y)); }

/// acc = combine(acc, next), elementwise, for the ops simpleCombine accepts.
void combineInto(Operation *op, Tile &acc, const Tile &next, size_t accIndex, size_t nextIndex) {
  int bits = bitsOf(acc.dtype);
  if (isFloat(acc.dtype)) {
    auto apply = [&](auto x, auto y) -> decltype(x) {
      if (isa<arith::AddFOp>(op)) return x + y;
      if (isa<arith::MulFOp>(op)) return x * y;
      if (isa<arith::MaximumFOp>(op)) return maxNaN(x, y);
      return minNaN(x, y);
    };
    if (acc.dtype == DType::F64)
      acc.d[accIndex] = apply(acc.d[accIndex], next.d[nextIndex]);
    else
      acc.f[accIndex] = roundFloat(apply(acc.f[accIndex], next.f[nextIndex]), acc.dtype);
    return;
  }
  int64_t x = acc.i[accIndex], y = next.i[nextIndex], r;
  uint64_t ux = asUnsigned(x, bits), uy = asUnsigned(y, bits);
  if (isa<arith::AddIOp>(op)) r = int64_t(uint64_t(x) + uint64_t(y));
  else if (isa<arith::MulIOp>(op)) r = int64_t(uint64_t(x) * uint64_t(y));
  else if (isa<arith::MaxSIOp>(op)) r = std::max(x, y);
  else if (isa<arith::MinSIOp>(op)) r = std::min(x, y);
  else if (isa<arith::MaxUIOp>(op)) r = ux >= uy ? x : y;
  else if (isa<arith::MinUIOp>(op)) r = ux <= uy ? x : y;
  else if (isa<arith::AndIOp>(op)) r = x & y;
  else if (isa<arith::OrIOp>(op)) r = x | y;
  else r = x ^ y;
  acc.i[accIndex] = wrapInt(r, bits);
}

void execReduce(Interpreter &in, ReduceOp op) {
  size_t axis = op.getAxis();
  std::vector<TileRef> srcs;
  for (Value v : op.getSrcs())
    srcs.push_back(in.ref(v));
  int64_t n = srcs[0]->shape[axis];
  if (Operation *simple = simpleCombine(op.getCombine())) {
    const Tile &src = *srcs[0];
    Tile acc = slice(src, axis, 0);
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < axis; ++d) outer *= src.shape[d];
    for (size_t d = axis + 1; d < src.shape.size(); ++d) inner *= src.shape[d];
    for (int64_t j = 1; j < n; ++j)
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i)
          combineInto(simple, acc, src, o * inner + i, (o * n + j) * inner + i);
    in.set(op.getResult(0), std::move(acc));
    return;
  }
  std::vector<TileRef> acc;
  for (auto &src : srcs)
    acc.push_back(std::make_shared<const Tile>(slice(*src, axis, 0)));
  for (int64_t j = 1; j < n; ++j) {
    std::vector<TileRef> args = acc;
    for (auto &src : srcs)
      args.push_back(std::make_shared<const Tile>(slice(*src, axis, j)));
    acc = in.runRegion(op.getCombine(), args);
  }
  for (size_t k = 0; k < acc.size(); ++k) {
    // A region may yield a constant scalar for a tile: give it the result's shape.
    Tile r = *acc[k];
    if (r.size() == 1 && !srcs[0]->shape.empty() && r.shape != slice(*srcs[0], axis, 0).shape) {
      Tile full = Tile::make(r.dtype, slice(*srcs[0], axis, 0).shape);
      for (size_t e = 0; e < full.size(); ++e)
        copyElement(full, e, r, 0);
      r = std::move(full);
    }
    in.set(op.getResult(k), std::move(r));
  }
}

void execScan(Interpreter &in, ScanOp op) {
  size_t axis = op.getAxis();
  const Tile &src = in.get(op.getSrcs()[0]);
  int64_t n = src.shape[axis];
  Tile out = Tile::make(src.dtype, src.shape);
  bool reverse = op.getReverse();
  int64_t first = reverse ? n - 1 : 0, step = reverse ? -1 : 1;
  Tile acc = slice(src, axis, first);
  putSlice(out, axis, first, acc);
  Operation *simple = simpleCombine(op.getCombine());
  for (int64_t j = first + step; j >= 0 && j < n; j += step) {
    Tile next = slice(src, axis, j);
    if (simple) {
      for (size_t e = 0; e < acc.size(); ++e)
        combineInto(simple, acc, next, e, e);
    } else {
      auto results = in.runRegion(op.getCombine(), {std::make_shared<const Tile>(acc), std::make_shared<const Tile>(next)});
      acc = *results[0];
    }
    putSlice(out, axis, j, acc);
  }
  in.set(op.getResult(0), std::move(out));
}

void execDot(Interpreter &in, DotOp op) {
  const Tile &a = in.get(op.getA()), &b = in.get(op.getB()), &acc = in.get(op.getAcc());
  int64_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
  Tile r = acc;
  if (a.dtype == DType::I8) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) {
        int64_t av = a.i[m * K + k];
        for (int64_t n = 0; n < N; ++n)
          r.i[m * N + n] = wrapInt(int64_t(uint64_t(r.i[m * N + n]) + uint64_t(av * b.i[k * N + n])), 32);
      }
  } else if (a.dtype == DType::F64) {
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t n = 0; n < N; ++n)
          r.d[m * N + n] += a.d[m * K + k] * b.d[k * N + n];
  } else {
    // f32 operands are read as tf32 unless precision = "ieee"; f16/bf16/f8 products are exact
    // in f32. Products are summed in f32 in increasing k, then rounded once to an f16 acc.
    bool tf32 = a.dtype == DType::F32 && op.getPrecision() == DotPrecision::tf32;
    std::vector<float> av(a.f), bv(b.f), sum(M * N);
    if (tf32) {
      for (float &x : av) x = fp::roundToTf32(x);
      for (float &x : bv) x = fp::roundToTf32(x);
    }
    for (int64_t e = 0; e < M * N; ++e)
      sum[e] = r.f[e];
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k) {
        float x = av[m * K + k];
        float *row = &sum[m * N];
        const float *brow = &bv[k * N];
        for (int64_t n = 0; n < N; ++n)
          row[n] += x * brow[n];
      }
    for (int64_t e = 0; e < M * N; ++e)
      r.f[e] = roundFloat(sum[e], r.dtype);
  }
  in.set(op.getResult(), std::move(r));
}

using philox::uniformOf;

void execRand(Interpreter &in, RandOp op) {
  const Tile &seed = in.get(op.getSeed()), &offsets = in.get(op.getOffsets());
  uint64_t s = uint64_t(seed.i[0]);
  Tile r = Tile::make(DType::F32, offsets.shape);
  bool normal = op.getDistribution() == RandDistribution::normal;
  for (size_t k = 0; k < r.size(); ++k) {
    uint32_t out[4];
    philox::generate(s, uint32_t(offsets.i[k]), out);
    if (!normal) {
      r.f[k] = uniformOf(out[0]);
      continue;
    }
    float u1 = std::max(1.0e-7f, uniformOf(out[0])), u2 = uniformOf(out[1]);
    float th = 6.283185307179586f * u2;
    float radius = std::sqrt(-2.0f * std::log(u1));
    r.f[k] = radius * std::cos(th);
  }
  in.set(op.getResult(), std::move(r));
}

std::string elementText(const Tile &t, size_t k) {
  std::ostringstream os;
  if (t.dtype == DType::F64)
    os << t.d[k];
  else if (isFloat(t.dtype))
    os << t.f[k];
  else if (t.dtype == DType::Ptr)
    os << "0x" << std::hex << t.i[k];
  else
    os << t.i[k];
  return os.str();
}

std::string indexText(const std::vector<int64_t> &shape, size_t k) {
  std::vector<int64_t> index(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    index[d] = int64_t(k) % shape[d];
    k /= shape[d];
  }
  std::string out;
  for (size_t d = 0; d < index.size(); ++d)
    out += (d ? ", " : "") + std::to_string(index[d]);
  return out;
}

} // namespace

bool execTile(Interpreter &in, Operation *op) {
  auto pidText = [&] {
    return "pid (" + std::to_string(in.pid()[0]) + ", " + std::to_string(in.pid()[1]) + ", " + std::to_string(in.pid()[2]) + ")";
  };
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([&](ProgramIdOp p) {
        Tile t = Tile::make(DType::I32, {});
        t.i[0] = in.pid()[p.getAxis()];
        in.set(p.getResult(), std::move(t));
        return true;
      })
      .Case([&](NumProgramsOp p) {
        Tile t = Tile::make(DType::I32, {});
        t.i[0] = in.grid()[p.getAxis()];
        in.set(p.getResult(), std::move(t));
        return true;
      })
      .Case([&](MakeRangeOp r) {
        Tile t = Tile::make(DType::I32, {r.getEnd() - r.getStart()});
        for (size_t k = 0; k < t.size(); ++k)
          t.i[k] = r.getStart() + int64_t(k);
        in.set(r.getResult(), std::move(t));
        return true;
      })
      .Case([&](SplatOp s) {
        const Tile &src = in.get(s.getSrc());
        auto shape = s.getType().getShape();
        Tile t = Tile::make(src.dtype, {shape.begin(), shape.end()});
        for (size_t k = 0; k < t.size(); ++k)
          copyElement(t, k, src, 0);
        in.set(s.getResult(), std::move(t));
        return true;
      })
      .Case([&](BroadcastOp b) {
        const Tile &src = in.get(b.getSrc());
        auto shapeRef = b.getType().getShape();
        std::vector<int64_t> shape(shapeRef.begin(), shapeRef.end()), strides = stridesOf(src.shape);
        for (size_t d = 0; d < shape.size(); ++d)
          if (src.shape[d] == 1)
            strides[d] = 0;
        Tile t = Tile::make(src.dtype, shape);
        forEachIndex(shape, strides, [&](size_t k, size_t s) { copyElement(t, k, src, s); });
        in.set(b.getResult(), std::move(t));
        return true;
      })
      .Case<ExpandDimsOp, ReshapeOp>([&](Operation *o) {
        auto shape = cast<RankedTensorType>(o->getResult(0).getType()).getShape();
        in.set(o->getResult(0), reshaped(in.get(o->getOperand(0)), {shape.begin(), shape.end()}));
        return true;
      })
      .Case([&](TransOp t) {
        const Tile &src = in.get(t.getSrc());
        auto shapeRef = t.getType().getShape();
        std::vector<int64_t> shape(shapeRef.begin(), shapeRef.end()), srcStrides = stridesOf(src.shape), strides;
        for (int32_t d : t.getOrder())
          strides.push_back(srcStrides[d]);
        Tile r = Tile::make(src.dtype, shape);
        forEachIndex(shape, strides, [&](size_t k, size_t s) { copyElement(r, k, src, s); });
        in.set(t.getResult(), std::move(r));
        return true;
      })
      .Case([&](ProgressOp) { return true; })
      .Case([&](GridDependencyWaitOp) { return true; })
      .Case([&](LaunchDependentsOp) { return true; })
      .Case([&](HintOp h) { in.setRef(h.getResult(), in.ref(h.getSrc())); return true; })
      .Case([&](DotOp d) { execDot(in, d); return true; })
      .Case([&](ReduceOp r) { execReduce(in, r); return true; })
      .Case([&](ScanOp s) { execScan(in, s); return true; })
      .Case([&](RandOp r) { execRand(in, r); return true; })
      .Case([&](PrintOp p) {
        for (Value arg : p.getArgs()) {
          const Tile &t = in.get(arg);
          for (size_t k = 0; k < t.size(); ++k)
            in.printStream() << pidText() << (t.shape.empty() ? "" : " idx (" + indexText(t.shape, k) + ")") << " "
                             << p.getPrefix().str() << elementText(t, k) << "\n";
        }
        if (p.getArgs().empty())
          in.printStream() << pidText() << " " << p.getPrefix().str() << "\n";
        return true;
      })
      .Case([&](AssertOp a) {
        const Tile &cond = in.get(a.getCond());
        for (size_t k = 0; k < cond.size(); ++k)
          if (!cond.i[k])
            in.fault(op, "assertion failed: " + a.getMessage().str() +
                             (cond.shape.empty() ? "" : " (element " + indexText(cond.shape, k) + ")"));
        return true;
      })
      .Default([](Operation *) { return false; });
}

} // namespace tk::interp
