// Reductions (sum max min argmax argmin reduce) and scans (cumsum cumprod scan) along an axis.
#include "SemaBuiltins.h"

namespace tk {

namespace {
// The element type that sum, cumsum and cumprod of `x` return: narrow integers widen to i32 and
// narrow floats accumulate and return f32, as in Triton (README: choices the specification left
// open), so that a sum of many small values does not overflow or lose its precision.
ElemType accumulatorElem(const Type &x) {
  Scalar s = x.elem.scalar;
  if (isInteger(s) && bitWidth(s) < 32)
    return ElemType{Scalar::I32, false};
  if (s == Scalar::F16 || s == Scalar::BF16 || s == Scalar::F8E4M3 || s == Scalar::F8E5M2)
    return ElemType{Scalar::F32, false};
  return x.elem;
}
} // namespace

// reduce's and scan's combine_fn: a fn instantiated on two scalars of the tile's element type,
// which must return that type. MLIRGen calls the instance (CallExpr::combineFn) from the
// combining region.
bool BuiltinCallChecker::instantiateCombineFn(size_t i, const Type &elemType) {
  if (type(i).kind != Type::Kind::Function) {
    error(arg(i)->range, name_ + ": combine_fn must name a fn, found " + type(i).str());
    return false;
  }
  auto call = std::make_unique<CallExpr>(arg(i)->range, type(i).fn->name, arg(i)->range);
  Type scalar = Type::value(elemType.elem);
  for (int k = 0; k < 2; ++k) {
    auto param = std::make_unique<NameExpr>(arg(i)->range, "");
    param->type = scalar;
    call->args.push_back(CallArg{"", {}, std::move(param)});
  }
  Type result = sema_.checkFnCall(*call, *type(i).fn);
  if (result.isError())
    return false;
  if (!result.sameAs(scalar)) {
    error(arg(i)->range,
          name_ + ": combine_fn '" + type(i).fn->name + "' must return " + scalar.str() + ", returns " + result.str());
    return false;
  }
  call_.combineFn = call->fn;
  call_.args.push_back(CallArg{"", {}, std::move(call)}); // keeps the instance's call alive
  return true;
}

Type BuiltinCallChecker::checkReductionOrScan() {
  if (!requireNumber(0))
    return Type::error();
  const Type &x = type(0);
  if (!x.isTile())
    return error(arg(0)->range, name_ + " needs a tile, found " + x.str());
  switch (id_) {
  case BuiltinId::Sum:
  case BuiltinId::Max:
  case BuiltinId::Min:
  case BuiltinId::Argmax:
  case BuiltinId::Argmin:
  case BuiltinId::Reduce: {
    // Without an axis, the whole tile reduces to a scalar.
    std::vector<int64_t> shape;
    if (present(1)) {
      auto axis = axisArg(1, x.shape.size(), false);
      if (!axis)
        return Type::error();
      shape = x.shape;
      shape.erase(shape.begin() + *axis);
    }
    ElemType elem = id_ == BuiltinId::Sum ? accumulatorElem(x) : x.elem;
    if (id_ == BuiltinId::Argmax || id_ == BuiltinId::Argmin)
      elem = ElemType{Scalar::I32, false};
    if (id_ == BuiltinId::Reduce && !instantiateCombineFn(2, x))
      return Type::error();
    return Type::value(elem, shape);
  }
  case BuiltinId::Cumsum:
  case BuiltinId::Cumprod:
  case BuiltinId::Scan: {
    bool isScan = id_ == BuiltinId::Scan;
    if (present(1) && !axisArg(1, x.shape.size(), false))
      return Type::error();
    size_t reverseIndex = isScan ? 3 : 2; // scan(x, axis, combine_fn, reverse)
    if (present(reverseIndex) && !sema_.constInt(arg(reverseIndex), paramName(reverseIndex)))
      return Type::error();
    if (isScan && !instantiateCombineFn(2, x))
      return Type::error();
    return Type::value(isScan ? x.elem : accumulatorElem(x), x.shape);
  }
  default: return unhandled();
  }
}

} // namespace tk
