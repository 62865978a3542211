// Instantiation: kernels with their constants bound, device functions per argument types,
// module constants, @autotune decorators, and types written in source.
#include "SemaImpl.h"
#include "tk/Support/IntegerLiteral.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <set>
#include <cstdlib>

namespace tk {

std::optional<int64_t> SemaImpl::constInt(Expr *e, const std::string &what) {
  if (!e || e->type.isError())
    return std::nullopt;
  if (!e->value || !e->type.isIntValue() || !e->type.isScalarValue()) {
    error(e->range, what + " must be an integer constant, found " +
                        (e->value || !e->type.isValue() ? e->type.str() : "a runtime value of type " + e->type.str()));
    return std::nullopt;
  }
  return e->value->i;
}

std::optional<std::vector<int64_t>> SemaImpl::constShape(Expr *e, const std::string &what) {
  if (!e || e->type.isError())
    return std::nullopt;
  if (e->type.kind != Type::Kind::List) {
    error(e->range, what + " must be a list of integer constants such as [BM, BN], found " + e->type.str());
    return std::nullopt;
  }
  if (!e->value) { // a list with runtime elements: name the first
    for (const ExprPtr &elem : static_cast<ListExpr *>(e)->elems)
      if (!elem->value) {
        error(elem->range, what + " must be a list of integer constants, found a runtime value of type " +
                               elem->type.str());
        break;
      }
    return std::nullopt;
  }
  std::vector<int64_t> shape;
  for (const ConstValue &v : e->value->list)
    shape.push_back(v.i);
  return shape;
}

std::optional<Scalar> SemaImpl::scalarTypeNamed(const std::string &name) const {
  if (auto scalar = parseScalar(name))
    return scalar;
  // A `const T: dtype` parameter in scope names its value.
  if (const Sema::Symbol *symbol = lookupLocal(name))
    if (symbol->kind == Sema::Symbol::Kind::Const && symbol->type.kind == Type::Kind::TypeName)
      return symbol->type.elem.scalar;
  return std::nullopt;
}

Type SemaImpl::resolveType(const TypeExpr &t, bool allowShape) {
  ElemType elem;
  if (t.name == "ptr") {
    if (!t.inner)
      return error(t.range, "'ptr' needs a pointee type, as in ptr<f32>");
    std::optional<Scalar> pointee =
        t.inner->inner || !t.inner->dims.empty() ? std::nullopt : scalarTypeNamed(t.inner->name);
    if (!pointee)
      return error(t.inner->range,
                   "pointee must be a scalar type, found '" + t.inner->name + "'" + notATypeHint(t.inner->name));
    elem = ElemType{*pointee, true};
  } else if (auto scalar = scalarTypeNamed(t.name)) {
    if (t.inner)
      return error(t.range, "type '" + t.name + "' takes no type argument");
    elem = ElemType{*scalar, false};
  } else if (t.name == "dtype") {
    return error(t.range, "'dtype' is the type of a kernel's const parameters only, as in 'const T: dtype = bf16'");
  } else {
    return error(t.range, "unknown type '" + t.name + "'" + notATypeHint(t.name));
  }
  std::vector<int64_t> shape;
  if (!t.dims.empty() && !allowShape)
    return error(t.range, "a tile shape is not allowed here");
  for (const ExprPtr &dim : t.dims) {
    ExprPtr copy = dim->clone();
    check(*copy);
    auto value = constInt(copy.get(), "tile dimension");
    if (!value)
      return Type::error();
    shape.push_back(*value);
  }
  if (!checkTileShape(shape, t.range))
    return Type::error();
  return Type::value(elem, shape);
}

std::string SemaImpl::notATypeHint(const std::string &name) const {
  const Sema::Symbol *symbol = lookupLocal(name);
  if (!symbol)
    return "";
  if (symbol->kind == Sema::Symbol::Kind::Var)
    return " (it is a runtime value of type " + symbol->var->type.str() + ")";
  return " (it is a constant of type " + symbol->type.str() + "; a type parameter is declared 'const " + name +
         ": dtype')";
}

std::optional<Sema::Symbol> SemaImpl::evalModuleConst(const ConstItem &item) {
  auto cached = sema_.moduleConsts_.find(&item);
  if (cached != sema_.moduleConsts_.end())
    return cached->second;
  if (std::count(sema_.constStack_.begin(), sema_.constStack_.end(), &item)) {
    error(item.nameRange, "constant '" + item.name + "' depends on itself");
    return std::nullopt;
  }
  sema_.constStack_.push_back(&item);
  SemaImpl inner(sema_, item.nameRange.begin.fileId, callStack_);
  ExprPtr value = item.value->clone();
  Type type = inner.check(*value);
  std::optional<Sema::Symbol> result;
  if (!type.isError()) {
    if (!value->value || !type.isValue()) {
      error(item.value->range, "the value of constant '" + item.name + "' is not a compile-time constant");
    } else {
      Sema::Symbol symbol;
      symbol.kind = Sema::Symbol::Kind::Const;
      symbol.type = type;
      symbol.value = *value->value;
      symbol.range = item.nameRange;
      if (item.annotation) {
        Type annotated = inner.resolveType(*item.annotation, false);
        if (!annotated.isError() && inner.coerce(*value, annotated, "constant '" + item.name + "'")) {
          symbol.value = castConst(*value->value, type, annotated);
          symbol.type = annotated;
          result = symbol;
        }
      } else {
        result = symbol;
      }
    }
  }
  sema_.constStack_.pop_back();
  sema_.moduleConsts_[&item] = result;
  return result;
}

Type SemaImpl::checkFnCall(CallExpr &e, const FnItem &fn) {
  std::vector<std::string> names;
  for (const FnParam &p : fn.params)
    names.push_back(p.name);
  if (!bindArguments(e, names, std::vector<bool>(names.size(), false), false, fn.name))
    return Type::error();

  for (auto &[active, site] : *callStack_) {
    if (active == &fn) {
      Diagnostic &d = diags_.error(e.calleeRange, "recursive call of '" + fn.name + "' is not allowed");
      DiagEngine::note(d, site, "'" + fn.name + "' is already being called here");
      return Type::error();
    }
  }
  if (callStack_->size() >= (size_t)SemaLimits::kMaxInstantiationDepth)
    return error(e.calleeRange, "device functions are nested too deeply (limit " +
                                    std::to_string(SemaLimits::kMaxInstantiationDepth) + ")");

  std::vector<Type> argTypes;
  std::vector<std::optional<ConstValue>> constArgs;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    Expr *arg = e.bound[i];
    const FnParam &param = fn.params[i];
    if (!arg->type.isValue() && arg->type.kind != Type::Kind::Function)
      return error(arg->range, "argument '" + param.name + "' of '" + fn.name + "' must be a value, found " +
                                   arg->type.str());
    Type type = arg->type;
    if (param.annotation) {
      Type annotated = resolveType(*param.annotation, true);
      if (annotated.isError() || !coerce(*arg, annotated, "argument '" + param.name + "' of '" + fn.name + "'"))
        return Type::error();
      type = annotated;
    }
    if (param.isConst) {
      if (!type.isScalarValue())
        return error(arg->range, "const argument '" + param.name + "' of '" + fn.name + "' must be a scalar, found " +
                                     type.str());
      if (!arg->value)
        return error(arg->range, "argument '" + param.name + "' of '" + fn.name + "' must be a compile-time constant");
      constArgs.push_back(castConst(*arg->value, arg->type, type));
    } else {
      constArgs.push_back(std::nullopt);
    }
    argTypes.push_back(type);
  }

  // Reuse an instance with the same argument types and constants.
  for (auto &instance : sema_.fnInstances_) {
    if (instance->decl != &fn || instance->argTypes.size() != argTypes.size())
      continue;
    bool same = true;
    for (size_t i = 0; i < argTypes.size() && same; ++i) {
      same = argTypes[i].sameAs(instance->argTypes[i]) && argTypes[i].weak == instance->argTypes[i].weak &&
             argTypes[i].fn == instance->argTypes[i].fn &&
             constArgs[i].has_value() == instance->constArgs[i].has_value() &&
             (!constArgs[i] || constArgs[i]->str() == instance->constArgs[i]->str());
    }
    if (same) {
      // Inlined again here: its size counts again (fns that call one another twice a level
      // grew the program exponentially past every limit while checking stayed instant).
      if (!spend(e.calleeRange, instance->inlinedNodes))
        return Type::error();
      e.fn = instance.get();
      return instance->returnType;
    }
  }
  if (sema_.fnInstances_.size() >= SemaLimits::kMaxInstances)
    return error(e.calleeRange, "too many device-function instances");
  // The copy of the body costs its size, as an unrolled loop's copy does.
  if (!spend(e.calleeRange, fn.body->copyCost()))
    return Type::error();

  auto instance = std::make_unique<FnInstance>();
  instance->decl = &fn;
  instance->argTypes = argTypes;
  instance->constArgs = constArgs;
  instance->mangledName = fn.name + "__" + std::to_string(sema_.fnInstances_.size());
  instance->body = fn.body->cloneBlock();
  FnInstance *raw = instance.get();
  sema_.fnInstances_.push_back(std::move(instance));
  e.fn = raw;

  callStack_->emplace_back(&fn, e.calleeRange);
  SemaImpl body(sema_, fn.fileId, callStack_);
  body.pushScope();
  size_t errorsBefore = diags_.errorCount();
  for (size_t i = 0; i < fn.params.size(); ++i) {
    if (constArgs[i])
      body.declareConst(fn.params[i].name, fn.params[i].range, argTypes[i], *constArgs[i]);
    else if (argTypes[i].kind == Type::Kind::Function)
      raw->params.push_back(nullptr), body.declareConst(fn.params[i].name, fn.params[i].range, argTypes[i], ConstValue{});
    if (!constArgs[i] && argTypes[i].kind != Type::Kind::Function)
      raw->params.push_back(body.declareVar(fn.params[i].name, fn.params[i].range, argTypes[i], VarDecl::Origin::Parameter));
    else if (constArgs[i])
      raw->params.push_back(nullptr);
  }
  size_t checkedBefore = sema_.checkedNodes_;
  body.checkBody(*raw->body);
  body.popScope();
  callStack_->pop_back();
  raw->inlinedNodes = sema_.checkedNodes_ - checkedBefore;

  if (diags_.errorCount() > errorsBefore) {
    if (!diags_.diagnostics().empty() && diags_.errorCount() <= DiagEngine::kMaxErrors) {
      Diagnostic &last = const_cast<Diagnostic &>(diags_.diagnostics().back());
      DiagEngine::note(last, e.calleeRange, "in the call of '" + fn.name + "' here");
    }
    raw->returnType = Type::error();
    return Type::error();
  }
  raw->returnType = body.returnType_ ? *body.returnType_ : Type::voidType();
  if (fn.returnType) {
    Type declared = resolveType(*fn.returnType, true);
    if (declared.isError())
      return Type::error();
    if (!raw->returnType.isValue() || !implicitlyConverts(raw->returnType, declared))
      return error(fn.returnType->range, "'" + fn.name + "' is declared to return " + declared.str() +
                                             " but returns " + raw->returnType.str());
    raw->returnType = declared;
  }
  if (raw->returnType.isValue() && !alwaysReturns(*raw->body))
    return error(fn.nameRange, "'" + fn.name + "' does not return a value on every path");
  return raw->returnType;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

std::optional<ConstValue> parseConstText(const std::string &text, const Type &type) {
  if (text.empty())
    return std::nullopt;
  if (type.isBool()) {
    if (text == "true" || text == "1")
      return ConstValue::ofInt(1);
    if (text == "false" || text == "0")
      return ConstValue::ofInt(0);
    return std::nullopt;
  }
  char *end = nullptr;
  if (type.isFloatValue()) {
    double d = std::strtod(text.c_str(), &end);
    if (*end)
      return std::nullopt;
    return ConstValue::ofFloat(d);
  }
  // The language's literal grammar, as in source (`010` is ten), with an optional sign.
  std::string why;
  std::optional<SignedLiteral> literal = parseSignedIntegerLiteral(text, why);
  std::optional<int64_t> v =
      literal ? literal->fitting(bitWidth(type.elem.scalar), isUnsigned(type.elem.scalar)) : std::nullopt;
  if (!v)
    return std::nullopt;
  return normalizeInt(*v, type.elem.scalar);
}

bool isLaunchOption(const std::string &name) {
  return name == "num_warps" || name == "num_stages" || name == "warp_specialize" || name == "cluster_size";
}

namespace {

/// The scalar types a dtype constant may take, for messages.
const char *kDTypeChoices = "i1, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64, f8e4m3 or f8e5m2";
} // namespace

bool isDTypeParam(const KernelParam &p) {
  return p.mode == KernelParam::Mode::Const && p.type && p.type->name == "dtype" && !p.type->inner &&
         p.type->dims.empty();
}

/// The value of a `const T: dtype` parameter: from -D, the config, else its default (errors
/// reported, naming the parameter).
std::optional<ConstValue> Sema::bindDType(SemaImpl &impl, const KernelItem &kernel, const KernelParam &p,
                                          const std::map<std::string, std::string> &defines, const TuneConfig *config) {
  if (auto it = defines.find(p.name); it != defines.end()) {
    std::optional<Scalar> scalar = parseScalar(it->second);
    if (!scalar)
      diags_.error(p.range, definesLabel_ + p.name + "=" + it->second + " is not a valid dtype (one of " + kDTypeChoices + ")");
    return scalar ? std::optional<ConstValue>(ConstValue::ofDType(*scalar)) : std::nullopt;
  }
  if (config)
    for (auto &[name, v] : config->values)
      if (name == p.name) {
        if (v.kind == ConstValue::Kind::DType)
          return v;
        diags_.error(p.range, "@autotune sets dtype parameter '" + p.name + "' to " + v.str() +
                                  ", which is not a type (one of " + kDTypeChoices + ")");
        return std::nullopt;
      }
  if (p.defaultValue) {
    ExprPtr copy = p.defaultValue->clone();
    Type t = impl.check(*copy);
    if (t.isError())
      return std::nullopt;
    if (t.kind != Type::Kind::TypeName || t.elem.isPtr) {
      diags_.error(copy->range, "the default of dtype parameter '" + p.name +
                                    "' must be a scalar type such as bf16, found " + t.str());
      return std::nullopt;
    }
    return ConstValue::ofDType(t.elem.scalar);
  }
  diags_.error(p.range, "const parameter '" + p.name + "' of kernel '" + kernel.name +
                            "' has no value; give it with -D " + p.name +
                            "=TYPE (such as f16), a default or @autotune");
  return std::nullopt;
}

std::optional<AutotuneSpec> Sema::autotune(const KernelItem &kernel) {
  const Decorator *deco = nullptr;
  for (const Decorator &d : kernel.decorators) {
    if (d.name != "autotune") {
      diags_.error(d.range, "unknown decorator '@" + d.name + "' (tk knows @autotune)");
      continue;
    }
    if (deco) {
      diags_.error(d.range, "kernel '" + kernel.name + "' has more than one @autotune");
      continue;
    }
    deco = &d;
  }
  if (!deco)
    return std::nullopt;
  std::vector<std::pair<const FnItem *, SrcRange>> stack;
  SemaImpl impl(*this, kernel.fileId, &stack);
  AutotuneSpec spec;
  std::set<std::string> constNames;
  for (const KernelParam &p : kernel.params)
    if (p.mode == KernelParam::Mode::Const)
      constNames.insert(p.name);
  std::set<std::string> integerNames; // what a key may name: runtime integer parameters
  for (const KernelParam &p : kernel.params)
    if (std::optional<Scalar> scalar = p.type && !p.type->inner ? parseScalar(p.type->name) : std::nullopt;
        p.mode != KernelParam::Mode::Const && scalar && isInteger(*scalar) && *scalar != Scalar::I1)
      integerNames.insert(p.name);

  // Reads `{ BM: 128, num_warps: 4 }` (or one axis of a space) into values.
  auto constant = [&](const DecoratorValue &v, const std::string &name) -> std::optional<ConstValue> {
    if (v.kind != DecoratorValue::Kind::Expr) {
      diags_.error(v.range, "@autotune: the value of '" + name + "' must be a constant");
      return std::nullopt;
    }
    ExprPtr copy = v.expr->clone();
    Type t = impl.check(*copy);
    if (t.isError())
      return std::nullopt;
    if (t.kind == Type::Kind::TypeName && !t.elem.isPtr) // a value of a dtype parameter
      return ConstValue::ofDType(t.elem.scalar);
    if (!copy->value || !t.isScalarValue()) {
      diags_.error(v.range, "@autotune: the value of '" + name + "' must be a constant");
      return std::nullopt;
    }
    return copy->value;
  };
  auto checkName = [&](const std::string &name, SrcRange range) {
    if (isLaunchOption(name) || constNames.count(name))
      return true;
    diags_.error(range, "@autotune: '" + name + "' is not a const parameter of '" + kernel.name +
                            "' (nor a launch option: " + kLaunchOptions + ")");
    return false;
  };
  auto addValue = [&](TuneConfig &config, const std::string &name, const ConstValue &value, SrcRange range) {
    if (name == "num_warps" || name == "num_stages") {
      if (value.kind != ConstValue::Kind::Int || value.i <= 0 ||
          (name == "num_warps" && (value.i & (value.i - 1))) || value.i > 32) {
        diags_.error(range, "@autotune: " + name + " must be a small positive integer" +
                                (name == "num_warps" ? " and a power of two" : "") + ", got " + value.str());
        return;
      }
      (name == "num_warps" ? config.numWarps : config.numStages) = (int)value.i;
    } else if (name == "warp_specialize") {
      if (value.kind != ConstValue::Kind::Int || value.i < 0 || value.i > 3) {
        diags_.error(range, "@autotune: warp_specialize must be 0, 1, 2 or 3, got " + value.str());
        return;
      }
      config.warpSpecialize = (int)value.i;
    } else if (name == "cluster_size") {
      if (value.kind != ConstValue::Kind::Int || (value.i != 1 && value.i != 2)) {
        diags_.error(range, "@autotune: cluster_size must be 1 or 2, got " + value.str());
        return;
      }
      config.clusterSize = (int)value.i;
    } else {
      config.values.emplace_back(name, value);
    }
  };

  std::set<std::string> given; // (an argument twice, or configs beside space: the first was taken silently)
  for (size_t a = 0; a < deco->args.size(); ++a) {
    const auto &[name, value] = deco->args[a];
    SrcRange range = deco->argRanges[a];
    if (!given.insert(name).second) {
      diags_.error(range, "@autotune: '" + name + "' is given twice");
      continue;
    }
    if ((name == "configs" && given.count("space")) || (name == "space" && given.count("configs"))) {
      diags_.error(range, "@autotune: configs and space both give the tuning space: give one");
      continue;
    }
    // `key = [M, N]`, `reset_to_zero = [out]`, `restore_value = [x]`: names of parameters of one kind.
    auto names = [&](const std::set<std::string> &allowed, const std::string &kind, std::vector<std::string> &out) {
      if (value.kind != DecoratorValue::Kind::List) {
        diags_.error(value.range, "@autotune: " + name + " must be a list of " + kind + " parameter names");
        return;
      }
      for (const DecoratorValue &item : value.items) {
        auto *n = item.kind == DecoratorValue::Kind::Expr ? dyn<NameExpr>(item.expr.get()) : nullptr;
        if (!n || !allowed.count(n->name)) {
          diags_.error(item.range, "@autotune: " + name + " entries must name " + kind + " parameters of '" +
                                       kernel.name + "'");
          continue;
        }
        if (std::find(out.begin(), out.end(), n->name) != out.end()) {
          diags_.error(item.range, "@autotune: '" + n->name + "' appears twice in " + name);
          continue;
        }
        out.push_back(n->name);
      }
    };
    if (name == "key") {
      names(integerNames, "integer", spec.key);
    } else if (name == "reset_to_zero" || name == "restore_value") {
      // Outputs a kernel accumulates into (atomics): zeroed before each timed run; buffers it
      // updates in place: restored before each timed run and after the last, as Triton does.
      std::set<std::string> pointerNames;
      for (const KernelParam &p : kernel.params)
        if (p.mode != KernelParam::Mode::Const && p.type && p.type->name == "ptr")
          pointerNames.insert(p.name);
      names(pointerNames, "pointer", name == "reset_to_zero" ? spec.resetToZero : spec.restoreValue);
    } else if (name == "configs") {
      if (value.kind != DecoratorValue::Kind::List) {
        diags_.error(value.range, "@autotune: configs must be a list of { NAME: value } entries");
        continue;
      }
      for (const DecoratorValue &item : value.items) {
        if (item.kind != DecoratorValue::Kind::Dict) {
          diags_.error(item.range, "@autotune: each config must be a { NAME: value } entry");
          continue;
        }
        TuneConfig config;
        std::set<std::string> seen;
        for (size_t k = 0; k < item.entries.size(); ++k) {
          const auto &[entryName, entryValue] = item.entries[k];
          if (!seen.insert(entryName).second) {
            diags_.error(item.entryRanges[k], "@autotune: '" + entryName + "' appears twice in one config");
            continue;
          }
          if (!checkName(entryName, item.entryRanges[k]))
            continue;
          if (auto v = constant(entryValue, entryName))
            addValue(config, entryName, *v, item.entryRanges[k]);
        }
        spec.configs.push_back(config);
      }
    } else if (name == "space") {
      if (value.kind != DecoratorValue::Kind::Dict) {
        diags_.error(value.range, "@autotune: space must be { NAME: [values], ... }");
        continue;
      }
      if (value.entries.empty()) {
        diags_.error(value.range, "@autotune: space names no parameter");
        continue;
      }
      std::vector<TuneConfig> configs(1);
      std::set<std::string> seen;
      for (size_t k = 0; k < value.entries.size(); ++k) {
        const auto &[entryName, entryValue] = value.entries[k];
        // (Twice would make configs of two values each, the second winning: duplicates.)
        if (!seen.insert(entryName).second) {
          diags_.error(value.entryRanges[k], "@autotune: '" + entryName + "' appears twice in the space");
          continue;
        }
        if (!checkName(entryName, value.entryRanges[k]))
          continue;
        if (entryValue.kind != DecoratorValue::Kind::List || entryValue.items.empty()) {
          diags_.error(entryValue.range, "@autotune: space entry '" + entryName + "' must be a non-empty list");
          continue;
        }
        std::vector<TuneConfig> expanded;
        for (const DecoratorValue &choice : entryValue.items) {
          auto v = constant(choice, entryName);
          if (!v)
            continue;
          for (const TuneConfig &base : configs) {
            TuneConfig config = base;
            addValue(config, entryName, *v, value.entryRanges[k]);
            expanded.push_back(config);
          }
        }
        configs = std::move(expanded);
        if (configs.size() > 4096) {
          diags_.error(value.range, "@autotune: the space has more than 4096 configs");
          configs.resize(1);
          break;
        }
      }
      for (TuneConfig &config : configs)
        spec.configs.push_back(config);
    } else {
      diags_.error(range, "@autotune has no argument '" + name +
                              "' (key, configs, space, reset_to_zero, restore_value)");
    }
  }
  if (spec.configs.empty())
    diags_.error(deco->range, "@autotune needs configs = [...] or space = {...}");
  for (const std::string &name : spec.restoreValue)
    if (std::find(spec.resetToZero.begin(), spec.resetToZero.end(), name) != spec.resetToZero.end())
      diags_.error(deco->range, "@autotune: '" + name +
                                    "' is in both reset_to_zero and restore_value (each timed run starts from zeros "
                                    "or from the values given: name it in one)");
  return spec;
}

std::vector<Type> Sema::declaredParamTypes(const KernelItem &kernel, std::vector<std::string> *elemFrom) {
  std::vector<std::pair<const FnItem *, SrcRange>> stack;
  SemaImpl impl(*this, kernel.fileId, &stack);
  impl.pushScope();
  // dtype parameters stand for their default here (bf16 without one); `elemFrom` says which
  // parameters' element types are theirs, bound at each instantiation.
  std::set<std::string> dtypeNames;
  for (const KernelParam &p : kernel.params) {
    if (!isDTypeParam(p) || !dtypeNames.insert(p.name).second)
      continue;
    std::optional<ConstValue> value = ConstValue::ofDType(Scalar::BF16);
    if (p.defaultValue)
      value = bindDType(impl, kernel, p, {}, nullptr);
    if (value)
      impl.declareConst(p.name, p.range, Type::typeName(ElemType{value->dtype(), false}), *value);
  }
  std::vector<Type> types;
  if (elemFrom)
    elemFrom->clear();
  for (const KernelParam &p : kernel.params) {
    if (isDTypeParam(p)) {
      const Sema::Symbol *symbol = impl.lookupLocal(p.name);
      types.push_back(symbol ? symbol->type : Type::error());
    } else {
      types.push_back(impl.resolveType(*p.type, false));
    }
    if (elemFrom) {
      const std::string &elem = p.type->name == "ptr" && p.type->inner ? p.type->inner->name : p.type->name;
      elemFrom->push_back(!isDTypeParam(p) && dtypeNames.count(elem) ? elem : "");
    }
  }
  impl.popScope();
  return types;
}

std::vector<std::string> Sema::unboundConstants(const KernelItem &kernel,
                                                const std::map<std::string, std::string> &defines,
                                                const TuneConfig *config) {
  std::vector<std::string> missing;
  for (const KernelParam &p : kernel.params) {
    if (p.mode != KernelParam::Mode::Const || p.defaultValue || defines.count(p.name))
      continue;
    bool inConfig = false;
    if (config)
      for (auto &[name, value] : config->values)
        inConfig |= name == p.name;
    if (!inConfig)
      missing.push_back(p.name);
  }
  return missing;
}

std::unique_ptr<KernelInstance> Sema::instantiate(const KernelItem &kernel,
                                                  const std::map<std::string, std::string> &defines,
                                                  const TuneConfig *config) {
  size_t errorsBefore = diags_.errorCount();
  std::vector<std::pair<const FnItem *, SrcRange>> stack;
  SemaImpl impl(*this, kernel.fileId, &stack);
  impl.inKernel_ = true;
  impl.pushScope();
  auto instance = std::make_unique<KernelInstance>();
  instance->decl = &kernel;
  if (config) {
    instance->numWarps = config->numWarps.value_or(instance->numWarps);
    instance->numStages = config->numStages.value_or(instance->numStages);
    instance->warpSpecialize = config->warpSpecialize.value_or(instance->warpSpecialize);
    instance->clusterSize = config->clusterSize.value_or(instance->clusterSize);
  }
  if (auto it = defines.find("cluster_size"); it != defines.end()) {
    auto v = parseConstText(it->second, Type::scalar(Scalar::I32));
    if (!v || (v->i != 1 && v->i != 2))
      diags_.error(kernel.nameRange, definesLabel_ + "cluster_size=" + it->second + " is not 1 or 2");
    else
      instance->clusterSize = (int)v->i;
  }
  if (auto it = defines.find("warp_specialize"); it != defines.end()) {
    auto v = parseConstText(it->second, Type::scalar(Scalar::I32));
    if (!v || v->i < 0 || v->i > 3)
      diags_.error(kernel.nameRange, definesLabel_ + "warp_specialize=" + it->second + " is not 0, 1, 2 or 3");
    else
      instance->warpSpecialize = (int)v->i;
  }
  for (const char *option : {"num_warps", "num_stages"}) {
    if (auto it = defines.find(option); it != defines.end()) {
      auto v = parseConstText(it->second, Type::scalar(Scalar::I32));
      if (!v || v->i <= 0 || v->i > 32)
        diags_.error(kernel.nameRange, definesLabel_ + option + "=" + it->second + " is not an integer from 1 to 32");
      else
        (std::string(option) == "num_warps" ? instance->numWarps : instance->numStages) = (int)v->i;
    }
  }
  if (instance->numWarps & (instance->numWarps - 1))
    diags_.error(kernel.nameRange, "num_warps must be a power of two, got " + std::to_string(instance->numWarps));

  std::set<std::string> names;
  if (kernel.params.size() > SemaLimits::kMaxKernelParams)
    diags_.error(kernel.nameRange, "kernel '" + kernel.name + "' has " + std::to_string(kernel.params.size()) +
                                       " parameters; at most " + std::to_string(SemaLimits::kMaxKernelParams) +
                                       " (a launch passes at most 32 KB of arguments)");
  // The `const T: dtype` parameters first: the other parameters' types may name them (`ptr<T>`).
  std::map<std::string, ConstValue> dtypes;
  std::set<std::string> seen;
  for (const KernelParam &p : kernel.params) {
    if (!seen.insert(p.name).second || !isDTypeParam(p))
      continue;
    std::optional<ConstValue> value = bindDType(impl, kernel, p, defines, config);
    if (value)
      dtypes.emplace(p.name, *value);
    // Without a value (reported) it stands for bf16, so that `ptr<T>` reports nothing more.
    Scalar scalar = value ? value->dtype() : Scalar::BF16;
    impl.declareConst(p.name, p.range, Type::typeName(ElemType{scalar, false}), ConstValue::ofDType(scalar));
  }
  for (const KernelParam &p : kernel.params) {
    if (!names.insert(p.name).second) {
      diags_.error(p.range, "duplicate parameter '" + p.name + "'");
      continue;
    }
    if (isDTypeParam(p)) {
      if (auto it = dtypes.find(p.name); it != dtypes.end())
        instance->constants.emplace_back(p.name, it->second);
      continue;
    }
    Type type = impl.resolveType(*p.type, false);
    if (type.isError())
      continue;
    if (p.mode != KernelParam::Mode::Const) {
      if (p.defaultValue)
        diags_.error(p.defaultValue->range, "only const parameters may have a default value");
      KernelArg arg{p.name, p.range, type, nullptr, p.mode == KernelParam::Mode::Nospec};
      arg.var = impl.declareVar(p.name, p.range, type, VarDecl::Origin::Parameter);
      instance->args.push_back(arg);
      continue;
    }
    if (type.isPtr()) {
      diags_.error(p.type->range, "a const parameter must have a number type, found " + type.str());
      continue;
    }
    std::optional<ConstValue> value;
    if (auto it = defines.find(p.name); it != defines.end()) {
      value = parseConstText(it->second, type);
      if (!value) {
        diags_.error(p.range, definesLabel_ + p.name + "=" + it->second + " is not a valid " + type.str());
        continue;
      }
    } else if (config) {
      bool configRejected = false;
      for (auto &[name, v] : config->values)
        if (name == p.name) {
          if (v.kind == ConstValue::Kind::DType) {
            diags_.error(p.range, "@autotune sets '" + p.name + "' to the type " + v.str() + "; '" + p.name +
                                      "' is of type " + type.str() + " (a type parameter is declared 'const " + p.name +
                                      ": dtype')");
            configRejected = true;
            break;
          }
          // As a default would be: a float is no integer's value (it was truncated: { BLOCK: 2.5 }
          // compiled as 2, a helper's audit), nor an integer other than 0 and 1 a bool's.
          if ((v.kind == ConstValue::Kind::Float && !type.isFloatValue()) ||
              (v.kind == ConstValue::Kind::Int && type.isBool() && v.i != 0 && v.i != 1)) {
            diags_.error(p.range, "@autotune sets '" + p.name + "' to " + v.str() + "; '" + p.name + "' is of type " +
                                      type.str());
            configRejected = true;
            break;
          }
          Type from = v.kind == ConstValue::Kind::Float ? Type::scalar(Scalar::F32) : Type::scalar(Scalar::I64);
          if (v.kind == ConstValue::Kind::Int && type.isIntValue() && !type.isBool() &&
              !holdsInt(type.elem.scalar, exactInt(v, Scalar::I64))) {
            diags_.error(p.range, "@autotune sets '" + p.name + "' to " + v.str() + ", which does not fit in " +
                                      type.str());
            configRejected = true;
            break;
          }
          value = SemaImpl::castConst(v, from, type);
        }
      if (configRejected) // (said once: not also "has no value")
        continue;
    }
    if (!value && p.defaultValue) {
      ExprPtr copy = p.defaultValue->clone();
      Type t = impl.check(*copy);
      if (t.isError())
        continue;
      if (!copy->value) {
        diags_.error(copy->range, "the default of '" + p.name + "' is not a compile-time constant");
        continue;
      }
      if (!impl.coerce(*copy, type, "default of '" + p.name + "'"))
        continue;
      value = SemaImpl::castConst(*copy->value, t, type);
    }
    if (!value) {
      diags_.error(p.range, "const parameter '" + p.name + "' of kernel '" + kernel.name +
                                "' has no value; give it with -D " + p.name + "=VALUE, a default or @autotune");
      continue;
    }
    impl.declareConst(p.name, p.range, type, *value);
    instance->constants.emplace_back(p.name, *value);
  }
  // Each runtime parameter at its own size and alignment, as the PTX parameter space lays
  // them out: ptxas takes at most 32764 bytes (4095 pointers).
  size_t paramBytes = 0;
  for (const KernelArg &arg : instance->args) {
    size_t bytes = arg.type.isPtr() ? 8 : size_t(std::max(bitWidth(arg.type.elem.scalar), 8) / 8);
    paramBytes = (paramBytes + bytes - 1) / bytes * bytes + bytes;
  }
  if (paramBytes > SemaLimits::kMaxKernelParamBytes)
    diags_.error(kernel.nameRange, "kernel '" + kernel.name + "' takes " + std::to_string(paramBytes) +
                                       " bytes of parameters; a launch passes at most " +
                                       std::to_string(SemaLimits::kMaxKernelParamBytes) + " (4095 pointers)");
  // Each config's copy of the body costs its size (4096 configs of a body that is never
  // checked, under `if false`, were kept for free).
  if (diags_.errorCount() > errorsBefore || !impl.spend(kernel.nameRange, kernel.body->copyCost()))
    return nullptr;
  instance->body = kernel.body->cloneBlock();
  impl.checkBody(*instance->body);
  impl.popScope();
  if (diags_.errorCount() > errorsBefore)
    return nullptr;
  return instance;
}

} // namespace tk
