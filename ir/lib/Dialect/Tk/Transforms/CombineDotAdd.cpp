#include "tk/Dialect/Tk/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tk {
#define GEN_PASS_DEF_TKCOMBINEDOTADD
#include "tk/Dialect/Tk/Transforms/Passes.h.inc"
} // namespace tk

using namespace mlir;

namespace {
bool isZeroTile(Value value) {
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// add(dot(a, b, 0), c) -> dot(a, b, c), for float and integer adds in either operand order.
template <typename AddOp>
struct FoldAddIntoDot : public OpRewritePattern<AddOp> {
  using OpRewritePattern<AddOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add, PatternRewriter &rewriter) const override {
    for (int i = 0; i < 2; ++i) {
      auto dot = add->getOperand(i).template getDefiningOp<tk::DotOp>();
      Value other = add->getOperand(1 - i);
      // (A dot with max_num_imprecise_acc has its product added in f32 on purpose.)
      if (!dot || !dot->hasOneUse() || !isZeroTile(dot.getAcc()) || dot.getMaxNumImpreciseAcc() != 0)
        continue;
      rewriter.replaceOpWithNewOp<tk::DotOp>(add, other.getType(), dot.getA(), dot.getB(),
                                             other, dot.getPrecisionAttr());
      return success();
    }
    return failure();
  }
};

struct CombineDotAdd : public tk::impl::TkCombineDotAddBase<CombineDotAdd> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAddIntoDot<arith::AddFOp>, FoldAddIntoDot<arith::AddIOp>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
