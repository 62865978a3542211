// Argument binding (positional, then keyword), and checkBuiltin, which sends each builtin call to
// the checker of its family (SemaBuiltins*.cpp).
#include "SemaBuiltins.h"

#include <algorithm>

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

bool SemaImpl::bindArguments(CallExpr &e, const std::vector<std::string> &names, const std::vector<bool> &optional,
                             bool variadicTail, const std::string &what) {
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
        error(arg.value->range, what + "() takes " + std::to_string(fixed) + " argument" + (fixed == 1 ? "" : "s") +
                                    ", got " + std::to_string(e.args.size()));
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
  BuiltinCallChecker checker(*this, e, info);
  // No default case, so that -Wswitch (in -Wall) names a builtin added to Builtins.h without a
  // family here.
  switch (info.id) {
  case BuiltinId::ProgramId:
  case BuiltinId::NumPrograms:
  case BuiltinId::Arange:
  case BuiltinId::Zeros:
  case BuiltinId::Full: return checker.checkTileCreation();
  case BuiltinId::Reshape:
  case BuiltinId::BroadcastTo:
  case BuiltinId::Trans:
  case BuiltinId::Permute:
  case BuiltinId::ExpandDims: return checker.checkShapeManipulation();
  case BuiltinId::Load:
  case BuiltinId::Store:
  case BuiltinId::AtomicAdd:
  case BuiltinId::AtomicMax:
  case BuiltinId::AtomicMin:
  case BuiltinId::AtomicXchg:
  case BuiltinId::AtomicCas: return checker.checkMemoryAccess();
  case BuiltinId::MultipleOf:
  case BuiltinId::MaxContiguous: return checker.checkCompilerHint();
  case BuiltinId::Dot: return checker.checkDot();
  case BuiltinId::Sum:
  case BuiltinId::Max:
  case BuiltinId::Min:
  case BuiltinId::Argmax:
  case BuiltinId::Argmin:
  case BuiltinId::Reduce:
  case BuiltinId::Cumsum:
  case BuiltinId::Cumprod:
  case BuiltinId::Scan: return checker.checkReductionOrScan();
  case BuiltinId::Exp:
  case BuiltinId::Exp2:
  case BuiltinId::Log:
  case BuiltinId::Log2:
  case BuiltinId::Sqrt:
  case BuiltinId::Rsqrt:
  case BuiltinId::Sin:
  case BuiltinId::Cos:
  case BuiltinId::Tanh:
  case BuiltinId::Sigmoid:
  case BuiltinId::Erf:
  case BuiltinId::Abs:
  case BuiltinId::Floor:
  case BuiltinId::Ceil:
  case BuiltinId::Fma:
  case BuiltinId::Maximum:
  case BuiltinId::Minimum:
  case BuiltinId::Clamp:
  case BuiltinId::Where:
  case BuiltinId::Cdiv:
  case BuiltinId::Bitcast: return checker.checkElementwiseMath();
  case BuiltinId::Rand:
  case BuiltinId::Randn: return checker.checkRandom();
  case BuiltinId::Print:
  case BuiltinId::Assert:
  case BuiltinId::StaticAssert: return checker.checkDebug();
  case BuiltinId::Count: break;
  }
  return checker.unhandled();
}

} // namespace tk
