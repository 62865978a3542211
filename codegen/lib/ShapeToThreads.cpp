// Shape changes: broadcast, expand_dims, reshape and trans. Each is a bit map from the result's
// row-major element index to the source's; the elements move between threads only when the
// thread does not already hold them (redistribute).
#include "AffineAddresses.h"
#include "IndexArithmetic.h"
#include "MemoryAccess.h"
#include "MemoryTypes.h"
#include "Patterns.h"
#include "SharedAllocation.h"
#include "SharedRegion.h"
#include "ThreadTypeConverter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace tk::codegen {

namespace {

/// Whether a broadcast computes its source's elements in each thread (AffineAddresses.h).
bool recomputedHere(Operation *op) {
  auto broadcast = dyn_cast<BroadcastOp>(op);
  return broadcast && recomputedInEachThread(broadcast);
}

/// Element values computed for one slot, by value and index: a value reached along several
/// paths (`f * f + f`) is computed, and a load issued, once.
using ElementCache = DenseMap<std::pair<Value, Value>, Value>;

/// The scalar value of element `index` (row-major) of `value`, computed from its definition.
Value elementAt(ConversionPatternRewriter &b, Location loc, Value value, Value index, ElementCache &cache) {
  if (!isa<RankedTensorType>(value.getType()))
    return b.getRemappedValue(value);
  if (Value known = cache.lookup({value, index}))
    return known;
  auto at = [&](Value operand, Value operandIndex) { return elementAt(b, loc, operand, operandIndex, cache); };
  Operation *def = value.getDefiningOp();
  Value element;
  if (auto range = dyn_cast<MakeRangeOp>(def)) {
    element = arith::AddIOp::create(b, loc, index, i32Constant(b, loc, range.getStart()));
  } else if (auto splat = dyn_cast<SplatOp>(def)) {
    element = b.getRemappedValue(splat.getSrc());
  } else if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    element = arith::ConstantOp::create(b, loc, cast<TypedAttr>(cast<SplatElementsAttr>(constant.getValue()).getSplatValue<Attribute>()));
  } else if (isa<BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp>(def)) {
    element = at(def->getOperand(0), remapIndex(b, loc, index, resultToSource(def)));
  } else if (auto load = dyn_cast<LoadOp>(def)) { // (a broadcast marked tkg.rereadable)
    element = loadElement(b, loc, at(load.getPtr(), index), load.getMask() ? at(load.getMask(), index) : Value(),
                          load.getOther() ? at(load.getOther(), index) : Value(), elementTypeOf(value.getType()));
  } else if (auto addptr = dyn_cast<AddPtrOp>(def)) {
    Type pointee = memoryType(cast<PtrType>(elementTypeOf(addptr.getType())).getPointee());
    Value ptr = at(addptr.getPtr(), index), offset = at(addptr.getOffset(), index);
    element = LLVM::GEPOp::create(b, loc, ptr.getType(), pointee, ptr, ValueRange{offset});
  } else {
    OperationState state(loc, def->getName());
    for (Value operand : def->getOperands())
      state.operands.push_back(at(operand, index));
    state.types.push_back(elementTypeOf(value.getType()));
    state.attributes = def->getAttrDictionary();
    element = b.create(state)->getResult(0);
  }
  return cache[{value, index}] = element;
}

template <typename Op> struct ShapePattern : public OpConversionPattern<Op> {
  ShapePattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern<Op>(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // Either side may be in a special layout: a row statistic kept in a slice of the mma
    // accumulator's layout broadcasts into that layout without moving.
    Distribution source = distributionOf(op->getOperand(0));
    Distribution result = distributionOf(op->getResult(0));
    BitMap map = resultToSource(op);
    if (!slotsInThread(result.bits, source.bits, map) && recomputedHere(op)) {
      // Each distinct source element this thread needs is computed once: slots that differ
      // only in broadcast bits share it.
      int64_t repeated = 0;
      for (size_t bit = 0; bit < result.bits.slot.size(); ++bit)
        if (result.bits.slot[bit] < 0 || map[result.bits.slot[bit]] < 0)
          repeated |= int64_t(1) << bit;
      Location loc = op.getLoc();
      Value tid = threadId(rewriter, loc);
      SmallVector<Value> values(result.perThread());
      ElementCache cache;
      for (int64_t slot = 0; slot < result.perThread(); ++slot)
        values[slot] = slot & repeated ? values[slot & ~repeated]
                                       : elementAt(rewriter, loc, op->getOperand(0),
                                                   remapIndex(rewriter, loc, elementIndex(rewriter, loc, result, slot, tid), map),
                                                   cache);
      rewriter.replaceOpWithMultiple(op, {values});
      return success();
    }
    rewriter.replaceOpWithMultiple(op, {redistribute(rewriter, op.getLoc(), op, adaptor.getOperands()[0], source, result, map)});
    return success();
  }

  ThreadTypeConverter &converter;
};

/// A tile in a special layout (the mma accumulator's) moves to the default one.
struct ConvertLayoutPattern : public OpConversionPattern<ConvertLayoutOp> {
  ConvertLayoutPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Distribution source = distributionOf(op.getSrc());
    Distribution result = distributionOf(op.getResult());
    if (source.blocked && result.blocked) {
      rewriter.replaceOpWithMultiple(op, {adaptor.getSrc()});
      return success();
    }
    rewriter.replaceOpWithMultiple(op, {redistribute(rewriter, op.getLoc(), op, adaptor.getSrc(), source, result,
                                                     identityMap(log2Of(op.getType().getNumElements())),
                                                     converter.matrixStores())});
    return success();
  }

  ThreadTypeConverter &converter;
};

} // namespace

int64_t convertLayoutSharedBytes(ConvertLayoutOp op, const ThreadTypeConverter &converter) {
  if (!hasLinearLayout(op.getSrc().getType()) && !hasLinearLayout(op.getResult().getType()))
    return 0;
  int64_t bytes = op.getType().getNumElements() * elementBytes(op.getType());
  return bytes >> roundBits(distributionOf(op.getSrc()), distributionOf(op.getResult()), bytes).size();
}

int64_t shapeSharedBytes(Operation *op, const ThreadTypeConverter &converter) {
  auto sourceType = cast<RankedTensorType>(op->getOperand(0).getType());
  Distribution source = distributionOf(op->getOperand(0)), result = distributionOf(op->getResult(0));
  if (slotsInThread(result.bits, source.bits, resultToSource(op)) || recomputedHere(op))
    return 0;
  return sourceType.getNumElements() * elementBytes(sourceType);
}

void populateShapeToThreads(ThreadTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ShapePattern<BroadcastOp>, ShapePattern<ExpandDimsOp>, ShapePattern<ReshapeOp>, ShapePattern<TransOp>,
               ConvertLayoutPattern>(converter, patterns.getContext());
}

} // namespace tk::codegen
