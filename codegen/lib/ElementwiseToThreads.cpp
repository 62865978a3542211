// Elementwise arith and math ops on tiles: the same op once per slot of the thread, on
// scalars (a scalar operand serves every slot). Where the axis analysis proves a result
// constant over each group of contiguous slots (a mask such as `cols < n`), the op runs once
// per group, so neither the other slots' operands nor their results stay live.
#include "AxisAnalysis.h"
#include "Patterns.h"
#include "ThreadTypeConverter.h"

using namespace mlir;

namespace tk::codegen {

namespace {
struct ElementwiseToThreads : public ConversionPattern {
  ElementwiseToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, context), converter(converter), axis(axis) {}

  /// Consecutive slots that are proven to hold the same result.
  int64_t equalSlots(Operation *op) const {
    auto tile = cast<RankedTensorType>(op->getResult(0).getType());
    BlockedLayout l = converter.layoutOf(tile);
    int64_t run = std::min(l.sizePerThread, tile.getShape().back());
    while (run > 1 && axis.get(op->getResult(0)).constancy < run)
      run /= 2;
    return run;
  }

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertType(op->getResult(0).getType(), types)))
      return failure();
    // Groups of contiguous slots exist in the default layout only.
    bool special = hasLinearLayout(op->getResult(0).getType());
    int64_t run = isa<arith::CmpIOp>(op) && !special ? equalSlots(op) : 1;
    SmallVector<Value> values;
    for (size_t i = 0; i < types.size(); ++i) {
      if (i % run) {
        values.push_back(values.back());
        continue;
      }
      OperationState state(op->getLoc(), op->getName());
      for (ValueRange operand : operands)
        state.addOperands(slotOf(operand, i));
      state.addTypes(types[i]);
      state.addAttributes(op->getAttrs());
      values.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOpWithMultiple(op, {values});
    return success();
  }

  ThreadTypeConverter &converter;
  const AxisAnalysis &axis;
};
} // namespace

void populateElementwiseToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis, RewritePatternSet &patterns) {
  patterns.add<ElementwiseToThreads>(converter, axis, patterns.getContext());
}

} // namespace tk::codegen
