// Folders and canonicalization patterns of the tk shape operations. They keep the IR that the
// front end writes for broadcasting (splat, expand_dims, broadcast) from piling up.
#include "tk/Dialect/Tk/IR/Tk.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace tk;

namespace {
/// A splat constant of `type` made from the splat value of `attr`, if it is one.
Attribute resplat(Attribute attr, ShapedType type) {
  if (auto dense = dyn_cast_or_null<SplatElementsAttr>(attr))
    return SplatElementsAttr::get(type, dense.getSplatValue<Attribute>());
  return {};
}

/// op(splat(x)) == splat(x) for any op that only moves or repeats elements.
template <typename OpTy>
struct ShapeOfSplatToSplat : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// expand_dims(x) followed by a broadcast of that new axis only: nothing to simplify, but a
/// broadcast of a broadcast is one broadcast.
struct BroadcastOfBroadcast : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};
} // namespace

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  Attribute value = adaptor.getSrc();
  if (!value || !isa<IntegerAttr, FloatAttr>(value))
    return {};
  return SplatElementsAttr::get(getType(), value);
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return resplat(adaptor.getSrc(), getType());
}

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<ShapeOfSplatToSplat<BroadcastOp>, BroadcastOfBroadcast>(context);
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<ShapeOfSplatToSplat<ExpandDimsOp>>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<ReshapeOp>()) {
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return resplat(adaptor.getSrc(), getType());
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int32_t> order = getOrder();
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i)
    identity &= order[i] == (int32_t)i;
  if (identity)
    return getSrc();
  if (Attribute splat = resplat(adaptor.getSrc(), getType()))
    return splat;
  // trans(trans(x, inner), outer) == trans(x, inner o outer)
  if (auto inner = getSrc().getDefiningOp<TransOp>()) {
    SmallVector<int32_t> composed;
    for (int32_t dim : order)
      composed.push_back(inner.getOrder()[dim]);
    setOrder(composed);
    getSrcMutable().assign(inner.getSrc());
    return getResult();
  }
  return {};
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  if (matchPattern(adaptor.getOffset(), m_Zero()) ||
      (adaptor.getOffset() && isa<SplatElementsAttr>(adaptor.getOffset()) &&
       cast<SplatElementsAttr>(adaptor.getOffset()).getSplatValue<APInt>().isZero()))
    return getPtr();
  return {};
}
