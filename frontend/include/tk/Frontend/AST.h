// The abstract syntax tree of a .tk file. The parser builds it with source ranges; Sema
// instantiates kernels and device functions by cloning bodies and filling in each
// expression's type (and value, where it is a compile-time constant).
#ifndef TK_FRONTEND_AST_H
#define TK_FRONTEND_AST_H

#include "tk/Frontend/Diagnostics.h"
#include "tk/Support/Types.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tk {

/// A compile-time value: an integer (also i1), a float, a list of values (shapes), or a scalar
/// type (the value of a `const T: dtype` parameter; `i` holds the Scalar).
struct ConstValue {
  enum class Kind { Int, Float, List, DType };
  Kind kind = Kind::Int;
  int64_t i = 0;
  double f = 0;
  std::vector<ConstValue> list;
  static ConstValue ofInt(int64_t v) { ConstValue c; c.i = v; return c; }
  static ConstValue ofFloat(double v) { ConstValue c; c.kind = Kind::Float; c.f = v; return c; }
  static ConstValue ofDType(Scalar s) { ConstValue c; c.kind = Kind::DType; c.i = int64_t(s); return c; }
  Scalar dtype() const { return Scalar(i); }
  double asDouble() const { return kind == Kind::Float ? f : (double)i; }
  std::string str() const;
};

struct VarDecl;
struct FnInstance;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind { Int, Float, Bool, None, String, Name, Unary, Binary, Cast, Call, Index, List };

enum class BinOp { Mul, Div, Rem, Add, Sub, Shl, Shr, BitAnd, BitXor, BitOr,
                   Eq, Ne, Lt, Le, Gt, Ge, And, Or };
const char *binOpSpelling(BinOp op);

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

/// Destroys a subtree without recursing as deep as it is: the destructor of a node with
/// children of unbounded nesting (operator, cast and index chains, `else if` chains) hands them
/// here, and the outermost call frees them one after another, so a chain of 200,000 links is
/// freed on any thread's stack.
void destroyLater(ExprPtr &node);
void destroyLater(StmtPtr &node);

struct Expr {
  explicit Expr(ExprKind kind, SrcRange range) : kind(kind), range(range) {}
  virtual ~Expr() = default;
  virtual ExprPtr clone() const = 0;
  const ExprKind kind;
  SrcRange range;
  // Filled in by Sema on an instantiated copy.
  Type type;
  std::optional<ConstValue> value;
};

template <typename T> T *dyn(Expr *e) { return e && e->kind == T::kKind ? static_cast<T *>(e) : nullptr; }
template <typename T> const T *dyn(const Expr *e) {
  return e && e->kind == T::kKind ? static_cast<const T *>(e) : nullptr;
}

#define TK_EXPR_CLONE(Name)                                                                    \
  static constexpr ExprKind kKind = ExprKind::Name;                                            \
  ExprPtr clone() const override

struct IntLit : Expr {
  IntLit(SrcRange r, uint64_t v) : Expr(ExprKind::Int, r), literal(v) {}
  TK_EXPR_CLONE(Int) { return std::make_unique<IntLit>(*this); }
  uint64_t literal;
};

struct FloatLit : Expr {
  FloatLit(SrcRange r, double v) : Expr(ExprKind::Float, r), literal(v) {}
  TK_EXPR_CLONE(Float) { return std::make_unique<FloatLit>(*this); }
  double literal;
};

struct BoolLit : Expr {
  BoolLit(SrcRange r, bool v) : Expr(ExprKind::Bool, r), literal(v) {}
  TK_EXPR_CLONE(Bool) { return std::make_unique<BoolLit>(*this); }
  bool literal;
};

struct NoneLit : Expr {
  explicit NoneLit(SrcRange r) : Expr(ExprKind::None, r) {}
  TK_EXPR_CLONE(None) { return std::make_unique<NoneLit>(*this); }
};

struct StringLit : Expr {
  StringLit(SrcRange r, std::string v) : Expr(ExprKind::String, r), literal(std::move(v)) {}
  TK_EXPR_CLONE(String) { return std::make_unique<StringLit>(*this); }
  std::string literal;
};

struct NameExpr : Expr {
  NameExpr(SrcRange r, std::string n) : Expr(ExprKind::Name, r), name(std::move(n)) {}
  TK_EXPR_CLONE(Name) { return std::make_unique<NameExpr>(*this); }
  std::string name;
  VarDecl *var = nullptr; // Sema: the runtime variable this names (null for constants)
};

struct UnaryExpr : Expr {
  UnaryExpr(SrcRange r, char op, ExprPtr operand)
      : Expr(ExprKind::Unary, r), op(op), operand(std::move(operand)) {}
  TK_EXPR_CLONE(Unary) { return std::make_unique<UnaryExpr>(range, op, operand->clone()); }
  ~UnaryExpr() override { destroyLater(operand); }
  char op; // '-', '!', '~'
  ExprPtr operand;
};

struct BinaryExpr : Expr {
  BinaryExpr(SrcRange r, BinOp op, SrcRange opRange, ExprPtr lhs, ExprPtr rhs)
      : Expr(ExprKind::Binary, r), op(op), opRange(opRange), lhs(std::move(lhs)),
        rhs(std::move(rhs)) {}
  TK_EXPR_CLONE(Binary) {
    return std::make_unique<BinaryExpr>(range, op, opRange, lhs->clone(), rhs->clone());
  }
  ~BinaryExpr() override {
    destroyLater(lhs);
    destroyLater(rhs);
  }
  BinOp op;
  SrcRange opRange;
  ExprPtr lhs, rhs;
  Type operandType; // Sema: the promoted type both operands convert to
  bool shortCircuit = false; // Sema: a constant left side decides `&&`/`||`; the right side is not emitted
};

/// A type written in source: `f32`, `ptr<f16>`, `f16[64, 32]`.
struct TypeExpr {
  std::string name;
  SrcRange range;
  std::unique_ptr<TypeExpr> inner;
  std::vector<ExprPtr> dims;
  std::unique_ptr<TypeExpr> clone() const;
};

struct CastExpr : Expr {
  CastExpr(SrcRange r, ExprPtr operand, std::unique_ptr<TypeExpr> target)
      : Expr(ExprKind::Cast, r), operand(std::move(operand)), target(std::move(target)) {}
  TK_EXPR_CLONE(Cast) {
    return std::make_unique<CastExpr>(range, operand->clone(), target->clone());
  }
  ~CastExpr() override { destroyLater(operand); }
  ExprPtr operand;
  std::unique_ptr<TypeExpr> target;
};

struct CallArg {
  std::string name; // empty for positional arguments
  SrcRange nameRange;
  ExprPtr value;
};

struct CallExpr : Expr {
  CallExpr(SrcRange r, std::string callee, SrcRange calleeRange)
      : Expr(ExprKind::Call, r), callee(std::move(callee)), calleeRange(calleeRange) {}
  TK_EXPR_CLONE(Call);
  std::string callee;
  SrcRange calleeRange;
  std::vector<CallArg> args;
  // Sema: which builtin (index into the builtin table) or device-function instance; and the
  // arguments bound to the callee's parameters in declaration order (null where absent).
  int builtin = -1;
  FnInstance *fn = nullptr;
  std::vector<Expr *> bound;
  FnInstance *combineFn = nullptr; // reduce/scan: the instantiated combine function
};

struct IndexItem {
  enum class Kind { Slice, NewAxis, Expr };
  Kind kind;
  SrcRange range;
  ExprPtr expr;
};

struct IndexExpr : Expr {
  IndexExpr(SrcRange r, ExprPtr base) : Expr(ExprKind::Index, r), base(std::move(base)) {}
  TK_EXPR_CLONE(Index);
  ~IndexExpr() override { destroyLater(base); }
  ExprPtr base;
  std::vector<IndexItem> items;
};

struct ListExpr : Expr {
  explicit ListExpr(SrcRange r) : Expr(ExprKind::List, r) {}
  TK_EXPR_CLONE(List);
  std::vector<ExprPtr> elems;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind { Let, Assign, Expr, If, For, While, Return, Block };

struct Stmt {
  Stmt(StmtKind kind, SrcRange range) : kind(kind), range(range) {}
  virtual ~Stmt() = default;
  virtual StmtPtr clone() const = 0;
  const StmtKind kind;
  SrcRange range;
};

template <typename T> T *dyn(Stmt *s) { return s && s->kind == T::kKind ? static_cast<T *>(s) : nullptr; }
template <typename T> const T *dyn(const Stmt *s) {
  return s && s->kind == T::kKind ? static_cast<const T *>(s) : nullptr;
}

#define TK_STMT_CLONE(Name)                                                                    \
  static constexpr StmtKind kKind = StmtKind::Name;                                            \
  StmtPtr clone() const override

struct BlockStmt : Stmt {
  explicit BlockStmt(SrcRange r) : Stmt(StmtKind::Block, r) {}
  TK_STMT_CLONE(Block);
  std::unique_ptr<BlockStmt> cloneBlock() const;
  std::vector<StmtPtr> stmts;
  /// The source tokens the block spans and their characters (comments and whitespace are not
  /// tokens; 0 for a block Sema made): what a copy of it costs, charged before a static_range
  /// unrolls it, a function is instantiated or a kernel is checked in another config (a loop
  /// that never runs is copied, never checked).
  size_t tokens = 0, bytes = 0;
  /// A copy's cost in units of the compile's budget (SemaLimits::kMaxCheckedNodes): a node a
  /// token, and its text (a name may be megabytes long, and every copy has its own).
  size_t copyCost() const { return tokens + bytes / 16; }
};
using BlockPtr = std::unique_ptr<BlockStmt>;

struct LetStmt : Stmt {
  LetStmt(SrcRange r) : Stmt(StmtKind::Let, r) {}
  TK_STMT_CLONE(Let);
  bool isVar = false;
  std::string name;
  SrcRange nameRange;
  std::unique_ptr<TypeExpr> annotation;
  ExprPtr init;
  VarDecl *decl = nullptr; // Sema
};

struct AssignStmt : Stmt {
  AssignStmt(SrcRange r) : Stmt(StmtKind::Assign, r) {}
  TK_STMT_CLONE(Assign);
  std::string name;
  SrcRange nameRange;
  std::optional<BinOp> compound; // `+=` and friends
  SrcRange opRange;
  ExprPtr value; // after Sema: the full right-hand side, converted to the target's type
  VarDecl *target = nullptr; // Sema
};

struct ExprStmt : Stmt {
  ExprStmt(SrcRange r, ExprPtr e) : Stmt(StmtKind::Expr, r), expr(std::move(e)) {}
  TK_STMT_CLONE(Expr) { return std::make_unique<ExprStmt>(range, expr->clone()); }
  ExprPtr expr;
};

struct IfStmt : Stmt {
  IfStmt(SrcRange r) : Stmt(StmtKind::If, r) {}
  TK_STMT_CLONE(If);
  ~IfStmt() override {
    destroyLater(cond);
    destroyLater(elseStmt);
  }
  ExprPtr cond;
  BlockPtr thenBlock;
  StmtPtr elseStmt; // a BlockStmt, an IfStmt, or null
  std::optional<bool> constCond; // Sema: a compile-time condition picks one branch
};

struct ForStmt : Stmt {
  ForStmt(SrcRange r) : Stmt(StmtKind::For, r) {}
  TK_STMT_CLONE(For);
  std::string var;
  SrcRange varRange;
  ExprPtr iter; // range(...) or static_range(...)
  BlockPtr body;
  // Sema
  bool isStatic = false;
  VarDecl *inductionVar = nullptr;
  std::vector<BlockPtr> unrolled; // static_range: one typed copy of the body per iteration
};

struct WhileStmt : Stmt {
  WhileStmt(SrcRange r) : Stmt(StmtKind::While, r) {}
  TK_STMT_CLONE(While);
  ExprPtr cond;
  BlockPtr body;
};

struct ReturnStmt : Stmt {
  ReturnStmt(SrcRange r, ExprPtr v) : Stmt(StmtKind::Return, r), value(std::move(v)) {}
  TK_STMT_CLONE(Return) { return std::make_unique<ReturnStmt>(range, value ? value->clone() : nullptr); }
  ExprPtr value;
};

//===----------------------------------------------------------------------===//
// Items
//===----------------------------------------------------------------------===//

struct ImportItem {
  std::string path;
  SrcRange range;
};

struct ConstItem {
  std::string name;
  SrcRange nameRange;
  std::unique_ptr<TypeExpr> annotation;
  ExprPtr value;
};

struct FnParam {
  std::string name;
  SrcRange range;
  bool isConst = false;
  std::unique_ptr<TypeExpr> annotation;
};

struct FnItem {
  std::string name;
  SrcRange nameRange;
  std::vector<FnParam> params;
  std::unique_ptr<TypeExpr> returnType;
  BlockPtr body;
  uint32_t fileId = 0;
};

struct KernelParam {
  enum class Mode { Runtime, Const, Nospec };
  std::string name;
  SrcRange range;
  Mode mode = Mode::Runtime;
  std::unique_ptr<TypeExpr> type;
  ExprPtr defaultValue;
};

/// `{ BM: 128, ... }`, `[ ... ]` or an expression inside a decorator.
struct DecoratorValue {
  enum class Kind { Dict, List, Expr };
  Kind kind = Kind::Expr;
  SrcRange range;
  std::vector<std::pair<std::string, DecoratorValue>> entries;
  std::vector<SrcRange> entryRanges;
  std::vector<DecoratorValue> items;
  ExprPtr expr;
};

struct Decorator {
  std::string name;
  SrcRange range;
  std::vector<std::pair<std::string, DecoratorValue>> args;
  std::vector<SrcRange> argRanges;
};

struct KernelItem {
  std::string name;
  SrcRange nameRange;
  std::vector<Decorator> decorators;
  std::vector<KernelParam> params;
  BlockPtr body;
  uint32_t fileId = 0;
};

/// One parsed .tk file.
struct ModuleAST {
  uint32_t fileId = 0;
  std::string path;
  std::vector<ImportItem> imports;
  std::vector<std::unique_ptr<ConstItem>> consts;
  std::vector<std::unique_ptr<FnItem>> fns;
  std::vector<std::unique_ptr<KernelItem>> kernels;
};

/// Writes the AST as an indented S-expression tree (`tkc --emit=ast`).
void dumpAST(const ModuleAST &module, std::ostream &os);

} // namespace tk

#endif
