// Shape changes: broadcast, expand_dims, reshape and trans. Each is a bit map from the result's
// row-major element index to the source's; the elements move between threads only when the
// thread does not already hold them (redistribute).
#include "ThreadLowering.h"

using namespace mlir;

namespace tk::codegen {

namespace {

/// The lowest index bit of each dimension of a row-major tile.
SmallVector<int> lowBits(ArrayRef<int64_t> shape) {
  SmallVector<int> low(shape.size());
  int bit = 0;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    low[d] = bit;
    bit += log2Of(shape[d]);
  }
  return low;
}

BitMap resultToSource(Operation *op) {
  auto source = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> in = source.getShape(), out = result.getShape();
  BitMap map(log2Of(result.getNumElements()));
  SmallVector<int> inLow = lowBits(in), outLow = lowBits(out);
  if (isa<BroadcastOp>(op)) {
    for (size_t d = 0; d < out.size(); ++d)
      for (int p = 0; p < log2Of(out[d]); ++p)
        map[outLow[d] + p] = in[d] == 1 ? -1 : inLow[d] + p;
  } else if (auto trans = dyn_cast<TransOp>(op)) {
    ArrayRef<int32_t> order = trans.getOrder();
    for (size_t d = 0; d < out.size(); ++d)
      for (int p = 0; p < log2Of(out[d]); ++p)
        map[outLow[d] + p] = inLow[order[d]] + p;
  } else {
    for (size_t bit = 0; bit < map.size(); ++bit)
      map[bit] = bit; // expand_dims and reshape keep the row-major order
  }
  return map;
}


template <typename Op> struct ShapePattern : public OpConversionPattern<Op> {
  ShapePattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern<Op>(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(Op op, typename OpConversionPattern<Op>::OneToNOpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Layout1D source = converter.layoutOf(op->getOperand(0).getType());
    Layout1D result = converter.layoutOf(op->getResult(0).getType());
    rewriter.replaceOpWithMultiple(op, {redistribute(rewriter, op.getLoc(), op, adaptor.getOperands()[0],
                                                     Distribution::of(source), Distribution::of(result), resultToSource(op))});
    return success();
  }

  ThreadTypeConverter &converter;
};

/// A tile in a special layout (the mma accumulator's) moves to the default one.
struct ConvertLayoutPattern : public OpConversionPattern<ConvertLayoutOp> {
  ConvertLayoutPattern(ThreadTypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context), converter(converter) {}

  LogicalResult matchAndRewrite(ConvertLayoutOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Distribution source = distributionOf(converter, op.getSrc());
    Distribution result = Distribution::of(converter.layoutOf(op.getType()));
    if (source.blocked) {
      rewriter.replaceOpWithMultiple(op, {adaptor.getSrc()});
      return success();
    }
    rewriter.replaceOpWithMultiple(op, {redistribute(rewriter, op.getLoc(), op, adaptor.getSrc(), source, result,
                                                     identityMap(log2Of(op.getType().getNumElements())))});
    return success();
  }

  ThreadTypeConverter &converter;
};

} // namespace

int64_t convertLayoutSharedBytes(ConvertLayoutOp op, const ThreadTypeConverter &converter) {
  if (!converter.specialLayout(op.getSrc()))
    return 0;
  int64_t bytes = op.getType().getNumElements() * elementBytes(op.getType());
  return bytes >> roundBits(distributionOf(converter, op.getSrc()), Distribution::of(converter.layoutOf(op.getType())), bytes).size();
}

int64_t shapeSharedBytes(Operation *op, const ThreadTypeConverter &converter) {
  Type sourceType = op->getOperand(0).getType();
  Layout1D source = converter.layoutOf(sourceType), result = converter.layoutOf(op->getResult(0).getType());
  if (slotsInThread(result, source, resultToSource(op)))
    return 0;
  return source.size * elementBytes(sourceType);
}

void populateShapeToThreads(ThreadTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ShapePattern<BroadcastOp>, ShapePattern<ExpandDimsOp>, ShapePattern<ReshapeOp>, ShapePattern<TransOp>,
               ConvertLayoutPattern>(converter, patterns.getContext());
}

} // namespace tk::codegen
