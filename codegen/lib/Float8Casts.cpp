// Conversions between the f8 formats (e4m3fn, e5m2) and wider floats: LLVM has no f8 types.
// f32 -> f8 rounds to nearest even; past the largest finite value it gives inf (e5m2) or NaN
// (e4m3fn, which has no inf), as the interpreter does: integer arithmetic (~25 instructions a
// value; sm_89's saturating cvt was measured slower in quantize_rows, see README). f8 -> wider
// is exact: on sm_89 and later in hardware, two values per `cvt.rn.f16x2.e4m3x2` (a thread's
// neighbouring conversions are paired: a weight-streaming GEMV converts every byte it loads),
// then f16 -> the target; on sm_80 in integer arithmetic through f32. A NaN code gives a NaN
// (its sign and payload are the hardware's). Other widths go through f32 (exact both ways for
// f16 and bf16 inputs, whose values f32 holds exactly).
#include "IndexArithmetic.h"
#include "Patterns.h"
#include "tk/Codegen/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
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
  // NaN: the quiet NaN the interpreter (FloatFormats.cpp) and torch give, e5m2's 0x7E (top
  // mantissa bit) and e4m3fn's only NaN 0x7F; the H200 showed 0x7F for e5m2 against 0x7E.
  int64_t quietNaN = f.hasInfinity ? (f.maxFinite + 1) | (int64_t(1) << (f.mantissaBits - 1)) : 0x7F;
  code = select(b, loc, compare(b, loc, arith::CmpIPredicate::ugt, magnitude, i32c(b, loc, 0x7F800000)),
                i32c(b, loc, quietNaN), code);
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

/// The value as f32: narrower floats extended; f64 rounded to odd (an inexact result's last
/// mantissa bit set, toward zero first), so that encode's rounding to nearest even then rounds
/// the f64 once, as the interpreter does (fp::toFloatRoundToOdd): through f32 rounded to
/// nearest, a value just off an f8 midpoint landed on it and the tie went to even.
Value toF32RoundToOdd(OpBuilder &b, Location loc, Value v);
Value widenToF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  if (!v.getType().isF64())
    return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  return toF32RoundToOdd(b, loc, v);
}

/// An f64 as f32 rounded to odd (see widenToF32).
Value toF32RoundToOdd(OpBuilder &b, Location loc, Value v) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value nearest = arith::TruncFOp::create(b, loc, f32, v);
  Value back = arith::ExtFOp::create(b, loc, b.getF64Type(), nearest);
  Value inexact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, v); // (NaN: false)
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v,
                                         arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0)));
  Value away = select(b, loc, negative, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, back, v),
                      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, back, v));
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  // Sign and magnitude: one less in the bits is one step toward zero.
  bits = select(b, loc, arith::AndIOp::create(b, loc, inexact, away), arith::SubIOp::create(b, loc, bits, i32c(b, loc, 1)),
                bits);
  bits = select(b, loc, inexact, arith::OrIOp::create(b, loc, bits, i32c(b, loc, 1)), bits);
  return arith::BitcastOp::create(b, loc, f32, bits);
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

/// The byte `code` (i8) of an f8 value, looking through its bitcast.
Value codeOf(OpBuilder &b, Location loc, Value f8) {
  if (auto cast = f8.getDefiningOp<arith::BitcastOp>(); cast && cast.getIn().getType().isInteger(8))
    return cast.getIn();
  return arith::BitcastOp::create(b, loc, b.getI8Type(), f8);
}

/// The two codes as the i16 `cvt.*x2` reads (`low` in bits 0-7): one shuffle when they are
/// neighbouring bytes of one loaded vector, else zero-extended, shifted and or-ed.
Value pairOf(OpBuilder &b, Location loc, Value low, Value high) {
  Type i16 = b.getI16Type();
  auto lowByte = low.getDefiningOp<LLVM::ExtractElementOp>();
  auto highByte = high ? high.getDefiningOp<LLVM::ExtractElementOp>() : LLVM::ExtractElementOp();
  llvm::APInt lowIndex, highIndex;
  if (lowByte && highByte && lowByte.getVector() == highByte.getVector() &&
      matchPattern(lowByte.getPosition(), m_ConstantInt(&lowIndex)) &&
      matchPattern(highByte.getPosition(), m_ConstantInt(&highIndex)) && highIndex == lowIndex + 1) {
    Value vector = lowByte.getVector();
    int32_t first = int32_t(lowIndex.getZExtValue());
    Value two = LLVM::ShuffleVectorOp::create(b, loc, vector, vector, ArrayRef<int32_t>{first, first + 1});
    return LLVM::BitcastOp::create(b, loc, i16, two);
  }
  Value lo = arith::ExtUIOp::create(b, loc, i16, low);
  if (!high)
    return lo;
  Value hi = arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i16, high),
                                   arith::ConstantOp::create(b, loc, b.getI16IntegerAttr(8)));
  return arith::OrIOp::create(b, loc, lo, hi);
}

/// f16 (exact for every f8 value) -> `target`: bf16 through f32.
Value fromHalf(OpBuilder &b, Location loc, Value half, Type target) {
  if (target.isF16())
    return half;
  Value wide = arith::ExtFOp::create(b, loc, target.isF64() ? target : b.getF32Type(), half);
  return target.isBF16() ? (Value)arith::TruncFOp::create(b, loc, target, wide) : wide;
}

/// Whether `value` is defined in `op`'s block before it.
bool definedBefore(Value value, Operation *op) {
  Operation *source = value.getDefiningOp();
  return source && source->getBlock() == op->getBlock() && source->isBeforeInBlock(op);
}

/// The nearest f8 -> wider conversion of the same kind as `op` in its block, within a few ops
/// before or after it, that can be paired with it: the later one's operand is defined before
/// the earlier one (where the pair is converted). Null when there is none.
arith::ExtFOp partnerOf(arith::ExtFOp op) {
  auto sameKind = [&](Operation *other) {
    auto ext = dyn_cast<arith::ExtFOp>(other);
    return ext && ext != op && ext.getIn().getType() == op.getIn().getType() && ext.getType() == op.getType()
               ? ext
               : arith::ExtFOp();
  };
  int looked = 0;
  for (Operation *next = op->getNextNode(); next && looked < 32; next = next->getNextNode(), ++looked)
    if (arith::ExtFOp other = sameKind(next))
      return definedBefore(other.getIn(), op) ? other : arith::ExtFOp();
  looked = 0;
  for (Operation *prev = op->getPrevNode(); prev && looked < 32; prev = prev->getPrevNode(), ++looked)
    if (arith::ExtFOp other = sameKind(prev))
      return definedBefore(op.getIn(), other) ? other : arith::ExtFOp();
  return nullptr;
}

/// f8 -> wider on sm_89 and later: `op` and its partner (if any) by one cvt.rn.f16x2, at the
/// earlier of the two (its code in the low half).
struct ExtFromF8ByHardware : public OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op, PatternRewriter &rewriter) const override {
    auto format = formatOf(op.getIn().getType());
    if (!format)
      return failure();
    arith::ExtFOp first = op, second = partnerOf(op);
    if (second && second->isBeforeInBlock(op))
      std::swap(first, second);
    Location loc = first.getLoc();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(first);
    Value pair = pairOf(rewriter, loc, codeOf(rewriter, loc, first.getIn()),
                        second ? codeOf(rewriter, loc, second.getIn()) : Value());
    std::string text = std::string(kFloat8PairCvt) + (format->hasInfinity ? "e5m2x2" : "e4m3x2") + " $0, $1;";
    Value halves = inlinePtx(rewriter, loc, rewriter.getI32Type(), pair, text, "=r,h", /*sideEffects=*/false);
    Value vector = LLVM::BitcastOp::create(rewriter, loc, VectorType::get({2}, rewriter.getF16Type()), halves);
    auto half = [&](int64_t i) {
      return fromHalf(rewriter, loc,
                      LLVM::ExtractElementOp::create(rewriter, loc, vector, i32c(rewriter, loc, i)), op.getType());
    };
    Value low = half(0);
    if (second)
      rewriter.replaceOp(second, half(1));
    rewriter.replaceOp(first, low);
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

/// A 64-bit magnitude (read unsigned) rounded to odd at 53 significant bits: the bits below
/// them ORed into the last one kept, so that it converts to f64 exactly and a later rounding to
/// odd (f32) and to nearest (bf16) rounds the integer once. (Rounded to nearest into f64,
/// 2^62 + 2^54 + 1 became the bf16 midpoint 2^62 + 2^54, then went to even: down.)
Value roundToOddAt53Bits(OpBuilder &b, Location loc, Value magnitude) {
  auto constant = [&](int64_t v) { return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v)); };
  Value leadingZeros = math::CountLeadingZerosOp::create(b, loc, magnitude);
  Value dropped = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, constant(64 - 53), leadingZeros), constant(0));
  Value unit = arith::ShLIOp::create(b, loc, constant(1), dropped); // the last kept bit
  Value low = arith::AndIOp::create(b, loc, magnitude, arith::SubIOp::create(b, loc, unit, constant(1)));
  Value inexact = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, low, constant(0));
  return arith::OrIOp::create(b, loc, arith::XOrIOp::create(b, loc, magnitude, low),
                              arith::SelectOp::create(b, loc, inexact, unit, constant(0)));
}

/// Integer -> bf16 before sm_90, which has no cvt.rn.bf16 from integers: LLVM went through
/// f32, rounding to nearest twice (2^24 + 2^16 + 1 landed on a bf16 midpoint, then went to even).
/// Through f64 (exact for integers of 32 bits; 64-bit ones rounded to odd at 53 bits first),
/// then f32 rounded to odd, then bf16: one rounding. (An f64 -> bf16 truncation would be folded
/// by LLVM back into the integer conversion it lowers through f32.)
template <typename IntToFloat> struct IntToBf16ThroughF64 : public OpRewritePattern<IntToFloat> {
  using OpRewritePattern<IntToFloat>::OpRewritePattern;
  LogicalResult matchAndRewrite(IntToFloat op, PatternRewriter &rewriter) const override {
    if (!op.getType().isBF16())
      return failure();
    Location loc = op.getLoc();
    Value wide;
    if (op.getIn().getType().isInteger(64)) {
      Value in = op.getIn(), zero = arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(0));
      constexpr bool isSigned = std::is_same<IntToFloat, arith::SIToFPOp>::value;
      // (INT64_MIN's magnitude, 2^63, read unsigned.)
      Value negative = isSigned ? arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::slt, in, zero).getResult()
                                : Value();
      Value magnitude =
          isSigned ? arith::SelectOp::create(rewriter, loc, negative, arith::SubIOp::create(rewriter, loc, zero, in), in)
                         .getResult()
                   : in;
      wide = arith::UIToFPOp::create(rewriter, loc, rewriter.getF64Type(), roundToOddAt53Bits(rewriter, loc, magnitude));
      if (isSigned)
        wide = arith::SelectOp::create(rewriter, loc, negative, arith::NegFOp::create(rewriter, loc, wide), wide);
    } else {
      wide = IntToFloat::create(rewriter, loc, rewriter.getF64Type(), op.getIn());
    }
    rewriter.replaceOpWithNewOp<arith::TruncFOp>(op, op.getType(), toF32RoundToOdd(rewriter, loc, wide));
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

void populateFloat8CastPatterns(RewritePatternSet &patterns, int sm) {
  if (sm >= 89)
    patterns.add<ExtFromF8ByHardware>(patterns.getContext());
  else
    patterns.add<ExtFromF8>(patterns.getContext());
  patterns.add<TruncToF8, IntToF8<arith::SIToFPOp>, IntToF8<arith::UIToFPOp>, F8ToInt<arith::FPToSIOp>,
               F8ToInt<arith::FPToUIOp>, F8ConstantAsBits>(patterns.getContext());
  if (sm < 90)
    patterns.add<IntToBf16ThroughF64<arith::SIToFPOp>, IntToBf16ThroughF64<arith::UIToFPOp>>(patterns.getContext());
}

} // namespace tk::codegen
