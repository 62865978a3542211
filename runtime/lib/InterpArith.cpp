// arith and math operations on whole tiles. Narrow floats compute in f32 and round to their
// format after every op (exact for + - * /, whose f32 result rounds to the same value).
#include "Interp.h"

#include "tk/Support/FloatFormats.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace tk::interp {

namespace {

template <typename Op> Tile floatUnary(const Tile &a, Op op) {
  Tile r = Tile::make(a.dtype, a.shape);
  if (a.dtype == DType::F64) {
    for (size_t k = 0; k < r.d.size(); ++k)
      r.d[k] = op(a.d[k]);
  } else {
    for (size_t k = 0; k < r.f.size(); ++k)
      r.f[k] = roundFloat(op(a.f[k]), a.dtype);
  }
  return r;
}

/// `exp2(x, ftz = true)`: a result below the format's smallest normal is zero (PTX's .ftz).
template <typename T> T flushedIf(bool ftz, T x) {
  return ftz && std::fabs(x) < std::numeric_limits<T>::min() ? std::copysign(T(0), x) : x;
}

// Operands of one op share a shape, except inside reduce/scan combine regions, where the
// interpreter runs scalar code on whole slices and a constant stays a scalar: it broadcasts.
const std::vector<int64_t> &resultShape(const Tile &a, const Tile &b) { return a.size() >= b.size() ? a.shape : b.shape; }
inline size_t at(const Tile &t, size_t k) { return t.size() == 1 ? 0 : k; }

template <typename Op> Tile floatBinary(const Tile &a, const Tile &b, Op op) {
  Tile r = Tile::make(a.dtype, resultShape(a, b));
  bool same = a.size() == b.size();
  if (a.dtype == DType::F64) {
    for (size_t k = 0; k < r.d.size(); ++k)
      r.d[k] = same ? op(a.d[k], b.d[k]) : op(a.d[at(a, k)], b.d[at(b, k)]);
  } else if (a.dtype == DType::F32) {
    if (same)
      for (size_t k = 0; k < r.f.size(); ++k)
        r.f[k] = op(a.f[k], b.f[k]);
    else
      for (size_t k = 0; k < r.f.size(); ++k)
        r.f[k] = op(a.f[at(a, k)], b.f[at(b, k)]);
  } else {
    for (size_t k = 0; k < r.f.size(); ++k)
      r.f[k] = roundFloat(op(a.f[at(a, k)], b.f[at(b, k)]), a.dtype);
  }
  return r;
}

template <typename Op> Tile intBinary(const Tile &a, const Tile &b, Op op) {
  Tile r = Tile::make(a.dtype, resultShape(a, b));
  int bits = bitsOf(a.dtype);
  for (size_t k = 0; k < r.i.size(); ++k)
    r.i[k] = wrapInt(op(a.i[at(a, k)], b.i[at(b, k)], bits), bits);
  return r;
}

template <typename Pred> Tile compare(const Tile &a, const Tile &b, Pred pred) {
  Tile r = Tile::make(DType::I1, resultShape(a, b));
  for (size_t k = 0; k < r.i.size(); ++k)
    r.i[k] = pred(at(a, k), at(b, k));
  return r;
}

double readFloat(const Tile &t, size_t k) { return t.dtype == DType::F64 ? t.d[k] : t.f[k]; }


/// f -> integer as PTX's cvt.rzi: truncate toward zero, saturate, NaN gives 0.
int64_t floatToInt(double v, int bits, bool isUnsigned) {
  int64_t value = fp::saturatingTrunc(v, bits, isUnsigned);
  return isUnsigned ? wrapInt(value, bits) : value;
}

/// The bit pattern of element k of a float tile, as its format stores it.
uint64_t floatBits(const Tile &t, size_t k) {
  switch (t.dtype) {
  case DType::F64: { uint64_t u; std::memcpy(&u, &t.d[k], 8); return u; }
  case DType::F32: { uint32_t u; std::memcpy(&u, &t.f[k], 4); return u; }
  case DType::F16: return fp::floatToHalf(t.f[k]);
  case DType::BF16: return fp::floatToBf16(t.f[k]);
  case DType::F8E4M3: return fp::floatToF8e4m3(t.f[k]);
  default: return fp::floatToF8e5m2(t.f[k]);
  }
}

void setFloatBits(Tile &t, size_t k, uint64_t bits) {
  switch (t.dtype) {
  case DType::F64: std::memcpy(&t.d[k], &bits, 8); break;
  case DType::F32: { uint32_t u = uint32_t(bits); std::memcpy(&t.f[k], &u, 4); break; }
  case DType::F16: t.f[k] = fp::halfToFloat(uint16_t(bits)); break;
  case DType::BF16: t.f[k] = fp::bf16ToFloat(uint16_t(bits)); break;
  case DType::F8E4M3: t.f[k] = fp::f8e4m3ToFloat(uint8_t(bits)); break;
  default: t.f[k] = fp::f8e5m2ToFloat(uint8_t(bits)); break;
  }
}

Tile constantTile(Attribute value, mlir::Type type) {
  std::vector<int64_t> shape(tk::shapeOf(type).begin(), tk::shapeOf(type).end());
  Tile t = Tile::make(dtypeOf(type), shape);
  auto setFrom = [&](size_t k, Attribute element) {
    if (auto integer = dyn_cast<IntegerAttr>(element))
      t.i[k] = wrapInt(t.dtype == DType::I1 ? int64_t(integer.getValue().getZExtValue())
                                            : integer.getValue().getSExtValue(),
                       bitsOf(t.dtype));
    else if (auto fl = dyn_cast<FloatAttr>(element))
      writeRounded(t, k, fl.getValueAsDouble());
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat()) {
      Attribute splat = dense.getSplatValue<Attribute>();
      setFrom(0, splat);
      for (size_t k = 1; k < t.size(); ++k) {
        if (!t.i.empty()) t.i[k] = t.i[0];
        if (!t.f.empty()) t.f[k] = t.f[0];
        if (!t.d.empty()) t.d[k] = t.d[0];
      }
    } else {
      size_t k = 0;
      for (Attribute element : dense.getValues<Attribute>())
        setFrom(k++, element);
    }
  } else {
    setFrom(0, value);
  }
  return t;
}

bool fcmp(arith::CmpFPredicate pred, double x, double y) {
  bool unordered = std::isnan(x) || std::isnan(y);
  switch (pred) {
  case arith::CmpFPredicate::AlwaysFalse: return false;
  case arith::CmpFPredicate::OEQ: return !unordered && x == y;
  case arith::CmpFPredicate::OGT: return !unordered && x > y;
  case arith::CmpFPredicate::OGE: return !unordered && x >= y;
  case arith::CmpFPredicate::OLT: return !unordered && x < y;
  case arith::CmpFPredicate::OLE: return !unordered && x <= y;
  case arith::CmpFPredicate::ONE: return !unordered && x != y;
  case arith::CmpFPredicate::ORD: return !unordered;
  case arith::CmpFPredicate::UEQ: return unordered || x == y;
  case arith::CmpFPredicate::UGT: return unordered || x > y;
  case arith::CmpFPredicate::UGE: return unordered || x >= y;
  case arith::CmpFPredicate::ULT: return unordered || x < y;
  case arith::CmpFPredicate::ULE: return unordered || x <= y;
  case arith::CmpFPredicate::UNE: return unordered || x != y;
  case arith::CmpFPredicate::UNO: return unordered;
  case arith::CmpFPredicate::AlwaysTrue: return true;
  }
  return false;
}

bool icmp(arith::CmpIPredicate pred, int64_t x, int64_t y, int bits) {
  uint64_t ux = asUnsigned(x, bits), uy = asUnsigned(y, bits);
  switch (pred) {
  case arith::CmpIPredicate::eq: return x == y;
  case arith::CmpIPredicate::ne: return x != y;
  case arith::CmpIPredicate::slt: return x < y;
  case arith::CmpIPredicate::sle: return x <= y;
  case arith::CmpIPredicate::sgt: return x > y;
  case arith::CmpIPredicate::sge: return x >= y;
  case arith::CmpIPredicate::ult: return ux < uy;
  case arith::CmpIPredicate::ule: return ux <= uy;
  case arith::CmpIPredicate::ugt: return ux > uy;
  case arith::CmpIPredicate::uge: return ux >= uy;
  }
  return false;
}

template <typename T> T maximumNaN(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? y : x; // maximum(-0, +0) = +0
  return x > y ? x : y;
}
template <typename T> T minimumNaN(T x, T y) {
  if (std::isnan(x) || std::isnan(y))
    return std::numeric_limits<T>::quiet_NaN();
  if (x == y)
    return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

} // namespace

bool execArith(Interpreter &in, Operation *op) {
  auto operand = [&](unsigned k) -> const Tile & { return in.get(op->getOperand(k)); };
  Value result = op->getNumResults() ? op->getResult(0) : Value();
  auto divisorCheck = [&](const Tile &b) {
    for (int64_t v : b.i)
      if (v == 0)
        in.fault(op, isa<arith::RemSIOp, arith::RemUIOp>(op) ? "integer remainder by zero" : "integer division by zero");
  };

  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([&](arith::ConstantOp c) { in.set(result, constantTile(c.getValue(), c.getType())); return true; })
      // Floating-point arithmetic.
      .Case([&](arith::AddFOp) { in.set(result, floatBinary(operand(0), operand(1), [](auto x, auto y) { return x + y; })); return true; })
      .Case([&](arith::SubFOp) { in.set(result, floatBinary(operand(0), operand(1), [](auto x, auto y) { return x - y; })); return true; })
      .Case([&](arith::MulFOp) { in.set(result, floatBinary(operand(0), operand(1), [](auto x, auto y) { return x * y; })); return true; })
      .Case([&](arith::DivFOp) { in.set(result, floatBinary(operand(0), operand(1), [](auto x, auto y) { return x / y; })); return true; })
      .Case([&](arith::RemFOp) { in.set(result, floatBinary(operand(0), operand(1), [](auto x, auto y) { return std::fmod(x, y); })); return true; })
      .Case([&](arith::MaximumFOp) { in.set(result, floatBinary(operand(0), operand(1), [](auto x, auto y) { return maximumNaN(x, y); })); return true; })
      .Case([&](arith::MinimumFOp) { in.set(result, floatBinary(operand(0), operand(1), [](auto x, auto y) { return minimumNaN(x, y); })); return true; })
      .Case([&](arith::MaxNumFOp) { in.set(result, floatBinary(operand(0), operand(1), [](auto x, auto y) { return std::fmax(x, y); })); return true; })
      .Case([&](arith::MinNumFOp) { in.set(result, floatBinary(operand(0), operand(1), [](auto x, auto y) { return std::fmin(x, y); })); return true; })
      .Case([&](arith::NegFOp) { in.set(result, floatUnary(operand(0), [](auto x) { return -x; })); return true; })
      // Integer arithmetic: two's complement, wrapping at the width.
      .Case([&](arith::AddIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return int64_t(uint64_t(x) + uint64_t(y)); })); return true; })
      .Case([&](arith::SubIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return int64_t(uint64_t(x) - uint64_t(y)); })); return true; })
      .Case([&](arith::MulIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return int64_t(uint64_t(x) * uint64_t(y)); })); return true; })
      .Case([&](arith::DivSIOp) {
        divisorCheck(operand(1));
        in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return (x == INT64_MIN && y == -1) ? x : x / y; }));
        return true;
      })
      .Case([&](arith::RemSIOp) {
        divisorCheck(operand(1));
        in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return y == -1 ? 0 : x % y; }));
        return true;
      })
      .Case([&](arith::DivUIOp) {
        divisorCheck(operand(1));
        in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int b) { return int64_t(asUnsigned(x, b) / asUnsigned(y, b)); }));
        return true;
      })
      .Case([&](arith::RemUIOp) {
        divisorCheck(operand(1));
        in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int b) { return int64_t(asUnsigned(x, b) % asUnsigned(y, b)); }));
        return true;
      })
      .Case([&](arith::AndIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return x & y; })); return true; })
      .Case([&](arith::OrIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return x | y; })); return true; })
      .Case([&](arith::XOrIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return x ^ y; })); return true; })
      // Shifts by the width or more: 0, or the sign for an arithmetic right shift.
      .Case([&](arith::ShLIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int b) { uint64_t s = asUnsigned(y, b); return s >= (uint64_t)b ? 0 : int64_t(uint64_t(x) << s); })); return true; })
      .Case([&](arith::ShRUIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int b) { uint64_t s = asUnsigned(y, b); return s >= (uint64_t)b ? 0 : int64_t(asUnsigned(x, b) >> s); })); return true; })
      .Case([&](arith::ShRSIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int b) { uint64_t s = asUnsigned(y, b); return x >> std::min<uint64_t>(s, 63); })); return true; })
      .Case([&](arith::MaxSIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return std::max(x, y); })); return true; })
      .Case([&](arith::MinSIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int) { return std::min(x, y); })); return true; })
      .Case([&](arith::MaxUIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int b) { return asUnsigned(x, b) >= asUnsigned(y, b) ? x : y; })); return true; })
      .Case([&](arith::MinUIOp) { in.set(result, intBinary(operand(0), operand(1), [](int64_t x, int64_t y, int b) { return asUnsigned(x, b) <= asUnsigned(y, b) ? x : y; })); return true; })
      .Case([&](arith::CmpIOp c) {
        const Tile &a = operand(0), &b = operand(1);
        int bits = bitsOf(a.dtype);
        in.set(result, compare(a, b, [&](size_t ka, size_t kb) { return icmp(c.getPredicate(), a.i[ka], b.i[kb], bits); }));
        return true;
      })
      .Case([&](arith::CmpFOp c) {
        const Tile &a = operand(0), &b = operand(1);
        in.set(result, compare(a, b, [&](size_t ka, size_t kb) { return fcmp(c.getPredicate(), readFloat(a, ka), readFloat(b, kb)); }));
        return true;
      })
      .Case([&](arith::SelectOp) {
        const Tile &c = operand(0), &a = operand(1), &b = operand(2);
        std::vector<int64_t> shape = resultShape(resultShape(a, b) == a.shape ? a : b, c);
        Tile r = Tile::make(a.dtype, shape);
        for (size_t k = 0; k < r.size(); ++k) {
          bool pick = c.i[at(c, k)] != 0;
          const Tile &s = pick ? a : b;
          size_t j = at(s, k);
          if (!r.i.empty()) r.i[k] = s.i[j];
          if (!r.f.empty()) r.f[k] = s.f[j];
          if (!r.d.empty()) r.d[k] = s.d[j];
        }
        in.set(result, std::move(r));
        return true;
      })
      // Conversions.
      .Case<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>([&](Operation *) {
        const Tile &a = operand(0);
        Tile r = Tile::make(dtypeOf(result.getType()), a.shape);
        for (size_t k = 0; k < r.size(); ++k)
          r.i[k] = wrapInt(a.i[k], bitsOf(r.dtype));
        in.set(result, std::move(r));
        return true;
      })
      .Case([&](arith::ExtUIOp) {
        const Tile &a = operand(0);
        Tile r = Tile::make(dtypeOf(result.getType()), a.shape);
        for (size_t k = 0; k < r.size(); ++k)
          r.i[k] = wrapInt(int64_t(asUnsigned(a.i[k], bitsOf(a.dtype))), bitsOf(r.dtype));
        in.set(result, std::move(r));
        return true;
      })
      .Case<arith::ExtFOp, arith::TruncFOp>([&](Operation *) {
        const Tile &a = operand(0);
        Tile r = Tile::make(dtypeOf(result.getType()), a.shape);
        for (size_t k = 0; k < r.size(); ++k)
          writeRounded(r, k, readFloat(a, k));
        in.set(result, std::move(r));
        return true;
      })
      .Case<arith::SIToFPOp, arith::UIToFPOp>([&](Operation *) {
        const Tile &a = operand(0);
        bool isUnsigned = isa<arith::UIToFPOp>(op);
        Tile r = Tile::make(dtypeOf(result.getType()), a.shape);
        for (size_t k = 0; k < r.size(); ++k)
          writeRoundedInteger(r, k, a.i[k], bitsOf(a.dtype), isUnsigned);
        in.set(result, std::move(r));
        return true;
      })
      .Case<arith::FPToSIOp, arith::FPToUIOp>([&](Operation *) {
        const Tile &a = operand(0);
        Tile r = Tile::make(dtypeOf(result.getType()), a.shape);
        for (size_t k = 0; k < r.size(); ++k)
          r.i[k] = floatToInt(readFloat(a, k), bitsOf(r.dtype), isa<arith::FPToUIOp>(op));
        in.set(result, std::move(r));
        return true;
      })
      .Case<arith::BitcastOp, tk::BitcastOp>([&](Operation *) {
        const Tile &a = operand(0);
        Tile r = Tile::make(dtypeOf(result.getType()), a.shape);
        for (size_t k = 0; k < r.size(); ++k) {
          uint64_t bits = isFloat(a.dtype) ? floatBits(a, k) : asUnsigned(a.i[k], bitsOf(a.dtype));
          if (isFloat(r.dtype))
            setFloatBits(r, k, bits);
          else
            r.i[k] = r.dtype == DType::Ptr ? int64_t(bits) : wrapInt(int64_t(bits), bitsOf(r.dtype));
        }
        in.set(result, std::move(r));
        return true;
      })
      // math: computed in the operand's precision (f16 math arrives here already widened).
      .Case([&](math::ExpOp op) {
        bool ftz = op->hasAttr(tk::TkDialect::kFlushToZero);
        in.set(result, floatUnary(operand(0), [&](auto x) { return flushedIf(ftz, std::exp(x)); }));
        return true;
      })
      .Case([&](math::Exp2Op op) {
        bool ftz = op->hasAttr(tk::TkDialect::kFlushToZero);
        in.set(result, floatUnary(operand(0), [&](auto x) { return flushedIf(ftz, std::exp2(x)); }));
        return true;
      })
      .Case([&](math::LogOp) { in.set(result, floatUnary(operand(0), [](auto x) { return std::log(x); })); return true; })
      .Case([&](math::Log2Op) { in.set(result, floatUnary(operand(0), [](auto x) { return std::log2(x); })); return true; })
      .Case([&](math::SqrtOp) { in.set(result, floatUnary(operand(0), [](auto x) { return std::sqrt(x); })); return true; })
      .Case([&](math::RsqrtOp) { in.set(result, floatUnary(operand(0), [](auto x) { return decltype(x)(1) / std::sqrt(x); })); return true; })
      .Case([&](math::SinOp) { in.set(result, floatUnary(operand(0), [](auto x) { return std::sin(x); })); return true; })
      .Case([&](math::CosOp) { in.set(result, floatUnary(operand(0), [](auto x) { return std::cos(x); })); return true; })
      .Case([&](math::TanhOp) { in.set(result, floatUnary(operand(0), [](auto x) { return std::tanh(x); })); return true; })
      .Case([&](math::ErfOp) { in.set(result, floatUnary(operand(0), [](auto x) { return std::erf(x); })); return true; })
      .Case([&](math::AbsFOp) { in.set(result, floatUnary(operand(0), [](auto x) { return std::fabs(x); })); return true; })
      .Case([&](math::FloorOp) { in.set(result, floatUnary(operand(0), [](auto x) { return std::floor(x); })); return true; })
      .Case([&](math::CeilOp) { in.set(result, floatUnary(operand(0), [](auto x) { return std::ceil(x); })); return true; })
      .Case([&](math::AbsIOp) {
        const Tile &a = operand(0);
        Tile r = Tile::make(a.dtype, a.shape);
        for (size_t k = 0; k < r.size(); ++k)
          r.i[k] = wrapInt(a.i[k] < 0 ? int64_t(0 - uint64_t(a.i[k])) : a.i[k], bitsOf(a.dtype));
        in.set(result, std::move(r));
        return true;
      })
      .Case([&](math::FmaOp) {
        const Tile &a = operand(0), &b = operand(1), &c = operand(2);
        Tile r = Tile::make(a.dtype, a.shape);
        for (size_t k = 0; k < r.size(); ++k)
          writeRounded(r, k, a.dtype == DType::F64 ? std::fma(a.d[k], b.d[k], c.d[k]) : double(std::fma(a.f[k], b.f[k], c.f[k])));
        in.set(result, std::move(r));
        return true;
      })
      .Default([](Operation *) { return false; });
}

} // namespace tk::interp
