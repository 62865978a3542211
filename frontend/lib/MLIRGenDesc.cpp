// MLIRGen of tensor descriptors. A descriptor has no op of its own: a load or store through one
// becomes the tile of pointers and the mask one would write by hand, always in this form, which
// later passes may recognize (as a TMA copy). For rank 2, block [B0, B1], offsets [c0, c1]:
//   rows = splat(c0) + make_range(0, B0)         cols = splat(c1) + make_range(0, B1)
//   ptrs = addptr(broadcast(addptr(splat(base), expand_dims(rows, 1) * splat(T0))),
//                 broadcast(expand_dims(cols, 0) * splat(T1)))    (no multiply where a stride is 1)
//   mask = broadcast(rows' >= 0) && broadcast(rows' < splat(S0))
//       && broadcast(cols' >= 0) && broadcast(cols' < splat(S1))   (rows' = expand_dims(rows, 1), ...)
//   tk.load ptrs mask other = 0, or tk.store ptrs value mask
// and the same per axis for ranks 1 and 3 to 5.
#include "MLIRGenImpl.h"

using namespace mlir;

namespace tk {

MLIRGenImpl::Descriptor MLIRGenImpl::emitDescriptor(const Expr &e) {
  if (auto *name = dyn<NameExpr>(&e))
    return descriptors_.at(name->var);
  auto &call = static_cast<const CallExpr &>(e);
  Type i32 = Type::scalar(Scalar::I32);
  Descriptor desc;
  desc.base = emit(*call.bound[0]);
  for (const ExprPtr &size : static_cast<const ListExpr &>(*call.bound[1]).elems)
    desc.shape.push_back(emitConverted(*size, i32));
  for (const ExprPtr &stride : static_cast<const ListExpr &>(*call.bound[2]).elems) {
    bool unit = stride->value && stride->value->i == 1;
    desc.strides.push_back(unit ? Value() : emitConverted(*stride, i32));
  }
  return desc;
}

Value MLIRGenImpl::emitDescriptorAccess(const CallExpr &e) {
  Location l = loc(e.range);
  const Type &descType = e.bound[0]->type;
  const std::vector<int64_t> &block = descType.shape;
  Descriptor desc = emitDescriptor(*e.bound[0]);
  const auto &offsets = static_cast<const ListExpr &>(*e.bound[1]).elems;
  mlir::Type i32 = builder_.getI32Type();
  auto splat = [&](Value scalar, const std::vector<int64_t> &shape) -> Value {
    return SplatOp::create(builder_, l, RankedTensorType::get(shape, scalar.getType()), scalar);
  };

  // Per axis k, the block's indices c_k + [0, B_k) as a tile of the block's rank, 1 on every
  // other axis (what `rows[:, None]` gives).
  std::vector<Value> index;
  std::vector<std::vector<int64_t>> indexShape;
  for (size_t k = 0; k < block.size(); ++k) {
    int64_t n = block[k];
    Value start = splat(emitConverted(*offsets[k], Type::scalar(Scalar::I32)), {n});
    Value range = MakeRangeOp::create(builder_, l, RankedTensorType::get({n}, i32), 0, (int32_t)n);
    Value axis = arith::AddIOp::create(builder_, l, start, range);
    std::vector<int64_t> shape{n};
    for (size_t j = 0; j < block.size(); ++j) {
      if (j == k)
        continue;
      shape.insert(shape.begin() + j, 1);
      axis = ExpandDimsOp::create(builder_, l, RankedTensorType::get(shape, i32), axis, (int32_t)j);
    }
    index.push_back(axis);
    indexShape.push_back(shape);
  }

  // base + index_0 * T_0 + index_1 * T_1 + ..., broadcasting one axis at a time.
  Value ptrs;
  std::vector<int64_t> ptrShape;
  for (size_t k = 0; k < block.size(); ++k) {
    std::vector<int64_t> joint = indexShape[0];
    if (k == 0) {
      ptrs = splat(desc.base, joint);
    } else {
      joint = ptrShape;
      joint[k] = block[k];
      ptrs = broadcastTo(ptrs, ptrShape, joint, l);
    }
    Value offset = index[k];
    if (desc.strides[k])
      offset = arith::MulIOp::create(builder_, l, offset, splat(desc.strides[k], indexShape[k]));
    offset = broadcastTo(offset, indexShape[k], joint, l);
    ptrs = AddPtrOp::create(builder_, l, ptrs.getType(), ptrs, offset);
    ptrShape = joint;
  }

  // In bounds on every axis: 0 <= index_k < S_k (negative offsets read zeros too).
  Value mask;
  auto conjoin = [&](Value inBounds, const std::vector<int64_t> &shape) {
    inBounds = broadcastTo(inBounds, shape, block, l);
    mask = mask ? (Value)arith::AndIOp::create(builder_, l, mask, inBounds) : inBounds;
  };
  for (size_t k = 0; k < block.size(); ++k) {
    Value zeros = zero(Type::scalar(Scalar::I32).withShape(indexShape[k]), l);
    conjoin(arith::CmpIOp::create(builder_, l, arith::CmpIPredicate::sge, index[k], zeros), indexShape[k]);
    Value size = splat(desc.shape[k], indexShape[k]);
    conjoin(arith::CmpIOp::create(builder_, l, arith::CmpIPredicate::slt, index[k], size), indexShape[k]);
  }

  Type tile = Type::value(descType.elem, block);
  if ((BuiltinId)e.builtin == BuiltinId::Load)
    return LoadOp::create(builder_, l, mlirType(tile), ptrs, mask, zero(tile, l), CacheModifier::none,
                          EvictionPolicy::normal);
  StoreOp::create(builder_, l, ptrs, emitConverted(*e.bound[2], tile), mask, EvictionPolicy::normal);
  return Value();
}

} // namespace tk
