// Statements, operators and conversions of MLIRGen.
#include "MLIRGenImpl.h"
#include "tk/Support/FloatFormats.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <set>

using namespace mlir;

namespace tk {

Location MLIRGenImpl::loc(SrcRange range) {
  if (!range.begin.valid())
    return builder_.getUnknownLoc();
  return FileLineColLoc::get(&context_, sources_.path(range.begin.fileId), range.begin.line,
                             range.begin.col);
}

mlir::Type MLIRGenImpl::elemType(const ElemType &elem) {
  mlir::Type scalar;
  switch (elem.scalar) {
  case Scalar::I1: scalar = builder_.getI1Type(); break;
  case Scalar::I8: case Scalar::U8: scalar = builder_.getI8Type(); break;
  case Scalar::I16: case Scalar::U16: scalar = builder_.getI16Type(); break;
  case Scalar::I32: case Scalar::U32: scalar = builder_.getI32Type(); break;
  case Scalar::I64: case Scalar::U64: scalar = builder_.getI64Type(); break;
  case Scalar::F8E4M3: scalar = builder_.getType<Float8E4M3FNType>(); break;
  case Scalar::F8E5M2: scalar = builder_.getType<Float8E5M2Type>(); break;
  case Scalar::F16: scalar = builder_.getF16Type(); break;
  case Scalar::BF16: scalar = builder_.getBF16Type(); break;
  case Scalar::F32: scalar = builder_.getF32Type(); break;
  case Scalar::F64: scalar = builder_.getF64Type(); break;
  }
  return elem.isPtr ? PtrType::get(scalar) : scalar;
}

mlir::Type MLIRGenImpl::mlirType(const Type &type) {
  mlir::Type elem = elemType(type.elem);
  return type.shape.empty() ? elem : RankedTensorType::get(type.shape, elem);
}

Value MLIRGenImpl::constant(const Type &type, const ConstValue &value, Location loc) {
  mlir::Type elem = elemType(type.elem);
  TypedAttr scalar;
  if (isFloat(type.elem.scalar))
    scalar = builder_.getFloatAttr(elem, value.asDouble());
  else
    scalar = builder_.getIntegerAttr(elem, APInt(bitWidth(type.elem.scalar), uint64_t(value.i), false, true));
  if (type.shape.empty())
    return arith::ConstantOp::create(builder_, loc, scalar);
  auto tensor = RankedTensorType::get(type.shape, elem);
  return arith::ConstantOp::create(builder_, loc, DenseElementsAttr::get(tensor, scalar));
}

Value MLIRGenImpl::zero(const Type &type, Location loc) {
  return constant(type, isFloat(type.elem.scalar) ? ConstValue::ofFloat(0) : ConstValue::ofInt(0), loc);
}

Value MLIRGenImpl::castElements(Value value, const ElemType &from, const ElemType &to,
                                const std::vector<int64_t> &shape, Location loc) {
  if (from == to)
    return value;
  mlir::Type target = mlirType(Type::value(to, shape));
  if (from.isPtr || to.isPtr)
    return BitcastOp::create(builder_, loc, target, value);
  Scalar f = from.scalar, t = to.scalar;
  if (isFloat(f) && isFloat(t)) {
    if (bitWidth(f) == bitWidth(t)) { // f16 <-> bf16, f8 kinds: through f32
      Value wide = castElements(value, from, ElemType{Scalar::F32, false}, shape, loc);
      return castElements(wide, ElemType{Scalar::F32, false}, to, shape, loc);
    }
    if (bitWidth(t) > bitWidth(f))
      return arith::ExtFOp::create(builder_, loc, target, value);
    return arith::TruncFOp::create(builder_, loc, target, value);
  }
  // Integers and the f8 formats convert through f32 (LLVM has no f8 arithmetic): exact both
  // ways for every integer an f8 type can hold, and past that both overflow alike.
  // f64 <-> f8 too, as the interpreter rounds f64 to f8 (through float).
  bool f8From = f == Scalar::F8E4M3 || f == Scalar::F8E5M2, f8To = t == Scalar::F8E4M3 || t == Scalar::F8E5M2;
  if ((f8From && (!isFloat(t) || t == Scalar::F64)) || (f8To && (!isFloat(f) || f == Scalar::F64))) {
    ElemType f32{Scalar::F32, false};
    return castElements(castElements(value, from, f32, shape, loc), f32, to, shape, loc);
  }
  if (isFloat(f)) {
    if (t == Scalar::I1)
      return compare(BinOp::Ne, value, zero(Type::value(from, shape), loc), from, loc);
    if (bitWidth(t) < 32) {
      // Through i32, then clamped: the saturation the interpreter gives. (LLVM's fptosi to i8
      // or i16 is undefined out of range, and the NVPTX backend converts to 16 bits and stores
      // the low byte: 300.0 as i8 was 44.)
      ElemType i32{Scalar::I32, false};
      Type wide = Type::value(i32, shape);
      Value v = arith::FPToSIOp::create(builder_, loc, mlirType(wide), value);
      v = minMax(true, v, constant(wide, ConstValue::ofInt(int64_t(intMin(t))), loc), i32, loc);
      v = minMax(false, v, constant(wide, ConstValue::ofInt(int64_t(intMax(t))), loc), i32, loc);
      return arith::TruncIOp::create(builder_, loc, target, v);
    }
    if (isUnsigned(t))
      return arith::FPToUIOp::create(builder_, loc, target, value);
    return arith::FPToSIOp::create(builder_, loc, target, value);
  }
  if (isFloat(t)) {
    if (isUnsigned(f) || f == Scalar::I1)
      return arith::UIToFPOp::create(builder_, loc, target, value);
    return arith::SIToFPOp::create(builder_, loc, target, value);
  }
  if (t == Scalar::I1)
    return compare(BinOp::Ne, value, zero(Type::value(from, shape), loc), from, loc);
  int fw = bitWidth(f), tw = bitWidth(t);
  if (fw == tw)
    return value;
  if (tw < fw)
    return arith::TruncIOp::create(builder_, loc, target, value);
  if (isUnsigned(f) || f == Scalar::I1)
    return arith::ExtUIOp::create(builder_, loc, target, value);
  return arith::ExtSIOp::create(builder_, loc, target, value);
}

Value MLIRGenImpl::broadcastTo(Value value, const std::vector<int64_t> &from,
                               const std::vector<int64_t> &to, Location loc) {
  if (from == to)
    return value;
  mlir::Type elem = tk::elementTypeOf(value.getType());
  if (from.empty())
    return SplatOp::create(builder_, loc, RankedTensorType::get(to, elem), value);
  std::vector<int64_t> shape = from;
  while (shape.size() < to.size()) {
    shape.insert(shape.begin(), 1);
    value = ExpandDimsOp::create(builder_, loc, RankedTensorType::get(shape, elem), value, 0);
  }
  if (shape != to)
    value = BroadcastOp::create(builder_, loc, RankedTensorType::get(to, elem), value);
  return value;
}

Value MLIRGenImpl::convert(Value value, const Type &from, const Type &to, Location loc) {
  value = castElements(value, from.elem, to.elem, from.shape, loc);
  return broadcastTo(value, from.shape, to.shape, loc);
}

Value MLIRGenImpl::emitConverted(const Expr &e, const Type &to) {
  if (e.value && e.type.isScalarValue() && !to.elem.isPtr && e.value->kind != ConstValue::Kind::List) {
    Type scalarTo = to.withShape({});
    ConstValue v = e.value->kind == ConstValue::Kind::Float && !isFloat(to.elem.scalar)
                       ? ConstValue::ofInt(fp::saturatingTrunc(e.value->f, bitWidth(to.elem.scalar),
                                                               isUnsigned(to.elem.scalar)))
                       : *e.value;
    if (e.type.elem != to.elem && isFloat(to.elem.scalar) && e.value->kind == ConstValue::Kind::Int)
      v = ConstValue::ofFloat(isUnsigned(e.type.elem.scalar) ? (double)(uint64_t)e.value->i : (double)e.value->i);
    if (to.elem.scalar == Scalar::I1)
      v = ConstValue::ofInt(e.value->asDouble() != 0);
    return constant(scalarTo.withShape(to.shape), v, loc(e.range));
  }
  return convert(emit(e), e.type, to, loc(e.range));
}

Value MLIRGenImpl::compare(BinOp op, Value a, Value b, const ElemType &elem, Location loc) {
  if (isFloat(elem.scalar)) {
    arith::CmpFPredicate pred;
    switch (op) {
    case BinOp::Eq: pred = arith::CmpFPredicate::OEQ; break;
    case BinOp::Ne: pred = arith::CmpFPredicate::UNE; break;
    case BinOp::Lt: pred = arith::CmpFPredicate::OLT; break;
    case BinOp::Le: pred = arith::CmpFPredicate::OLE; break;
    case BinOp::Gt: pred = arith::CmpFPredicate::OGT; break;
    default: pred = arith::CmpFPredicate::OGE; break;
    }
    return arith::CmpFOp::create(builder_, loc, pred, a, b);
  }
  bool uns = isUnsigned(elem.scalar) || elem.scalar == Scalar::I1;
  arith::CmpIPredicate pred;
  switch (op) {
  case BinOp::Eq: pred = arith::CmpIPredicate::eq; break;
  case BinOp::Ne: pred = arith::CmpIPredicate::ne; break;
  case BinOp::Lt: pred = uns ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt; break;
  case BinOp::Le: pred = uns ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle; break;
  case BinOp::Gt: pred = uns ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt; break;
  default: pred = uns ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge; break;
  }
  return arith::CmpIOp::create(builder_, loc, pred, a, b);
}

Value MLIRGenImpl::minMax(bool isMax, Value a, Value b, const ElemType &elem, Location loc) {
  if (isFloat(elem.scalar))
    return isMax ? (Value)arith::MaximumFOp::create(builder_, loc, a, b)
                 : (Value)arith::MinimumFOp::create(builder_, loc, a, b);
  if (isUnsigned(elem.scalar) || elem.scalar == Scalar::I1)
    return isMax ? (Value)arith::MaxUIOp::create(builder_, loc, a, b)
                 : (Value)arith::MinUIOp::create(builder_, loc, a, b);
  return isMax ? (Value)arith::MaxSIOp::create(builder_, loc, a, b)
               : (Value)arith::MinSIOp::create(builder_, loc, a, b);
}

/// The contract's shift: by the width or more (as unsigned: a negative amount too) gives 0, or
/// the sign for an arithmetic right shift. arith's shifts give poison there, which LLVM may
/// fold into anything (a constant `x8 << 8` lost its store), so the amount is tested first;
/// for a constant amount below the width the test folds away. (The interpreter gives arith's
/// shifts the contract's meaning directly.)
Value MLIRGenImpl::shift(BinOp op, Value a, Value b, bool isUnsigned, Location loc) {
  mlir::Type type = a.getType();
  unsigned width = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
  auto splat = [&](int64_t v) -> Value {
    TypedAttr scalar = builder_.getIntegerAttr(getElementTypeOrSelf(type), APInt(width, uint64_t(v), true, true));
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      return arith::ConstantOp::create(builder_, loc, DenseElementsAttr::get(tensor, scalar));
    return arith::ConstantOp::create(builder_, loc, scalar);
  };
  Value outside = arith::CmpIOp::create(builder_, loc, arith::CmpIPredicate::uge, b, splat(width));
  if (op == BinOp::Shr && !isUnsigned) // the sign: a shift by width - 1
    return arith::ShRSIOp::create(builder_, loc, a, arith::SelectOp::create(builder_, loc, outside, splat(width - 1), b));
  Value shifted = op == BinOp::Shl ? (Value)arith::ShLIOp::create(builder_, loc, a, b)
                                   : (Value)arith::ShRUIOp::create(builder_, loc, a, b);
  return arith::SelectOp::create(builder_, loc, outside, splat(0), shifted);
}

Value MLIRGenImpl::arith(BinOp op, Value a, Value b, const ElemType &elem, Location loc) {
  bool fp = isFloat(elem.scalar);
  bool uns = isUnsigned(elem.scalar) || elem.scalar == Scalar::I1;
  switch (op) {
  case BinOp::Add: return fp ? (Value)arith::AddFOp::create(builder_, loc, a, b) : (Value)arith::AddIOp::create(builder_, loc, a, b);
  case BinOp::Sub: return fp ? (Value)arith::SubFOp::create(builder_, loc, a, b) : (Value)arith::SubIOp::create(builder_, loc, a, b);
  case BinOp::Mul: return fp ? (Value)arith::MulFOp::create(builder_, loc, a, b) : (Value)arith::MulIOp::create(builder_, loc, a, b);
  case BinOp::Div:
    if (fp) return arith::DivFOp::create(builder_, loc, a, b);
    return uns ? (Value)arith::DivUIOp::create(builder_, loc, a, b) : (Value)arith::DivSIOp::create(builder_, loc, a, b);
  case BinOp::Rem:
    if (fp) return arith::RemFOp::create(builder_, loc, a, b);
    return uns ? (Value)arith::RemUIOp::create(builder_, loc, a, b) : (Value)arith::RemSIOp::create(builder_, loc, a, b);
  case BinOp::Shl: case BinOp::Shr: return shift(op, a, b, uns, loc);
  case BinOp::BitAnd: case BinOp::And: return arith::AndIOp::create(builder_, loc, a, b);
  case BinOp::BitOr: case BinOp::Or: return arith::OrIOp::create(builder_, loc, a, b);
  case BinOp::BitXor: return arith::XOrIOp::create(builder_, loc, a, b);
  default: return compare(op, a, b, elem, loc);
  }
}

Value MLIRGenImpl::emitBinary(const BinaryExpr &e) {
  Location l = loc(e.opRange);
  if (e.shortCircuit) // (a scalar one is a constant, emitted before)
    return constant(e.type, *e.lhs->value, l);
  if (e.operandType.isPtr()) {
    const Expr &ptrExpr = e.lhs->type.isPtr() ? *e.lhs : *e.rhs;
    const Expr &offsetExpr = e.lhs->type.isPtr() ? *e.rhs : *e.lhs;
    Value ptr = convert(emit(ptrExpr), ptrExpr.type, e.operandType, l);
    // i64 offsets for 64-bit integers and for u32 (zero-extended: as in C, p + 4294967295u
    // counts that many elements, where an i32 would read it as -1).
    Scalar offsetElem = offsetExpr.type.elem.scalar;
    bool wide = bitWidth(offsetElem) > 32 || (bitWidth(offsetElem) == 32 && isUnsigned(offsetElem));
    Scalar offsetScalar = wide ? Scalar::I64 : Scalar::I32;
    Type offsetType = Type::scalar(offsetScalar).withShape(e.operandType.shape);
    Value offset = emitConverted(offsetExpr, offsetType);
    if (e.op == BinOp::Sub)
      offset = arith::SubIOp::create(builder_, l, zero(offsetType, l), offset);
    return AddPtrOp::create(builder_, l, ptr.getType(), ptr, offset);
  }
  Value a = emitConverted(*e.lhs, e.operandType);
  Value b = emitConverted(*e.rhs, e.operandType);
  return arith(e.op, a, b, e.operandType.elem, l);
}

Value MLIRGenImpl::emit(const Expr &e) {
  Location l = loc(e.range);
  if (e.value && e.type.isScalarValue())
    return constant(e.type, *e.value, l);
  switch (e.kind) {
  case ExprKind::Name:
    return vars_.at(static_cast<const NameExpr &>(e).var);
  case ExprKind::Unary: {
    auto &u = static_cast<const UnaryExpr &>(e);
    Value operand = emit(*u.operand);
    if (u.op == '-') {
      if (isFloat(e.type.elem.scalar))
        return arith::NegFOp::create(builder_, l, operand);
      return arith::SubIOp::create(builder_, l, zero(e.type, l), operand);
    }
    ConstValue ones = ConstValue::ofInt(-1);
    return arith::XOrIOp::create(builder_, l, operand, constant(e.type.strong(), ones, l));
  }
  case ExprKind::Binary:
    return emitBinary(static_cast<const BinaryExpr &>(e));
  case ExprKind::Cast: {
    auto &c = static_cast<const CastExpr &>(e);
    return convert(emit(*c.operand), c.operand->type, e.type, l);
  }
  case ExprKind::Index: {
    auto &ix = static_cast<const IndexExpr &>(e);
    Value value = emit(*ix.base);
    if (ix.base->type.shape.empty())
      return broadcastTo(value, {}, e.type.shape, l);
    std::vector<int64_t> shape = ix.base->type.shape;
    mlir::Type elem = tk::elementTypeOf(value.getType());
    for (size_t k = 0; k < ix.items.size(); ++k) {
      if (ix.items[k].kind != IndexItem::Kind::NewAxis)
        continue;
      shape.insert(shape.begin() + k, 1);
      value = ExpandDimsOp::create(builder_, l, RankedTensorType::get(shape, elem), value, (int32_t)k);
    }
    return value;
  }
  case ExprKind::Call: {
    auto &call = static_cast<const CallExpr &>(e);
    if (call.builtin >= 0)
      return emitBuiltin(call);
    SmallVector<Value> args;
    for (size_t i = 0; i < call.fn->params.size(); ++i)
      if (call.fn->params[i])
        args.push_back(emitConverted(*call.bound[i], call.fn->params[i]->type));
    auto op = func::CallOp::create(builder_, l, fns_.at(call.fn), args);
    return op.getNumResults() ? op.getResult(0) : Value();
  }
  default:
    return Value(); // types, strings, lists and none are consumed by builtins
  }
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

namespace {
void collectAssigned(const Stmt &stmt, std::vector<VarDecl *> &assigned, std::set<const VarDecl *> &declared) {
  auto add = [&](VarDecl *v) {
    if (v && !declared.count(v) && std::find(assigned.begin(), assigned.end(), v) == assigned.end())
      assigned.push_back(v);
  };
  switch (stmt.kind) {
  case StmtKind::Let:
    declared.insert(static_cast<const LetStmt &>(stmt).decl);
    break;
  case StmtKind::Assign:
    add(static_cast<const AssignStmt &>(stmt).target);
    break;
  case StmtKind::Block:
    for (auto &s : static_cast<const BlockStmt &>(stmt).stmts)
      collectAssigned(*s, assigned, declared);
    break;
  case StmtKind::If: {
    auto &ifs = static_cast<const IfStmt &>(stmt);
    if (!ifs.constCond || *ifs.constCond)
      collectAssigned(*ifs.thenBlock, assigned, declared);
    if (ifs.elseStmt && (!ifs.constCond || !*ifs.constCond))
      collectAssigned(*ifs.elseStmt, assigned, declared);
    break;
  }
  case StmtKind::For: {
    auto &loop = static_cast<const ForStmt &>(stmt);
    if (loop.isStatic)
      for (auto &body : loop.unrolled)
        collectAssigned(*body, assigned, declared);
    else
      collectAssigned(*loop.body, assigned, declared);
    break;
  }
  case StmtKind::While:
    collectAssigned(*static_cast<const WhileStmt &>(stmt).body, assigned, declared);
    break;
  default:
    break;
  }
}
} // namespace

std::vector<VarDecl *> MLIRGenImpl::assignedOutside(const Stmt &stmt) {
  std::vector<VarDecl *> assigned;
  std::set<const VarDecl *> declared;
  collectAssigned(stmt, assigned, declared);
  return assigned;
}

bool MLIRGenImpl::emitBlock(const BlockStmt &block, Value &returned) {
  for (const StmtPtr &stmt : block.stmts)
    if (emitStmt(*stmt, returned))
      return true;
  return false;
}

bool MLIRGenImpl::emitStmt(const Stmt &stmt, Value &returned) {
  switch (stmt.kind) {
  case StmtKind::Block:
    return emitBlock(static_cast<const BlockStmt &>(stmt), returned);
  case StmtKind::Let: {
    auto &let = static_cast<const LetStmt &>(stmt);
    if (let.decl && let.decl->type.isDesc())
      descriptors_[let.decl] = emitDescriptor(*let.init);
    else if (let.decl)
      vars_[let.decl] = emitConverted(*let.init, let.decl->type);
    return false;
  }
  case StmtKind::Assign: {
    auto &assign = static_cast<const AssignStmt &>(stmt);
    vars_[assign.target] = emitConverted(*assign.value, assign.target->type);
    return false;
  }
  case StmtKind::Expr:
    emit(*static_cast<const ExprStmt &>(stmt).expr);
    return false;
  case StmtKind::If: {
    bool didReturn = false;
    emitIf(static_cast<const IfStmt &>(stmt), didReturn, returned);
    return didReturn;
  }
  case StmtKind::For:
    emitFor(static_cast<const ForStmt &>(stmt));
    return false;
  case StmtKind::While:
    emitWhile(static_cast<const WhileStmt &>(stmt));
    return false;
  case StmtKind::Return: {
    auto &ret = static_cast<const ReturnStmt &>(stmt);
    if (ret.value && currentFn_)
      returned = emitConverted(*ret.value, currentFn_->returnType);
    return true;
  }
  }
  return false;
}

void MLIRGenImpl::emitIf(const IfStmt &ifs, bool &returnedOut, Value &returned) {
  if (ifs.constCond) {
    const Stmt *taken = *ifs.constCond ? ifs.thenBlock.get() : ifs.elseStmt.get();
    returnedOut = taken && emitStmt(*taken, returned);
    return;
  }
  if (emitFlatChain(ifs))
    return;
  bool thenReturns = alwaysReturns(*ifs.thenBlock);
  bool elseReturns = ifs.elseStmt && alwaysReturns(*ifs.elseStmt);
  bool yieldsValue = thenReturns && elseReturns && currentFn_ && currentFn_->returnType.isValue();
  Value cond = emit(*ifs.cond);
  Value value = emitIfOp(cond, ifs.thenBlock.get(), ifs.elseStmt.get(), assignedOutside(ifs), yieldsValue, loc(ifs.range));
  if (yieldsValue)
    returned = value;
  returnedOut = thenReturns && elseReturns;
}

Value MLIRGenImpl::emitIfOp(Value cond, const Stmt *thenStmt, const Stmt *elseStmt, const std::vector<VarDecl *> &carried,
                            bool yieldsValue, Location l) {
  SmallVector<mlir::Type> resultTypes;
  for (VarDecl *v : carried)
    resultTypes.push_back(mlirType(v->type));
  if (yieldsValue)
    resultTypes.push_back(mlirType(currentFn_->returnType));
  auto op = scf::IfOp::create(builder_, l, resultTypes, cond, /*withElseRegion=*/true);
  std::map<const VarDecl *, Value> before = vars_;
  auto emitBranch = [&](Block &block, const Stmt *stmt) {
    builder_.setInsertionPointToStart(&block);
    vars_ = before;
    Value branchReturn;
    if (stmt)
      emitStmt(*stmt, branchReturn);
    SmallVector<Value> yields;
    for (VarDecl *v : carried)
      yields.push_back(vars_.at(v));
    if (yieldsValue)
      yields.push_back(branchReturn);
    scf::YieldOp::create(builder_, l, yields);
  };
  // scf.if builders add an empty yield when there are no results: replace it.
  for (Block *block : {&op.getThenRegion().front(), &op.getElseRegion().front()})
    if (!block->empty())
      block->back().erase();
  emitBranch(op.getThenRegion().front(), thenStmt);
  emitBranch(op.getElseRegion().front(), elseStmt);
  builder_.setInsertionPointAfter(op);
  vars_ = before;
  for (size_t k = 0; k < carried.size(); ++k)
    vars_[carried[k]] = op.getResult(k);
  return yieldsValue ? op.getResults().back() : Value();
}

namespace {
/// The arms from which an `else if` chain is emitted flat. Nested, each arm's scf.if sits in
/// the else region of the one before, and MLIR's greedy rewriter queues an op's ancestors with
/// it: quadratic in the chain's length (1600 arms took 4.6 s to the tk dialect, and the parser
/// takes 25000).
constexpr size_t kFlatChainArms = 8;
} // namespace

/// An `else if` chain of kFlatChainArms or more runtime conditions, none of whose branches
/// returns, as a sequence of scf.ifs at one depth: arm i runs when its condition holds and no
/// arm before it was taken, and its condition is evaluated only then (it may call a function
/// with side effects, or load what an earlier condition guards), as the nested form does.
bool MLIRGenImpl::emitFlatChain(const IfStmt &ifs) {
  std::vector<const IfStmt *> arms;
  const Stmt *rest = &ifs;
  for (; rest && rest->kind == StmtKind::If && !static_cast<const IfStmt &>(*rest).constCond;
       rest = static_cast<const IfStmt &>(*rest).elseStmt.get())
    arms.push_back(static_cast<const IfStmt *>(rest));
  if (arms.size() < kFlatChainArms || mayReturn(ifs))
    return false;
  std::vector<VarDecl *> carried = assignedOutside(ifs);
  mlir::Type i1 = builder_.getI1Type();
  Value taken, done; // this arm's condition, and whether an arm before it was taken
  for (const IfStmt *arm : arms) {
    Location l = loc(arm->range);
    if (!done) {
      taken = emit(*arm->cond);
    } else {
      Value notDone = arith::XOrIOp::create(builder_, l, done, arith::ConstantIntOp::create(builder_, l, i1, 1));
      auto guard = scf::IfOp::create(builder_, l, TypeRange{i1}, notDone, /*withElseRegion=*/true);
      builder_.setInsertionPointToStart(&guard.getThenRegion().front());
      scf::YieldOp::create(builder_, l, ValueRange{emit(*arm->cond)});
      builder_.setInsertionPointToStart(&guard.getElseRegion().front());
      scf::YieldOp::create(builder_, l, ValueRange{arith::ConstantIntOp::create(builder_, l, i1, 0)});
      builder_.setInsertionPointAfter(guard);
      taken = guard.getResult(0);
    }
    emitIfOp(taken, arm->thenBlock.get(), nullptr, carried, /*yieldsValue=*/false, l);
    done = done ? arith::OrIOp::create(builder_, l, done, taken).getResult() : taken;
  }
  if (rest) {
    Location l = loc(rest->range);
    emitIfOp(arith::XOrIOp::create(builder_, l, done, arith::ConstantIntOp::create(builder_, l, i1, 1)), rest, nullptr,
             carried, /*yieldsValue=*/false, l);
  }
  return true;
}

void MLIRGenImpl::emitFor(const ForStmt &loop) {
  if (loop.isStatic) {
    Value unused;
    for (const BlockPtr &body : loop.unrolled)
      emitBlock(*body, unused);
    return;
  }
  auto &call = static_cast<const CallExpr &>(*loop.iter);
  Location l = loc(loop.range);
  Value lower = emitConverted(*call.bound[0], call.type);
  Value upper = emitConverted(*call.bound[1], call.type);
  Value step = emitConverted(*call.bound[2], call.type);
  std::vector<VarDecl *> carried = assignedOutside(*loop.body);
  SmallVector<Value> inits;
  for (VarDecl *v : carried)
    inits.push_back(vars_.at(v));
  auto op = scf::ForOp::create(builder_, l, lower, upper, step, inits);
  Block *body = op.getBody();
  if (!body->empty())
    body->back().erase();
  builder_.setInsertionPointToStart(body);
  std::map<const VarDecl *, Value> before = vars_;
  vars_[loop.inductionVar] = op.getInductionVar();
  for (size_t k = 0; k < carried.size(); ++k)
    vars_[carried[k]] = op.getRegionIterArgs()[k];
  Value unused;
  emitBlock(*loop.body, unused);
  SmallVector<Value> yields;
  for (VarDecl *v : carried)
    yields.push_back(vars_.at(v));
  scf::YieldOp::create(builder_, l, yields);
  builder_.setInsertionPointAfter(op);
  vars_ = before;
  for (size_t k = 0; k < carried.size(); ++k)
    vars_[carried[k]] = op.getResult(k);
}

void MLIRGenImpl::emitWhile(const WhileStmt &loop) {
  Location l = loc(loop.range);
  std::vector<VarDecl *> carried = assignedOutside(*loop.body);
  SmallVector<Value> inits;
  SmallVector<mlir::Type> types;
  SmallVector<Location> locs;
  for (VarDecl *v : carried) {
    inits.push_back(vars_.at(v));
    types.push_back(mlirType(v->type));
    locs.push_back(l);
  }
  auto op = scf::WhileOp::create(builder_, l, types, inits);
  std::map<const VarDecl *, Value> before = vars_;
  Block *cond = builder_.createBlock(&op.getBefore(), {}, types, locs);
  for (size_t k = 0; k < carried.size(); ++k)
    vars_[carried[k]] = cond->getArgument(k);
  Value c = emit(*loop.cond);
  scf::ConditionOp::create(builder_, l, c, cond->getArguments());
  Block *body = builder_.createBlock(&op.getAfter(), {}, types, locs);
  for (size_t k = 0; k < carried.size(); ++k)
    vars_[carried[k]] = body->getArgument(k);
  Value unused;
  emitBlock(*loop.body, unused);
  SmallVector<Value> yields;
  for (VarDecl *v : carried)
    yields.push_back(vars_.at(v));
  scf::YieldOp::create(builder_, l, yields);
  // A while loop that passes could delete once its results go unused (no side effect in it)
  // may never end: tk.progress keeps it, at every -O level.
  if (mlir::wouldOpBeTriviallyDead(op.getOperation())) {
    builder_.setInsertionPointToStart(body);
    tk::ProgressOp::create(builder_, l);
  }
  builder_.setInsertionPointAfter(op);
  vars_ = before;
  for (size_t k = 0; k < carried.size(); ++k)
    vars_[carried[k]] = op.getResult(k);
}

//===----------------------------------------------------------------------===//
// Functions and kernels
//===----------------------------------------------------------------------===//

func::FuncOp MLIRGenImpl::declareFn(ModuleOp module, const FnInstance &fn) {
  SmallVector<mlir::Type> params;
  for (const VarDecl *p : fn.params)
    if (p)
      params.push_back(mlirType(p->type));
  SmallVector<mlir::Type> results;
  if (fn.returnType.isValue())
    results.push_back(mlirType(fn.returnType));
  builder_.setInsertionPointToEnd(module.getBody());
  auto op = func::FuncOp::create(builder_, loc(fn.decl->nameRange), fn.mangledName,
                                 builder_.getFunctionType(params, results));
  op.setPrivate();
  fns_[&fn] = op;
  return op;
}

void MLIRGenImpl::emitFnBody(const FnInstance &fn) {
  func::FuncOp op = fns_.at(&fn);
  Block *entry = op.addEntryBlock();
  builder_.setInsertionPointToStart(entry);
  vars_.clear();
  size_t k = 0;
  for (const VarDecl *p : fn.params)
    if (p)
      vars_[p] = entry->getArgument(k++);
  currentFn_ = &fn;
  Value returned;
  emitBlock(*fn.body, returned);
  currentFn_ = nullptr;
  Location end = loc(fn.body->range);
  if (returned)
    func::ReturnOp::create(builder_, end, returned);
  else
    func::ReturnOp::create(builder_, end);
}

void MLIRGenImpl::emitKernel(ModuleOp module, const KernelInstance &kernel) {
  SmallVector<mlir::Type> params;
  for (const KernelArg &arg : kernel.args)
    params.push_back(mlirType(arg.type));
  builder_.setInsertionPointToEnd(module.getBody());
  auto op = func::FuncOp::create(builder_, loc(kernel.decl->nameRange), kernel.decl->name,
                                 builder_.getFunctionType(params, {}));
  op->setAttr(TkDialect::kKernel, builder_.getUnitAttr());
  op->setAttr(TkDialect::kNumWarps, builder_.getI32IntegerAttr(kernel.numWarps));
  op->setAttr(TkDialect::kNumStages, builder_.getI32IntegerAttr(kernel.numStages));
  if (kernel.warpSpecialize)
    op->setAttr(TkDialect::kWarpSpecialize, builder_.getUnitAttr());
  if (kernel.warpSpecialize == 2)
    op->setAttr(TkDialect::kPingPong, builder_.getUnitAttr());
  if (kernel.warpSpecialize == 3)
    op->setAttr(TkDialect::kTilePingPong, builder_.getUnitAttr());
  if (kernel.clusterSize > 1)
    op->setAttr(TkDialect::kClusterSize, builder_.getI32IntegerAttr(kernel.clusterSize));
  SmallVector<NamedAttribute> constants;
  for (auto &[name, value] : kernel.constants)
    constants.emplace_back(builder_.getStringAttr(name),
                           value.kind == ConstValue::Kind::Float ? (Attribute)builder_.getF64FloatAttr(value.f)
                           : value.kind == ConstValue::Kind::DType
                               ? (Attribute)TypeAttr::get(mlirType(Type::scalar(value.dtype())))
                               : (Attribute)builder_.getI64IntegerAttr(value.i));
  op->setAttr(TkDialect::kConstants, builder_.getDictionaryAttr(constants));
  // All argument attributes at once: setArgAttr per argument rebuilds (and uniques, for the
  // context's lifetime) the whole array each time, quadratic in the parameter count.
  SmallVector<DictionaryAttr> argAttrs;
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    NamedAttrList attrs;
    attrs.append(TkDialect::kName, builder_.getStringAttr(kernel.args[i].name));
    if (!kernel.args[i].type.isPtr() && isUnsigned(kernel.args[i].type.elem.scalar))
      attrs.append(TkDialect::kUnsigned, builder_.getUnitAttr());
    if (kernel.args[i].nospec)
      attrs.append(TkDialect::kNoSpec, builder_.getUnitAttr());
    argAttrs.push_back(attrs.getDictionary(builder_.getContext()));
  }
  op.setAllArgAttrs(argAttrs);
  Block *entry = op.addEntryBlock();
  builder_.setInsertionPointToStart(entry);
  vars_.clear();
  for (size_t i = 0; i < kernel.args.size(); ++i)
    vars_[kernel.args[i].var] = entry->getArgument(i);
  Value unused;
  emitBlock(*kernel.body, unused);
  func::ReturnOp::create(builder_, loc(kernel.body->range));
}

OwningOpRef<ModuleOp> generateModule(MLIRContext &context, const SourceManager &sources,
                                     const std::vector<const KernelInstance *> &kernels,
                                     const std::vector<std::unique_ptr<FnInstance>> &fns) {
  context.loadDialect<TkDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                      func::FuncDialect>();
  MLIRGenImpl gen(context, sources);
  Location moduleLoc = kernels.empty() ? gen.builder_.getUnknownLoc() : gen.loc(kernels[0]->decl->nameRange);
  OwningOpRef<ModuleOp> module = ModuleOp::create(moduleLoc);
  for (const auto &fn : fns)
    if (!fn->returnType.isError())
      gen.declareFn(*module, *fn);
  for (const auto &fn : fns)
    if (!fn->returnType.isError())
      gen.emitFnBody(*fn);
  for (const KernelInstance *kernel : kernels)
    gen.emitKernel(*module, *kernel);
  return module;
}

} // namespace tk
