#include "tk/Frontend/AST.h"

#include <new>
#include <ostream>
#include <sstream>

namespace tk {

namespace {
/// The nodes destroyLater was handed while an outermost call frees them (per thread).
struct Graveyard {
  std::vector<ExprPtr> exprs;
  std::vector<StmtPtr> stmts;
};
thread_local Graveyard *graveyard = nullptr;

// (Called from destructors, so it must not throw: out of memory for the list, a node is freed
// where it is, its children deferred if they can be; the memory it gives back is what was short.)
template <typename P> void bury(P &node, std::vector<P> Graveyard::*list) noexcept {
  if (!node)
    return;
  Graveyard dead;
  bool outermost = !graveyard;
  if (outermost)
    graveyard = &dead;
  try {
    (graveyard->*list).push_back(std::move(node));
  } catch (const std::bad_alloc &) {
    node.reset();
  }
  if (!outermost)
    return;
  while (!dead.exprs.empty() || !dead.stmts.empty()) {
    if (!dead.exprs.empty()) {
      ExprPtr next = std::move(dead.exprs.back());
      dead.exprs.pop_back();
      next.reset(); // its children land in `dead`
    } else {
      StmtPtr next = std::move(dead.stmts.back());
      dead.stmts.pop_back();
      next.reset();
    }
  }
  graveyard = nullptr;
}
} // namespace

void destroyLater(ExprPtr &node) { bury(node, &Graveyard::exprs); }
void destroyLater(StmtPtr &node) { bury(node, &Graveyard::stmts); }

std::string ConstValue::str() const {
  switch (kind) {
  case Kind::Int:
    return std::to_string(i);
  case Kind::Float: {
    std::ostringstream os;
    os.precision(17);
    os << f;
    return os.str();
  }
  case Kind::DType: return scalarName(dtype());
  case Kind::List: {
    std::string out = "[";
    for (size_t k = 0; k < list.size(); ++k)
      out += (k ? ", " : "") + list[k].str();
    return out + "]";
  }
  }
  return "";
}

const char *binOpSpelling(BinOp op) {
  static const char *const names[] = {"*", "/", "%", "+", "-", "<<", ">>", "&", "^", "|",
                                      "==", "!=", "<", "<=", ">", ">=", "&&", "||"};
  return names[(int)op];
}

std::unique_ptr<TypeExpr> TypeExpr::clone() const {
  auto copy = std::make_unique<TypeExpr>();
  copy->name = name;
  copy->range = range;
  if (inner)
    copy->inner = inner->clone();
  for (const ExprPtr &dim : dims)
    copy->dims.push_back(dim->clone());
  return copy;
}

ExprPtr CallExpr::clone() const {
  auto copy = std::make_unique<CallExpr>(range, callee, calleeRange);
  for (const CallArg &arg : args)
    copy->args.push_back(CallArg{arg.name, arg.nameRange, arg.value->clone()});
  return copy;
}

ExprPtr IndexExpr::clone() const {
  auto copy = std::make_unique<IndexExpr>(range, base->clone());
  for (const IndexItem &item : items)
    copy->items.push_back(IndexItem{item.kind, item.range, item.expr ? item.expr->clone() : nullptr});
  return copy;
}

ExprPtr ListExpr::clone() const {
  auto copy = std::make_unique<ListExpr>(range);
  for (const ExprPtr &e : elems)
    copy->elems.push_back(e->clone());
  return copy;
}

std::unique_ptr<BlockStmt> BlockStmt::cloneBlock() const {
  auto copy = std::make_unique<BlockStmt>(range);
  copy->tokens = tokens;
  copy->bytes = bytes;
  for (const StmtPtr &s : stmts)
    copy->stmts.push_back(s->clone());
  return copy;
}

StmtPtr BlockStmt::clone() const { return cloneBlock(); }

StmtPtr LetStmt::clone() const {
  auto copy = std::make_unique<LetStmt>(range);
  copy->isVar = isVar;
  copy->name = name;
  copy->nameRange = nameRange;
  if (annotation)
    copy->annotation = annotation->clone();
  copy->init = init->clone();
  return copy;
}

StmtPtr AssignStmt::clone() const {
  auto copy = std::make_unique<AssignStmt>(range);
  copy->name = name;
  copy->nameRange = nameRange;
  copy->compound = compound;
  copy->opRange = opRange;
  copy->value = value->clone();
  return copy;
}

StmtPtr IfStmt::clone() const {
  auto copy = std::make_unique<IfStmt>(range);
  copy->cond = cond->clone();
  copy->thenBlock = thenBlock->cloneBlock();
  if (elseStmt)
    copy->elseStmt = elseStmt->clone();
  return copy;
}

StmtPtr ForStmt::clone() const {
  auto copy = std::make_unique<ForStmt>(range);
  copy->var = var;
  copy->varRange = varRange;
  copy->iter = iter->clone();
  copy->body = body->cloneBlock();
  return copy;
}

StmtPtr WhileStmt::clone() const {
  auto copy = std::make_unique<WhileStmt>(range);
  copy->cond = cond->clone();
  copy->body = body->cloneBlock();
  return copy;
}

//===----------------------------------------------------------------------===//
// Dump
//===----------------------------------------------------------------------===//

namespace {
class Dumper {
public:
  explicit Dumper(std::ostream &os) : os_(os) {}

  void line(const std::string &text) { os_ << std::string(depth_ * 2, ' ') << text << "\n"; }

  std::string loc(SrcRange r) {
    return "<" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.col) + ">";
  }

  std::string typeText(const TypeExpr *t) {
    if (!t)
      return "";
    std::string out = t->name;
    if (t->inner)
      out += "<" + typeText(t->inner.get()) + ">";
    if (!t->dims.empty())
      out += "[" + std::to_string(t->dims.size()) + " dims]";
    return out;
  }

  void expr(const Expr *e) {
    switch (e->kind) {
    case ExprKind::Int: line("Int " + std::to_string(static_cast<const IntLit *>(e)->literal) + " " + loc(e->range)); break;
    case ExprKind::Float: line("Float " + ConstValue::ofFloat(static_cast<const FloatLit *>(e)->literal).str() + " " + loc(e->range)); break;
    case ExprKind::Bool: line(std::string("Bool ") + (static_cast<const BoolLit *>(e)->literal ? "true" : "false") + " " + loc(e->range)); break;
    case ExprKind::None: line("None " + loc(e->range)); break;
    case ExprKind::String: line("String \"" + static_cast<const StringLit *>(e)->literal + "\" " + loc(e->range)); break;
    case ExprKind::Name: line("Name " + static_cast<const NameExpr *>(e)->name + " " + loc(e->range)); break;
    case ExprKind::Unary: {
      auto *u = static_cast<const UnaryExpr *>(e);
      nest("Unary " + std::string(1, u->op) + " " + loc(e->range), [&] { expr(u->operand.get()); });
      break;
    }
    case ExprKind::Binary: {
      auto *b = static_cast<const BinaryExpr *>(e);
      nest(std::string("Binary ") + binOpSpelling(b->op) + " " + loc(e->range), [&] {
        expr(b->lhs.get());
        expr(b->rhs.get());
      });
      break;
    }
    case ExprKind::Cast: {
      auto *c = static_cast<const CastExpr *>(e);
      nest("Cast " + typeText(c->target.get()) + " " + loc(e->range), [&] { expr(c->operand.get()); });
      break;
    }
    case ExprKind::Call: {
      auto *c = static_cast<const CallExpr *>(e);
      nest("Call " + c->callee + " " + loc(e->range), [&] {
        for (const CallArg &arg : c->args) {
          if (arg.name.empty())
            expr(arg.value.get());
          else
            nest("Keyword " + arg.name, [&] { expr(arg.value.get()); });
        }
      });
      break;
    }
    case ExprKind::Index: {
      auto *ix = static_cast<const IndexExpr *>(e);
      nest("Index " + loc(e->range), [&] {
        expr(ix->base.get());
        for (const IndexItem &item : ix->items) {
          if (item.kind == IndexItem::Kind::Slice)
            line("Slice");
          else if (item.kind == IndexItem::Kind::NewAxis)
            line("NewAxis");
          else
            expr(item.expr.get());
        }
      });
      break;
    }
    case ExprKind::List: {
      auto *l = static_cast<const ListExpr *>(e);
      nest("List " + loc(e->range), [&] {
        for (const ExprPtr &x : l->elems)
          expr(x.get());
      });
      break;
    }
    }
  }

  void stmt(const Stmt *s) {
    switch (s->kind) {
    case StmtKind::Block:
      nest("Block", [&] {
        for (const StmtPtr &x : static_cast<const BlockStmt *>(s)->stmts)
          stmt(x.get());
      });
      break;
    case StmtKind::Let: {
      auto *l = static_cast<const LetStmt *>(s);
      std::string ann = l->annotation ? " : " + typeText(l->annotation.get()) : "";
      nest(std::string(l->isVar ? "Var " : "Let ") + l->name + ann + " " + loc(s->range), [&] { expr(l->init.get()); });
      break;
    }
    case StmtKind::Assign: {
      auto *a = static_cast<const AssignStmt *>(s);
      std::string op = a->compound ? std::string(binOpSpelling(*a->compound)) + "=" : "=";
      nest("Assign " + a->name + " " + op + " " + loc(s->range), [&] { expr(a->value.get()); });
      break;
    }
    case StmtKind::Expr:
      nest("ExprStmt " + loc(s->range), [&] { expr(static_cast<const ExprStmt *>(s)->expr.get()); });
      break;
    case StmtKind::If: {
      auto *i = static_cast<const IfStmt *>(s);
      nest("If " + loc(s->range), [&] {
        expr(i->cond.get());
        stmt(i->thenBlock.get());
        if (i->elseStmt)
          nest("Else", [&] { stmt(i->elseStmt.get()); });
      });
      break;
    }
    case StmtKind::For: {
      auto *f = static_cast<const ForStmt *>(s);
      nest("For " + f->var + " " + loc(s->range), [&] {
        expr(f->iter.get());
        stmt(f->body.get());
      });
      break;
    }
    case StmtKind::While: {
      auto *w = static_cast<const WhileStmt *>(s);
      nest("While " + loc(s->range), [&] {
        expr(w->cond.get());
        stmt(w->body.get());
      });
      break;
    }
    case StmtKind::Return: {
      auto *r = static_cast<const ReturnStmt *>(s);
      nest("Return " + loc(s->range), [&] {
        if (r->value)
          expr(r->value.get());
      });
      break;
    }
    }
  }

  void decoratorValue(const DecoratorValue &v) {
    switch (v.kind) {
    case DecoratorValue::Kind::Expr: expr(v.expr.get()); break;
    case DecoratorValue::Kind::List:
      nest("List", [&] { for (auto &x : v.items) decoratorValue(x); });
      break;
    case DecoratorValue::Kind::Dict:
      nest("Dict", [&] {
        for (auto &[key, value] : v.entries)
          nest("Entry " + key, [&] { decoratorValue(value); });
      });
      break;
    }
  }

  void module(const ModuleAST &m) {
    nest("Module " + m.path, [&] {
      for (const ImportItem &imp : m.imports)
        line("Import \"" + imp.path + "\" " + loc(imp.range));
      for (auto &c : m.consts)
        nest("Const " + c->name + (c->annotation ? " : " + typeText(c->annotation.get()) : "") + " " + loc(c->nameRange), [&] { expr(c->value.get()); });
      for (auto &f : m.fns) {
        nest("Fn " + f->name + " " + loc(f->nameRange), [&] {
          for (const FnParam &p : f->params)
            line(std::string("Param ") + (p.isConst ? "const " : "") + p.name + (p.annotation ? " : " + typeText(p.annotation.get()) : ""));
          stmt(f->body.get());
        });
      }
      for (auto &k : m.kernels) {
        nest("Kernel " + k->name + " " + loc(k->nameRange), [&] {
          for (const Decorator &d : k->decorators)
            nest("Decorator " + d.name, [&] {
              for (auto &[key, value] : d.args)
                nest("Arg " + key, [&] { decoratorValue(value); });
            });
          for (const KernelParam &p : k->params) {
            const char *mode = p.mode == KernelParam::Mode::Const ? "const " : p.mode == KernelParam::Mode::Nospec ? "nospec " : "";
            nest(std::string("Param ") + mode + p.name + " : " + typeText(p.type.get()), [&] {
              if (p.defaultValue)
                expr(p.defaultValue.get());
            });
          }
          stmt(k->body.get());
        });
      }
    });
  }

private:
  template <typename F> void nest(const std::string &head, F body) {
    line(head);
    ++depth_;
    body();
    --depth_;
  }
  std::ostream &os_;
  int depth_ = 0;
};
} // namespace

void dumpAST(const ModuleAST &module, std::ostream &os) { Dumper(os).module(module); }

} // namespace tk
