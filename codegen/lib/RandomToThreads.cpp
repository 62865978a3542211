// rand and randn: Philox-4x32-10 per element, exactly the interpreter's mapping (Triton's):
// counter (offset, 0, 0, 0), key (seed low, seed high); uniform from the first word, normal by
// Box-Muller from the first two (its log and cos use the GPU's approximations).
#include "IndexArithmetic.h"
#include "Patterns.h"
#include "ThreadTypeConverter.h"

using namespace mlir;

namespace tk::codegen {

namespace {

Value u32(OpBuilder &b, Location loc, uint32_t v) { return i32Constant(b, loc, int32_t(v)); }

/// Triton's uint_to_uniform_float, capped below 1.0.
Value uniform(OpBuilder &b, Location loc, Value bits) {
  // x < 0 ? -x - 1 : x  ==  x ^ (x >> 31)
  Value sign = arith::ShRSIOp::create(b, loc, bits, i32Constant(b, loc, 31));
  Value folded = arith::XOrIOp::create(b, loc, bits, sign);
  Value f = arith::SIToFPOp::create(b, loc, b.getF32Type(), folded);
  Value scaled = arith::MulFOp::create(b, loc, f, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(4.6566127342e-10f)));
  return arith::MinimumFOp::create(b, loc, scaled, arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0x1.fffffep-1f)));
}

struct RandPattern : public OpConversionPattern<RandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(RandOp op, OneToNOpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Value seed = adaptor.getSeed()[0];
    if (seed.getType() != i64)
      seed = arith::ExtSIOp::create(rewriter, loc, i64, seed);
    Value keyLo = arith::TruncIOp::create(rewriter, loc, i32, seed);
    Value keyHi = arith::TruncIOp::create(rewriter, loc, i32,
                                          arith::ShRUIOp::create(rewriter, loc, seed, arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(32))));
    SmallVector<Value> values;
    for (Value offset : adaptor.getOffsets()) {
      if (offset.getType() != i32)
        offset = arith::TruncIOp::create(rewriter, loc, i32, offset);
      Value c0 = offset, zero = u32(rewriter, loc, 0), c1 = zero, c2 = zero, c3 = zero, k0 = keyLo, k1 = keyHi;
      for (int round = 0; round < 10; ++round) {
        auto p0 = arith::MulUIExtendedOp::create(rewriter, loc, u32(rewriter, loc, 0xD2511F53u), c0);
        auto p2 = arith::MulUIExtendedOp::create(rewriter, loc, u32(rewriter, loc, 0xCD9E8D57u), c2);
        Value n0 = arith::XOrIOp::create(rewriter, loc, arith::XOrIOp::create(rewriter, loc, p2.getHigh(), c1), k0);
        Value n2 = arith::XOrIOp::create(rewriter, loc, arith::XOrIOp::create(rewriter, loc, p0.getHigh(), c3), k1);
        c1 = p2.getLow();
        c3 = p0.getLow();
        c0 = n0;
        c2 = n2;
        k0 = arith::AddIOp::create(rewriter, loc, k0, u32(rewriter, loc, 0x9E3779B9u));
        k1 = arith::AddIOp::create(rewriter, loc, k1, u32(rewriter, loc, 0xBB67AE85u));
      }
      if (op.getDistribution() == RandDistribution::uniform) {
        values.push_back(uniform(rewriter, loc, c0));
        continue;
      }
      auto f32 = [&](float v) { return arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(v)); };
      Value u1 = arith::MaximumFOp::create(rewriter, loc, f32(1.0e-7f), uniform(rewriter, loc, c0));
      Value u2 = uniform(rewriter, loc, c1);
      Value theta = arith::MulFOp::create(rewriter, loc, f32(6.283185307179586f), u2);
      Value radius = math::SqrtOp::create(rewriter, loc, arith::MulFOp::create(rewriter, loc, f32(-2.0f), math::LogOp::create(rewriter, loc, u1)));
      values.push_back(arith::MulFOp::create(rewriter, loc, radius, math::CosOp::create(rewriter, loc, theta)));
    }
    if (isa<RankedTensorType>(op.getType()))
      rewriter.replaceOpWithMultiple(op, {values});
    else
      rewriter.replaceOp(op, values[0]);
    return success();
  }
};

} // namespace

void populateRandomToThreads(ThreadTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<RandPattern>(converter, patterns.getContext());
}

} // namespace tk::codegen
