// Stage rings in shared memory (made by tk-pipeline-dot-loads): `local_alloc` is a byte range
// of `tk_smem` that assignShared reserves for the whole kernel; `async_copy` is cp.async per
// owned group of contiguous elements (16 bytes when the axis analysis allows, else 8 or 4;
// single 2-byte elements load and store synchronously), with the mask as the source size so
// that masked-off bytes become zero; `async_wait` is cp.async.wait_group plus a barrier;
// `local_load` reads the stage unless only tensor-core dots use it (they read it themselves).
// Stages are column blocks of at most 128 bytes, rows of 16-byte chunks XOR-swizzled in each
// (SwizzleParams: the layout ldmatrix reads without bank conflicts and wgmma's descriptors name).

#include "AffineAddresses.h"
#include "AxisAnalysis.h"
#include "IndexArithmetic.h"
#include "MemoryAccess.h"
#include "MemoryTypes.h"
#include "Patterns.h"
#include "SharedAllocation.h"
#include "SharedRegion.h"
#include "StageRings.h"
#include "Swizzle.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace tk::codegen {

int64_t localAllocBytes(LocalAllocOp op) {
  SharedBufferType type = op.getType();
  return llvm::product_of(type.getShape()) * elementBytes(type.getElementType());
}

Value stageBase(OpBuilder &b, Location loc, Value buffer, Value stage, SharedBufferType type) {
  int64_t stageBytes = llvm::product_of(type.tileShape()) * elementBytes(type.getElementType());
  Value offset = arith::MulIOp::create(b, loc, stage, i32Constant(b, loc, stageBytes));
  return LLVM::GEPOp::create(b, loc, buffer.getType(), b.getI8Type(), buffer, ValueRange{offset});
}

bool feedsTensorCoresOnly(LocalLoadOp op) {
  return llvm::all_of(op->getUses(), [&](OpOperand &use) {
    auto dot = dyn_cast<DotOp>(use.getOwner());
    // A transposed stage holds B as rows of N, which only B's ldmatrix reads as they are.
    unsigned operand = use.getOperandNumber();
    return dot && (operand == 1 || (operand == 0 && !op.getTrans())) && hasLinearLayout(dot.getResult().getType());
  });
}

namespace {

struct LocalAllocPattern : public OpConversionPattern<LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LocalAllocOp op, OneToNOpAdaptor, ConversionPatternRewriter &rewriter) const override {
    SharedRegion region(rewriter, op.getLoc(), op);
    rewriter.replaceOp(op, region.base());
    return success();
  }
};

struct AsyncCopyPattern : public OpConversionPattern<AsyncCopyOp> {
  AsyncCopyPattern(ThreadTypeConverter &converter, const AxisAnalysis &axis, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter), axis(axis) {}

  LogicalResult matchAndRewrite(AsyncCopyOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedBufferType type = op.getBuffer().getType();
    // The stage's tile, held as the pointer tile is.
    auto tile = RankedTensorType::get(type.tileShape(), type.getElementType(), op.getPtr().getType().getEncoding());
    int64_t rowLength = type.tileShape().back(), bytes = elementBytes(tile);
    BlockedLayout l = converter.layoutOf(tile);
    int64_t width = accessWidth(axis, converter, op.getPtr(), op.getMask(), tile);
    ValueRange ptrs = adaptor.getPtr(), masks = op.getMask() ? adaptor.getMask() : ValueRange{};
    Value tid = threadId(rewriter, loc);
    Value base = stageBase(rewriter, loc, adaptor.getBuffer()[0], adaptor.getStage()[0], type);
    auto owner = scf::IfOp::create(rewriter, loc, TypeRange{}, isOwner(rewriter, loc, l, tid), false);
    OpBuilder b = owner.getThenBodyBuilder();
    Type chunk = b.getIntegerType(bytes * 8);
    auto swizzle = SwizzleParams::ofElements(type.tileShape().front(), rowLength, bytes);
    auto coefficients = indexBitCoefficients(op.getPtr());
    // Slots of a tile that covers the threads whole are the thread's element plus constant
    // rows and columns: their destinations are a few bases plus folded offsets.
    bool wholeRows = l.size >= l.threads * l.sizePerThread && (l.threads * l.sizePerThread) % rowLength == 0 &&
                     l.sizePerThread <= rowLength;
    auto [laneRow, laneColumn] = rowAndColumn(b, loc, elementIndex(b, loc, l, 0, tid), rowLength);
    SwizzledOffsets destinations(b, loc, swizzle, laneRow, laneColumn);
    Value policy = l2EvictionPolicy(b, loc, op.getEvict());
    for (size_t slot = 0; slot < ptrs.size(); slot += width) {
      Value index;
      if (wholeRows) {
        int64_t offset = l.slotOffset(slot);
        index = destinations.at(offset / rowLength, offset % rowLength);
      } else {
        auto [row, column] = rowAndColumn(b, loc, elementIndex(b, loc, l, slot, tid), rowLength);
        index = swizzledIndex(b, loc, swizzle, row, column);
      }
      Value dst = LLVM::GEPOp::create(b, loc, base.getType(), chunk, base, ValueRange{index});
      Value src = slotPointer(b, loc, op.getPtr(), ptrs, Distribution::of(l), slot, coefficients);
      Value mask = masks.empty() ? Value() : slotOf(masks, slot);
      int64_t size = width * bytes;
      if (size >= 4) {
        // The source size: every byte, or none (the destination is zero-filled).
        Value sourceBytes = mask ? (Value)arith::SelectOp::create(b, loc, mask, i32Constant(b, loc, size), i32Constant(b, loc, 0))
                                 : Value();
        if (policy) {
          copyWithPolicy(b, loc, dst, src, size, sourceBytes ? sourceBytes : i32Constant(b, loc, size), policy);
          continue;
        }
        NVVM::CpAsyncOp::create(b, loc, dst, src, b.getI32IntegerAttr(size),
                                NVVM::LoadCacheModifierKindAttr::get(b.getContext(), size == 16 ? NVVM::LoadCacheModifierKind::CG
                                                                                                 : NVVM::LoadCacheModifierKind::CA),
                                sourceBytes);
        continue;
      }
      // Under 4 bytes, a plain load and store of all `width` elements at once (2 FP8 bytes are
      // one i16: the access width says they are that aligned).
      Type piece = b.getIntegerType(size * 8);
      Value value;
      if (mask) {
        auto ifOp = scf::IfOp::create(b, loc, TypeRange{piece}, mask, true);
        OpBuilder thenBuilder = ifOp.getThenBodyBuilder();
        scf::YieldOp::create(thenBuilder, loc, ValueRange{LLVM::LoadOp::create(thenBuilder, loc, piece, src)});
        OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
        scf::YieldOp::create(elseBuilder, loc, ValueRange{arith::ConstantOp::create(elseBuilder, loc, b.getIntegerAttr(piece, 0))});
        value = ifOp.getResult(0);
      } else {
        value = LLVM::LoadOp::create(b, loc, piece, src);
      }
      LLVM::StoreOp::create(b, loc, value, dst);
    }
    rewriter.eraseOp(op);
    return success();
  }

  /// cp.async with an L2 eviction priority: NVVM's op has no cache-policy operand, so inline
  /// PTX (`.L2::cache_hint`, PTX ISA 7.4), the source size always spelled out (the policy is
  /// the operand after it).
  static void copyWithPolicy(OpBuilder &b, Location loc, Value dst, Value src, int64_t size, Value sourceBytes,
                             Value policy) {
    std::string text = std::string("cp.async.") + (size == 16 ? "cg" : "ca") + ".shared.global.L2::cache_hint [$0], [$1], " +
                       std::to_string(size) + ", $2, $3;";
    inlinePtx(b, loc, TypeRange{}, ValueRange{LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), dst),
                                              LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), src), sourceBytes, policy},
              text, "r,l,r,l", /*sideEffects=*/true);
  }

  ThreadTypeConverter &converter;
  const AxisAnalysis &axis;
};

struct AsyncCommitPattern : public OpConversionPattern<AsyncCommitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncCommitOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct AsyncWaitPattern : public OpConversionPattern<AsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsyncWaitOp op, OpAdaptor, ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(), op.getPending());
    // wgmma reads shared memory through the async proxy: each thread fences the copies it
    // wrote before the barrier publishes them (once per wait, not before every dot: an
    // attention's Q, copied once, then needs no fence in the loop).
    auto *converter = static_cast<const ThreadTypeConverter *>(getTypeConverter());
    if (converter->warpgroupMma() && converter->stagesWrittenByThreads())
      NVVM::FenceProxyOp::create(rewriter, op.getLoc(), NVVM::ProxyKind::async_shared,
                                 NVVM::SharedSpaceAttr::get(rewriter.getContext(), NVVM::SharedSpace::shared_cta));
    programBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalLoadPattern : public OpConversionPattern<LocalLoadOp> {
  LocalLoadPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(LocalLoadOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto result = cast<RankedTensorType>(op.getType());
    BlockedLayout l = converter.layoutOf(result);
    Type element = result.getElementType();
    if (feedsTensorCoresOnly(op)) {
      // (No values: the MMAs read the stage. FP8's placeholder is a poison byte as its type.)
      Value none = fromMemory(rewriter, loc, LLVM::PoisonOp::create(rewriter, loc, memoryType(element)), element);
      rewriter.replaceOpWithMultiple(op, {SmallVector<Value>(l.perThread(), none)});
      return success();
    }
    SharedBufferType type = op.getBuffer().getType();
    int64_t rowLength = type.tileShape().back();
    auto swizzle = SwizzleParams::ofElements(type.tileShape().front(), rowLength, elementBytes(element));
    Value base = stageBase(rewriter, loc, adaptor.getBuffer()[0], adaptor.getStage()[0], type);
    Value tid = threadId(rewriter, loc);
    SmallVector<Value> values;
    for (int64_t slot = 0; slot < l.perThread(); ++slot) {
      auto [row, column] = rowAndColumn(rewriter, loc, elementIndex(rewriter, loc, l, slot, tid), result.getShape().back());
      if (op.getTrans())
        std::swap(row, column);
      Value at = LLVM::GEPOp::create(rewriter, loc, base.getType(), element, base,
                                     ValueRange{swizzledIndex(rewriter, loc, swizzle, row, column)});
      values.push_back(LLVM::LoadOp::create(rewriter, loc, element, at));
    }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }

  ThreadTypeConverter &converter;
};

} // namespace

void populateAsyncCopyToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis, RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LocalAllocPattern, AsyncCommitPattern, AsyncWaitPattern>(converter, context);
  patterns.add<AsyncCopyPattern>(converter, axis, context);
  patterns.add<LocalLoadPattern>(converter, context);
}

} // namespace tk::codegen
