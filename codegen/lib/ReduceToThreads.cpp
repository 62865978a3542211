// Reductions of 1-D tiles: each thread folds its slots in order, lanes combine with butterfly
// shuffles, warps combine through shared memory (`tk_reduce_scratch`); every thread ends with
// the result.
#include "ThreadLowering.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {

namespace {

struct ReducePattern : public OpConversionPattern<ReduceOp> {
  ReducePattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(ReduceOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto tile = cast<RankedTensorType>(op.getSrcs()[0].getType());
    if (tile.getRank() != 1)
      return failure();
    Layout1D l = converter.layout(tile.getDimSize(0));
    size_t count = op.getSrcs().size();
    Region &region = op.getCombine();

    // 1. This thread's slots, in order.
    SmallVector<Value> acc;
    for (size_t k = 0; k < count; ++k)
      acc.push_back(adaptor.getSrcs()[k][0]);
    for (int64_t slot = 1; slot < l.perThread(); ++slot) {
      SmallVector<Value> next;
      for (size_t k = 0; k < count; ++k)
        next.push_back(adaptor.getSrcs()[k][slot]);
      acc = combineRegion(rewriter, region, acc, next);
    }
    // 2. Across the lanes that own distinct elements (replicas reduce to the same value).
    int64_t owners = l.owners();
    for (int64_t offset = std::min<int64_t>(32, owners) / 2; offset >= 1; offset /= 2) {
      SmallVector<Value> other;
      for (Value v : acc)
        other.push_back(shuffle(rewriter, loc, v, offset, NVVM::ShflKind::bfly, 0x1f));
      acc = combineRegion(rewriter, region, acc, other);
    }
    // 3. Across warps, through shared memory.
    int64_t warps = owners / 32;
    if (warps > 1) {
      ScratchSlots scratch(rewriter, loc, op);
      Value tid = threadId(rewriter, loc);
      Value lane = arith::AndIOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, 31));
      Value warp = arith::ShRUIOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, 5));
      Value isWriter = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane, i32Constant(rewriter, loc, 0)),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, warp, i32Constant(rewriter, loc, warps)));
      scratch.publish(rewriter, loc, isWriter, acc, warp);
      auto slotPtr = [&](OpBuilder &b, size_t k, Value w) { return scratch.at(b, loc, k, w); };
      SmallVector<Value> total;
      for (size_t k = 0; k < count; ++k)
        total.push_back(LLVM::LoadOp::create(rewriter, loc, acc[k].getType(), slotPtr(rewriter, k, i32Constant(rewriter, loc, 0))));
      for (int64_t w = 1; w < warps; ++w) {
        SmallVector<Value> next;
        for (size_t k = 0; k < count; ++k)
          next.push_back(LLVM::LoadOp::create(rewriter, loc, acc[k].getType(), slotPtr(rewriter, k, i32Constant(rewriter, loc, w))));
        total = combineRegion(rewriter, region, total, next);
      }
      acc = total;
    }
    rewriter.replaceOp(op, acc);
    return success();
  }

  ThreadTypeConverter &converter;
};

} // namespace

void populateReduceToThreads(ThreadTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReducePattern>(converter, patterns.getContext());
}

} // namespace tk::codegen
