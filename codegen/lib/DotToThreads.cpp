// `dot`. Results in the mma accumulator layout (assignLayouts decided) run on tensor cores
// (TensorCores.cpp). Everything else runs by FMA from shared memory: each thread accumulates
// its result elements over k in order, in f32 for floats (f32 inputs rounded to tf32 unless
// precision = "ieee"), i32 for i8, f64 for f64 — the interpreter's arithmetic, rounded once to
// the accumulator's type at the end.

#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "MmaPlan.h"
#include "Patterns.h"
#include "SharedAllocation.h"
#include "SharedRegion.h"
#include "TensorCoreOperands.h"
#include "TensorCores.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {

namespace {

/// The type products are summed in.
Type accumulatorType(OpBuilder &b, Type operand) {
  if (operand.isInteger())
    return b.getI32Type();
  if (operand.isF64())
    return b.getF64Type();
  return b.getF32Type();
}

Value widen(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  if (isa<IntegerType>(to))
    return arith::ExtSIOp::create(b, loc, to, v);
  return arith::ExtFOp::create(b, loc, to, v);
}

struct DotPattern : public OpConversionPattern<DotOp> {
  DotPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(DotOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (hasLinearLayout(op.getResult().getType())) {
      if (lowersToWarpgroupMma(op, converter.threads(), converter.warpgroupMma())) {
        // planMma saw B's stage feed only dots; one of them off the tensor cores breaks that.
        if (!tensorCoreStage(op.getB()))
          return op.emitError("B's stage also feeds a dot that is not on the tensor cores; use separate loads");
        lowerToWarpgroupMma(op, adaptor.getA(), adaptor.getAcc(), rewriter, converter);
        return success();
      }
      lowerToTensorCores(op, adaptor.getA(), adaptor.getB(), adaptor.getAcc(), rewriter, converter);
      return success();
    }
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(op.getA().getType()), bType = cast<RankedTensorType>(op.getB().getType());
    int64_t k = aType.getDimSize(1), n = bType.getDimSize(1);
    BlockedLayout la = converter.layoutOf(aType), lb = converter.layoutOf(bType), lc = converter.layoutOf(op.getType());
    Type operand = aType.getElementType(), sum = accumulatorType(rewriter, operand);
    Type resultElement = cast<RankedTensorType>(op.getType()).getElementType();
    bool tf32 = operand.isF32() && op.getPrecision() == DotPrecision::tf32;
    int64_t bOffset = roundUp16(aType.getNumElements() * elementBytes(aType));

    SharedRegion shared(rewriter, loc, op);
    Value tid = threadId(rewriter, loc);
    shared.beginWrites(rewriter, loc);
    auto stage = [&](ValueRange values, const BlockedLayout &l, int64_t offset) {
      auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{}, isOwner(rewriter, loc, l, tid), false);
      OpBuilder b = ifOp.getThenBodyBuilder();
      for (size_t slot = 0; slot < values.size(); ++slot)
        shared.store(b, loc, tf32 ? roundToTf32(b, loc, values[slot]) : values[slot], elementIndex(b, loc, l, slot, tid), offset);
    };
    stage(adaptor.getA(), la, 0);
    stage(adaptor.getB(), lb, bOffset);
    shared.endWrites(rewriter, loc);

    SmallVector<Value> init, rows, cols;
    for (int64_t slot = 0; slot < lc.perThread(); ++slot) {
      init.push_back(widen(rewriter, loc, slotOf(adaptor.getAcc(), slot), sum));
      Value index = elementIndex(rewriter, loc, lc, slot, tid);
      rows.push_back(arith::MulIOp::create(rewriter, loc, arith::ShRUIOp::create(rewriter, loc, index, i32Constant(rewriter, loc, log2Of(n))),
                                           i32Constant(rewriter, loc, k)));
      cols.push_back(arith::AndIOp::create(rewriter, loc, index, i32Constant(rewriter, loc, n - 1)));
    }
    auto loop = scf::ForOp::create(rewriter, loc, i32Constant(rewriter, loc, 0), i32Constant(rewriter, loc, k),
                                   i32Constant(rewriter, loc, 1), init);
    {
      OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
      Value kk = loop.getInductionVar();
      Value bRow = arith::MulIOp::create(b, loc, kk, i32Constant(b, loc, n));
      SmallVector<Value> next;
      for (int64_t slot = 0; slot < lc.perThread(); ++slot) {
        Value x = widen(b, loc, shared.load(b, loc, operand, arith::AddIOp::create(b, loc, rows[slot], kk)), sum);
        // (B's own type: FP8's may differ from A's.)
        Value bIndex = arith::AddIOp::create(b, loc, bRow, cols[slot]);
        Value y = widen(b, loc, shared.load(b, loc, bType.getElementType(), bIndex, bOffset), sum);
        Value acc = loop.getRegionIterArgs()[slot];
        next.push_back(isa<IntegerType>(sum)
                           ? (Value)arith::AddIOp::create(b, loc, acc, arith::MulIOp::create(b, loc, x, y))
                           : (Value)arith::AddFOp::create(b, loc, acc, arith::MulFOp::create(b, loc, x, y)));
      }
      scf::YieldOp::create(b, loc, next);
    }
    SmallVector<Value> results;
    for (Value v : loop.getResults())
      results.push_back(v.getType() == resultElement ? v
                        : isa<IntegerType>(resultElement) ? (Value)arith::TruncIOp::create(rewriter, loc, resultElement, v)
                                                           : (Value)arith::TruncFOp::create(rewriter, loc, resultElement, v));
    rewriter.replaceOpWithMultiple(op, {results});
    return success();
  }

  ThreadTypeConverter &converter;
};

/// wgmma.wait_group `pending` over the accumulators of dots left in flight; elsewhere the
/// identity.
struct DotWaitPattern : public OpConversionPattern<DotWaitOp> {
  DotWaitPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(DotWaitOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    SmallVector<Value> flat;
    for (ValueRange values : adaptor.getValues())
      flat.append(values.begin(), values.end());
    if (converter.warpgroupMma() && llvm::all_of(flat, [](Value v) { return v.getType().isF32(); }))
      flat = waitForWarpgroupMma(rewriter, op.getLoc(), flat, op.getPending());
    SmallVector<SmallVector<Value>> results;
    size_t next = 0;
    for (ValueRange values : adaptor.getValues()) {
      results.emplace_back(flat.begin() + next, flat.begin() + next + values.size());
      next += values.size();
    }
    rewriter.replaceOpWithMultiple(op, results);
    return success();
  }

  ThreadTypeConverter &converter;
};

/// wgmma.wait_group 0 over no registers; elsewhere nothing.
struct DotWaitAllPattern : public OpConversionPattern<DotWaitAllOp> {
  DotWaitAllPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(DotWaitAllOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    if (converter.warpgroupMma())
      waitForWarpgroupMma(rewriter, op.getLoc(), ValueRange{}, /*pending=*/0);
    rewriter.eraseOp(op);
    return success();
  }

  ThreadTypeConverter &converter;
};

} // namespace

int64_t dotSharedBytes(DotOp op, const ThreadTypeConverter &converter) {
  if (lowersToWarpgroupMma(op, converter.threads(), converter.warpgroupMma()))
    return warpgroupMmaSharedBytes(op, converter);
  int64_t bytes = 0;
  for (Value operand : {op.getA(), op.getB()}) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (!tensorCoreStage(operand) && !hasLinearLayout(operand.getType()))
      bytes += roundUp16(type.getNumElements() * elementBytes(type));
  }
  return bytes;
}

void populateDotToThreads(ThreadTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DotPattern, DotWaitPattern, DotWaitAllPattern>(converter, patterns.getContext());
}

} // namespace tk::codegen
