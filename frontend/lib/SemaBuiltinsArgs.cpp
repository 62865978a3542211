// The argument checks that every builtin family shares (see SemaBuiltins.h).
#include "SemaBuiltins.h"

#include <algorithm>

namespace tk {

BuiltinCallChecker::BuiltinCallChecker(SemaImpl &sema, CallExpr &call, const BuiltinInfo &info)
    : sema_(sema), call_(call), info_(info), name_(info.name), id_(info.id) {}

bool BuiltinCallChecker::requireValue(size_t i) {
  if (type(i).isValue())
    return true;
  error(arg(i)->range, paramName(i) + " must be a value, found " + type(i).str());
  return false;
}

bool BuiltinCallChecker::requireNumber(size_t i) {
  if (!requireValue(i))
    return false;
  if (!type(i).isPtr())
    return true;
  error(arg(i)->range, paramName(i) + " must be a number, found " + type(i).str());
  return false;
}

bool BuiltinCallChecker::requirePointers(size_t i) {
  if (type(i).isDesc()) {
    error(arg(i)->range, paramName(i) + " must be a pointer or a tile of pointers, found " + type(i).str() +
                             "; a tensor descriptor is read and written only by load(desc, offsets) and "
                             "store(desc, offsets, value)");
    return false;
  }
  if (!requireValue(i))
    return false;
  if (type(i).isPtr())
    return true;
  error(arg(i)->range, paramName(i) + " must be a pointer or a tile of pointers, found " + type(i).str());
  return false;
}

bool BuiltinCallChecker::requireFloat(size_t i) {
  if (!requireNumber(i))
    return false;
  if (type(i).isFloatValue())
    return true;
  error(arg(i)->range, name_ + " needs a float operand, found " + type(i).str() + "; convert with 'as f32'");
  return false;
}

std::optional<ElemType> BuiltinCallChecker::elementTypeArg(size_t i) {
  if (type(i).kind == Type::Kind::TypeName)
    return type(i).elem;
  error(arg(i)->range, paramName(i) + " must be a type such as f32, found " + type(i).str());
  return std::nullopt;
}

std::optional<std::string> BuiltinCallChecker::stringLiteralArg(size_t i, const std::vector<std::string> &allowed) {
  if (!present(i))
    return std::string();
  auto *literal = dyn<StringLit>(arg(i));
  if (literal && (allowed.empty() || std::count(allowed.begin(), allowed.end(), literal->literal)))
    return literal->literal;
  // "ca" or "cg"; "" is listed too where the parameter may be given empty.
  std::string choices;
  for (size_t k = 0; k < allowed.size(); ++k)
    choices += (k ? (k + 1 == allowed.size() ? " or " : ", ") : "") + ("\"" + allowed[k] + "\"");
  error(arg(i)->range, paramName(i) + " must be " + (allowed.empty() ? "a string literal" : choices));
  return std::nullopt;
}

std::optional<int64_t> BuiltinCallChecker::axisArg(size_t i, size_t rank, bool allowEnd) {
  auto axis = sema_.constInt(arg(i), paramName(i));
  if (!axis)
    return std::nullopt;
  int64_t limit = (int64_t)rank + (allowEnd ? 1 : 0);
  int64_t normalized = *axis < 0 ? *axis + limit : *axis;
  if (normalized < 0 || normalized >= limit) {
    error(arg(i)->range,
          name_ + ": axis " + std::to_string(*axis) + " is out of range for a tile of rank " + std::to_string(rank));
    return std::nullopt;
  }
  arg(i)->value = ConstValue::ofInt(normalized);
  return normalized;
}

Type BuiltinCallChecker::promoteElementwise(std::initializer_list<size_t> operands) {
  Type result;
  bool first = true;
  for (size_t i : operands) {
    if (!requireNumber(i))
      return Type::error();
    if (first) {
      result = type(i);
      first = false;
      continue;
    }
    auto shape = sema_.broadcastShapes(result, type(i), call_.range, name_);
    if (!shape)
      return Type::error();
    result = sema_.promote(result, type(i)).withShape(*shape);
  }
  return result;
}

} // namespace tk
