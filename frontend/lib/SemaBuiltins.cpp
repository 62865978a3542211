// Argument binding (positional, then keyword) and the typing rule of every builtin.
#include "SemaImpl.h"

#include <algorithm>
#include <set>

namespace tk {

namespace {
size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}
} // namespace

bool SemaImpl::bindArguments(CallExpr &e, const std::vector<std::string> &names,
                             const std::vector<bool> &optional, bool variadicTail,
                             const std::string &what) {
  size_t fixed = variadicTail ? names.size() - 1 : names.size();
  e.bound.assign(fixed, nullptr);
  bool ok = true, sawKeyword = false;
  size_t position = 0;
  for (CallArg &arg : e.args) {
    if (arg.name.empty()) {
      if (sawKeyword) {
        error(arg.value->range, "positional argument after keyword argument");
        ok = false;
      } else if (position < fixed) {
        e.bound[position++] = arg.value.get();
      } else if (variadicTail) {
        e.bound.push_back(arg.value.get());
      } else {
        error(arg.value->range, what + "() takes " + std::to_string(fixed) + " argument" +
                                    (fixed == 1 ? "" : "s") + ", got " + std::to_string(e.args.size()));
        ok = false;
        break;
      }
      continue;
    }
    sawKeyword = true;
    auto it = std::find(names.begin(), names.begin() + fixed, arg.name);
    if (it == names.begin() + fixed) {
      std::string message = what + "() has no parameter named '" + arg.name + "'";
      for (size_t k = 0; k < fixed; ++k)
        if (editDistance(arg.name, names[k]) <= 2) {
          message += "; did you mean '" + names[k] + "'?";
          break;
        }
      error(arg.nameRange, message);
      ok = false;
      continue;
    }
    size_t index = it - names.begin();
    if (e.bound[index]) {
      error(arg.nameRange, "argument '" + arg.name + "' given twice");
      ok = false;
      continue;
    }
    e.bound[index] = arg.value.get();
  }
  for (CallArg &arg : e.args)
    check(*arg.value);
  for (size_t k = 0; k < fixed; ++k)
    if (!e.bound[k] && !optional[k]) {
      error(e.range, what + "() is missing argument '" + names[k] + "'");
      ok = false;
    }
  for (Expr *bound : e.bound)
    if (bound && bound->type.isError())
      ok = false;
  return ok;
}

Type SemaImpl::checkBuiltin(CallExpr &e, const BuiltinInfo &info) {
  std::vector<std::string> names;
  std::vector<bool> optional;
  bool variadic = false;
  for (const BuiltinParam &p : info.params) {
    names.push_back(p.name);
    optional.push_back(p.optional);
    variadic |= p.variadic;
  }
  if (!bindArguments(e, names, optional, variadic, info.name))
    return Type::error();
  e.builtin = (int)info.id;
  const std::string &fn = info.name;
  auto arg = [&](size_t i) -> Expr * { return i < e.bound.size() ? e.bound[i] : nullptr; };
  auto T = [&](size_t i) -> const Type & { return e.bound[i]->type; };
  auto present = [&](size_t i) { return arg(i) && arg(i)->type.kind != Type::Kind::None; };
  auto paramName = [&](size_t i) { return fn + " '" + names[i] + "'"; };

  auto value = [&](size_t i) -> bool {
    if (T(i).isValue())
      return true;
    error(arg(i)->range, paramName(i) + " must be a value, found " + T(i).str());
    return false;
  };
  auto numeric = [&](size_t i) -> bool {
    if (!value(i))
      return false;
    if (!T(i).isPtr())
      return true;
    error(arg(i)->range, paramName(i) + " must be a number, found " + T(i).str());
    return false;
  };
  auto pointers = [&](size_t i) -> bool {
    if (!value(i))
      return false;
    if (T(i).isPtr())
      return true;
    error(arg(i)->range, paramName(i) + " must be a pointer or a tile of pointers, found " + T(i).str());
    return false;
  };
  auto typeArg = [&](size_t i) -> std::optional<ElemType> {
    if (T(i).kind == Type::Kind::TypeName)
      return T(i).elem;
    error(arg(i)->range, paramName(i) + " must be a type such as f32, found " + T(i).str());
    return std::nullopt;
  };
  auto stringArg = [&](size_t i, std::vector<std::string> allowed) -> std::optional<std::string> {
    if (!present(i))
      return std::string();
    auto *s = dyn<StringLit>(arg(i));
    if (s && (allowed.empty() || std::count(allowed.begin(), allowed.end(), s->literal)))
      return s->literal;
    std::string choices;
    for (size_t k = 0; k < allowed.size(); ++k)
      choices += (k ? (k + 1 == allowed.size() ? " or " : ", ") : "") + ("\"" + allowed[k] + "\"");
    error(arg(i)->range, paramName(i) + " must be " + (allowed.empty() ? "a string literal" : choices));
    return std::nullopt;
  };
  auto axisArg = [&](size_t i, size_t rank, bool allowEnd) -> std::optional<int64_t> {
    auto axis = constInt(arg(i), paramName(i));
    if (!axis)
      return std::nullopt;
    int64_t limit = (int64_t)rank + (allowEnd ? 1 : 0);
    int64_t normalized = *axis < 0 ? *axis + limit : *axis;
    if (normalized < 0 || normalized >= limit) {
      error(arg(i)->range, fn + ": axis " + std::to_string(*axis) + " is out of range for a tile of rank " +
                               std::to_string(rank));
      return std::nullopt;
    }
    arg(i)->value = ConstValue::ofInt(normalized);
    return normalized;
  };
  // The mask of a memory operation: i1, broadcastable to the pointers' shape.
  auto maskArg = [&](size_t i, const Type &ptrs) -> bool {
    if (!present(i))
      return true;
    if (!value(i))
      return false;
    if (!T(i).isBool()) {
      error(arg(i)->range, fn + ": mask must be i1, found " + T(i).str());
      return false;
    }
    return coerce(*arg(i), Type::scalar(Scalar::I1).withShape(ptrs.shape), fn + " mask");
  };
  // A value stored through (or combined with) pointers: numbers convert to the pointee type.
  auto pointeeValue = [&](size_t i, const Type &ptrs) -> bool {
    if (!value(i))
      return false;
    Type target = Type::value(ElemType{ptrs.elem.scalar, false}, ptrs.shape);
    Type relaxed = T(i).isPtr() ? T(i) : T(i).withElem(target.elem);
    if (!implicitlyConverts(relaxed, target)) {
      error(arg(i)->range, fn + ": " + names[i] + " of type " + T(i).str() + " does not fit pointers " + ptrs.str());
      return false;
    }
    return true;
  };
  auto floatOperand = [&](size_t i) -> bool {
    if (!numeric(i))
      return false;
    if (T(i).isFloatValue())
      return true;
    error(arg(i)->range, fn + " needs a float operand, found " + T(i).str() + "; convert with 'as f32'");
    return false;
  };
  // Elementwise functions of several operands: promote and broadcast them all.
  auto elementwise = [&](std::initializer_list<size_t> operands) -> Type {
    Type result;
    bool first = true;
    for (size_t i : operands) {
      if (!numeric(i))
        return Type::error();
      if (first) {
        result = T(i);
        first = false;
        continue;
      }
      auto shape = broadcastShapes(result, T(i), e.range, fn);
      if (!shape)
        return Type::error();
      result = promote(result, T(i)).withShape(*shape);
    }
    return result;
  };
  auto reducedElem = [&](const Type &t, bool isSum) -> ElemType {
    Scalar s = t.elem.scalar;
    if (isSum && isInteger(s) && bitWidth(s) < 32)
      return ElemType{Scalar::I32, false};
    if (isSum && (s == Scalar::F16 || s == Scalar::BF16 || s == Scalar::F8E4M3 || s == Scalar::F8E5M2))
      return ElemType{Scalar::F32, false};
    return t.elem;
  };
  auto combineFn = [&](size_t i, const Type &elemType) -> bool {
    if (T(i).kind != Type::Kind::Function) {
      error(arg(i)->range, fn + ": combine_fn must name a fn, found " + T(i).str());
      return false;
    }
    // Instantiate the combine function on two scalars of the element type.
    auto call = std::make_unique<CallExpr>(arg(i)->range, T(i).fn->name, arg(i)->range);
    Type scalar = Type::value(elemType.elem);
    for (int k = 0; k < 2; ++k) {
      auto param = std::make_unique<NameExpr>(arg(i)->range, "");
      param->type = scalar;
      call->args.push_back(CallArg{"", {}, std::move(param)});
    }
    Type result = checkFnCall(*call, *T(i).fn);
    if (result.isError())
      return false;
    if (!result.sameAs(scalar)) {
      error(arg(i)->range, fn + ": combine_fn '" + T(i).fn->name + "' must return " + scalar.str() +
                               ", returns " + result.str());
      return false;
    }
    e.combineFn = call->fn;
    e.args.push_back(CallArg{"", {}, std::move(call)}); // keeps the instance's call alive
    return true;
  };

  switch (info.id) {
  case BuiltinId::ProgramId:
  case BuiltinId::NumPrograms: {
    auto axis = constInt(arg(0), paramName(0));
    if (!axis)
      return Type::error();
    if (*axis < 0 || *axis > 2)
      return error(arg(0)->range, fn + " axis must be 0, 1 or 2, got " + std::to_string(*axis));
    return Type::scalar(Scalar::I32);
  }
  case BuiltinId::Arange: {
    auto start = constInt(arg(0), paramName(0)), end = constInt(arg(1), paramName(1));
    if (!start || !end)
      return Type::error();
    if (*end <= *start)
      return error(e.range, "arange: end " + std::to_string(*end) + " must be greater than start " +
                                std::to_string(*start));
    if (*start < INT32_MIN || *end > INT32_MAX)
      return error(e.range, "arange: bounds must fit in i32");
    int64_t count = *end - *start;
    if (count & (count - 1))
      return error(e.range, "arange(" + std::to_string(*start) + ", " + std::to_string(*end) + ") has " +
                                std::to_string(count) + " elements, which is not a power of two");
    return Type::scalar(Scalar::I32).withShape({count});
  }
  case BuiltinId::Zeros:
  case BuiltinId::Full: {
    auto shape = constShape(arg(0), paramName(0));
    size_t typeIndex = info.id == BuiltinId::Zeros ? 1 : 2;
    auto elem = typeArg(typeIndex);
    if (!shape || !elem)
      return Type::error();
    if (info.id == BuiltinId::Full && (!value(1) || !T(1).isScalarValue()))
      return T(1).isValue() ? error(arg(1)->range, "full: value must be a scalar, found " + T(1).str())
                            : Type::error();
    if (info.id == BuiltinId::Full && T(1).isPtr() != elem->isPtr)
      return error(arg(1)->range, "full: a value of type " + T(1).str() + " cannot fill a tile of " + elem->str());
    if (!checkTileShape(*shape, arg(0)->range))
      return Type::error();
    return Type::value(*elem, *shape);
  }
  case BuiltinId::Load: {
    if (!pointers(0))
      return Type::error();
    Type ptrs = T(0);
    if (!maskArg(1, ptrs))
      return Type::error();
    if (present(2)) {
      if (!present(1))
        return error(arg(2)->range, "load: 'other' needs a mask");
      if (!pointeeValue(2, ptrs))
        return Type::error();
    }
    if (!stringArg(3, {"", "ca", "cg"}) || !stringArg(4, {"", "first", "last"}))
      return Type::error();
    return Type::value(ElemType{ptrs.elem.scalar, false}, ptrs.shape);
  }
  case BuiltinId::Store: {
    if (!pointers(0) || !pointeeValue(1, T(0)) || !maskArg(2, T(0)) || !stringArg(3, {"", "first", "last"}))
      return Type::error();
    return Type::voidType();
  }
  case BuiltinId::Dot: {
    if (!numeric(0) || !numeric(1))
      return Type::error();
    const Type &a = T(0), &b = T(1);
    if (a.shape.size() != 2 || b.shape.size() != 2)
      return error(e.range, "dot: operands must be 2-D tiles, a is " + a.str() + ", b is " + b.str());
    if (a.shape[1] != b.shape[0])
      return error(e.range, "dot: K dimension mismatch: a is " + a.str() + ", b is " + b.str());
    if (a.elem != b.elem)
      return error(e.range, "dot: operand types differ: a is " + a.str() + ", b is " + b.str());
    Scalar s = a.elem.scalar;
    static const std::set<Scalar> inputs = {Scalar::F16, Scalar::BF16, Scalar::F32, Scalar::I8,
                                            Scalar::F8E4M3, Scalar::F8E5M2, Scalar::F64};
    if (!inputs.count(s))
      return error(e.range, std::string("dot: operands of type ") + scalarName(s) +
                                " are not supported (f16, bf16, f32, f64, i8, f8e4m3, f8e5m2)");
    int64_t M = a.shape[0], K = a.shape[1], N = b.shape[1];
    if (M < 16 || K < 16 || N < 8)
      return error(e.range, "dot: tiles must have M >= 16, K >= 16 and N >= 8, got M = " + std::to_string(M) +
                                ", K = " + std::to_string(K) + ", N = " + std::to_string(N));
    Scalar accDefault = s == Scalar::I8 ? Scalar::I32 : s == Scalar::F64 ? Scalar::F64 : Scalar::F32;
    Type result = Type::scalar(accDefault).withShape({M, N});
    if (present(2)) {
      if (!numeric(2))
        return Type::error();
      Type acc = T(2);
      std::set<Scalar> allowed = {accDefault};
      if (s == Scalar::F16)
        allowed.insert(Scalar::F16);
      if (acc.shape != std::vector<int64_t>{M, N} || !allowed.count(acc.elem.scalar))
        return error(arg(2)->range, "dot: accumulator must be " + result.str() +
                                        (s == Scalar::F16 ? " or f16[" + std::to_string(M) + ", " + std::to_string(N) + "]" : "") +
                                        ", found " + acc.str());
      result = acc.strong();
    }
    auto precision = stringArg(3, {"tf32", "ieee"});
    if (!precision)
      return Type::error();
    return result;
  }
  case BuiltinId::Sum:
  case BuiltinId::Max:
  case BuiltinId::Min:
  case BuiltinId::Argmax:
  case BuiltinId::Argmin:
  case BuiltinId::Reduce: {
    if (!numeric(0))
      return Type::error();
    const Type &x = T(0);
    if (!x.isTile())
      return error(arg(0)->range, fn + " needs a tile, found " + x.str());
    std::vector<int64_t> shape;
    if (present(1)) {
      auto axis = axisArg(1, x.shape.size(), false);
      if (!axis)
        return Type::error();
      shape = x.shape;
      shape.erase(shape.begin() + *axis);
    }
    ElemType elem = reducedElem(x, info.id == BuiltinId::Sum);
    if (info.id == BuiltinId::Argmax || info.id == BuiltinId::Argmin)
      elem = ElemType{Scalar::I32, false};
    if (info.id == BuiltinId::Reduce && !combineFn(2, x))
      return Type::error();
    return Type::value(elem, shape);
  }
  case BuiltinId::Cumsum:
  case BuiltinId::Cumprod:
  case BuiltinId::Scan: {
    if (!numeric(0))
      return Type::error();
    const Type &x = T(0);
    if (!x.isTile())
      return error(arg(0)->range, fn + " needs a tile, found " + x.str());
    if (present(1) && !axisArg(1, x.shape.size(), false))
      return Type::error();
    size_t reverseIndex = info.id == BuiltinId::Scan ? 3 : 2;
    if (present(reverseIndex) && !constInt(arg(reverseIndex), paramName(reverseIndex)))
      return Type::error();
    if (info.id == BuiltinId::Scan && !combineFn(2, x))
      return Type::error();
    return Type::value(info.id == BuiltinId::Scan ? x.elem : reducedElem(x, true), x.shape);
  }
  case BuiltinId::Reshape:
  case BuiltinId::BroadcastTo: {
    if (!value(0))
      return Type::error();
    auto shape = constShape(arg(1), paramName(1));
    if (!shape || !checkTileShape(*shape, arg(1)->range))
      return Type::error();
    if (info.id == BuiltinId::Reshape && shape->empty())
      return error(arg(1)->range, "reshape: the shape needs at least one dimension");
    if (info.id == BuiltinId::Reshape && T(0).numElements() != Type::scalar(Scalar::I32).withShape(*shape).numElements())
      return error(e.range, "reshape: cannot reshape " + T(0).str() + " (" + std::to_string(T(0).numElements()) +
                                " elements) into " + shapeStr(*shape));
    if (info.id == BuiltinId::BroadcastTo && !implicitlyConverts(T(0).strong(), T(0).strong().withShape(*shape)))
      return error(e.range, "broadcast_to: cannot broadcast " + T(0).str() + " to " + shapeStr(*shape));
    return T(0).strong().withShape(*shape);
  }
  case BuiltinId::Trans: {
    if (!value(0))
      return Type::error();
    if (T(0).shape.size() != 2)
      return error(arg(0)->range, "trans needs a 2-D tile, found " + T(0).str() + "; use permute for other ranks");
    return T(0).withShape({T(0).shape[1], T(0).shape[0]});
  }
  case BuiltinId::Permute: {
    if (!value(0))
      return Type::error();
    if (!T(0).isTile())
      return error(arg(0)->range, "permute needs a tile, found " + T(0).str());
    auto dims = constShape(arg(1), paramName(1));
    if (!dims)
      return Type::error();
    std::vector<int64_t> sorted = *dims, shape;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 0; k < sorted.size(); ++k)
      if (sorted[k] != (int64_t)k || sorted.size() != T(0).shape.size())
        return error(arg(1)->range, "permute: dims " + shapeStr(*dims) + " are not a permutation of the " +
                                        std::to_string(T(0).shape.size()) + " dimensions of " + T(0).str());
    if (sorted.size() != T(0).shape.size())
      return error(arg(1)->range, "permute: dims " + shapeStr(*dims) + " do not match " + T(0).str());
    for (int64_t d : *dims)
      shape.push_back(T(0).shape[d]);
    return T(0).withShape(shape);
  }
  case BuiltinId::ExpandDims: {
    if (!value(0))
      return Type::error();
    auto axis = axisArg(1, T(0).shape.size(), true);
    if (!axis)
      return Type::error();
    std::vector<int64_t> shape = T(0).shape;
    shape.insert(shape.begin() + *axis, 1);
    return T(0).withShape(shape);
  }
  case BuiltinId::Exp: case BuiltinId::Exp2: case BuiltinId::Log: case BuiltinId::Log2:
  case BuiltinId::Sqrt: case BuiltinId::Rsqrt: case BuiltinId::Sin: case BuiltinId::Cos:
  case BuiltinId::Tanh: case BuiltinId::Sigmoid: case BuiltinId::Erf:
  case BuiltinId::Floor: case BuiltinId::Ceil:
    if (!floatOperand(0))
      return Type::error();
    return T(0);
  case BuiltinId::Abs:
    if (!numeric(0))
      return Type::error();
    if (T(0).isBool())
      return error(arg(0)->range, "abs needs a number, found i1");
    return T(0);
  case BuiltinId::Fma: {
    if (!floatOperand(0) || !floatOperand(1) || !floatOperand(2))
      return Type::error();
    return elementwise({0, 1, 2});
  }
  case BuiltinId::Maximum:
  case BuiltinId::Minimum:
    return elementwise({0, 1});
  case BuiltinId::Clamp:
    return elementwise({0, 1, 2});
  case BuiltinId::Where: {
    if (!value(0))
      return Type::error();
    if (!T(0).isBool())
      return error(arg(0)->range, "where: condition must be i1, found " + T(0).str());
    if (!value(1) || !value(2))
      return Type::error();
    Type values;
    if (T(1).isPtr() || T(2).isPtr()) {
      if (T(1).elem != T(2).elem)
        return error(e.range, "where: branches have different types " + T(1).str() + " and " + T(2).str());
      auto shape = broadcastShapes(T(1), T(2), e.range, fn);
      if (!shape)
        return Type::error();
      values = T(1).withShape(*shape);
    } else {
      values = elementwise({1, 2});
    }
    if (values.isError())
      return values;
    auto shape = broadcastShapes(T(0), values, e.range, fn);
    if (!shape)
      return Type::error();
    return values.withShape(*shape);
  }
  case BuiltinId::Cdiv: {
    Type result = elementwise({0, 1});
    if (result.isError())
      return result;
    if (!result.isIntValue() || result.isBool())
      return error(e.range, "cdiv needs integer operands, found " + T(0).str() + " and " + T(1).str());
    if (arg(0)->value && arg(1)->value && result.isScalarValue()) {
      ConstValue a = castConst(*arg(0)->value, T(0), result), b = castConst(*arg(1)->value, T(1), result);
      auto sum = foldBinary(BinOp::Add, a, b, result, result, e.range);
      auto minus = sum ? foldBinary(BinOp::Sub, *sum, ConstValue::ofInt(1), result, result, e.range) : std::nullopt;
      e.value = minus ? foldBinary(BinOp::Div, *minus, b, result, result, e.range) : std::nullopt;
      if (!e.value)
        return Type::error();
    }
    return result;
  }
  case BuiltinId::AtomicAdd:
  case BuiltinId::AtomicMax:
  case BuiltinId::AtomicMin:
  case BuiltinId::AtomicXchg: {
    if (!pointers(0) || !pointeeValue(1, T(0)) || !maskArg(2, T(0)))
      return Type::error();
    Scalar s = T(0).elem.scalar;
    if (info.id != BuiltinId::AtomicXchg && (s == Scalar::I1 || bitWidth(s) < 16 || s == Scalar::BF16))
      return error(arg(0)->range, fn + " does not support " + std::string(scalarName(s)) + " elements");
    return Type::value(ElemType{s, false}, T(0).shape);
  }
  case BuiltinId::AtomicCas: {
    if (!pointers(0) || !pointeeValue(1, T(0)) || !pointeeValue(2, T(0)))
      return Type::error();
    Scalar s = T(0).elem.scalar;
    if (bitWidth(s) < 16)
      return error(arg(0)->range, "atomic_cas does not support " + std::string(scalarName(s)) + " elements");
    return Type::value(ElemType{s, false}, T(0).shape);
  }
  case BuiltinId::MultipleOf:
  case BuiltinId::MaxContiguous: {
    if (!value(0))
      return Type::error();
    if (!T(0).isIntValue() && !T(0).isPtr())
      return error(arg(0)->range, fn + " applies to integers or pointers, found " + T(0).str());
    auto n = constInt(arg(1), paramName(1));
    if (!n)
      return Type::error();
    if (*n <= 0 || (*n & (*n - 1)))
      return error(arg(1)->range, fn + ": " + std::to_string(*n) + " is not a positive power of two");
    return T(0).strong();
  }
  case BuiltinId::Rand:
  case BuiltinId::Randn: {
    if (!value(0) || !value(1))
      return Type::error();
    if (!T(0).isIntValue() || !T(0).isScalarValue() || T(0).isBool())
      return error(arg(0)->range, fn + ": seed must be a scalar integer, found " + T(0).str());
    if (!T(1).isIntValue() || T(1).isBool())
      return error(arg(1)->range, fn + ": offsets must be integers, found " + T(1).str());
    return Type::scalar(Scalar::F32).withShape(T(1).shape);
  }
  case BuiltinId::Print: {
    if (!stringArg(0, {}))
      return Type::error();
    for (size_t i = 1; i < e.bound.size(); ++i)
      if (!value(i))
        return Type::error();
    return Type::voidType();
  }
  case BuiltinId::Assert:
  case BuiltinId::StaticAssert: {
    if (!value(0))
      return Type::error();
    if (!T(0).isBool())
      return error(arg(0)->range, fn + ": condition must be i1, found " + T(0).str());
    auto message = stringArg(1, {});
    if (!message)
      return Type::error();
    if (info.id == BuiltinId::StaticAssert) {
      if (!arg(0)->value)
        return error(arg(0)->range, "static_assert: condition is not a compile-time constant");
      if (!arg(0)->value->i)
        return error(e.range, "static assertion failed" + (message->empty() ? std::string() : ": " + *message));
    }
    return Type::voidType();
  }
  case BuiltinId::Bitcast: {
    if (!value(0))
      return Type::error();
    auto elem = typeArg(1);
    if (!elem)
      return Type::error();
    if (T(0).isPtr() != elem->isPtr)
      return error(e.range, "bitcast: cannot reinterpret " + T(0).str() + " as " + elem->str());
    if (!elem->isPtr && bitWidth(T(0).elem.scalar) != bitWidth(elem->scalar))
      return error(e.range, "bitcast: " + T(0).elem.str() + " has " + std::to_string(bitWidth(T(0).elem.scalar)) +
                                " bits but " + elem->str() + " has " + std::to_string(bitWidth(elem->scalar)));
    return Type::value(*elem, T(0).shape);
  }
  case BuiltinId::Count:
    break;
  }
  return error(e.range, "unhandled builtin " + fn);
}

} // namespace tk
