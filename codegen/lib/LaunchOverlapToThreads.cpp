// What lets a kernel overlap the one ahead of it in its stream (sm_90 and later; nothing
// before): gdc_wait and gdc_launch_dependents (programmatic dependent launch) and prefetch_l2,
// by which a dependent starts streaming memory no earlier kernel writes (its weights) before
// its gdc_wait returns.

#include "IndexArithmetic.h"
#include "MemoryTypes.h"
#include "Patterns.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace tk::codegen {

namespace {

/// gdc_wait and gdc_launch_dependents: griddepcontrol. The wait is a side-effecting asm, which
/// LLVM moves no memory access across; the runtime launches a kernel that has one as a
/// programmatic dependent (ThreadsToLLVM marks it).
template <typename Op> struct GridDependencyPattern : public OpConversionPattern<Op> {
  GridDependencyPattern(ThreadTypeConverter &converter, int sm, MLIRContext *context)
      : OpConversionPattern<Op>(converter, context), sm(sm) {}
  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (sm >= 90)
      inlinePtx(rewriter, op.getLoc(), TypeRange{}, ValueRange{},
                std::is_same<Op, GridDependencyWaitOp>::value ? kGridDependencyWait : "griddepcontrol.launch_dependents;",
                "~{memory}", /*sideEffects=*/true);
    rewriter.eraseOp(op);
    return success();
  }
  int sm;
};

/// prefetch_l2: one cp.async.bulk.prefetch.L2 per pointer, issued by the thread that owns it
/// (one thread for a scalar). The bulk prefetch takes a 16-byte aligned address and a multiple
/// of 16 bytes, so the range is widened to the 16-byte granules it touches: they lie in the
/// allocation's pages when its bytes do. The predicate rides in the asm (no branch per slot).
struct PrefetchL2Pattern : public OpConversionPattern<PrefetchL2Op> {
  PrefetchL2Pattern(ThreadTypeConverter &converter, int sm, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter), sm(sm) {}

  LogicalResult matchAndRewrite(PrefetchL2Op op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (sm < 90) {
      rewriter.eraseOp(op);
      return success();
    }
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type(), i32 = rewriter.getI32Type();
    auto constant = [&](int64_t v) { return (Value)arith::ConstantIntOp::create(rewriter, loc, i64, v); };
    Type pointee = cast<PtrType>(tk::elementTypeOf(op.getPtr().getType())).getPointee();
    int64_t elementSize = elementBytes(memoryType(pointee));
    // A count of 2^31 bytes or more prefetches its first 2^31 - 16 or so (the size is a u32),
    // clamped before the multiplication so that no count wraps.
    int64_t limit = ((int64_t(1) << 31) - 16) / elementSize;
    Value count = arith::MinSIOp::create(rewriter, loc, adaptor.getCount().front(), constant(limit));
    Value bytes = arith::MulIOp::create(rewriter, loc, count, constant(elementSize));
    Value some = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt, bytes, constant(0));
    Value owner = isOwner(rewriter, loc, converter.layoutOf(op.getPtr().getType()), threadId(rewriter, loc));
    Value issue = arith::AndIOp::create(rewriter, loc, owner, some);
    ValueRange ptrs = adaptor.getPtr();
    for (size_t slot = 0; slot < ptrs.size(); ++slot) {
      Value pred = op.getMask() ? (Value)arith::AndIOp::create(rewriter, loc, issue, slotOf(adaptor.getMask(), slot)) : issue;
      Value start = LLVM::PtrToIntOp::create(rewriter, loc, i64, ptrs[slot]);
      Value first = arith::AndIOp::create(rewriter, loc, start, constant(~int64_t(15)));
      Value end = arith::AddIOp::create(rewriter, loc, arith::AddIOp::create(rewriter, loc, start, bytes), constant(15));
      Value last = arith::AndIOp::create(rewriter, loc, end, constant(~int64_t(15)));
      Value size = arith::TruncIOp::create(rewriter, loc, i32, arith::SubIOp::create(rewriter, loc, last, first));
      inlinePtx(rewriter, loc, TypeRange{}, ValueRange{first, size, arith::ExtUIOp::create(rewriter, loc, i32, pred)},
                "{ .reg .pred p; setp.ne.b32 p, $2, 0; @p cp.async.bulk.prefetch.L2.global [$0], $1; }", "l,r,r",
                /*sideEffects=*/true);
    }
    rewriter.eraseOp(op);
    return success();
  }

  ThreadTypeConverter &converter;
  int sm;
};

} // namespace

void populateLaunchOverlapToThreads(ThreadTypeConverter &converter, int sm, RewritePatternSet &patterns) {
  patterns.add<GridDependencyPattern<GridDependencyWaitOp>, GridDependencyPattern<LaunchDependentsOp>, PrefetchL2Pattern>(
      converter, sm, patterns.getContext());
}

} // namespace tk::codegen
