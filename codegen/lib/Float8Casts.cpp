// Conversions between the f8 formats (e4m3fn, e5m2) and wider floats, in integer arithmetic:
// LLVM has no f8 types and sm_80 no f8 instructions. f32 -> f8 rounds to nearest even;
// past the largest finite value it gives inf (e5m2) or NaN (e4m3fn, which has no inf), as the
// interpreter does. f8 -> f32 is exact. Other widths go through f32 (exact both ways for f16
// and bf16 inputs, whose values f32 holds exactly).
#include "IndexArithmetic.h"
#include "Patterns.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace tk::codegen {

namespace {

struct Format {
  int exponentBits, mantissaBits, bias;
  bool hasInfinity;
  int64_t maxFinite; // largest finite code without the sign
};

std::optional<Format> formatOf(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Format{4, 3, 7, false, 0x7E};
  if (isa<Float8E5M2Type>(type))
    return Format{5, 2, 15, true, 0x7B};
  return std::nullopt;
}

Value i32c(OpBuilder &b, Location loc, int64_t v) { return i32Constant(b, loc, v); }

Value select(OpBuilder &b, Location loc, Value condition, Value then, Value otherwise) {
  return arith::SelectOp::create(b, loc, condition, then, otherwise);
}

Value compare(OpBuilder &b, Location loc, arith::CmpIPredicate predicate, Value lhs, Value rhs) {
  return arith::CmpIOp::create(b, loc, predicate, lhs, rhs);
}

/// f32 -> f8 code (i8).
Value encode(OpBuilder &b, Location loc, Value x, const Format &f) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, x);
  Value sign = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, i32c(b, loc, 24)), i32c(b, loc, 0x80));
  Value magnitude = arith::AndIOp::create(b, loc, bits, i32c(b, loc, 0x7FFFFFFF));
  // Normal results: round the f32 bits at the f8 mantissa width, then rebias the exponent.
  int shift = 23 - f.mantissaBits;
  Value odd = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, magnitude, i32c(b, loc, shift)), i32c(b, loc, 1));
  Value rounded = arith::AddIOp::create(b, loc, magnitude,
                                        arith::AddIOp::create(b, loc, odd, i32c(b, loc, (int64_t(1) << (shift - 1)) - 1)));
  Value normal = arith::SubIOp::create(b, loc, arith::ShRUIOp::create(b, loc, rounded, i32c(b, loc, shift)),
                                       i32c(b, loc, int64_t(127 - f.bias) << f.mantissaBits));
  // Subnormal results: |x| in units of the smallest subnormal, rounded to even.
  Value absolute = arith::BitcastOp::create(b, loc, f32, magnitude);
  Value scaled = arith::MulFOp::create(b, loc, absolute,
                                       arith::ConstantOp::create(b, loc, b.getF32FloatAttr(std::ldexp(1.0f, f.bias - 1 + f.mantissaBits))));
  Value subnormal = arith::FPToUIOp::create(b, loc, i32, math::RoundEvenOp::create(b, loc, scaled));
  int64_t minNormal = int64_t(127 + 1 - f.bias) << 23;
  Value code = select(b, loc, compare(b, loc, arith::CmpIPredicate::ult, magnitude, i32c(b, loc, minNormal)), subnormal, normal);
  // Past the largest finite value: inf or NaN; NaN stays NaN.
  Value overflow = i32c(b, loc, f.hasInfinity ? f.maxFinite + 1 : 0x7F);
  code = select(b, loc, compare(b, loc, arith::CmpIPredicate::ugt, code, i32c(b, loc, f.maxFinite)), overflow, code);
  // (e4m3fn's tie at 464 rounds to 448's even code, as the interpreter and torch have it; past
  // it the rounding reaches 0x7F, NaN's code.)
  code = select(b, loc, compare(b, loc, arith::CmpIPredicate::ugt, magnitude, i32c(b, loc, 0x7F800000)), i32c(b, loc, 0x7F), code);
  code = arith::OrIOp::create(b, loc, code, sign);
  return arith::TruncIOp::create(b, loc, b.getI8Type(), code);
}

/// f8 code (i8) -> f32.
Value decode(OpBuilder &b, Location loc, Value code8, const Format &f) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value code = arith::ExtUIOp::create(b, loc, i32, code8);
  Value sign = arith::ShLIOp::create(b, loc, arith::AndIOp::create(b, loc, code, i32c(b, loc, 0x80)), i32c(b, loc, 24));
  Value magnitude = arith::AndIOp::create(b, loc, code, i32c(b, loc, 0x7F));
  Value exponent = arith::ShRUIOp::create(b, loc, magnitude, i32c(b, loc, f.mantissaBits));
  Value mantissa = arith::AndIOp::create(b, loc, magnitude, i32c(b, loc, (1 << f.mantissaBits) - 1));
  Value normal = arith::OrIOp::create(
      b, loc, arith::ShLIOp::create(b, loc, arith::AddIOp::create(b, loc, exponent, i32c(b, loc, 127 - f.bias)), i32c(b, loc, 23)),
      arith::ShLIOp::create(b, loc, mantissa, i32c(b, loc, 23 - f.mantissaBits)));
  Value subnormal = arith::BitcastOp::create(
      b, loc, i32,
      arith::MulFOp::create(b, loc, arith::UIToFPOp::create(b, loc, f32, mantissa),
                            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(std::ldexp(1.0f, 1 - f.bias - f.mantissaBits)))));
  Value bits = select(b, loc, compare(b, loc, arith::CmpIPredicate::eq, exponent, i32c(b, loc, 0)), subnormal, normal);
  int64_t top = (1 << f.exponentBits) - 1;
  if (f.hasInfinity) {
    Value special = compare(b, loc, arith::CmpIPredicate::eq, exponent, i32c(b, loc, top));
    Value infOrNaN = select(b, loc, compare(b, loc, arith::CmpIPredicate::eq, mantissa, i32c(b, loc, 0)), i32c(b, loc, 0x7F800000), i32c(b, loc, 0x7FC00000));
    bits = select(b, loc, special, infOrNaN, bits);
  } else {
    bits = select(b, loc, compare(b, loc, arith::CmpIPredicate::eq, magnitude, i32c(b, loc, 0x7F)), i32c(b, loc, 0x7FC00000), bits);
  }
  return arith::BitcastOp::create(b, loc, f32, arith::OrIOp::create(b, loc, bits, sign));
}

/// The value as f32: wider floats rounded (f64: as the interpreter rounds f64 to f8, through
/// float), narrower ones extended.
Value widenToF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  if (v.getType().isF64())
    return arith::TruncFOp::create(b, loc, b.getF32Type(), v);
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

struct TruncToF8 : public OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op, PatternRewriter &rewriter) const override {
    auto format = formatOf(op.getType());
    if (!format)
      return failure();
    Location loc = op.getLoc();
    Value code = encode(rewriter, loc, widenToF32(rewriter, loc, op.getIn()), *format);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), code);
    return success();
  }
};

struct ExtFromF8 : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op, PatternRewriter &rewriter) const override {
    auto format = formatOf(op.getIn().getType());
    if (!format)
      return failure();
    Location loc = op.getLoc();
    Value code = arith::BitcastOp::create(rewriter, loc, rewriter.getI8Type(), op.getIn());
    Value wide = decode(rewriter, loc, code, *format);
    if (op.getType().isF32())
      rewriter.replaceOp(op, wide);
    else if (op.getType().isF64())
      rewriter.replaceOpWithNewOp<arith::ExtFOp>(op, op.getType(), wide);
    else
      rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), wide); // exact: f8 values fit f16/bf16
    return success();
  }
};

/// Integer -> f8 (the canonicalizer folds the frontend's int -> f32 -> f8 into one op): through
/// f32, exact for every integer an f8 type holds; past that both overflow alike.
template <typename IntToFloat> struct IntToF8 : public OpRewritePattern<IntToFloat> {
  using OpRewritePattern<IntToFloat>::OpRewritePattern;
  LogicalResult matchAndRewrite(IntToFloat op, PatternRewriter &rewriter) const override {
    auto format = formatOf(op.getType());
    if (!format)
      return failure();
    Location loc = op.getLoc();
    Value wide = IntToFloat::create(rewriter, loc, rewriter.getF32Type(), op.getIn());
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), encode(rewriter, loc, wide, *format));
    return success();
  }
};

/// f8 -> integer: the value decoded exactly to f32, then converted.
template <typename FloatToInt> struct F8ToInt : public OpRewritePattern<FloatToInt> {
  using OpRewritePattern<FloatToInt>::OpRewritePattern;
  LogicalResult matchAndRewrite(FloatToInt op, PatternRewriter &rewriter) const override {
    auto format = formatOf(op.getIn().getType());
    if (!format)
      return failure();
    Location loc = op.getLoc();
    Value code = arith::BitcastOp::create(rewriter, loc, rewriter.getI8Type(), op.getIn());
    rewriter.replaceOpWithNewOp<FloatToInt>(op, op.getType(), decode(rewriter, loc, code, *format));
    return success();
  }
};

/// An f8 constant (a masked load's `other`) as its bits: LLVM has no f8 type.
struct F8ConstantAsBits : public OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    auto shaped = dyn_cast<ShapedType>(type);
    if (!formatOf(shaped ? shaped.getElementType() : type))
      return failure();
    Type i8 = rewriter.getI8Type();
    TypedAttr bits;
    if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue()))
      bits = dense.bitcast(i8);
    else if (auto scalar = dyn_cast<FloatAttr>(op.getValue()))
      bits = rewriter.getIntegerAttr(i8, scalar.getValue().bitcastToAPInt());
    else
      return failure();
    Value code = arith::ConstantOp::create(rewriter, op.getLoc(), bits);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, code);
    return success();
  }
};

} // namespace

void populateFloat8CastPatterns(RewritePatternSet &patterns) {
  patterns.add<TruncToF8, ExtFromF8, IntToF8<arith::SIToFPOp>, IntToF8<arith::UIToFPOp>, F8ToInt<arith::FPToSIOp>,
               F8ToInt<arith::FPToUIOp>, F8ConstantAsBits>(patterns.getContext());
}

} // namespace tk::codegen
