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
                             bool variadicTail, const std::string &what, size_t alreadyChecked) {
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
  for (size_t k = alreadyChecked; k < e.args.size(); ++k)
    check(*e.args[k].value);
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

Type SemaImpl::checkBuiltin(CallExpr &e, const BuiltinInfo &builtin) {
  // load and store take other parameters on a tensor descriptor: an argument named 'desc', or
  // a descriptor as the first positional argument (checked before the others are bound),
  // picks that form.
  const BuiltinInfo *form = &builtin;
  size_t checked = 0;
  if (const BuiltinInfo *onDesc = descriptorForm(builtin.id)) {
    if (std::any_of(e.args.begin(), e.args.end(), [](const CallArg &a) { return a.name == "desc"; })) {
      form = onDesc;
    } else if (!e.args.empty() && e.args[0].name.empty()) {
      checked = 1;
      if (check(*e.args[0].value).isDesc())
        form = onDesc;
    }
  }
  const BuiltinInfo &info = *form;
  std::vector<std::string> names;
  std::vector<bool> optional;
  bool variadic = false;
  for (const BuiltinParam &p : info.params) {
    names.push_back(p.name);
    optional.push_back(p.optional);
    variadic |= p.variadic;
  }
  if (!bindArguments(e, names, optional, variadic, info.name, checked))
    return Type::error();
  e.builtin = (int)info.id;
  BuiltinCallChecker checker(*this, e, info);
  // No default case, so that -Wswitch (in -Wall) names a family without its checker.
  switch (info.family) {
  case BuiltinFamily::TileCreation: return checker.checkTileCreation();
  case BuiltinFamily::ShapeManipulation: return checker.checkShapeManipulation();
  case BuiltinFamily::MemoryAccess: return checker.checkMemoryAccess();
  case BuiltinFamily::CompilerHint: return checker.checkCompilerHint();
  case BuiltinFamily::Dot: return checker.checkDot();
  case BuiltinFamily::ReductionOrScan: return checker.checkReductionOrScan();
  case BuiltinFamily::ElementwiseMath: return checker.checkElementwiseMath();
  case BuiltinFamily::Random: return checker.checkRandom();
  case BuiltinFamily::Debug: return checker.checkDebug();
  case BuiltinFamily::GridDependency: return checker.checkGridDependency();
  }
  return checker.unhandled();
}

} // namespace tk
