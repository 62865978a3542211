// Contiguity, divisibility and constancy of 1-D integer and pointer tiles, following Triton's
// AxisInfo rules; they decide which loads and stores become 16-byte vector accesses.
#include "AxisAnalysis.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <numeric>

using namespace mlir;

namespace tk::codegen {

namespace {
constexpr int64_t kLarge = int64_t(1) << 30;

int64_t powerOfTwoDividing(int64_t value) {
  if (value == 0)
    return kLarge;
  return std::min<int64_t>(kLarge, value & -value);
}

int64_t length(Type type) {
  auto shape = tk::shapeOf(type);
  return shape.empty() ? 1 : shape.back();
}

int64_t pointeeBytes(Type type) {
  Type elem = tk::elementTypeOf(type);
  if (auto ptr = dyn_cast<PtrType>(elem))
    elem = ptr.getPointee();
  return std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
}
} // namespace

AxisAnalysis::AxisAnalysis(func::FuncOp kernel) {
  for (BlockArgument arg : kernel.getArguments()) {
    AxisInfo a;
    if (auto div = kernel.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), TkDialect::kDivisibility))
      a.divisibility = div.getInt();
    a.constancy = kLarge;
    info_[arg] = a;
  }
  // Loop-carried values start as their initial values and are joined with what each
  // iteration yields, until nothing changes (Triton's dataflow fixpoint, in a few passes).
  for (int pass = 0; pass < 4; ++pass) {
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto loop = dyn_cast<scf::ForOp>(op))
        for (auto [arg, init] : llvm::zip(loop.getRegionIterArgs(), loop.getInitArgs()))
          if (!info_.count(arg))
            info_[arg] = get(init);
      for (unsigned i = 0; i < op->getNumResults(); ++i)
        info_[op->getResult(i)] = compute(op, i);
    });
    bool changed = false;
    kernel.walk([&](scf::ForOp loop) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [arg, next] : llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
        AxisInfo a = info_[arg], b = get(next);
        AxisInfo joined{std::gcd(a.contiguity, b.contiguity), std::gcd(a.divisibility, b.divisibility),
                        std::gcd(a.constancy, b.constancy)};
        if (joined.contiguity != a.contiguity || joined.divisibility != a.divisibility || joined.constancy != a.constancy) {
          info_[arg] = joined;
          changed = true;
        }
      }
    });
    if (!changed)
      return;
  }
  // Not settled: forget what loops carry.
  kernel.walk([&](scf::ForOp loop) {
    for (Value arg : loop.getRegionIterArgs())
      info_[arg] = AxisInfo{};
  });
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      info_[op->getResult(i)] = compute(op, i);
  });
}

AxisInfo AxisAnalysis::get(Value value) const {
  auto it = info_.find(value);
  return it == info_.end() ? AxisInfo{} : it->second;
}

AxisInfo AxisAnalysis::compute(Operation *op, unsigned resultIndex) {
  Value result = op->getResult(resultIndex);
  int64_t n = length(result.getType());
  auto in = [&](unsigned k) { return get(op->getOperand(k)); };
  AxisInfo r;
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    if (auto integer = dyn_cast<IntegerAttr>(c.getValue()))
      r.divisibility = powerOfTwoDividing(integer.getInt());
    else if (auto dense = dyn_cast<SplatElementsAttr>(c.getValue()); dense && dense.getElementType().isInteger())
      r.divisibility = powerOfTwoDividing(dense.getSplatValue<APInt>().getSExtValue());
    r.constancy = n;
    return r;
  }
  if (auto range = dyn_cast<MakeRangeOp>(op))
    return AxisInfo{n, powerOfTwoDividing(range.getStart()), 1};
  if (isa<SplatOp>(op))
    return AxisInfo{1, in(0).divisibility, n};
  if (auto hint = dyn_cast<HintOp>(op)) {
    r = in(0);
    if (hint.getMultipleOf())
      r.divisibility = std::max<int64_t>(r.divisibility, *hint.getMultipleOf());
    if (hint.getMaxContiguous())
      r.contiguity = std::max<int64_t>(r.contiguity, *hint.getMaxContiguous());
    return r;
  }
  if (isa<arith::AddIOp, AddPtrOp>(op)) {
    AxisInfo a = in(0), b = in(1);
    int64_t scale = isa<AddPtrOp>(op) ? pointeeBytes(op->getOperand(0).getType()) : 1;
    r.contiguity = std::max(std::gcd(a.contiguity, b.constancy), std::gcd(a.constancy, b.contiguity));
    r.divisibility = std::gcd(a.divisibility, std::min(kLarge, b.divisibility * scale));
    r.constancy = std::gcd(a.constancy, b.constancy);
    return r;
  }
  if (isa<arith::SubIOp>(op)) {
    AxisInfo a = in(0), b = in(1);
    return AxisInfo{std::gcd(a.contiguity, b.constancy), std::gcd(a.divisibility, b.divisibility),
                    std::gcd(a.constancy, b.constancy)};
  }
  if (isa<arith::MulIOp>(op)) {
    AxisInfo a = in(0), b = in(1);
    return AxisInfo{1, std::min(kLarge, a.divisibility * b.divisibility), std::gcd(a.constancy, b.constancy)};
  }
  if (isa<arith::CmpIOp>(op)) {
    AxisInfo a = in(0), b = in(1);
    // offs < n: constant over runs where offs is contiguous and n is a multiple of the run.
    int64_t run = 1;
    if (b.constancy >= n && a.contiguity > 1)
      run = std::gcd(a.contiguity, std::gcd(a.divisibility, b.divisibility));
    if (a.constancy >= n && b.contiguity > 1)
      run = std::gcd(b.contiguity, std::gcd(b.divisibility, a.divisibility));
    return AxisInfo{1, 1, std::max(run, std::gcd(a.constancy, b.constancy))};
  }
  if (isa<arith::AndIOp, arith::OrIOp>(op)) {
    AxisInfo a = in(0), b = in(1);
    return AxisInfo{1, 1, std::gcd(a.constancy, b.constancy)};
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(op))
    return in(0);
  // Shapes: the facts are about the last dimension.
  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    if (expand.getAxis() + 1 < (int64_t)tk::shapeOf(result.getType()).size())
      return in(0);
    // Each element is its own row now: divisible as a whole only when no run spans it.
    AxisInfo a = in(0);
    return AxisInfo{1, a.contiguity > 1 ? 1 : a.divisibility, 1};
  }
  if (isa<BroadcastOp>(op)) {
    AxisInfo a = in(0);
    if (tk::shapeOf(op->getOperand(0).getType()).back() == 1 && n > 1)
      return AxisInfo{1, a.divisibility, n};
    return a;
  }
  if (isa<gpu::ConvertLayoutOp>(op))
    return in(0);
  if (op->getNumResults() && isa<RankedTensorType>(result.getType()))
    r.constancy = 1;
  return r;
}

} // namespace tk::codegen
