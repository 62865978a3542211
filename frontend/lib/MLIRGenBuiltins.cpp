// MLIRGen of builtin calls: one case per builtin of the table in Builtins.h.
#include "MLIRGenImpl.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace tk {

namespace {
/// The enum case a string-literal argument spells (Sema checked the spelling, which is the ODS
/// enum's own case name), or `fallback` when the argument is absent or empty.
template <typename E, typename Symbolize> E caseOf(const Expr *e, E fallback, Symbolize symbolize) {
  auto *s = dyn<StringLit>(e);
  return s ? symbolize(llvm::StringRef(s->literal)).value_or(fallback) : fallback;
}

CacheModifier cacheOf(const Expr *e) {
  return caseOf(e, CacheModifier::none, [](llvm::StringRef s) { return symbolizeCacheModifier(s); });
}
EvictionPolicy evictOf(const Expr *e) {
  return caseOf(e, EvictionPolicy::normal, [](llvm::StringRef s) { return symbolizeEvictionPolicy(s); });
}
MemorySemantic semanticOf(const Expr *e) {
  return caseOf(e, MemorySemantic::acq_rel, [](llvm::StringRef s) { return symbolizeMemorySemantic(s); });
}

bool present(const CallExpr &e, size_t i) {
  return i < e.bound.size() && e.bound[i] && e.bound[i]->type.kind != Type::Kind::None;
}
} // namespace

Value MLIRGenImpl::emitMath(const CallExpr &e, BuiltinId id) {
  Location l = loc(e.range);
  const Type &type = e.type;
  // f16, bf16 and f8 math is computed in f32 and rounded back.
  bool narrow = isFloat(type.elem.scalar) && bitWidth(type.elem.scalar) < 32;
  Type computeType = narrow ? type.withElem(ElemType{Scalar::F32, false}) : type;
  auto operand = [&](size_t i) { return emitConverted(*e.bound[i], computeType); };
  Value x = operand(0), result;
  switch (id) {
  case BuiltinId::Exp: result = math::ExpOp::create(builder_, l, x); break;
  case BuiltinId::Exp2: result = math::Exp2Op::create(builder_, l, x); break;
  case BuiltinId::Log: result = math::LogOp::create(builder_, l, x); break;
  case BuiltinId::Log2: result = math::Log2Op::create(builder_, l, x); break;
  case BuiltinId::Sqrt: result = math::SqrtOp::create(builder_, l, x); break;
  case BuiltinId::Rsqrt: result = math::RsqrtOp::create(builder_, l, x); break;
  case BuiltinId::Sin: result = math::SinOp::create(builder_, l, x); break;
  case BuiltinId::Cos: result = math::CosOp::create(builder_, l, x); break;
  case BuiltinId::Tanh: result = math::TanhOp::create(builder_, l, x); break;
  case BuiltinId::Erf: result = math::ErfOp::create(builder_, l, x); break;
  case BuiltinId::Floor: result = math::FloorOp::create(builder_, l, x); break;
  case BuiltinId::Ceil: result = math::CeilOp::create(builder_, l, x); break;
  case BuiltinId::Sigmoid: {
    Value one = constant(computeType, ConstValue::ofFloat(1), l);
    Value negated = arith::NegFOp::create(builder_, l, x);
    Value denom = arith::AddFOp::create(builder_, l, one, math::ExpOp::create(builder_, l, negated));
    // The reciprocal may be approximate (`arcp`: div.full.f32 on the GPU, as Triton's sigmoid
    // divides): exp is approximate already, and an exact f32 division is a dozen instructions
    // an element, which spilled a SwiGLU matmul's epilogue (128 sigmoids a thread).
    result = arith::DivFOp::create(builder_, l, one, denom, arith::FastMathFlags::arcp);
    break;
  }
  case BuiltinId::Abs:
    result = isFloat(type.elem.scalar) ? (Value)math::AbsFOp::create(builder_, l, x)
             : isUnsigned(type.elem.scalar) ? x
                                            : (Value)math::AbsIOp::create(builder_, l, x);
    break;
  case BuiltinId::Fma: result = math::FmaOp::create(builder_, l, x, operand(1), operand(2)); break;
  case BuiltinId::Maximum: result = minMax(true, x, operand(1), computeType.elem, l); break;
  case BuiltinId::Minimum: result = minMax(false, x, operand(1), computeType.elem, l); break;
  case BuiltinId::Clamp:
    result = minMax(false, minMax(true, x, operand(1), computeType.elem, l), operand(2), computeType.elem, l);
    break;
  default:
    break;
  }
  if ((id == BuiltinId::Exp || id == BuiltinId::Exp2) && present(e, 1) && e.bound[1]->value->i != 0)
    result.getDefiningOp()->setAttr(TkDialect::kFlushToZero, builder_.getUnitAttr());
  return narrow ? castElements(result, computeType.elem, type.elem, type.shape, l) : result;
}

namespace {
/// The largest finite value of a float scalar type (exact in a double).
double floatMax(mlir::Type type) {
  return llvm::APFloat::getLargest(llvm::cast<mlir::FloatType>(type).getFloatSemantics()).convertToDouble();
}
} // namespace

// `cast(x, T, saturate = true)`: x clamped into T's finite range before it converts, so nothing
// overflows: past the largest finite value gives it (with the sign, infinities too), NaN stays
// NaN, integers do not wrap. Floats clamp in f32 (f64 when either side is f64), which holds
// every value of both exactly; integers clamp in their own type against T's bounds. Float to
// integer needs nothing: `as` saturates there already.
Value MLIRGenImpl::emitSaturatingCast(Value x, const Type &from, const Type &to, Location loc) {
  Scalar s = from.elem.scalar, t = to.elem.scalar;
  auto convert = [&](Value v, const ElemType &a, const ElemType &b) { return castElements(v, a, b, to.shape, loc); };
  auto clampTo = [&](Value v, const Type &type, const ConstValue &lo, const ConstValue &hi, bool low, bool high) {
    if (low)
      v = minMax(true, v, constant(type, lo, loc), type.elem, loc);
    if (high)
      v = minMax(false, v, constant(type, hi, loc), type.elem, loc);
    return v;
  };
  if (isFloat(t) && isFloat(s)) {
    ElemType wide{s == Scalar::F64 || t == Scalar::F64 ? Scalar::F64 : Scalar::F32, false};
    double most = floatMax(elemType(to.elem));
    Value clamped = clampTo(convert(x, from.elem, wide), to.withElem(wide), ConstValue::ofFloat(-most),
                            ConstValue::ofFloat(most), true, true);
    return convert(clamped, wide, to.elem);
  }
  if (isInteger(s) && s != Scalar::I1 && t != Scalar::I1) {
    __int128 lo = intMin(t), hi = intMax(t);
    if (isFloat(t)) { // (every float type's range holds an integer's, except f16's and f8's)
      double most = floatMax(elemType(to.elem));
      hi = most < 1e30 ? __int128(most) : intMax(s);
      lo = most < 1e30 ? -hi : intMin(s);
    }
    bool low = lo > intMin(s), high = hi < intMax(s);
    x = clampTo(x, from, ConstValue::ofInt(int64_t(low ? lo : 0)), ConstValue::ofInt(int64_t(high ? hi : 0)), low, high);
  }
  return convert(x, from.elem, to.elem);
}

Value MLIRGenImpl::emitReduction(const CallExpr &e, BuiltinId id) {
  Location l = loc(e.range);
  const Type &xType = e.bound[0]->type;
  bool isArg = id == BuiltinId::Argmax || id == BuiltinId::Argmin;
  ElemType accElem = isArg ? xType.elem : e.type.elem;
  Type sourceType = xType.withElem(accElem).strong();
  Value x = emitConverted(*e.bound[0], sourceType);
  int32_t axis = 0;
  if (present(e, 1)) {
    axis = (int32_t)e.bound[1]->value->i;
  } else if (xType.shape.size() > 1) { // reduce everything: flatten first
    int64_t n = xType.numElements();
    x = ReshapeOp::create(builder_, l, RankedTensorType::get({n}, elemType(accElem)), x);
    sourceType = sourceType.withShape({n});
  }
  std::vector<int64_t> resultShape = sourceType.shape;
  resultShape.erase(resultShape.begin() + axis);

  SmallVector<Value> srcs{x};
  SmallVector<mlir::Type> resultTypes{mlirType(Type::value(accElem, resultShape))};
  mlir::Type scalar = elemType(accElem), i32 = builder_.getI32Type();
  if (isArg) {
    int64_t n = sourceType.shape[axis];
    Value index = MakeRangeOp::create(builder_, l, RankedTensorType::get({n}, i32), 0, (int32_t)n);
    std::vector<int64_t> shape{n};
    for (size_t d = 0; d < sourceType.shape.size(); ++d) {
      if ((int32_t)d == axis)
        continue;
      size_t at = (int32_t)d < axis ? shape.size() - 1 : shape.size();
      shape.insert(shape.begin() + at, 1);
      index = ExpandDimsOp::create(builder_, l, RankedTensorType::get(shape, i32), index, (int32_t)at);
    }
    srcs.push_back(broadcastTo(index, shape, sourceType.shape, l));
    resultTypes.push_back(mlirType(Type::scalar(Scalar::I32).withShape(resultShape)));
  }
  auto op = ReduceOp::create(builder_, l, resultTypes, srcs, axis);
  OpBuilder::InsertionGuard guard(builder_);
  SmallVector<mlir::Type> argTypes;
  for (Value src : srcs)
    argTypes.push_back(tk::elementTypeOf(src.getType()));
  for (Value src : srcs)
    argTypes.push_back(tk::elementTypeOf(src.getType()));
  Block *block = builder_.createBlock(&op.getCombine(), {}, argTypes,
                                      SmallVector<Location>(argTypes.size(), l));
  if (id == BuiltinId::Reduce) {
    auto call = func::CallOp::create(builder_, l, fns_.at(e.combineFn), block->getArguments());
    YieldOp::create(builder_, l, call.getResults());
  } else if (isArg) {
    // Take b when it is strictly better, or equal with a smaller index: the first extremum wins.
    Value va = block->getArgument(0), ia = block->getArgument(1);
    Value vb = block->getArgument(2), ib = block->getArgument(3);
    BinOp better = id == BuiltinId::Argmax ? BinOp::Gt : BinOp::Lt;
    Value strictly = compare(better, vb, va, accElem, l);
    Value equal = compare(BinOp::Eq, vb, va, accElem, l);
    Value earlier = compare(BinOp::Lt, ib, ia, ElemType{Scalar::I32, false}, l);
    Value takeB = arith::OrIOp::create(builder_, l, strictly, arith::AndIOp::create(builder_, l, equal, earlier));
    if (isFloat(accElem.scalar)) {
      // NaN is the extremum, as max and min propagate it: the first NaN wins, else the first
      // extremum (ordered comparisons alone made a NaN win only from index 0).
      Value nanA = arith::CmpFOp::create(builder_, l, arith::CmpFPredicate::UNO, va, va);
      Value nanB = arith::CmpFOp::create(builder_, l, arith::CmpFPredicate::UNO, vb, vb);
      Value numberA = arith::XOrIOp::create(builder_, l, nanA, constant(Type::scalar(Scalar::I1), ConstValue::ofInt(1), l));
      Value nanFirst = arith::AndIOp::create(builder_, l, nanB, arith::OrIOp::create(builder_, l, numberA, earlier));
      takeB = arith::OrIOp::create(builder_, l, nanFirst, arith::AndIOp::create(builder_, l, numberA, takeB));
    }
    Value v = arith::SelectOp::create(builder_, l, takeB, vb, va);
    Value i = arith::SelectOp::create(builder_, l, takeB, ib, ia);
    YieldOp::create(builder_, l, ValueRange{v, i});
  } else {
    Value a = block->getArgument(0), b = block->getArgument(1), combined;
    if (id == BuiltinId::Sum)
      combined = arith(BinOp::Add, a, b, accElem, l);
    else
      combined = minMax(id == BuiltinId::Max, a, b, accElem, l);
    YieldOp::create(builder_, l, combined);
  }
  (void)scalar;
  return isArg ? op.getResult(1) : op.getResult(0);
}

Value MLIRGenImpl::emitScan(const CallExpr &e, BuiltinId id) {
  Location l = loc(e.range);
  Value x = emitConverted(*e.bound[0], e.type);
  int32_t axis = present(e, 1) ? (int32_t)e.bound[1]->value->i : 0;
  size_t reverseIndex = id == BuiltinId::Scan ? 3 : 2;
  bool reverse = present(e, reverseIndex) && e.bound[reverseIndex]->value->i != 0;
  auto op = ScanOp::create(builder_, l, TypeRange{x.getType()}, ValueRange{x}, axis, reverse);
  OpBuilder::InsertionGuard guard(builder_);
  mlir::Type scalar = elemType(e.type.elem);
  Block *block = builder_.createBlock(&op.getCombine(), {}, {scalar, scalar}, {l, l});
  Value a = block->getArgument(0), b = block->getArgument(1);
  if (id == BuiltinId::Scan) {
    auto call = func::CallOp::create(builder_, l, fns_.at(e.combineFn), block->getArguments());
    YieldOp::create(builder_, l, call.getResults());
  } else {
    YieldOp::create(builder_, l, arith(id == BuiltinId::Cumsum ? BinOp::Add : BinOp::Mul, a, b, e.type.elem, l));
  }
  return op.getResult(0);
}

Value MLIRGenImpl::emitBuiltin(const CallExpr &e) {
  auto id = (BuiltinId)e.builtin;
  Location l = loc(e.range);
  auto arg = [&](size_t i) -> const Expr & { return *e.bound[i]; };
  auto intValue = [&](size_t i) { return arg(i).value->i; };
  mlir::Type resultType = e.type.isValue() ? mlirType(e.type) : mlir::Type();
  // The mask of a memory operation, broadcast to the pointers' shape.
  auto mask = [&](size_t i, const Type &ptrs) -> Value {
    return present(e, i) ? emitConverted(arg(i), Type::scalar(Scalar::I1).withShape(ptrs.shape)) : Value();
  };
  auto pointeeValue = [&](size_t i, const Type &ptrs) {
    return emitConverted(arg(i), Type::value(ElemType{ptrs.elem.scalar, false}, ptrs.shape));
  };

  switch (id) {
  case BuiltinId::ProgramId:
    return ProgramIdOp::create(builder_, l, builder_.getI32Type(), (int32_t)intValue(0));
  case BuiltinId::NumPrograms:
    return NumProgramsOp::create(builder_, l, builder_.getI32Type(), (int32_t)intValue(0));
  case BuiltinId::Arange: {
    int32_t start = int32_t(intValue(0)), end = int32_t(intValue(1));
    if (start >= 0)
      return MakeRangeOp::create(builder_, l, resultType, start, end);
    // tk.make_range counts from 0 up: a negative start is arange(0, end - start) + start.
    Value range = MakeRangeOp::create(builder_, l, resultType, 0, end - start);
    return arith::AddIOp::create(builder_, l, range, constant(e.type, ConstValue::ofInt(start), l));
  }
  case BuiltinId::Zeros:
    return zero(e.type, l);
  case BuiltinId::Full:
    return emitConverted(arg(1), e.type);
  case BuiltinId::TensorDesc:
    emitDescriptor(e); // bound by `let`; alone, only its operands are evaluated
    return Value();
  case BuiltinId::Load: {
    if (arg(0).type.isDesc())
      return emitDescriptorAccess(e);
    const Type &ptrs = arg(0).type;
    Value p = emit(arg(0));
    Value m = mask(1, ptrs);
    Value other = present(e, 2) ? pointeeValue(2, ptrs) : Value();
    return LoadOp::create(builder_, l, resultType, p, m, other, cacheOf(present(e, 3) ? &arg(3) : nullptr),
                          evictOf(present(e, 4) ? &arg(4) : nullptr), present(e, 5) ? uint32_t(intValue(5)) : 0u);
  }
  case BuiltinId::Store: {
    if (arg(0).type.isDesc())
      return emitDescriptorAccess(e);
    const Type &ptrs = arg(0).type;
    Value p = emit(arg(0));
    Value v = pointeeValue(1, ptrs);
    StoreOp::create(builder_, l, p, v, mask(2, ptrs), evictOf(present(e, 3) ? &arg(3) : nullptr));
    return Value();
  }
  case BuiltinId::PrefetchL2: {
    const Type &ptrs = arg(0).type;
    Value p = emit(arg(0));
    Value count = emitConverted(arg(1), Type::scalar(Scalar::I64));
    PrefetchL2Op::create(builder_, l, p, count, mask(2, ptrs));
    return Value();
  }
  case BuiltinId::Dot: {
    Value a = emit(arg(0)), b = emit(arg(1));
    Value acc = present(e, 2) ? emitConverted(arg(2), e.type) : zero(e.type, l);
    auto precision = present(e, 3) && static_cast<const StringLit &>(arg(3)).literal == "ieee"
                         ? DotPrecision::ieee
                         : DotPrecision::tf32;
    int32_t limit = present(e, 4) ? int32_t(intValue(4)) : 0;
    if (limit == 0)
      return DotOp::create(builder_, l, resultType, a, b, acc, precision);
    // The product from zero in the tensor cores, then promoted: added to acc in f32.
    Value product = DotOp::create(builder_, l, resultType, a, b, zero(e.type, l), precision, limit);
    return present(e, 2) ? (Value)arith::AddFOp::create(builder_, l, acc, product) : product;
  }
  case BuiltinId::Sum: case BuiltinId::Max: case BuiltinId::Min:
  case BuiltinId::Argmax: case BuiltinId::Argmin: case BuiltinId::Reduce:
    return emitReduction(e, id);
  case BuiltinId::Cumsum: case BuiltinId::Cumprod: case BuiltinId::Scan:
    return emitScan(e, id);
  case BuiltinId::Reshape: {
    Value x = emit(arg(0));
    if (arg(0).type.shape.empty())
      return SplatOp::create(builder_, l, resultType, x);
    return ReshapeOp::create(builder_, l, resultType, x);
  }
  case BuiltinId::Trans:
    return TransOp::create(builder_, l, resultType, emit(arg(0)), ArrayRef<int32_t>{1, 0});
  case BuiltinId::Permute: {
    SmallVector<int32_t> order;
    for (const ConstValue &d : arg(1).value->list)
      order.push_back((int32_t)d.i);
    return TransOp::create(builder_, l, resultType, emit(arg(0)), order);
  }
  case BuiltinId::BroadcastTo:
    return emitConverted(arg(0), e.type);
  case BuiltinId::ExpandDims: {
    Value x = emit(arg(0));
    if (arg(0).type.shape.empty())
      return SplatOp::create(builder_, l, resultType, x);
    return ExpandDimsOp::create(builder_, l, resultType, x, (int32_t)intValue(1));
  }
  case BuiltinId::Exp: case BuiltinId::Exp2: case BuiltinId::Log: case BuiltinId::Log2:
  case BuiltinId::Sqrt: case BuiltinId::Rsqrt: case BuiltinId::Sin: case BuiltinId::Cos:
  case BuiltinId::Tanh: case BuiltinId::Sigmoid: case BuiltinId::Erf: case BuiltinId::Abs:
  case BuiltinId::Floor: case BuiltinId::Ceil: case BuiltinId::Fma: case BuiltinId::Maximum:
  case BuiltinId::Minimum: case BuiltinId::Clamp:
    return emitMath(e, id);
  case BuiltinId::Where: {
    Value cond = emitConverted(arg(0), Type::scalar(Scalar::I1).withShape(e.type.shape));
    return arith::SelectOp::create(builder_, l, cond, emitConverted(arg(1), e.type), emitConverted(arg(2), e.type));
  }
  case BuiltinId::Cdiv: {
    // The quotient rounded up: the truncated one, plus 1 when the remainder is not zero and the
    // exact quotient is positive (remainder and divisor of one sign). (a + b - 1) / b wraps near
    // the type's maximum and rounds negative quotients the wrong way.
    Value a = emitConverted(arg(0), e.type), b = emitConverted(arg(1), e.type);
    Value quotient = arith(BinOp::Div, a, b, e.type.elem, l), remainder = arith(BinOp::Rem, a, b, e.type.elem, l);
    Value zeroValue = zero(e.type, l);
    Value up = arith::CmpIOp::create(builder_, l, arith::CmpIPredicate::ne, remainder, zeroValue);
    if (!isUnsigned(e.type.elem.scalar)) {
      Value signs = arith::XOrIOp::create(builder_, l, remainder, b);
      up = arith::AndIOp::create(builder_, l, up,
                                 arith::CmpIOp::create(builder_, l, arith::CmpIPredicate::sge, signs, zeroValue));
    }
    return arith::AddIOp::create(builder_, l, quotient, arith::ExtUIOp::create(builder_, l, quotient.getType(), up));
  }
  case BuiltinId::AtomicAdd: case BuiltinId::AtomicMax: case BuiltinId::AtomicMin:
  case BuiltinId::AtomicXchg: {
    const Type &ptrs = arg(0).type;
    bool isUnsignedElem = isUnsigned(ptrs.elem.scalar);
    AtomicKind kind = id == BuiltinId::AtomicAdd   ? AtomicKind::add
                      : id == BuiltinId::AtomicMax ? (isUnsignedElem ? AtomicKind::umax : AtomicKind::max)
                      : id == BuiltinId::AtomicMin ? (isUnsignedElem ? AtomicKind::umin : AtomicKind::min)
                                                   : AtomicKind::xchg;
    Value p = emit(arg(0));
    return AtomicRMWOp::create(builder_, l, resultType, kind, p, pointeeValue(1, ptrs), mask(2, ptrs),
                               semanticOf(present(e, 3) ? &arg(3) : nullptr));
  }
  case BuiltinId::AtomicCas: {
    const Type &ptrs = arg(0).type;
    Value p = emit(arg(0));
    return AtomicCASOp::create(builder_, l, resultType, p, pointeeValue(1, ptrs), pointeeValue(2, ptrs),
                               semanticOf(present(e, 3) ? &arg(3) : nullptr));
  }
  case BuiltinId::MultipleOf:
  case BuiltinId::MaxContiguous: {
    Value x = emitConverted(arg(0), e.type);
    IntegerAttr n = builder_.getI32IntegerAttr((int32_t)intValue(1));
    return HintOp::create(builder_, l, x.getType(), x, id == BuiltinId::MultipleOf ? n : IntegerAttr(),
                          id == BuiltinId::MaxContiguous ? n : IntegerAttr());
  }
  case BuiltinId::Rand:
  case BuiltinId::Randn: {
    // Philox's key is 64 bits and its counter 32, and the IR's integers are signless (the
    // backends sign-extend a narrower seed and take an offset's low 32 bits): an unsigned seed
    // and an offset under 32 bits widen here, by their own signedness (a u8 offset of 255 is
    // 255, a u32 seed of 2^31 is 2^31, as Triton's conversions to uint32 and uint64 make them).
    Type seedType = arg(0).type.strong(), offsetType = arg(1).type.strong();
    if (isUnsigned(seedType.elem.scalar) && bitWidth(seedType.elem.scalar) < 64)
      seedType = seedType.withElem(ElemType{Scalar::U64, false});
    if (bitWidth(offsetType.elem.scalar) < 32)
      offsetType = offsetType.withElem(ElemType{isUnsigned(offsetType.elem.scalar) ? Scalar::U32 : Scalar::I32, false});
    Value seed = emitConverted(arg(0), seedType);
    Value offsets = emitConverted(arg(1), offsetType);
    return RandOp::create(builder_, l, resultType, seed, offsets,
                          id == BuiltinId::Rand ? RandDistribution::uniform : RandDistribution::normal);
  }
  case BuiltinId::Print: {
    SmallVector<Value> values;
    for (size_t i = 1; i < e.bound.size(); ++i)
      values.push_back(emitConverted(arg(i), arg(i).type.strong()));
    PrintOp::create(builder_, l, static_cast<const StringLit &>(arg(0)).literal, values);
    return Value();
  }
  case BuiltinId::Assert: {
    std::string message = present(e, 1) ? static_cast<const StringLit &>(arg(1)).literal : "assertion failed";
    AssertOp::create(builder_, l, emitConverted(arg(0), arg(0).type.strong()), message);
    return Value();
  }
  case BuiltinId::StaticAssert:
    return Value();
  case BuiltinId::GdcWait:
    GridDependencyWaitOp::create(builder_, l);
    return Value();
  case BuiltinId::GdcLaunchDependents:
    LaunchDependentsOp::create(builder_, l);
    return Value();
  case BuiltinId::Bitcast:
    return BitcastOp::create(builder_, l, resultType, emit(arg(0)));
  case BuiltinId::Cast: {
    const Type &from = arg(0).type.strong();
    Value x = emitConverted(arg(0), from);
    if (present(e, 2) && e.bound[2]->value->i != 0)
      return emitSaturatingCast(x, from, e.type, l);
    return castElements(x, from.elem, e.type.elem, e.type.shape, l);
  }
  case BuiltinId::Count:
    break;
  }
  return Value();
}

} // namespace tk
