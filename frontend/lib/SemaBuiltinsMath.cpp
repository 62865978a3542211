// Elementwise builtins (math functions, maximum/minimum/clamp, where, cdiv, bitcast, cast) and the
// random numbers, which are elementwise functions of their offsets.
#include "SemaBuiltins.h"

namespace tk {

Type BuiltinCallChecker::checkElementwiseMath() {
  switch (id_) {
  case BuiltinId::Exp:
  case BuiltinId::Exp2:
    // `ftz = true`: results below f32's smallest normal (2^-126) flush to zero, as PTX's
    // `ex2.approx.ftz` gives them in one instruction (softmax's probabilities lose nothing).
    if (present(1) && (!type(1).isBool() || !arg(1)->value))
      return error(arg(1)->range, "ftz must be the constant true or false, found " + type(1).str());
    if (present(1) && type(0).elem.scalar == Scalar::F64)
      return error(arg(1)->range, name_ + ": ftz is for f32, f16 and bf16 math (PTX's .ftz); f64 keeps its subnormals");
    [[fallthrough]];
  case BuiltinId::Log:
  case BuiltinId::Log2:
  case BuiltinId::Sqrt:
  case BuiltinId::Rsqrt:
  case BuiltinId::Sin:
  case BuiltinId::Cos:
  case BuiltinId::Tanh:
  case BuiltinId::Sigmoid:
  case BuiltinId::Erf:
  case BuiltinId::Floor:
  case BuiltinId::Ceil:
    if (!requireFloat(0))
      return Type::error();
    return type(0);
  case BuiltinId::Abs:
    if (!requireNumber(0))
      return Type::error();
    if (type(0).isBool())
      return error(arg(0)->range, "abs needs a number, found i1");
    return type(0);
  case BuiltinId::Fma:
    if (!requireFloat(0) || !requireFloat(1) || !requireFloat(2))
      return Type::error();
    return promoteElementwise({0, 1, 2});
  case BuiltinId::Maximum:
  case BuiltinId::Minimum: return promoteElementwise({0, 1});
  case BuiltinId::Clamp: return promoteElementwise({0, 1, 2});
  case BuiltinId::Where: {
    if (!requireValue(0))
      return Type::error();
    if (!type(0).isBool())
      return error(arg(0)->range, "where: condition must be i1, found " + type(0).str());
    if (!requireValue(1) || !requireValue(2))
      return Type::error();
    // Pointers do not promote: both branches must have the same pointer type.
    Type values;
    if (type(1).isPtr() || type(2).isPtr()) {
      if (type(1).elem != type(2).elem)
        return error(call_.range, "where: branches have different types " + type(1).str() + " and " + type(2).str());
      auto shape = sema_.broadcastShapes(type(1), type(2), call_.range, name_);
      if (!shape)
        return Type::error();
      values = type(1).withShape(*shape);
    } else {
      values = promoteElementwise({1, 2});
    }
    if (values.isError())
      return values;
    auto shape = sema_.broadcastShapes(type(0), values, call_.range, name_);
    if (!shape)
      return Type::error();
    return values.withShape(*shape);
  }
  case BuiltinId::Cdiv: {
    Type result = promoteElementwise({0, 1});
    if (result.isError())
      return result;
    if (!result.isIntValue() || result.isBool())
      return error(call_.range, "cdiv needs integer operands, found " + type(0).str() + " and " + type(1).str());
    // Constant operands fold (so that cdiv can appear where a constant is required: a shape, a
    // const) as MLIRGen emits it: the truncated quotient, plus 1 when the remainder is not zero
    // and of the divisor's sign; foldBinary reports a division by zero (MIN / -1 wraps, as at run
    // time, except between weak constants, which fold exactly as `/` does).
    if (arg(0)->value && arg(1)->value && result.isScalarValue() && result.weak && !sema_.unevaluated() &&
        arg(0)->value->kind == ConstValue::Kind::Int && arg(1)->value->kind == ConstValue::Kind::Int) {
      __int128 x = exactInt(*arg(0)->value, type(0).elem.scalar), y = exactInt(*arg(1)->value, type(1).elem.scalar);
      if (y != 0) {
        __int128 quotient = x / y, remainder = x % y;
        quotient += remainder != 0 && (remainder < 0) == (y < 0);
        std::optional<Type> landed = sema_.weakIntType(quotient, result, call_.range);
        if (!landed)
          return Type::error();
        call_.value = normalizeInt(int64_t(quotient), landed->elem.scalar);
        return *landed;
      }
    }
    if (arg(0)->value && arg(1)->value && result.isScalarValue()) {
      ConstValue a = SemaImpl::castConst(*arg(0)->value, type(0), result);
      ConstValue b = SemaImpl::castConst(*arg(1)->value, type(1), result);
      auto quotient = sema_.foldBinary(BinOp::Div, a, b, result, result, call_.range);
      auto remainder = quotient ? sema_.foldBinary(BinOp::Rem, a, b, result, result, call_.range) : std::nullopt;
      if (!remainder) // (unevaluated: not constant, and never emitted)
        return sema_.unevaluated() ? result : Type::error();
      bool up = remainder->i != 0 && (isUnsigned(result.elem.scalar) || (remainder->i < 0) == (b.i < 0));
      call_.value = up ? sema_.foldBinary(BinOp::Add, *quotient, ConstValue::ofInt(1), result, result, call_.range)
                       : quotient;
      if (!call_.value)
        return Type::error();
    }
    return result;
  }
  case BuiltinId::Bitcast: {
    if (!requireValue(0))
      return Type::error();
    auto elem = elementTypeArg(1);
    if (!elem)
      return Type::error();
    const Type &x = type(0);
    if (x.isPtr() != elem->isPtr)
      return error(call_.range, "bitcast: cannot reinterpret " + x.str() + " as " + elem->str());
    if (!elem->isPtr && bitWidth(x.elem.scalar) != bitWidth(elem->scalar))
      return error(call_.range, "bitcast: " + x.elem.str() + " has " + std::to_string(bitWidth(x.elem.scalar)) +
                                    " bits but " + elem->str() + " has " + std::to_string(bitWidth(elem->scalar)));
    return Type::value(*elem, x.shape);
  }
  case BuiltinId::Cast: {
    // `x as T`, or with `saturate = true` clamped first to T's finite range: f8e4m3 overflow
    // gives ±448 rather than NaN (PTX's cvt .satfinite), i32 -> i8 gives ±127/-128 rather
    // than the wrapped bits. NaN stays NaN.
    if (!requireNumber(0))
      return Type::error();
    auto elem = elementTypeArg(1);
    if (!elem)
      return Type::error();
    if (elem->isPtr) // (the grammar names no pointer type as an argument; a guard all the same)
      return error(arg(1)->range, "cast: the target must be a scalar type, found " + elem->str());
    if (present(2)) {
      if (!type(2).isBool() || !arg(2)->value)
        return error(arg(2)->range, "saturate must be the constant true or false, found " + type(2).str());
    }
    return Type::value(*elem, type(0).shape);
  }
  default: return unhandled();
  }
}

Type BuiltinCallChecker::checkRandom() {
  if (!requireValue(0) || !requireValue(1))
    return Type::error();
  if (!type(0).isIntValue() || !type(0).isScalarValue() || type(0).isBool())
    return error(arg(0)->range, name_ + ": seed must be a scalar integer, found " + type(0).str());
  if (!type(1).isIntValue() || type(1).isBool())
    return error(arg(1)->range, name_ + ": offsets must be integers, found " + type(1).str());
  return Type::scalar(Scalar::F32).withShape(type(1).shape);
}

} // namespace tk
