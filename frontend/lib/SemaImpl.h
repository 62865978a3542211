// The checker behind Sema, shared by Sema*.cpp. One SemaImpl checks one body (a kernel's, a
// device function instance's, or a module constant's expression).
#ifndef TK_FRONTEND_SEMAIMPL_H
#define TK_FRONTEND_SEMAIMPL_H

#include "tk/Frontend/Sema.h"

#include "llvm/ADT/DenseMap.h"

namespace tk {

class SemaImpl {
public:
  SemaImpl(Sema &sema, uint32_t fileId, std::vector<std::pair<const FnItem *, SrcRange>> *callStack)
      : sema_(sema), program_(sema.program_), diags_(sema.diags_), fileId_(fileId),
        callStack_(callStack) {}

  // Statements (SemaStmt.cpp)
  void checkBody(BlockStmt &body);
  void checkBlock(BlockStmt &block);
  void checkStmts(std::vector<StmtPtr> &stmts);
  void checkStmt(Stmt &stmt, std::vector<StmtPtr> &siblings, size_t index);
  static bool alwaysReturns(const Stmt &stmt);
  /// mayReturn(ifs), from the answer its `else if` link left when it was checked.
  bool ifMayReturn(const IfStmt &ifs);

  // Expressions (SemaExpr.cpp)
  Type check(Expr &e);
  Type checkBinary(BinaryExpr &e);
  Type checkUnary(UnaryExpr &e);
  Type checkCast(CastExpr &e);
  Type checkIndex(IndexExpr &e);
  Type checkName(NameExpr &e);
  Type checkCall(CallExpr &e);
  Type checkFnCall(CallExpr &e, const FnItem &fn);

  // Builtins (SemaBuiltins.cpp binds and dispatches; SemaBuiltins.h checks each family)
  Type checkBuiltin(CallExpr &e, const BuiltinInfo &info);
  /// Binds e's arguments to the parameters `names`, then checks them (all but the first
  /// `alreadyChecked`, which the caller checked).
  bool bindArguments(CallExpr &e, const std::vector<std::string> &names,
                     const std::vector<bool> &optional, bool variadicTail, const std::string &what,
                     size_t alreadyChecked = 0);

  // Helpers
  Type error(SrcRange range, const std::string &message);
  /// Counts one node against SemaLimits::kMaxCheckedNodes; false (reported once) past it.
  bool spend(SrcRange range, size_t nodes = 1);
  Type resolveType(const TypeExpr &t, bool allowShape);
  /// A scalar type's name, or a `const T: dtype` parameter in scope standing for one.
  std::optional<Scalar> scalarTypeNamed(const std::string &name) const;
  /// " (it is a runtime value ...)" when `name` is in scope but not a type; "" otherwise.
  std::string notATypeHint(const std::string &name) const;
  std::optional<int64_t> constInt(Expr *e, const std::string &what);
  std::optional<std::vector<int64_t>> constShape(Expr *e, const std::string &what);
  bool checkTileShape(const std::vector<int64_t> &shape, SrcRange range);
  /// Where an exact result of weak integer constants lands (Triton's constexpr arithmetic):
  /// `type` where that holds it, else a weak i64; nullopt, with an error at `range`, past i64.
  std::optional<Type> weakIntType(__int128 exact, const Type &type, SrcRange range);
  std::optional<std::vector<int64_t>> broadcastShapes(const Type &a, const Type &b, SrcRange range,
                                                      const std::string &what);
  Type promote(const Type &a, const Type &b);
  /// Whether a value of `from` may be used where `to` is expected without an explicit cast:
  /// the same element, or a weak literal, and a shape that broadcasts to `to`'s.
  bool implicitlyConverts(const Type &from, const Type &to);
  /// Requires `e` to convert implicitly to `to`; reports an error naming `what` otherwise.
  bool coerce(Expr &e, const Type &to, const std::string &what);
  std::optional<ConstValue> foldBinary(BinOp op, const ConstValue &a, const ConstValue &b,
                                       const Type &operandType, const Type &resultType, SrcRange range);
  /// Whether this is the right side of a constant `&&`/`||` that decides: a constant that
  /// cannot be evaluated there (a division by zero) is no error, as it is never emitted.
  bool unevaluated() const { return unevaluated_ > 0; }
  static ConstValue castConst(const ConstValue &v, const Type &from, const Type &to);

  /// The editor's index (Sema::setIndex): what lies at `range`, and which declaration a name
  /// there refers to. No-ops without an index.
  bool indexing() const { return sema_.index_ != nullptr; }
  void indexHover(SrcRange range, std::string text) {
    if (sema_.index_)
      sema_.index_->addHover(range, std::move(text));
  }
  void indexReference(SrcRange use, SrcRange decl) {
    if (sema_.index_)
      sema_.index_->addReference(use, decl);
  }
  /// "name: type", with " = value" for a constant.
  static std::string describe(const std::string &name, const Type &type, const ConstValue *value);

  // Scopes
  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }
  VarDecl *declareVar(const std::string &name, SrcRange range, Type type, VarDecl::Origin origin);
  void declareConst(const std::string &name, SrcRange range, Type type, ConstValue value);
  const Sema::Symbol *lookupLocal(const std::string &name) const;
  std::optional<Sema::Symbol> evalModuleConst(const ConstItem &item);

  Sema &sema_;
  Program &program_;
  DiagEngine &diags_;
  uint32_t fileId_;
  std::vector<std::pair<const FnItem *, SrcRange>> *callStack_;
  std::vector<std::map<std::string, Sema::Symbol>> scopes_;
  bool inKernel_ = false;
  int loopDepth_ = 0;
  llvm::DenseMap<const IfStmt *, bool> chainMayReturn_; // ifMayReturn's answers for the link before
  int blockDepth_ = 0;
  int unevaluated_ = 0; // nesting of operands a constant `&&` or `||` does not evaluate
  std::optional<Type> returnType_;
  SrcRange returnRange_;
};

ConstValue normalizeInt(int64_t v, Scalar s);
/// An integer constant of type `type` as the integer it is (a u64's bits read unsigned).
__int128 exactInt(const ConstValue &v, Scalar type);
/// Whether integer type `s` holds `v` (i1: 0 and 1).
bool holdsInt(Scalar s, __int128 v);

} // namespace tk

#endif
