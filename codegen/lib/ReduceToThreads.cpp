// Reductions along one axis of a tile of any rank: each thread folds the slots it holds along
// the axis, lanes that split the axis combine with butterfly shuffles, and when warps split it
// too (or the reduced tile's layout puts results in other threads) the partial results go
// through shared memory, where each thread folds the ones its result elements need.
#include "Combine.h"
#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "Patterns.h"
#include "SharedAllocation.h"
#include "SharedRegion.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {

namespace {

struct ReducePlan {
  Distribution source; // the default layout, or the mma accumulator's
  Distribution result; // the default layout, or a slice of the source's
  int64_t resultSize = 1;
  int64_t threads = 0;
  BitMap toResult; // source element index -> result element index
  int64_t axisSlots = 0;   // slot bits along the axis
  SmallVector<int> lanes;  // lane bits along the axis
  SmallVector<int> warps;  // warp bits (of the thread id) along the axis
  std::optional<std::vector<int64_t>> direct; // result slot -> partial slot, without shared memory

  int64_t warpCount() const { return int64_t(1) << warps.size(); }
};

ReducePlan planReduce(ReduceOp op, const ThreadTypeConverter &converter) {
  auto tile = cast<RankedTensorType>(op.getSrcs()[0].getType());
  ReducePlan plan;
  plan.source = distributionOf(op.getSrcs()[0]);
  plan.threads = converter.threads();
  plan.result = distributionOf(op.getResult(0));
  if (auto tile = dyn_cast<RankedTensorType>(op.getResult(0).getType()))
    plan.resultSize = tile.getNumElements();
  plan.toResult = dropAxis(tile.getShape(), op.getAxis());
  auto inAxis = [&](int bit) { return bit >= 0 && plan.toResult[bit] < 0; };
  // The partial results after the shuffles, as a distribution of the reduced tile.
  LayoutBits partials;
  const std::vector<int> &slotBits = plan.source.bits.slot, &threadBits = plan.source.bits.thread;
  for (size_t b = 0; b < slotBits.size(); ++b) {
    if (inAxis(slotBits[b]))
      plan.axisSlots |= int64_t(1) << b;
    partials.slot.push_back(inAxis(slotBits[b]) || slotBits[b] < 0 ? -1 : plan.toResult[slotBits[b]]);
  }
  for (size_t b = 0; b < threadBits.size(); ++b) {
    if (inAxis(threadBits[b]))
      (b < 5 ? plan.lanes : plan.warps).push_back(b);
    partials.thread.push_back(inAxis(threadBits[b]) || threadBits[b] < 0 ? -1 : plan.toResult[threadBits[b]]);
  }
  if (plan.warps.empty()) {
    plan.direct = slotsInThread(plan.result.bits, partials, identityMap(log2Of(plan.resultSize)));
  }
  return plan;
}


struct ReducePattern : public OpConversionPattern<ReduceOp> {
  ReducePattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ReducePlan plan = planReduce(op, converter);
    size_t count = op.getSrcs().size();
    Region &region = op.getCombine();
    auto operandsAt = [&](int64_t slot) {
      SmallVector<Value> values;
      for (size_t k = 0; k < count; ++k)
        values.push_back(adaptor.getSrcs()[k][slot]);
      return values;
    };

    // 1. Each thread folds its slots along the axis, in order; partials sit at the slots whose
    //    axis bits are zero.
    std::map<int64_t, SmallVector<Value>> partial;
    for (int64_t slot = 0; slot < plan.source.perThread(); ++slot) {
      int64_t first = slot & ~plan.axisSlots;
      auto it = partial.find(first);
      if (it == partial.end())
        partial[first] = operandsAt(slot);
      else
        it->second = combineRegion(rewriter, region, it->second, operandsAt(slot));
    }
    // 2. Across the lanes that split the axis (replicas need no step).
    for (int bit : llvm::reverse(plan.lanes))
      for (auto &[slot, acc] : partial) {
        SmallVector<Value> other;
        for (Value v : acc)
          other.push_back(shuffle(rewriter, loc, v, int64_t(1) << bit, NVVM::ShflKind::bfly, 0x1f));
        acc = combineRegion(rewriter, region, acc, other);
      }

    SmallVector<SmallVector<Value>> results(count);
    if (plan.direct) {
      for (int64_t slot : *plan.direct)
        for (size_t k = 0; k < count; ++k)
          results[k].push_back(partial[slot][k]);
    } else {
      // 3. Through shared memory: partial of result element o from the w-th warp along the
      //    axis at o * W + w; each thread folds the W partials of each of its result elements.
      SharedRegion shared(rewriter, loc, op);
      int64_t w = plan.warpCount();
      Value tid = threadId(rewriter, loc);
      SmallVector<int64_t> offsets;
      int64_t offset = 0;
      for (size_t k = 0; k < count; ++k) {
        offsets.push_back(offset);
        offset += roundUp16(plan.resultSize * w * elementBytes(op.getSrcs()[k].getType()));
      }
      BitMap warpIndex(log2Of(plan.threads), -1);
      for (size_t i = 0; i < plan.warps.size(); ++i)
        warpIndex[plan.warps[i]] = i;
      int64_t laneMask = 0;
      for (int bit : plan.lanes)
        laneMask |= int64_t(1) << bit;
      Value writer = arith::AndIOp::create(
          rewriter, loc, isOwner(rewriter, loc, plan.source, tid),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                arith::AndIOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, laneMask)),
                                i32Constant(rewriter, loc, 0)));
      shared.beginWrites(rewriter, loc);
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, writer, false);
      OpBuilder b = ifOp.getThenBodyBuilder();
      Value warp = remapIndex(b, loc, tid, warpIndex);
      for (auto &[slot, acc] : partial) {
        Value element = remapIndex(b, loc, elementIndex(b, loc, plan.source, slot, tid), plan.toResult);
        Value at = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, element, i32Constant(b, loc, w)), warp);
        for (size_t k = 0; k < count; ++k)
          shared.store(b, loc, acc[k], at, offsets[k]);
      }
      shared.endWrites(rewriter, loc);
      for (int64_t slot = 0; slot < plan.result.perThread(); ++slot) {
        Value first = arith::MulIOp::create(rewriter, loc, elementIndex(rewriter, loc, plan.result, slot, tid),
                                            i32Constant(rewriter, loc, w));
        auto loadAll = [&](int64_t i) {
          Value at = arith::AddIOp::create(rewriter, loc, first, i32Constant(rewriter, loc, i));
          SmallVector<Value> values;
          for (size_t k = 0; k < count; ++k)
            values.push_back(shared.load(rewriter, loc, partial.begin()->second[k].getType(), at, offsets[k]));
          return values;
        };
        SmallVector<Value> total = loadAll(0);
        for (int64_t i = 1; i < w; ++i)
          total = combineRegion(rewriter, region, total, loadAll(i));
        for (size_t k = 0; k < count; ++k)
          results[k].push_back(total[k]);
      }
    }
    SmallVector<SmallVector<Value>> replacements(results.begin(), results.end());
    rewriter.replaceOpWithMultiple(op, replacements);
    return success();
  }

  ThreadTypeConverter &converter;
};

} // namespace

int64_t reduceSharedBytes(ReduceOp op, const ThreadTypeConverter &converter) {
  ReducePlan plan = planReduce(op, converter);
  if (plan.direct)
    return 0;
  int64_t bytes = 0;
  for (Value src : op.getSrcs())
    bytes += roundUp16(plan.resultSize * plan.warpCount() * elementBytes(src.getType()));
  return bytes;
}

void populateReduceToThreads(ThreadTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReducePattern>(converter, patterns.getContext());
}

} // namespace tk::codegen
