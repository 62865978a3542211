// Builtins that access memory through tiles of pointers (load, store, atomics) and the hints
// about pointers and offsets that let those accesses become vectors. Tensor descriptors have
// their own file (SemaBuiltinsDesc.cpp).
#include "SemaBuiltins.h"

namespace tk {

namespace {
/// An atomic's `sem =`: Triton's memory orderings (none given: acq_rel).
const std::vector<std::string> kSemantics{"", "relaxed", "acquire", "release", "acq_rel"};
} // namespace

// The mask of a memory operation: i1, broadcastable to the pointers' shape.
bool BuiltinCallChecker::maskArg(size_t i, const Type &ptrs) {
  if (!present(i))
    return true;
  if (!requireValue(i))
    return false;
  if (!type(i).isBool()) {
    error(arg(i)->range, name_ + ": mask must be i1, found " + type(i).str());
    return false;
  }
  return sema_.coerce(*arg(i), Type::scalar(Scalar::I1).withShape(ptrs.shape), name_ + " mask");
}

// A value stored through (or combined with) pointers: a number of any type converts to the
// pointee type (an i32 tile stores into f32 memory without a cast); only its shape must broadcast.
bool BuiltinCallChecker::valueFitsPointers(size_t i, const Type &ptrs) {
  if (!requireValue(i))
    return false;
  Type target = Type::value(ElemType{ptrs.elem.scalar, false}, ptrs.shape);
  Type relaxed = type(i).isPtr() ? type(i) : type(i).withElem(target.elem);
  if (!sema_.implicitlyConverts(relaxed, target)) {
    error(arg(i)->range,
          name_ + ": " + info_.params[i].name + " of type " + type(i).str() + " does not fit pointers " + ptrs.str());
    return false;
  }
  return true;
}

Type BuiltinCallChecker::checkMemoryAccess() {
  if (info_.onDescriptor)
    return checkDescriptorAccess();
  switch (id_) {
  case BuiltinId::TensorDesc:
    return checkTensorDesc();
  case BuiltinId::Load: {
    if (!requirePointers(0))
      return Type::error();
    Type ptrs = type(0);
    if (!maskArg(1, ptrs))
      return Type::error();
    if (present(2)) {
      // Masked-off lanes read `other`; without a mask there are none.
      if (!present(1))
        return error(arg(2)->range, "load: 'other' needs a mask");
      if (!valueFitsPointers(2, ptrs))
        return Type::error();
    }
    if (!stringLiteralArg(3, {"", "ca", "cg"}) || !stringLiteralArg(4, {"", "first", "last"}))
      return Type::error();
    if (present(5)) {
      auto bytes = sema_.constInt(arg(5), paramName(5));
      if (!bytes)
        return Type::error();
      if (*bytes != 64 && *bytes != 128 && *bytes != 256)
        return error(arg(5)->range, "load: prefetch_size must be 64, 128 or 256 bytes, found " + std::to_string(*bytes));
    }
    return Type::value(ElemType{ptrs.elem.scalar, false}, ptrs.shape);
  }
  case BuiltinId::Store: {
    if (!requirePointers(0) || !valueFitsPointers(1, type(0)) || !maskArg(2, type(0)) ||
        !stringLiteralArg(3, {"", "first", "last"}))
      return Type::error();
    return Type::voidType();
  }
  case BuiltinId::AtomicAdd:
  case BuiltinId::AtomicMax:
  case BuiltinId::AtomicMin:
  case BuiltinId::AtomicXchg: {
    if (!requirePointers(0) || !valueFitsPointers(1, type(0)) || !maskArg(2, type(0)) || !stringLiteralArg(3, kSemantics))
      return Type::error();
    Scalar s = type(0).elem.scalar;
    if (s == Scalar::I1 || (id_ != BuiltinId::AtomicXchg && bitWidth(s) < 16))
      return error(arg(0)->range, name_ + " does not support " + std::string(scalarName(s)) + " elements");
    return Type::value(ElemType{s, false}, type(0).shape);
  }
  case BuiltinId::PrefetchL2: {
    // A hint for each pointer: the `count` elements from it, one count for all.
    if (!requirePointers(0) || !requireValue(1) || !maskArg(2, type(0)))
      return Type::error();
    if (!type(1).isIntValue() || !type(1).isScalarValue())
      return error(arg(1)->range, paramName(1) + " must be an integer scalar, found " + type(1).str());
    return Type::voidType();
  }
  case BuiltinId::AtomicCas: {
    if (!requirePointers(0) || !valueFitsPointers(1, type(0)) || !valueFitsPointers(2, type(0)) ||
        !stringLiteralArg(3, kSemantics))
      return Type::error();
    Scalar s = type(0).elem.scalar;
    if (bitWidth(s) < 16)
      return error(arg(0)->range, "atomic_cas does not support " + std::string(scalarName(s)) + " elements");
    return Type::value(ElemType{s, false}, type(0).shape);
  }
  default: return unhandled();
  }
}

Type BuiltinCallChecker::checkCompilerHint() {
  if (!requireValue(0))
    return Type::error();
  if (!type(0).isIntValue() && !type(0).isPtr())
    return error(arg(0)->range, name_ + " applies to integers or pointers, found " + type(0).str());
  auto n = sema_.constInt(arg(1), paramName(1));
  if (!n)
    return Type::error();
  if (*n <= 0 || (*n & (*n - 1)))
    return error(arg(1)->range, name_ + ": " + std::to_string(*n) + " is not a positive power of two");
  // The IR keeps hints as 32-bit attributes (tk.hint), as the analyses that read them do.
  if (*n > SemaLimits::kMaxHintValue)
    return error(arg(1)->range, name_ + ": " + std::to_string(*n) + " is larger than 2^30, the largest hint");
  return type(0).strong();
}

} // namespace tk
