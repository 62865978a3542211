// Builtins that make tiles (program indices, ranges, constant tiles) and that change a tile's
// shape without touching its elements.
#include "SemaBuiltins.h"

#include <algorithm>

namespace tk {

Type BuiltinCallChecker::checkTileCreation() {
  switch (id_) {
  case BuiltinId::ProgramId:
  case BuiltinId::NumPrograms: {
    auto axis = sema_.constInt(arg(0), paramName(0));
    if (!axis)
      return Type::error();
    // The launch grid has three dimensions.
    if (*axis < 0 || *axis > 2)
      return error(arg(0)->range, name_ + " axis must be 0, 1 or 2, got " + std::to_string(*axis));
    return Type::scalar(Scalar::I32);
  }
  case BuiltinId::Arange: {
    auto start = sema_.constInt(arg(0), paramName(0)), end = sema_.constInt(arg(1), paramName(1));
    if (!start || !end)
      return Type::error();
    if (*end <= *start)
      return error(call_.range,
                   "arange: end " + std::to_string(*end) + " must be greater than start " + std::to_string(*start));
    if (*start < INT32_MIN || *end > INT32_MAX)
      return error(call_.range, "arange: bounds must fit in i32");
    int64_t count = *end - *start;
    if (count & (count - 1))
      return error(call_.range, "arange(" + std::to_string(*start) + ", " + std::to_string(*end) + ") has " +
                                    std::to_string(count) + " elements, which is not a power of two");
    return Type::scalar(Scalar::I32).withShape({count});
  }
  case BuiltinId::Zeros:
  case BuiltinId::Full: {
    bool isFull = id_ == BuiltinId::Full;
    auto shape = sema_.constShape(arg(0), paramName(0));
    auto elem = elementTypeArg(isFull ? 2 : 1); // zeros(shape, dtype), full(shape, value, dtype)
    if (!shape || !elem)
      return Type::error();
    if (isFull && (!requireValue(1) || !type(1).isScalarValue()))
      return type(1).isValue() ? error(arg(1)->range, "full: value must be a scalar, found " + type(1).str())
                               : Type::error();
    if (isFull && type(1).isPtr() != elem->isPtr)
      return error(arg(1)->range, "full: a value of type " + type(1).str() + " cannot fill a tile of " + elem->str());
    if (!sema_.checkTileShape(*shape, arg(0)->range))
      return Type::error();
    return Type::value(*elem, *shape);
  }
  default: return unhandled();
  }
}

Type BuiltinCallChecker::checkShapeManipulation() {
  switch (id_) {
  case BuiltinId::Reshape:
  case BuiltinId::BroadcastTo: {
    if (!requireValue(0))
      return Type::error();
    const Type &x = type(0);
    auto shape = sema_.constShape(arg(1), paramName(1));
    if (!shape || !sema_.checkTileShape(*shape, arg(1)->range))
      return Type::error();
    if (id_ == BuiltinId::Reshape) {
      if (shape->empty())
        return error(arg(1)->range, "reshape: the shape needs at least one dimension");
      if (x.numElements() != Type::scalar(Scalar::I32).withShape(*shape).numElements())
        return error(call_.range, "reshape: cannot reshape " + x.str() + " (" + std::to_string(x.numElements()) +
                                      " elements) into " + shapeStr(*shape));
    } else if (!sema_.implicitlyConverts(x.strong(), x.strong().withShape(*shape))) {
      return error(call_.range, "broadcast_to: cannot broadcast " + x.str() + " to " + shapeStr(*shape));
    }
    return x.strong().withShape(*shape);
  }
  case BuiltinId::Trans: {
    if (!requireValue(0))
      return Type::error();
    const Type &x = type(0);
    if (x.shape.size() != 2)
      return error(arg(0)->range, "trans needs a 2-D tile, found " + x.str() + "; use permute for other ranks");
    return x.withShape({x.shape[1], x.shape[0]});
  }
  case BuiltinId::Permute: {
    if (!requireValue(0))
      return Type::error();
    const Type &x = type(0);
    if (!x.isTile())
      return error(arg(0)->range, "permute needs a tile, found " + x.str());
    auto dims = sema_.constShape(arg(1), paramName(1));
    if (!dims)
      return Type::error();
    std::vector<int64_t> sorted = *dims, shape;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 0; k < sorted.size(); ++k)
      if (sorted[k] != (int64_t)k || sorted.size() != x.shape.size())
        return error(arg(1)->range, "permute: dims " + shapeStr(*dims) + " are not a permutation of the " +
                                        std::to_string(x.shape.size()) + " dimensions of " + x.str());
    if (sorted.size() != x.shape.size())
      return error(arg(1)->range, "permute: dims " + shapeStr(*dims) + " do not match " + x.str());
    for (int64_t d : *dims)
      shape.push_back(x.shape[d]);
    return x.withShape(shape);
  }
  case BuiltinId::ExpandDims: {
    if (!requireValue(0))
      return Type::error();
    auto axis = axisArg(1, type(0).shape.size(), true);
    if (!axis)
      return Type::error();
    std::vector<int64_t> shape = type(0).shape;
    shape.insert(shape.begin() + *axis, 1);
    return type(0).withShape(shape);
  }
  default: return unhandled();
  }
}

} // namespace tk
