// Tensor descriptors: `tensor_desc(base, shape = [...], strides = [...], block = [...])` describes
// a strided tensor of rank 1 to 5; `load(desc, offsets)` reads one block of it (zeros outside
// the shape) and `store(desc, offsets, value)` writes the block's elements that are inside it.
// MLIRGen expands both into pointer tiles and masks (MLIRGenDesc.cpp).
#include "SemaBuiltins.h"

namespace tk {

namespace {
constexpr size_t kMaxDescriptorRank = 5;

std::string dimensions(size_t n) { return std::to_string(n) + (n == 1 ? " dimension" : " dimensions"); }
} // namespace

bool BuiltinCallChecker::i32ListArg(size_t i, size_t count, const std::string &countSource) {
  auto *list = dyn<ListExpr>(arg(i));
  if (!list) {
    error(arg(i)->range, paramName(i) + " must be a list of i32 values, one per dimension, found " + type(i).str());
    return false;
  }
  if (list->elems.size() != count) {
    size_t n = list->elems.size();
    error(arg(i)->range, paramName(i) + " has " + std::to_string(n) + (n == 1 ? " entry; " : " entries; ") +
                             countSource + " has " + dimensions(count));
    return false;
  }
  bool ok = true;
  for (ExprPtr &elem : list->elems)
    ok = sema_.coerce(*elem, Type::scalar(Scalar::I32), paramName(i)) && ok;
  return ok;
}

Type BuiltinCallChecker::checkTensorDesc() {
  if (!requireValue(0))
    return Type::error();
  if (!type(0).isPtr() || type(0).isTile())
    return error(arg(0)->range, paramName(0) + " must be a pointer such as ptr<f16>, found " + type(0).str());
  auto block = sema_.constShape(arg(3), paramName(3));
  if (!block)
    return Type::error();
  if (block->empty() || block->size() > kMaxDescriptorRank)
    return error(arg(3)->range, "tensor_desc: block has " + dimensions(block->size()) +
                                    "; a descriptor has 1 to " + std::to_string(kMaxDescriptorRank));
  for (int64_t dim : *block)
    if (dim <= 0 || (dim & (dim - 1)))
      return error(arg(3)->range, "tensor_desc: block dimension " + std::to_string(dim) +
                                      " is not a power of two (block " + shapeStr(*block) + ")");
  if (!sema_.checkTileShape(*block, arg(3)->range))
    return Type::error();
  bool shapeOk = i32ListArg(1, block->size(), "'block'");
  bool stridesOk = i32ListArg(2, block->size(), "'block'");
  if (!shapeOk || !stridesOk)
    return Type::error();
  return Type::desc(type(0).elem.scalar, *block);
}

Type BuiltinCallChecker::checkDescriptorAccess() {
  if (!type(0).isDesc())
    return error(arg(0)->range, paramName(0) + " must be a tensor descriptor (see tensor_desc), found " + type(0).str());
  const Type &desc = type(0);
  if (!i32ListArg(1, desc.shape.size(), desc.str()))
    return Type::error();
  if (id_ == BuiltinId::Load)
    return Type::value(desc.elem, desc.shape);
  // A stored tile has the block's shape; its elements convert to the descriptor's type, as
  // store's do through pointers.
  if (!requireNumber(2))
    return Type::error();
  if (type(2).shape != desc.shape)
    return error(arg(2)->range, "store: the value must be a tile of the block's shape " + shapeStr(desc.shape) +
                                    " (" + desc.str() + "), found " + type(2).str());
  return Type::voidType();
}

} // namespace tk
