// The checker of one builtin call, shared by SemaBuiltins*.cpp. SemaImpl::checkBuiltin binds the
// arguments, then hands the call to the function of its builtin's family; every family checks
// its arguments with the same helpers, so one kind of argument gets one message everywhere.
#ifndef TK_FRONTEND_SEMABUILTINS_H
#define TK_FRONTEND_SEMABUILTINS_H

#include "SemaImpl.h"

#include <algorithm>

namespace tk {

class BuiltinCallChecker {
public:
  BuiltinCallChecker(SemaImpl &sema, CallExpr &call, const BuiltinInfo &info);

  // One function per family; each returns the call's type, or Type::error() once it has
  // reported why not.
  Type checkTileCreation();      // program_id num_programs arange zeros full (SemaBuiltinsTile.cpp)
  Type checkShapeManipulation(); // reshape broadcast_to trans permute expand_dims (SemaBuiltinsTile.cpp)
  Type checkMemoryAccess();      // load store prefetch_l2 atomic_* (SemaBuiltinsMemory.cpp), tensor_desc (SemaBuiltinsDesc.cpp)
  Type checkCompilerHint();      // multiple_of max_contiguous (SemaBuiltinsMemory.cpp)
  Type checkDot();               // dot (SemaBuiltinsDot.cpp)
  Type checkReductionOrScan();   // sum max min argmax argmin reduce cumsum cumprod scan (SemaBuiltinsReduce.cpp)
  Type checkElementwiseMath();   // exp ... ceil abs fma maximum minimum clamp where cdiv bitcast (SemaBuiltinsMath.cpp)
  Type checkRandom();            // rand randn (SemaBuiltinsMath.cpp)
  Type checkGridDependency();    // gdc_wait gdc_launch_dependents (SemaBuiltinsDebug.cpp)
  Type checkDebug();             // print assert static_assert (SemaBuiltinsDebug.cpp)
  /// What a family returns for a builtin that is not its own (a dispatcher bug).
  Type unhandled() { return error(call_.range, "unhandled builtin " + name_); }

private:
  // Shared argument checks (SemaBuiltinsArgs.cpp). `i` indexes the builtin's parameters; the
  // bool-returning checks report an error naming the builtin and the parameter and return false.

  /// The argument bound to parameter i, or null when an optional parameter was not given.
  Expr *arg(size_t i) const { return i < call_.bound.size() ? call_.bound[i] : nullptr; }
  const Type &type(size_t i) const { return call_.bound[i]->type; }
  /// Whether optional parameter i was given (`none` counts as not given).
  bool present(size_t i) const { return arg(i) && arg(i)->type.kind != Type::Kind::None; }
  /// "load 'mask'": how messages name parameter i. Arguments past the last parameter are its
  /// variadic tail (print's values), which that parameter names.
  std::string paramName(size_t i) const {
    return name_ + " '" + info_.params[std::min(i, info_.params.size() - 1)].name + "'";
  }
  Type error(SrcRange range, const std::string &message) { return sema_.error(range, message); }

  bool requireValue(size_t i);
  /// A value that is not a pointer.
  bool requireNumber(size_t i);
  bool requirePointers(size_t i);
  /// A number of a float type: the transcendental functions have no integer form.
  bool requireFloat(size_t i);
  /// A type name such as f32 (zeros' and full's dtype, bitcast's target).
  std::optional<ElemType> elementTypeArg(size_t i);
  /// A string literal among `allowed` (any literal when empty); "" when the parameter is absent.
  std::optional<std::string> stringLiteralArg(size_t i, const std::vector<std::string> &allowed);
  /// A constant axis of a tile of rank `rank`, counted from the end when negative, one past the
  /// last when `allowEnd`. Stores the normalized axis as the argument's constant for MLIRGen.
  std::optional<int64_t> axisArg(size_t i, size_t rank, bool allowEnd);
  /// Numbers combined elementwise: promotes and broadcasts them all into the result's type.
  Type promoteElementwise(std::initializer_list<size_t> operands);

  // Family-specific checks, defined beside their family.
  bool maskArg(size_t i, const Type &ptrs);
  bool valueFitsPointers(size_t i, const Type &ptrs);
  bool instantiateCombineFn(size_t i, const Type &elemType);
  // Tensor descriptors (SemaBuiltinsDesc.cpp): tensor_desc, and load and store on one.
  Type checkTensorDesc();
  Type checkDescriptorAccess();
  /// A list of `count` i32 scalars, runtime or constant (a descriptor's shape, strides, offsets).
  bool i32ListArg(size_t i, size_t count, const std::string &perEntry);

  SemaImpl &sema_;
  CallExpr &call_;
  const BuiltinInfo &info_;
  const std::string &name_;
  BuiltinId id_;
};

} // namespace tk

#endif
