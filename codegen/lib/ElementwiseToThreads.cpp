// Elementwise arith and math ops on tiles: the same op once per slot of the thread, on
// scalars (a scalar operand serves every slot).
#include "ThreadLowering.h"

using namespace mlir;

namespace tk::codegen {

namespace {
struct ElementwiseToThreads : public ConversionPattern {
  ElementwiseToThreads(TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<ValueRange> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertType(op->getResult(0).getType(), types)))
      return failure();
    SmallVector<Value> values;
    for (size_t i = 0; i < types.size(); ++i) {
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
};
} // namespace

void populateElementwiseToThreads(ThreadTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ElementwiseToThreads>(converter, patterns.getContext());
}

} // namespace tk::codegen
