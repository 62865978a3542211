// The emitter behind generateModule, shared by MLIRGen.cpp (statements, operators,
// conversions) and MLIRGenBuiltins.cpp (builtin calls).
#ifndef TK_FRONTEND_MLIRGENIMPL_H
#define TK_FRONTEND_MLIRGENIMPL_H

#include "tk/Dialect/Tk/IR/Tk.h"
#include "tk/Frontend/MLIRGen.h"

#include "mlir/IR/Builders.h"

#include <map>
#include <vector>

namespace tk {

/// The integer scalar types' ranges, wide enough for u64's and i64's together (the clamps of
/// saturating conversions).
inline __int128 intMin(Scalar s) { return isUnsigned(s) || s == Scalar::I1 ? 0 : -(__int128(1) << (bitWidth(s) - 1)); }
inline __int128 intMax(Scalar s) {
  return s == Scalar::I1 ? 1 : (__int128(1) << (bitWidth(s) - (isUnsigned(s) ? 0 : 1))) - 1;
}

class MLIRGenImpl {
public:
  MLIRGenImpl(mlir::MLIRContext &context, const SourceManager &sources)
      : context_(context), builder_(&context), sources_(sources) {}

  mlir::Location loc(SrcRange range);
  mlir::Type elemType(const ElemType &elem);
  mlir::Type mlirType(const Type &type);

  mlir::func::FuncOp declareFn(mlir::ModuleOp module, const FnInstance &fn);
  void emitFnBody(const FnInstance &fn);
  void emitKernel(mlir::ModuleOp module, const KernelInstance &kernel);

  /// Emits the statements; returns true when the block returned (with `returned` set to the
  /// returned value, if any).
  bool emitBlock(const BlockStmt &block, mlir::Value &returned);
  bool emitStmt(const Stmt &stmt, mlir::Value &returned);
  void emitIf(const IfStmt &ifs, bool &returnedOut, mlir::Value &returned);
  bool emitFlatChain(const IfStmt &ifs);
  /// scf.if `cond` over the two statements (either may be null), yielding `carried` (and the
  /// returned value with `yieldsValue`, which it returns).
  mlir::Value emitIfOp(mlir::Value cond, const Stmt *thenStmt, const Stmt *elseStmt, const std::vector<VarDecl *> &carried,
                       bool yieldsValue, mlir::Location l);
  void emitFor(const ForStmt &loop);
  void emitWhile(const WhileStmt &loop);

  mlir::Value emit(const Expr &e);
  mlir::Value emitConverted(const Expr &e, const Type &to);
  mlir::Value emitBinary(const BinaryExpr &e);
  mlir::Value emitBuiltin(const CallExpr &e);
  mlir::Value emitMath(const CallExpr &e, BuiltinId id);
  mlir::Value emitSaturatingCast(mlir::Value x, const Type &from, const Type &to, mlir::Location loc);
  mlir::Value emitReduction(const CallExpr &e, BuiltinId id);
  mlir::Value emitScan(const CallExpr &e, BuiltinId id);

  /// A tensor descriptor: the scalars tensor_desc was given. Loads and stores through it become
  /// a tile of pointers and a mask (MLIRGenDesc.cpp); it is never an IR value itself.
  struct Descriptor {
    mlir::Value base;
    std::vector<mlir::Value> shape;
    std::vector<mlir::Value> strides; // null where the stride is the constant 1: no multiply
  };
  /// The descriptor a tensor_desc call makes, or that a name is bound to.
  Descriptor emitDescriptor(const Expr &e);
  /// load(desc, offsets) or store(desc, offsets, value).
  mlir::Value emitDescriptorAccess(const CallExpr &e);

  mlir::Value constant(const Type &type, const ConstValue &value, mlir::Location loc);
  mlir::Value zero(const Type &type, mlir::Location loc);
  /// Converts element type, then broadcasts to the target shape.
  mlir::Value convert(mlir::Value value, const Type &from, const Type &to, mlir::Location loc);
  mlir::Value castElements(mlir::Value value, const ElemType &from, const ElemType &to,
                           const std::vector<int64_t> &shape, mlir::Location loc);
  mlir::Value broadcastTo(mlir::Value value, const std::vector<int64_t> &from,
                          const std::vector<int64_t> &to, mlir::Location loc);
  /// A binary arithmetic op on values of one type (`*`, `+`, max, ...).
  mlir::Value arith(BinOp op, mlir::Value a, mlir::Value b, const ElemType &elem, mlir::Location loc);
  mlir::Value compare(BinOp op, mlir::Value a, mlir::Value b, const ElemType &elem, mlir::Location loc);
  mlir::Value shift(BinOp op, mlir::Value a, mlir::Value b, bool isUnsigned, mlir::Location loc);
  mlir::Value minMax(bool isMax, mlir::Value a, mlir::Value b, const ElemType &elem, mlir::Location loc);

  /// Variables declared outside `stmt` and assigned inside it, in first-assignment order.
  std::vector<VarDecl *> assignedOutside(const Stmt &stmt);

  mlir::MLIRContext &context_;
  mlir::OpBuilder builder_;
  const SourceManager &sources_;
  std::map<const VarDecl *, mlir::Value> vars_;
  std::map<const VarDecl *, Descriptor> descriptors_; // `let` bindings of descriptors (never carried)
  std::map<const FnInstance *, mlir::func::FuncOp> fns_;
  const FnInstance *currentFn_ = nullptr;
};

} // namespace tk

#endif
