// Checking of statements: bindings and their mutability, assignments, control flow, loop
// unrolling for static_range, and the placement rules for `return`.
#include "SemaImpl.h"

#include <algorithm>

namespace tk {

VarDecl *SemaImpl::declareVar(const std::string &name, SrcRange range, Type type, VarDecl::Origin origin) {
  auto var = std::make_unique<VarDecl>(VarDecl{name, range, type, origin});
  if (indexing() && !type.isError()) {
    indexHover(range, describe(name, type, nullptr));
    indexReference(range, range); // a declaration is its own definition
  }
  VarDecl *raw = var.get();
  sema_.vars_.push_back(std::move(var));
  Sema::Symbol symbol;
  symbol.kind = Sema::Symbol::Kind::Var;
  symbol.var = raw;
  symbol.type = type;
  symbol.range = range;
  auto [it, inserted] = scopes_.back().emplace(name, symbol);
  if (!inserted) {
    Diagnostic &d = diags_.error(range, "'" + name + "' is already declared in this scope");
    DiagEngine::note(d, it->second.range, "'" + name + "' declared here");
  }
  return raw;
}

void SemaImpl::declareConst(const std::string &name, SrcRange range, Type type, ConstValue value) {
  if (indexing() && !type.isError()) {
    indexHover(range, describe(name, type, &value));
    indexReference(range, range);
  }
  Sema::Symbol symbol;
  symbol.kind = Sema::Symbol::Kind::Const;
  symbol.value = std::move(value);
  symbol.type = type;
  symbol.range = range;
  auto [it, inserted] = scopes_.back().emplace(name, symbol);
  if (!inserted) {
    Diagnostic &d = diags_.error(range, "'" + name + "' is already declared in this scope");
    DiagEngine::note(d, it->second.range, "'" + name + "' declared here");
  }
}

const Sema::Symbol *SemaImpl::lookupLocal(const std::string &name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
    if (auto found = it->find(name); found != it->end())
      return &found->second;
  return nullptr;
}

bool SemaImpl::alwaysReturns(const Stmt &stmt) {
  switch (stmt.kind) {
  case StmtKind::Return:
    return true;
  case StmtKind::Block: {
    auto &stmts = static_cast<const BlockStmt &>(stmt).stmts;
    return !stmts.empty() && alwaysReturns(*stmts.back());
  }
  case StmtKind::If: {
    auto &ifs = static_cast<const IfStmt &>(stmt);
    if (ifs.constCond)
      return *ifs.constCond ? alwaysReturns(*ifs.thenBlock) : ifs.elseStmt && alwaysReturns(*ifs.elseStmt);
    return alwaysReturns(*ifs.thenBlock) && ifs.elseStmt && alwaysReturns(*ifs.elseStmt);
  }
  default:
    return false;
  }
}

bool alwaysReturns(const Stmt &stmt) { return SemaImpl::alwaysReturns(stmt); }

bool mayReturn(const Stmt &stmt) {
  switch (stmt.kind) {
  case StmtKind::Return: return true;
  case StmtKind::Block:
    for (auto &s : static_cast<const BlockStmt &>(stmt).stmts)
      if (mayReturn(*s))
        return true;
    return false;
  case StmtKind::If: {
    auto &ifs = static_cast<const IfStmt &>(stmt);
    return mayReturn(*ifs.thenBlock) || (ifs.elseStmt && mayReturn(*ifs.elseStmt));
  }
  default: return false;
  }
}

bool SemaImpl::ifMayReturn(const IfStmt &ifs) {
  // An `else if` link was checked (and answered) just before the `if` it follows: each link's
  // answer is its own branch's or the next link's, so a chain of n links costs n, not n^2
  // (24000 links took 7.5 s to check). The next link's answer is taken once; without one
  // (its check stopped early) it is walked.
  bool answer = mayReturn(*ifs.thenBlock);
  if (ifs.elseStmt) {
    auto next = ifs.elseStmt->kind == StmtKind::If ? chainMayReturn_.find(static_cast<const IfStmt *>(ifs.elseStmt.get()))
                                                   : chainMayReturn_.end();
    bool known = next != chainMayReturn_.end();
    answer = answer || (known ? next->second : mayReturn(*ifs.elseStmt));
    if (known)
      chainMayReturn_.erase(next);
  }
  chainMayReturn_[&ifs] = answer;
  return answer;
}

void SemaImpl::checkBody(BlockStmt &body) {
  checkBlock(body);
}

void SemaImpl::checkBlock(BlockStmt &block) {
  if (++blockDepth_ > SemaLimits::kMaxBlockDepth) {
    error(block.range, "blocks are nested too deeply (limit " +
                           std::to_string(SemaLimits::kMaxBlockDepth) + ")");
    --blockDepth_;
    return;
  }
  pushScope();
  checkStmts(block.stmts);
  popScope();
  --blockDepth_;
}

void SemaImpl::checkStmts(std::vector<StmtPtr> &stmts) {
  for (size_t i = 0; i < stmts.size(); ++i) {
    if (diags_.tooManyErrors())
      return;
    checkStmt(*stmts[i], stmts, i);
    if (i + 1 < stmts.size() && alwaysReturns(*stmts[i])) {
      error(stmts[i + 1]->range, "unreachable code after return");
      stmts.resize(i + 1);
      return;
    }
  }
}

namespace {
/// The branch of `ifs` that does not always return, creating an empty else block if needed.
BlockStmt *fallThroughBranch(IfStmt &ifs) {
  bool thenReturns = SemaImpl::alwaysReturns(*ifs.thenBlock);
  if (!thenReturns)
    return ifs.thenBlock.get();
  if (!ifs.elseStmt)
    ifs.elseStmt = std::make_unique<BlockStmt>(ifs.range);
  if (auto *block = dyn<BlockStmt>(ifs.elseStmt.get()))
    return block;
  // `else if`: wrap the nested if in a block so the rest can follow it.
  auto block = std::make_unique<BlockStmt>(ifs.elseStmt->range);
  block->stmts.push_back(std::move(ifs.elseStmt));
  BlockStmt *raw = block.get();
  ifs.elseStmt = std::move(block);
  return raw;
}

} // namespace

bool SemaImpl::spend(SrcRange range, size_t nodes) {
  size_t &checked = sema_.checkedNodes_;
  if (checked > SemaLimits::kMaxCheckedNodes)
    return false;
  checked += std::min(nodes, SemaLimits::kMaxCheckedNodes + 1);
  if (checked > SemaLimits::kMaxCheckedNodes) {
    error(range, "the program is too large to compile: the statements and expressions it checks and the blocks it "
                 "copies (unrolled static_range loops, inlined functions, autotune configs) pass the budget of " +
                     std::to_string(SemaLimits::kMaxCheckedNodes));
    return false;
  }
  return true;
}

void SemaImpl::checkStmt(Stmt &stmt, std::vector<StmtPtr> &siblings, size_t index) {
  if (!spend(stmt.range))
    return;
  switch (stmt.kind) {
  case StmtKind::Block:
    checkBlock(static_cast<BlockStmt &>(stmt));
    return;

  case StmtKind::Let: {
    auto &let = static_cast<LetStmt &>(stmt);
    Type type = check(*let.init);
    if (let.annotation) {
      Type annotated = resolveType(*let.annotation, true);
      if (!annotated.isError() && coerce(*let.init, annotated, "'" + let.name + "'")) {
        if (let.init->value && annotated.isScalarValue())
          let.init->value = castConst(*let.init->value, type, annotated);
        type = annotated;
        let.init->type = let.init->type.isTile() || !annotated.isTile() ? annotated : let.init->type;
      } else {
        type = Type::error();
      }
    }
    if (type.isScalarValue() && let.init->value && !let.isVar) {
      declareConst(let.name, let.nameRange, type, *let.init->value);
      return;
    }
    if (type.isDesc() && let.isVar) {
      error(let.init->range, "a tensor descriptor is immutable: bind '" + let.name + "' with 'let', not 'var'");
      type = Type::error();
    } else if (!type.isError() && !type.isValue() && !type.isDesc()) {
      error(let.init->range, "cannot bind '" + let.name + "' to " + type.str());
      type = Type::error();
    }
    // A mutable variable is a runtime value: literal weakness ends here.
    Type varType = let.isVar ? type.strong() : type;
    let.decl = declareVar(let.name, let.nameRange, varType, let.isVar ? VarDecl::Origin::Var : VarDecl::Origin::Let);
    if (let.annotation && !type.isError())
      let.init->type = let.init->type.isError() ? type : let.init->type;
    return;
  }

  case StmtKind::Assign: {
    auto &assign = static_cast<AssignStmt &>(stmt);
    const Sema::Symbol *symbol = lookupLocal(assign.name);
    if (assign.compound) {
      auto lhs = std::make_unique<NameExpr>(assign.nameRange, assign.name);
      SrcRange whole{assign.nameRange.begin, assign.value->range.end};
      assign.value = std::make_unique<BinaryExpr>(whole, *assign.compound, assign.opRange,
                                                  std::move(lhs), std::move(assign.value));
    }
    Type valueType = check(*assign.value);
    if (symbol)
      indexReference(assign.nameRange, symbol->range);
    if (!symbol) {
      const GlobalSymbol *global = program_.lookup(fileId_, assign.name);
      error(assign.nameRange, global ? "cannot assign to module-level '" + assign.name + "'"
                                     : "unknown variable '" + assign.name + "'");
      return;
    }
    if (symbol->kind == Sema::Symbol::Kind::Const || !symbol->var->isMutable()) {
      VarDecl::Origin origin = symbol->kind == Sema::Symbol::Kind::Const ? VarDecl::Origin::Let : symbol->var->origin;
      std::string what = symbol->kind == Sema::Symbol::Kind::Const      ? "a constant"
                         : origin == VarDecl::Origin::Parameter    ? "a parameter (copy it into a 'var' to change it)"
                         : origin == VarDecl::Origin::LoopVariable ? "the loop's variable"
                                                                   : "declared with 'let'";
      Diagnostic &d = diags_.error(assign.nameRange, "cannot assign to '" + assign.name + "': it is " + what);
      DiagEngine::note(d, symbol->range, "'" + assign.name + "' declared here");
      return;
    }
    assign.target = symbol->var;
    if (!valueType.isError())
      coerce(*assign.value, symbol->var->type, "cannot assign to '" + assign.name + "'");
    return;
  }

  case StmtKind::Expr: {
    auto &es = static_cast<ExprStmt &>(stmt);
    check(*es.expr);
    return;
  }

  case StmtKind::If: {
    auto &ifs = static_cast<IfStmt &>(stmt);
    Type cond = check(*ifs.cond);
    if (!cond.isError() && !(cond.isBool() && cond.isScalarValue()))
      error(ifs.cond->range, "if condition must be a scalar i1, found " + cond.str());
    if (ifs.cond->value && cond.isBool())
      ifs.constCond = ifs.cond->value->i != 0;
    // A compile-time condition checks only the branch it takes, as Triton's constexpr `if`.
    if (!ifs.constCond || *ifs.constCond)
      checkBlock(*ifs.thenBlock);
    if (ifs.elseStmt && (!ifs.constCond || !*ifs.constCond)) {
      if (ifs.elseStmt->kind == StmtKind::If) {
        // (No scope of its own: an `if` declares nothing where it stands, and a scope a link
        // made lookups in a chain of n links cost n each.)
        std::vector<StmtPtr> dummy;
        chainMayReturn_.erase(static_cast<const IfStmt *>(ifs.elseStmt.get())); // (answered afresh below)
        checkStmt(*ifs.elseStmt, dummy, 0);
      } else {
        checkBlock(static_cast<BlockStmt &>(*ifs.elseStmt));
      }
    }
    if (loopDepth_ > 0 || !ifMayReturn(ifs) || alwaysReturns(ifs))
      return;
    // One branch returns and the other falls through: the rest of the enclosing block runs
    // only on the fall-through path, so it moves there (checked in the enclosing scope).
    bool thenReturns = alwaysReturns(*ifs.thenBlock);
    bool elseReturns = ifs.elseStmt && alwaysReturns(*ifs.elseStmt);
    if (!thenReturns && !elseReturns) {
      error(ifs.range, "a branch that returns must return on every path; move the return to "
                       "the end of the branch");
      return;
    }
    auto rest = std::make_unique<BlockStmt>(ifs.range);
    for (size_t k = index + 1; k < siblings.size(); ++k)
      rest->stmts.push_back(std::move(siblings[k]));
    siblings.resize(index + 1);
    if (!rest->stmts.empty()) {
      rest->range = {rest->stmts.front()->range.begin, rest->stmts.back()->range.end};
      pushScope();
      checkStmts(rest->stmts);
      popScope();
    }
    fallThroughBranch(ifs)->stmts.push_back(std::move(rest));
    return;
  }

  case StmtKind::For: {
    auto &loop = static_cast<ForStmt &>(stmt);
    auto *call = dyn<CallExpr>(loop.iter.get());
    if (!call || (call->callee != "range" && call->callee != "static_range")) {
      error(loop.iter->range, "a for loop iterates over range(...) or static_range(...)");
      return;
    }
    loop.isStatic = call->callee == "static_range";
    if (!bindArguments(*call, {"start", "end", "step"}, {false, true, true}, false, call->callee))
      return;
    // range(n) means range(0, n).
    if (!call->bound[1]) {
      call->bound[1] = call->bound[0];
      call->args.push_back(CallArg{"", {}, std::make_unique<IntLit>(call->range, 0)});
      call->bound[0] = call->args.back().value.get();
      check(*call->bound[0]);
    }
    if (!call->bound[2]) {
      call->args.push_back(CallArg{"", {}, std::make_unique<IntLit>(call->range, 1)});
      call->bound[2] = call->args.back().value.get();
      check(*call->bound[2]);
    }
    Type bounds = Type::scalar(Scalar::I32, true);
    bool ok = true;
    for (Expr *bound : call->bound) {
      if (bound->type.isError()) {
        ok = false;
      } else if (!bound->type.isIntValue() || !bound->type.isScalarValue() || bound->type.isBool()) {
        error(bound->range, "range bounds must be scalar integers, found " + bound->type.str());
        ok = false;
      } else {
        bounds = promote(bounds, bound->type);
      }
    }
    if (!ok)
      return;
    bounds = bounds.strong();
    if (call->bound[2]->value && call->bound[2]->value->i <= 0) {
      error(call->bound[2]->range, "range step must be positive, got " + call->bound[2]->value->str());
      return;
    }
    call->type = bounds;
    ++loopDepth_;
    if (loop.isStatic) {
      std::optional<int64_t> start = constInt(call->bound[0], "static_range start");
      std::optional<int64_t> end = constInt(call->bound[1], "static_range end");
      std::optional<int64_t> step = constInt(call->bound[2], "static_range step");
      if (start && end && step) {
        __int128 span = __int128(*end) - *start; // no 64-bit overflow for any bounds
        int64_t trips = span > 0 ? int64_t(std::min<__int128>((span + *step - 1) / *step, INT64_MAX)) : 0;
        if (trips > SemaLimits::kMaxUnroll) {
          error(call->range, "static_range unrolls " + std::to_string(trips) +
                                 " iterations; the limit is " + std::to_string(SemaLimits::kMaxUnroll));
        } else {
          // A trip that fails ends the unrolling: the later copies would repeat its errors
          // (reported once each) at the cost of cloning and checking every one of them, up to
          // the whole budget (a million nested copies of a loop whose bounds are wrong). Each
          // copy costs its size besides what checking it costs: the copies of a nested loop
          // that never runs are made and kept, never checked.
          size_t errorsBefore = diags_.errorCount();
          auto more = [&](int64_t n) {
            return n < trips && diags_.errorCount() == errorsBefore && !diags_.tooManyErrors() &&
                   spend(call->range, 1 + loop.body->copyCost());
          };
          for (int64_t n = 0; more(n); ++n) {
            int64_t i = int64_t(__int128(*start) + __int128(n) * *step);
            BlockPtr copy = loop.body->cloneBlock();
            pushScope();
            declareConst(loop.var, loop.varRange, bounds, ConstValue::ofInt(i));
            checkBlock(*copy);
            popScope();
            loop.unrolled.push_back(std::move(copy));
          }
        }
      }
    } else {
      pushScope();
      loop.inductionVar = declareVar(loop.var, loop.varRange, bounds, VarDecl::Origin::LoopVariable);
      checkBlock(*loop.body);
      popScope();
    }
    --loopDepth_;
    return;
  }

  case StmtKind::While: {
    auto &loop = static_cast<WhileStmt &>(stmt);
    Type cond = check(*loop.cond);
    if (!cond.isError() && !(cond.isBool() && cond.isScalarValue()))
      error(loop.cond->range, "while condition must be a scalar i1, found " + cond.str());
    ++loopDepth_;
    checkBlock(*loop.body);
    --loopDepth_;
    return;
  }

  case StmtKind::Return: {
    auto &ret = static_cast<ReturnStmt &>(stmt);
    if (loopDepth_ > 0) {
      error(ret.range, "return inside a loop is not supported");
      return;
    }
    if (inKernel_) {
      if (ret.value)
        error(ret.value->range, "a kernel cannot return a value");
      return;
    }
    Type type = ret.value ? check(*ret.value) : Type::voidType();
    if (type.isError())
      return;
    if (ret.value && !type.isValue()) {
      error(ret.value->range, "cannot return " + type.str());
      return;
    }
    if (!returnType_) {
      returnType_ = type;
      returnRange_ = ret.range;
    } else if (!type.sameAs(*returnType_)) {
      Diagnostic &d = diags_.error(ret.range, "returns " + type.str() + " but an earlier return gives " +
                                                   returnType_->str());
      DiagEngine::note(d, returnRange_, "earlier return here");
    }
    return;
  }
  }
}

} // namespace tk
