// Typing of expressions: names, operators with numpy broadcasting and Triton's promotion and
// weak-literal rules, casts, indexing, and constant folding of scalar constants.
#include "SemaImpl.h"
#include "tk/Support/FloatFormats.h"

#include <cmath>

namespace tk {

Type SemaImpl::error(SrcRange range, const std::string &message) {
  diags_.error(range, message);
  return Type::error();
}

__int128 exactInt(const ConstValue &v, Scalar type) {
  return isUnsigned(type) ? __int128(uint64_t(v.i)) : __int128(v.i);
}

bool holdsInt(Scalar s, __int128 v) {
  int width = bitWidth(s);
  if (s == Scalar::I1)
    return v == 0 || v == 1;
  if (isUnsigned(s))
    return v >= 0 && v < (__int128(1) << width);
  return v >= -(__int128(1) << (width - 1)) && v < (__int128(1) << (width - 1));
}

namespace {
std::string intText(__int128 v) {
  return v < 0 ? "-" + std::to_string(uint64_t(-v)) : std::to_string(uint64_t(v));
}

// The operators whose result can leave their operands' promoted type (the others cannot;
// a quotient only as MIN / -1).
bool mayOverflow(BinOp op) {
  return op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::Shl || op == BinOp::Div;
}

// The exact value of x op y for such an operator on integer constants (each within 64 bits),
// or nothing where 128 bits cannot hold it. (A negative shift amount: the caller's error.)
std::optional<__int128> exactIntArith(BinOp op, __int128 x, __int128 y) {
  __int128 r = 0;
  switch (op) {
  case BinOp::Add: return x + y;
  case BinOp::Sub: return x - y;
  case BinOp::Mul: return __builtin_mul_overflow(x, y, &r) ? std::nullopt : std::optional(r);
  case BinOp::Div: return y == 0 ? __int128(0) : x / y; // (a division by zero: foldBinary's error)
  default: // Shl
    if (x == 0 || y < 0)
      return __int128(0);
    if (y > 64 || __builtin_mul_overflow(x, __int128(1) << int(y), &r))
      return std::nullopt;
    return r;
  }
}
} // namespace

ConstValue normalizeInt(int64_t v, Scalar s) {
  int width = bitWidth(s);
  if (width >= 64)
    return ConstValue::ofInt(v);
  uint64_t mask = (uint64_t(1) << width) - 1;
  uint64_t bits = uint64_t(v) & mask;
  if (!isUnsigned(s) && width > 1 && (bits >> (width - 1)) & 1)
    bits |= ~mask; // sign-extend
  return ConstValue::ofInt(int64_t(bits));
}

bool SemaImpl::checkTileShape(const std::vector<int64_t> &shape, SrcRange range) {
  if (shape.size() > SemaLimits::kMaxTileRank) {
    error(range, "tile of rank " + std::to_string(shape.size()) + ": tiles have at most " +
                     std::to_string(SemaLimits::kMaxTileRank) + " dimensions");
    return false;
  }
  int64_t elements = 1;
  for (int64_t dim : shape) {
    if (dim <= 0 || (dim & (dim - 1)) != 0) {
      error(range, "tile dimension " + std::to_string(dim) + " is not a power of two (shape " +
                       shapeStr(shape) + ")");
      return false;
    }
    elements *= dim;
    if (elements > SemaLimits::kMaxTileElements) {
      error(range, "tile " + shapeStr(shape) + " has more than " +
                       std::to_string(SemaLimits::kMaxTileElements) + " elements");
      return false;
    }
  }
  return true;
}

std::optional<Type> SemaImpl::weakIntType(__int128 exact, const Type &type, SrcRange range) {
  if (holdsInt(type.elem.scalar, exact))
    return type;
  if (holdsInt(Scalar::I64, exact))
    return Type::scalar(Scalar::I64, true);
  error(range, "integer overflow in a constant expression: the result does not fit in i64");
  return std::nullopt;
}

std::optional<std::vector<int64_t>> SemaImpl::broadcastShapes(const Type &a, const Type &b,
                                                              SrcRange range,
                                                              const std::string &what) {
  const auto &sa = a.shape, &sb = b.shape;
  size_t rank = std::max(sa.size(), sb.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - sa.size() ? 1 : sa[i - (rank - sa.size())];
    int64_t db = i < rank - sb.size() ? 1 : sb[i - (rank - sb.size())];
    if (da != db && da != 1 && db != 1) {
      error(range, what + ": cannot broadcast " + a.str() + " and " + b.str());
      return std::nullopt;
    }
    out[i] = std::max(da, db);
  }
  return out;
}

namespace {
Scalar promoteFloats(Scalar a, Scalar b) {
  if (a == b)
    return a;
  if (a == Scalar::F64 || b == Scalar::F64)
    return Scalar::F64;
  if (bitWidth(a) == bitWidth(b)) // f16 with bf16, or the two f8 kinds
    return bitWidth(a) == 16 ? Scalar::F32 : Scalar::F16;
  return bitWidth(a) > bitWidth(b) ? a : b;
}

Scalar promoteInts(Scalar a, Scalar b) {
  if (a == b)
    return a;
  if (a == Scalar::I1)
    return b;
  if (b == Scalar::I1)
    return a;
  if (bitWidth(a) != bitWidth(b))
    return bitWidth(a) > bitWidth(b) ? a : b;
  return isUnsigned(a) ? a : b; // same width, mixed signedness: unsigned wins (as in C)
}
} // namespace

Type SemaImpl::promote(const Type &a, const Type &b) {
  Scalar sa = a.elem.scalar, sb = b.elem.scalar, result;
  if (a.weak != b.weak) {
    const Type &weak = a.weak ? a : b, &strong = a.weak ? b : a;
    result = isFloat(weak.elem.scalar) && !isFloat(strong.elem.scalar) ? Scalar::F32
                                                                         : strong.elem.scalar;
  } else if (isFloat(sa) || isFloat(sb)) {
    result = isFloat(sa) && isFloat(sb) ? promoteFloats(sa, sb) : isFloat(sa) ? sa : sb;
  } else {
    result = promoteInts(sa, sb);
  }
  return Type::scalar(result, a.weak && b.weak);
}

bool SemaImpl::implicitlyConverts(const Type &from, const Type &to) {
  if (!from.isValue() || !to.isValue())
    return false;
  if (from.elem != to.elem) {
    bool numericWeak = from.weak && !from.elem.isPtr && !to.elem.isPtr &&
                       !(isFloat(from.elem.scalar) && !isFloat(to.elem.scalar)) &&
                       !(to.elem.scalar == Scalar::I1 && from.elem.scalar != Scalar::I1);
    if (!numericWeak)
      return false;
  }
  if (from.shape.size() > to.shape.size())
    return false;
  size_t offset = to.shape.size() - from.shape.size();
  for (size_t i = 0; i < from.shape.size(); ++i)
    if (from.shape[i] != 1 && from.shape[i] != to.shape[offset + i])
      return false;
  return true;
}

bool SemaImpl::coerce(Expr &e, const Type &to, const std::string &what) {
  if (e.type.isError() || to.isError())
    return false;
  if (implicitlyConverts(e.type, to)) {
    // A weak integer constant takes the type it is given only if that type holds it (as -D's
    // values must): `let x: i8 = 300` would be 44, and `const N: u32 = -1` 4294967295.
    if (e.type.weak && e.value && e.value->kind == ConstValue::Kind::Int && e.type.isIntValue() &&
        to.isIntValue() && !holdsInt(to.elem.scalar, exactInt(*e.value, e.type.elem.scalar))) {
      error(e.range, what + ": " + intText(exactInt(*e.value, e.type.elem.scalar)) + " does not fit in " +
                         to.elem.str() + "; convert with 'as " + to.elem.str() + "' to wrap it");
      return false;
    }
    return true;
  }
  std::string hint;
  if (e.type.isValue() && to.isValue() && e.type.elem != to.elem && !e.type.elem.isPtr &&
      !to.elem.isPtr)
    hint = "; convert with 'as " + to.elem.str() + "'";
  error(e.range, what + ": expected " + to.str() + ", found " + e.type.str() + hint);
  return false;
}

ConstValue SemaImpl::castConst(const ConstValue &v, const Type &from, const Type &to) {
  Scalar target = to.elem.scalar;
  if (isFloat(target)) {
    // Rounded once to the target, as the interpreter and cvt.rn round at run time (f16, bf16
    // and f8 constants kept their f32 value before: 0.1 as f16 was 0.1, 70000.0 as f16 finite).
    bool isInt = v.kind != ConstValue::Kind::Float;
    long double exact = !isInt ? (long double)v.f
                        : isUnsigned(from.elem.scalar) ? (long double)(uint64_t)v.i
                                                       : (long double)v.i;
    if (target == Scalar::F64)
      return ConstValue::ofFloat(double(exact));
    if (target == Scalar::F32)
      return ConstValue::ofFloat(double(float(exact)));
    float odd = fp::toFloatRoundToOdd(exact);
    switch (target) {
    case Scalar::F16: return ConstValue::ofFloat(fp::halfToFloat(fp::floatToHalf(odd)));
    case Scalar::BF16: return ConstValue::ofFloat(fp::bf16ToFloat(fp::floatToBf16(odd)));
    case Scalar::F8E4M3: return ConstValue::ofFloat(fp::f8e4m3ToFloat(fp::floatToF8e4m3(odd)));
    case Scalar::F8E5M2: return ConstValue::ofFloat(fp::f8e5m2ToFloat(fp::floatToF8e5m2(odd)));
    default: return ConstValue::ofFloat(double(exact));
    }
  }
  if (target == Scalar::I1)
    return ConstValue::ofInt(v.kind == ConstValue::Kind::Float ? v.f != 0 : v.i != 0);
  if (v.kind == ConstValue::Kind::Float) // (saturated as at run time: 300.0 as i8 is 127)
    return normalizeInt(fp::saturatingTrunc(v.f, bitWidth(target), isUnsigned(target)), target);
  return normalizeInt(v.i, target);
}

std::optional<ConstValue> SemaImpl::foldBinary(BinOp op, const ConstValue &a, const ConstValue &b,
                                               const Type &operandType, const Type &resultType,
                                               SrcRange range) {
  Scalar s = operandType.elem.scalar;
  auto boolean = [](bool v) { return ConstValue::ofInt(v); };
  if (isFloat(s)) {
    double x = a.asDouble(), y = b.asDouble(), r = 0;
    switch (op) {
    case BinOp::Add: r = x + y; break;
    case BinOp::Sub: r = x - y; break;
    case BinOp::Mul: r = x * y; break;
    case BinOp::Div: r = x / y; break;
    case BinOp::Rem: r = std::fmod(x, y); break;
    case BinOp::Eq: return boolean(x == y);
    case BinOp::Ne: return boolean(x != y);
    case BinOp::Lt: return boolean(x < y);
    case BinOp::Le: return boolean(x <= y);
    case BinOp::Gt: return boolean(x > y);
    case BinOp::Ge: return boolean(x >= y);
    default: return std::nullopt;
    }
    return castConst(ConstValue::ofFloat(r), resultType, resultType);
  }
  bool uns = isUnsigned(s);
  int64_t x = a.i, y = b.i;
  uint64_t ux = uint64_t(x), uy = uint64_t(y);
  int width = bitWidth(s);
  int64_t r = 0;
  switch (op) {
  case BinOp::Add: r = int64_t(ux + uy); break;
  case BinOp::Sub: r = int64_t(ux - uy); break;
  case BinOp::Mul: r = int64_t(ux * uy); break;
  case BinOp::Div:
  case BinOp::Rem:
    if (y == 0) {
      // (Not evaluated: the right side of a constant `&&`/`||` that decides, never emitted.)
      if (!unevaluated_)
        error(range, std::string(op == BinOp::Div ? "division" : "remainder") + " by zero in a constant expression");
      return std::nullopt;
    }
    if (uns)
      r = int64_t(op == BinOp::Div ? ux / uy : ux % uy);
    else if (x == INT64_MIN && y == -1)
      r = op == BinOp::Div ? x : 0;
    else
      r = op == BinOp::Div ? x / y : x % y;
    break;
  case BinOp::Shl: r = uy >= (uint64_t)width ? 0 : int64_t(ux << uy); break;
  case BinOp::Shr:
    if (uns)
      r = uy >= (uint64_t)width ? 0 : int64_t(ux >> uy);
    else
      r = x >> std::min<uint64_t>(uy, 63);
    break;
  case BinOp::BitAnd: case BinOp::And: r = x & y; break;
  case BinOp::BitOr: case BinOp::Or: r = x | y; break;
  case BinOp::BitXor: r = x ^ y; break;
  case BinOp::Eq: return boolean(x == y);
  case BinOp::Ne: return boolean(x != y);
  case BinOp::Lt: return boolean(uns ? ux < uy : x < y);
  case BinOp::Le: return boolean(uns ? ux <= uy : x <= y);
  case BinOp::Gt: return boolean(uns ? ux > uy : x > y);
  case BinOp::Ge: return boolean(uns ? ux >= uy : x >= y);
  }
  return normalizeInt(r, resultType.elem.scalar);
}

Type SemaImpl::check(Expr &e) {
  if (!spend(e.range))
    return e.type = Type::error();
  switch (e.kind) {
  case ExprKind::Int: {
    uint64_t v = static_cast<IntLit &>(e).literal;
    Scalar s = v <= INT32_MAX ? Scalar::I32 : v <= (uint64_t)INT64_MAX ? Scalar::I64 : Scalar::U64;
    e.type = Type::scalar(s, true);
    e.value = ConstValue::ofInt(int64_t(v));
    break;
  }
  case ExprKind::Float:
    e.type = Type::scalar(Scalar::F32, true);
    e.value = ConstValue::ofFloat(static_cast<FloatLit &>(e).literal);
    break;
  case ExprKind::Bool:
    e.type = Type::scalar(Scalar::I1);
    e.value = ConstValue::ofInt(static_cast<BoolLit &>(e).literal);
    break;
  case ExprKind::None: e.type = Type::make(Type::Kind::None); break;
  case ExprKind::String: e.type = Type::make(Type::Kind::String); break;
  case ExprKind::Name: e.type = checkName(static_cast<NameExpr &>(e)); break;
  case ExprKind::Unary: e.type = checkUnary(static_cast<UnaryExpr &>(e)); break;
  case ExprKind::Binary: e.type = checkBinary(static_cast<BinaryExpr &>(e)); break;
  case ExprKind::Cast: e.type = checkCast(static_cast<CastExpr &>(e)); break;
  case ExprKind::Call: e.type = checkCall(static_cast<CallExpr &>(e)); break;
  case ExprKind::Index: e.type = checkIndex(static_cast<IndexExpr &>(e)); break;
  case ExprKind::List: {
    // Integer scalars. A list of constants has a value (a shape); one with runtime elements
    // (a tensor descriptor's shape or offsets) has none, and constShape rejects it.
    auto &list = static_cast<ListExpr &>(e);
    ConstValue value;
    value.kind = ConstValue::Kind::List;
    bool ok = true, constant = true;
    for (ExprPtr &elem : list.elems) {
      Type t = check(*elem);
      if (t.isError()) {
        ok = false;
      } else if (!t.isIntValue() || !t.isScalarValue()) {
        error(elem->range, "list elements must be integers, found " + t.str());
        ok = false;
      } else if (!elem->value) {
        constant = false;
      } else {
        value.list.push_back(*elem->value);
      }
    }
    e.type = ok ? Type::make(Type::Kind::List) : Type::error();
    if (ok && constant)
      e.value = value;
    break;
  }
  }
  if (e.type.isTile() && !checkTileShape(e.type.shape, e.range))
    e.type = Type::error();
  if (indexing() && e.kind != ExprKind::Name && !e.type.isError()) // a name describes itself (checkName)
    indexHover(e.range, e.type.str());
  return e.type;
}

std::string SemaImpl::describe(const std::string &name, const Type &type, const ConstValue *value) {
  if (type.kind == Type::Kind::TypeName) // a dtype parameter: `T = f16`
    return name + " = " + type.str().substr(type.str().find(' ') + 1);
  if (type.kind == Type::Kind::Function) // a function passed as an argument (combine_fn)
    return "fn " + name + (type.fn ? " = " + type.fn->name : "");
  std::string text = name + ": " + type.str();
  if (value && (value->kind == ConstValue::Kind::Int || value->kind == ConstValue::Kind::Float))
    text += " = " + value->str();
  return text;
}

Type SemaImpl::checkName(NameExpr &e) {
  if (e.name.empty()) // a synthetic operand (combine_fn instantiation) typed by its creator
    return e.type;
  if (const Sema::Symbol *symbol = lookupLocal(e.name)) {
    indexReference(e.range, symbol->range);
    if (indexing() && !symbol->type.isError())
      indexHover(e.range, describe(e.name, symbol->type, symbol->kind == Sema::Symbol::Kind::Const ? &symbol->value : nullptr));
    if (symbol->kind == Sema::Symbol::Kind::Var) {
      e.var = symbol->var;
      return symbol->var->type;
    }
    if (symbol->type.kind != Type::Kind::TypeName) // a dtype parameter names a type, as `f32` does
      e.value = symbol->value;
    return symbol->type;
  }
  if (const GlobalSymbol *global = program_.lookup(fileId_, e.name)) {
    indexReference(e.range, global->range);
    switch (global->kind) {
    case GlobalSymbol::Kind::Const:
      if (auto symbol = evalModuleConst(*global->constItem)) {
        if (indexing())
          indexHover(e.range, "const " + describe(e.name, symbol->type, &symbol->value));
        e.value = symbol->value;
        return symbol->type;
      }
      return Type::error();
    case GlobalSymbol::Kind::Fn: {
      Type t = Type::make(Type::Kind::Function);
      t.fn = global->fn;
      return t;
    }
    case GlobalSymbol::Kind::Kernel:
      return error(e.range, "kernel '" + e.name + "' cannot be used as a value");
    }
  }
  if (e.name == "ptr")
    return error(e.range, "'ptr' needs a pointee type, as in ptr<f32>");
  if (auto scalar = parseScalar(e.name))
    return Type::typeName(ElemType{*scalar, false});
  if (lookupBuiltin(e.name))
    return error(e.range, "builtin '" + e.name + "' must be called");
  if (e.name == "break" || e.name == "continue")
    return error(e.range, "'" + e.name + "' is not supported: a loop ends by its range or its while condition " +
                              "(carry a flag in a var)");
  return error(e.range, "unknown name '" + e.name + "'");
}

Type SemaImpl::checkUnary(UnaryExpr &e) {
  Type t = check(*e.operand);
  if (t.isError())
    return t;
  if (!t.isValue() || t.isPtr())
    return error(e.range, std::string("operator ") + e.op + " cannot be applied to " + t.str());
  const auto &v = e.operand->value;
  switch (e.op) {
  case '-':
    if (t.isBool())
      return error(e.range, "operator - cannot be applied to i1; use '!' for logical not");
    // A literal past INT64_MAX is a weak u64; negated, it is the i64 it names (-2^63), or
    // none: wrapping in u64 gave +2^63 (and -10^19 a positive value).
    if (v && t.weak && t.elem.scalar == Scalar::U64 && uint64_t(v->i) >= uint64_t(1) << 63) {
      if (uint64_t(v->i) != uint64_t(1) << 63)
        return error(e.range, "-" + std::to_string(uint64_t(v->i)) + " does not fit in i64");
      e.value = ConstValue::ofInt(INT64_MIN);
      return Type::scalar(Scalar::I64, true);
    }
    // A weak integer constant negates exactly, as the binary operators fold them: -(-2^63) is
    // no i64.
    if (v && t.weak && t.isIntValue() && !unevaluated_) {
      std::optional<Type> landed = weakIntType(-exactInt(*v, t.elem.scalar), t, e.range);
      if (!landed)
        return Type::error();
      t = *landed;
    }
    if (v)
      e.value = isFloat(t.elem.scalar) ? ConstValue::ofFloat(-v->f)
                                       : normalizeInt(int64_t(0 - uint64_t(v->i)), t.elem.scalar);
    return t;
  case '!':
    if (!t.isBool())
      return error(e.range, "operator ! needs an i1 operand, found " + t.str() +
                                (t.isIntValue() ? "; use '~' for bitwise not" : ""));
    if (v)
      e.value = ConstValue::ofInt(!v->i);
    return t;
  default: // '~'
    if (!t.isIntValue())
      return error(e.range, "operator ~ needs an integer operand, found " + t.str());
    if (v)
      e.value = normalizeInt(~v->i, t.elem.scalar);
    return t;
  }
}

Type SemaImpl::checkBinary(BinaryExpr &e) {
  Type lt = check(*e.lhs);
  // A constant scalar left side that decides `&&` (false) or `||` (true) leaves the right side
  // unevaluated, as C's and Python's operators (and Triton's on constexprs) do: it is still
  // type-checked, but a constant there that cannot be evaluated is no error
  // (`static_assert(X > 0 && N % X == 0, ...)` with X = 0 fails its assertion, not on the
  // remainder), and it is not emitted: the result is the left side's value, on tiles too.
  bool decides = (e.op == BinOp::And || e.op == BinOp::Or) && lt.isBool() && lt.isScalarValue() && e.lhs->value &&
                 (e.lhs->value->i != 0) == (e.op == BinOp::Or);
  unevaluated_ += decides;
  Type rt = check(*e.rhs);
  unevaluated_ -= decides;
  if (lt.isError() || rt.isError())
    return Type::error();
  std::string opName = std::string("operator ") + binOpSpelling(e.op);
  if (!lt.isValue() || !rt.isValue())
    return error(e.opRange, opName + " needs values, found " + lt.str() + " and " + rt.str());
  auto shape = broadcastShapes(lt, rt, e.opRange, opName);
  if (!shape)
    return Type::error();
  bool comparison = e.op >= BinOp::Eq && e.op <= BinOp::Ge;

  if (lt.isPtr() || rt.isPtr()) {
    if ((e.op == BinOp::Add && (lt.isPtr() != rt.isPtr())) || (e.op == BinOp::Sub && lt.isPtr() && !rt.isPtr())) {
      const Type &ptr = lt.isPtr() ? lt : rt, &offset = lt.isPtr() ? rt : lt;
      if (!offset.isIntValue() || offset.isBool())
        return error(e.opRange, "pointer offset must be an integer, found " + offset.str());
      e.operandType = ptr.strong().withShape(*shape);
      return e.operandType;
    }
    return error(e.opRange, opName + " cannot be applied to " + lt.str() + " and " + rt.str());
  }

  Type operand = promote(lt, rt);
  // A comparison with an integer literal that the other operand's integer type cannot hold
  // compares the values, in i64 (`x8 < 300` is true, `b == 2` false), where converting the
  // literal would wrap it (300 became 44 in i8, 2 became true in i1). Arithmetic keeps the
  // other operand's type, and wraps, as `x * 2` does.
  if (comparison && lt.weak != rt.weak) {
    const Type &weak = lt.weak ? lt : rt, &strong = lt.weak ? rt : lt;
    const Expr &literal = lt.weak ? *e.lhs : *e.rhs;
    if (literal.value && literal.value->kind == ConstValue::Kind::Int && weak.isIntValue() && strong.isIntValue() &&
        strong.elem.scalar != Scalar::U64 && weak.elem.scalar != Scalar::U64 &&
        !holdsInt(strong.elem.scalar, exactInt(*literal.value, weak.elem.scalar)))
      operand = Type::scalar(Scalar::I64, false);
  }
  std::optional<__int128> exactValue; // (a quotient of a u64 and a negative weak constant is not
                                      // their quotient in either type: the value is this one)
  // Two weak integer constants fold exactly, as Triton's constexprs do: a sum, difference,
  // product or left shift that their type cannot hold widens to a weak i64 (`1 << 40` is 2^40,
  // and `2147483647 + 1` is 2^31; both wrapped to 0 and -2^31 in i32), and past i64 it is an error.
  if (mayOverflow(e.op) && lt.weak && rt.weak && lt.isIntValue() && rt.isIntValue() && !lt.isBool() && !rt.isBool() &&
      shape->empty() && e.lhs->value && e.rhs->value && e.lhs->value->kind == ConstValue::Kind::Int &&
      e.rhs->value->kind == ConstValue::Kind::Int && !unevaluated_) {
    __int128 x = exactInt(*e.lhs->value, lt.elem.scalar), y = exactInt(*e.rhs->value, rt.elem.scalar);
    if (e.op == BinOp::Shl && y < 0)
      return error(e.opRange, "shift amount " + intText(y) + " is negative in a constant expression");
    std::optional<__int128> exact = exactIntArith(e.op, x, y);
    if (!exact)
      return error(e.opRange, "integer overflow in a constant expression: the result does not fit in i64");
    std::optional<Type> landed = weakIntType(*exact, operand, e.opRange); // (a u64 literal's own range too)
    if (!landed)
      return Type::error();
    operand = *landed;
    exactValue = exact;
  }
  Scalar s = operand.elem.scalar;
  switch (e.op) {
  case BinOp::And:
  case BinOp::Or:
    if (!lt.isBool() || !rt.isBool())
      return error(e.opRange, opName + " needs i1 operands, found " + lt.str() + " and " + rt.str());
    break;
  case BinOp::Shl:
  case BinOp::Shr:
  case BinOp::BitAnd:
  case BinOp::BitOr:
  case BinOp::BitXor:
    if (!lt.isIntValue() || !rt.isIntValue())
      return error(e.opRange, opName + " needs integer operands, found " + lt.str() + " and " + rt.str());
    // (Shifts promote both operands as the other integer operators do, as Triton's: an i32
    // shifted by an i64 is an i64 shift.) A literal amount of the width or more shifts
    // everything out whatever the operand's type: it becomes the width, which the narrow
    // type holds, where converting it would wrap (`x8 << 257` is 0, not x8 << 1).
    if ((e.op == BinOp::Shl || e.op == BinOp::Shr) && rt.weak && e.rhs->value &&
        e.rhs->value->kind == ConstValue::Kind::Int && s != Scalar::I1 &&
        (e.rhs->value->i < 0 || e.rhs->value->i >= int64_t(bitWidth(s))))
      e.rhs->value = ConstValue::ofInt(bitWidth(s));
    break;
  case BinOp::Add:
  case BinOp::Sub:
  case BinOp::Mul:
  case BinOp::Div:
  case BinOp::Rem:
    if (s == Scalar::I1)
      return error(e.opRange, opName + " cannot be applied to i1; convert with 'as i32'");
    break;
  default:
    break;
  }
  e.operandType = operand.withShape(*shape);
  Type result = comparison ? Type::scalar(Scalar::I1, false).withShape(*shape) : e.operandType;
  // Two weak integer constants compare as the integers they are: promoting both to u64 made
  // `-1 < 18446744073709551615` false.
  if (comparison && lt.weak && rt.weak && lt.isIntValue() && rt.isIntValue() && e.lhs->value && e.rhs->value &&
      e.lhs->value->kind == ConstValue::Kind::Int && e.rhs->value->kind == ConstValue::Kind::Int && shape->empty()) {
    __int128 x = exactInt(*e.lhs->value, lt.elem.scalar), y = exactInt(*e.rhs->value, rt.elem.scalar);
    bool r = e.op == BinOp::Eq ? x == y : e.op == BinOp::Ne ? x != y : e.op == BinOp::Lt ? x < y
           : e.op == BinOp::Le ? x <= y : e.op == BinOp::Gt ? x > y : x >= y;
    e.value = ConstValue::ofInt(r);
    return result;
  }
  if (decides) {
    e.shortCircuit = true;
    if (shape->empty())
      e.value = e.lhs->value;
    return result;
  }
  if (e.lhs->value && e.rhs->value && shape->empty()) {
    ConstValue a = castConst(*e.lhs->value, lt, operand), b = castConst(*e.rhs->value, rt, operand);
    e.value = foldBinary(e.op, a, b, operand, result, e.opRange);
    if (!e.value && !unevaluated_) // (unevaluated: not constant, and never emitted)
      return Type::error();
    if (e.value && exactValue)
      e.value = normalizeInt(int64_t(*exactValue), operand.elem.scalar);
  }
  return result;
}

Type SemaImpl::checkCast(CastExpr &e) {
  Type from = check(*e.operand);
  Type target = resolveType(*e.target, false);
  if (from.isError() || target.isError())
    return Type::error();
  if (!from.isValue())
    return error(e.operand->range, "cannot convert " + from.str() + " with 'as'");
  if (from.isPtr() != target.isPtr())
    return error(e.range, "cannot convert " + from.str() + " to " + target.str() +
                              " (pointers convert only to other pointers)");
  Type result = target.withShape(from.shape);
  if (e.operand->value && !from.isPtr())
    e.value = castConst(*e.operand->value, from, result);
  return result;
}

Type SemaImpl::checkIndex(IndexExpr &e) {
  Type base = check(*e.base);
  if (base.isError())
    return base;
  if (!base.isValue())
    return error(e.base->range, "cannot index " + base.str());
  std::vector<int64_t> shape;
  size_t sourceDim = 0;
  for (IndexItem &item : e.items) {
    switch (item.kind) {
    case IndexItem::Kind::Slice:
      if (sourceDim >= base.shape.size())
        return error(item.range, "too many ':' for a tile of rank " + std::to_string(base.shape.size()));
      shape.push_back(base.shape[sourceDim++]);
      break;
    case IndexItem::Kind::NewAxis:
      shape.push_back(1);
      break;
    case IndexItem::Kind::Expr:
      return error(item.range, "tiles are indexed only with ':' and None (to add dimensions)");
    }
  }
  if (sourceDim != base.shape.size())
    return error(e.range, "index has " + std::to_string(sourceDim) + " ':' but the tile has rank " +
                              std::to_string(base.shape.size()));
  return base.withShape(shape);
}

Type SemaImpl::checkCall(CallExpr &e) {
  if (!lookupLocal(e.callee)) {
    if (const GlobalSymbol *global = program_.lookup(fileId_, e.callee)) {
      if (global->kind == GlobalSymbol::Kind::Fn) {
        indexReference(e.calleeRange, global->range);
        Type result = checkFnCall(e, *global->fn);
        if (sema_.index_ && !result.isError()) {
          std::string params;
          for (size_t i = 0; i < global->fn->params.size() && i < e.bound.size(); ++i)
            if (e.bound[i])
              params += (i ? ", " : "") + describe(global->fn->params[i].name, e.bound[i]->type, nullptr);
          indexHover(e.calleeRange, "fn " + e.callee + "(" + params + ") -> " + result.str());
        }
        return result;
      }
      // A kernel's name is no callable name: a builtin of that name stays what it calls.
      if (global->kind == GlobalSymbol::Kind::Kernel && !lookupBuiltin(e.callee))
        return error(e.calleeRange, "kernel '" + e.callee + "' cannot be called from device code");
    }
    if (const BuiltinInfo *info = lookupBuiltin(e.callee)) {
      if (indexing())
        indexHover(e.calleeRange, "builtin " + info->signature());
      return checkBuiltin(e, *info);
    }
  }
  if (const Sema::Symbol *local = lookupLocal(e.callee)) {
    for (CallArg &arg : e.args)
      check(*arg.value);
    return error(e.calleeRange, "'" + e.callee + "' is a " +
                                    (local->kind == Sema::Symbol::Kind::Var ? "variable" : "constant") +
                                    ", not a function");
  }
  if (e.callee == "range" || e.callee == "static_range")
    return error(e.calleeRange, "'" + e.callee + "' may only appear in a for loop");
  for (CallArg &arg : e.args)
    check(*arg.value);
  return error(e.calleeRange, "unknown function '" + e.callee + "'");
}

} // namespace tk
