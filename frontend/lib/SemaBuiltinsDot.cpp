// dot: the tile matrix product, its operand types and sizes, and the accumulators it takes.
#include "SemaBuiltins.h"

#include <set>

namespace tk {

Type BuiltinCallChecker::checkDot() {
  if (!requireNumber(0) || !requireNumber(1))
    return Type::error();
  const Type &a = type(0), &b = type(1);
  if (a.shape.size() != 2 || b.shape.size() != 2)
    return error(call_.range, "dot: operands must be 2-D tiles, a is " + a.str() + ", b is " + b.str());
  if (a.shape[1] != b.shape[0])
    return error(call_.range, "dot: K dimension mismatch: a is " + a.str() + ", b is " + b.str());
  // The two FP8 formats mix (e4m3 activations times e5m2 gradients, as FP8 training does).
  auto fp8 = [](Scalar s) { return s == Scalar::F8E4M3 || s == Scalar::F8E5M2; };
  if (a.elem != b.elem && !(fp8(a.elem.scalar) && fp8(b.elem.scalar) && !a.elem.isPtr && !b.elem.isPtr))
    return error(call_.range, "dot: operand types differ: a is " + a.str() + ", b is " + b.str() +
                                  " (only f8e4m3 and f8e5m2 mix)");
  Scalar s = a.elem.scalar;
  static const std::set<Scalar> inputs = {Scalar::F16,    Scalar::BF16,   Scalar::F32, Scalar::I8,
                                          Scalar::F8E4M3, Scalar::F8E5M2, Scalar::F64};
  if (!inputs.count(s))
    return error(call_.range, std::string("dot: operands of type ") + scalarName(s) +
                                  " are not supported (f16, bf16, f32, f64, i8, f8e4m3, f8e5m2)");
  int64_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
  if (M < 16 || K < 16 || N < 8)
    return error(call_.range, "dot: tiles must have M >= 16, K >= 16 and N >= 8, got M = " + std::to_string(M) +
                                  ", K = " + std::to_string(K) + ", N = " + std::to_string(N));
  Scalar accDefault = s == Scalar::I8 ? Scalar::I32 : s == Scalar::F64 ? Scalar::F64 : Scalar::F32;
  Type result = Type::scalar(accDefault).withShape({M, N});
  if (present(2)) {
    if (!requireNumber(2))
      return Type::error();
    Type acc = type(2);
    // f16 products may also accumulate in f16, besides the default f32.
    std::set<Scalar> allowed = {accDefault};
    if (s == Scalar::F16)
      allowed.insert(Scalar::F16);
    if (acc.shape != std::vector<int64_t>{M, N} || !allowed.count(acc.elem.scalar))
      return error(arg(2)->range,
                   "dot: accumulator must be " + result.str() +
                       (s == Scalar::F16 ? " or f16[" + std::to_string(M) + ", " + std::to_string(N) + "]" : "") +
                       ", found " + acc.str());
    result = acc.strong();
  }
  if (!stringLiteralArg(3, {"tf32", "ieee"}))
    return Type::error();
  if (present(4)) { // the products the tensor cores may sum imprecisely before an f32 add
    auto limit = sema_.constInt(arg(4), paramName(4));
    if (!limit)
      return Type::error();
    if (*limit < 0 || *limit > (int64_t(1) << 30))
      return error(arg(4)->range, "dot: max_num_imprecise_acc must be 0 (no limit) or a count of K, found " +
                                      std::to_string(*limit));
    if (*limit && !fp8(s))
      return error(arg(4)->range, std::string("dot: max_num_imprecise_acc applies to FP8 operands, not ") +
                                      scalarName(s));
    if (*limit && *limit < K)
      return error(arg(4)->range, "dot: max_num_imprecise_acc = " + std::to_string(*limit) + " is below the tile's K = " +
                                      std::to_string(K) + " (only whole tiles are supported: promote once per dot)");
  }
  return result;
}

} // namespace tk
