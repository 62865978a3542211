// From text to AST: UTF-8 validation, the ANTLR lexer, a token pre-scan that bounds nesting,
// the ANTLR parser with our error listener, and a builder from parse tree to AST.
#include "tk/Frontend/Parser.h"
#include "tk/Support/IntegerLiteral.h"

#include "TkLexer.h"
#include "TkParser.h"
#include "antlr4-runtime.h"

#include "llvm/Support/ConvertUTF.h"
#include <pthread.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace tk {

using tkgrammar::TkLexer;
using tkgrammar::TkParser;

namespace {

/// Reports the first invalid UTF-8 sequence, with its line and column. LLVM's check is the
/// strict one (no overlong forms, surrogates or code points past U+10FFFF) that ANTLR's
/// conversion applies, which throws on what a looser check lets through.
bool validateUtf8(const std::string &text, uint32_t fileId, DiagEngine &diags) {
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.data());
  const llvm::UTF8 *bad = begin;
  if (llvm::isLegalUTF8String(&bad, begin + text.size()))
    return true;
  size_t at = size_t(bad - begin);
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else if ((static_cast<unsigned char>(text[i]) >> 6) != 0x2) { // a character, not a continuation
      ++col;
    }
  }
  unsigned char c = text[at];
  SrcLoc loc{fileId, line, col};
  diags.error({loc, loc}, "invalid UTF-8 byte 0x" + std::string(1, "0123456789abcdef"[c >> 4]) +
                              std::string(1, "0123456789abcdef"[c & 15]) + " in source file");
  return false;
}

SrcLoc tokenBegin(uint32_t fileId, const antlr4::Token *tok) {
  return SrcLoc{fileId, (uint32_t)tok->getLine(), (uint32_t)tok->getCharPositionInLine() + 1};
}

SrcLoc tokenEnd(uint32_t fileId, const antlr4::Token *tok) {
  SrcLoc loc = tokenBegin(fileId, tok);
  if (tok->getType() == antlr4::Token::EOF)
    return loc;
  std::string text = tok->getText();
  if (text.find('\n') == std::string::npos)
    loc.col += antlrcpp::utf8_to_utf32(text.data(), text.data() + text.size()).size();
  return loc;
}

std::string tokenDescription(const antlr4::Token *tok) {
  if (tok->getType() == antlr4::Token::EOF)
    return "end of file";
  std::string text = tok->getText();
  if (text.size() > 40)
    text = text.substr(0, 40) + "...";
  // Control characters (a NUL byte) written as escapes: a terminal shows them as nothing.
  std::string shown;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\x%02x", c);
      shown += escape;
    } else {
      shown += char(c);
    }
  }
  return "'" + shown + "'";
}

class SyntaxErrorListener : public antlr4::BaseErrorListener {
public:
  SyntaxErrorListener(uint32_t fileId, DiagEngine &diags) : fileId_(fileId), diags_(diags) {}

  void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending, size_t line,
                   size_t col, const std::string &msg, std::exception_ptr) override {
    ++count;
    if (diags_.tooManyErrors())
      return;
    SrcLoc begin{fileId_, (uint32_t)line, (uint32_t)col + 1};
    SrcRange range{begin, begin};
    std::string message = "syntax error";
    if (offending) {
      range = {tokenBegin(fileId_, offending), tokenEnd(fileId_, offending)};
      message = "unexpected " + tokenDescription(offending);
      if (auto *parser = dynamic_cast<antlr4::Parser *>(recognizer)) {
        std::string expected = expectedTokens(parser);
        if (!expected.empty())
          message += ", expected " + expected;
        // '>>' lexes as a shift: in a type it closes two pointers, and pointees are scalars.
        if (offending->getText() == ">>" && expected == "'>'")
          message += " (a pointer's pointee is a scalar type: there is no ptr<ptr<...>>)";
      }
    } else {
      message = msg;
    }
    diags_.error(range, message);
  }

  size_t count = 0;

private:
  /// "';'" or "one of ')', ','" when the set is small enough to help; "" otherwise.
  static std::string expectedTokens(antlr4::Parser *parser) {
    antlr4::misc::IntervalSet set;
    try {
      set = parser->getExpectedTokens();
    } catch (...) {
      return "";
    }
    std::vector<std::string> names;
    for (ssize_t type : set.toList()) {
      if (type == antlr4::Token::EOF) {
        names.push_back("end of file");
        continue;
      }
      std::string name = parser->getVocabulary().getLiteralName(type);
      if (name.empty()) {
        std::string symbolic = parser->getVocabulary().getSymbolicName(type);
        if (symbolic == "IDENT")
          name = "identifier";
        else if (symbolic == "INT" || symbolic == "FLOAT" || symbolic == "STRING")
          name = "literal";
        else
          name = symbolic;
      }
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
    }
    if (names.empty() || names.size() > 5)
      return "";
    if (names.size() == 1)
      return names[0];
    std::string out = "one of ";
    for (size_t i = 0; i < names.size(); ++i)
      out += (i ? ", " : "") + names[i];
    return out;
  }

  uint32_t fileId_;
  DiagEngine &diags_;
};

/// Rejects lexical garbage and nesting deeper than the parser may recurse.
bool prescanTokens(const std::vector<antlr4::Token *> &tokens, uint32_t fileId, DiagEngine &diags) {
  bool ok = true;
  int depth = 0, prefixRun = 0, angleRun = 0; // angleRun: `ptr<ptr<...` (the parser recurses per level)
  bool afterIdent = false;
  for (antlr4::Token *tok : tokens) {
    SrcRange range{tokenBegin(fileId, tok), tokenEnd(fileId, tok)};
    switch (tok->getType()) {
    case TkLexer::UNEXPECTED_CHAR:
      diags.error(range, "unexpected character " + tokenDescription(tok));
      ok = false;
      break;
    case TkLexer::UNTERMINATED_STRING:
      diags.error({range.begin, range.begin}, "unterminated string literal");
      ok = false;
      break;
    case TkLexer::UNTERMINATED_COMMENT:
      diags.error({range.begin, range.begin}, "unterminated block comment");
      ok = false;
      break;
    default:
      break;
    }
    std::string text = tok->getText();
    bool opens = text == "(" || text == "[" || text == "{";
    bool closes = text == ")" || text == "]" || text == "}";
    bool prefix = text == "-" || text == "!" || text == "~" || text == "if";
    depth += opens ? 1 : closes ? -1 : 0;
    prefixRun = prefix ? prefixRun + 1 : (opens ? prefixRun : 0);
    bool ident = tok->getType() == TkLexer::IDENT;
    angleRun = text == "<" && afterIdent ? angleRun + 1 : ident ? angleRun : 0;
    afterIdent = ident;
    if (depth > ParseLimits::kMaxNesting || prefixRun > ParseLimits::kMaxNesting || angleRun > ParseLimits::kMaxNesting) {
      diags.error(range, "nesting is too deep (more than " +
                             std::to_string(ParseLimits::kMaxNesting) + " levels)");
      return false;
    }
    if (diags.tooManyErrors())
      return false;
  }
  return ok;
}

/// Builds the AST from a parse tree that had no syntax errors.
class ASTBuilder {
public:
  /// `textBefore[i]`: the characters of the tokens before token i (comments and whitespace
  /// are not tokens), so that a block's copy cost counts the text a copy holds.
  ASTBuilder(uint32_t fileId, DiagEngine &diags, std::vector<size_t> textBefore)
      : fileId_(fileId), diags_(diags), textBefore_(std::move(textBefore)) {}

  std::unique_ptr<ModuleAST> build(TkParser::ProgramContext *program, const std::string &path) {
    auto module = std::make_unique<ModuleAST>();
    module->fileId = fileId_;
    module->path = path;
    for (auto *item : program->item()) {
      if (auto *imp = item->importItem()) {
        module->imports.push_back(ImportItem{unquote(imp->STRING()->getSymbol()), range(imp)});
      } else if (auto *c = item->constItem()) {
        auto constItem = std::make_unique<ConstItem>();
        constItem->name = c->IDENT()->getText();
        constItem->nameRange = range(c->IDENT()->getSymbol());
        if (c->typeExpr())
          constItem->annotation = typeExpr(c->typeExpr());
        constItem->value = expr(c->expr());
        module->consts.push_back(std::move(constItem));
      } else if (auto *f = item->fnItem()) {
        module->fns.push_back(fnItem(f));
      } else if (auto *k = item->kernelItem()) {
        module->kernels.push_back(kernelItem(k));
      }
    }
    return module;
  }

private:
  /// One level deeper into the tree while in scope; not `ok` past ParseLimits::kMaxTreeDepth
  /// (reported once, at the node that went too deep: the caller builds a placeholder instead
  /// of recursing, and the parse fails).
  struct Deeper {
    Deeper(ASTBuilder &builder, antlr4::ParserRuleContext *ctx, bool statement = false)
        : builder(builder), depth(statement ? builder.stmtDepth_ : builder.exprDepth_) {
      int limit = statement ? ParseLimits::kMaxStmtDepth : ParseLimits::kMaxExprDepth;
      ok = ++depth <= limit;
      if (!ok && !builder.tooDeep_) {
        builder.tooDeep_ = true;
        builder.diags_.error(builder.range(ctx), std::string("the program nests too deeply (more than ") +
                                                     std::to_string(limit) +
                                                     (statement ? " levels of statements, `else if` included)"
                                                                : " levels of expressions; split the expression)"));
      }
    }
    ~Deeper() { --depth; }
    ASTBuilder &builder;
    int &depth;
    bool ok;
  };
  int exprDepth_ = 0, stmtDepth_ = 0;
  bool tooDeep_ = false;

  SrcRange range(antlr4::Token *tok) { return {tokenBegin(fileId_, tok), tokenEnd(fileId_, tok)}; }
  SrcRange range(antlr4::ParserRuleContext *ctx) {
    return {tokenBegin(fileId_, ctx->getStart()), tokenEnd(fileId_, ctx->getStop() ? ctx->getStop() : ctx->getStart())};
  }

  std::string unquote(antlr4::Token *tok) {
    std::string text = tok->getText();
    std::string out;
    for (size_t i = 1; i + 1 < text.size(); ++i) {
      if (text[i] != '\\') {
        out += text[i];
        continue;
      }
      char c = text[++i];
      switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case '0': out += '\0'; break;
      default: {
        SrcLoc loc = tokenBegin(fileId_, tok);
        loc.col += i - 1;
        diags_.error({loc, loc}, std::string("unknown escape sequence '\\") + c + "'");
      }
      }
    }
    return out;
  }

  std::unique_ptr<FnItem> fnItem(TkParser::FnItemContext *f) {
    auto fn = std::make_unique<FnItem>();
    fn->name = f->IDENT()->getText();
    fn->nameRange = range(f->IDENT()->getSymbol());
    fn->fileId = fileId_;
    for (auto *p : f->fnParam()) {
      FnParam param;
      param.name = p->IDENT()->getText();
      param.range = range(p->IDENT()->getSymbol());
      param.isConst = p->CONST() != nullptr;
      if (p->typeExpr())
        param.annotation = typeExpr(p->typeExpr());
      fn->params.push_back(std::move(param));
    }
    if (f->typeExpr())
      fn->returnType = typeExpr(f->typeExpr());
    fn->body = block(f->block());
    return fn;
  }

  std::unique_ptr<KernelItem> kernelItem(TkParser::KernelItemContext *k) {
    auto kernel = std::make_unique<KernelItem>();
    kernel->name = k->IDENT()->getText();
    kernel->nameRange = range(k->IDENT()->getSymbol());
    kernel->fileId = fileId_;
    for (auto *d : k->decorator()) {
      Decorator deco;
      deco.name = d->IDENT()->getText();
      deco.range = range(d);
      for (auto *arg : d->decoratorArg()) {
        deco.args.emplace_back(arg->IDENT()->getText(), decoratorValue(arg->decoratorValue()));
        deco.argRanges.push_back(range(arg->IDENT()->getSymbol()));
      }
      kernel->decorators.push_back(std::move(deco));
    }
    for (auto *p : k->kernelParam()) {
      KernelParam param;
      param.name = p->IDENT()->getText();
      param.range = range(p->IDENT()->getSymbol());
      // (The grammar takes any run of the two words, so that a second one gets this message
      // rather than "expected identifier".)
      size_t consts = p->CONST().size(), nospecs = p->NOSPEC().size();
      if (consts + nospecs > 1) {
        auto *second = dynamic_cast<antlr4::tree::TerminalNode *>(p->children[1]);
        diags_.error(second ? range(second->getSymbol()) : range(p),
                    consts && nospecs ? "a parameter is 'const' (specialized on its value) or 'nospec' (never "
                                        "specialized), not both"
                                      : std::string("'") + (consts ? "const" : "nospec") + "' twice");
      }
      param.mode = consts ? KernelParam::Mode::Const
                   : nospecs ? KernelParam::Mode::Nospec
                             : KernelParam::Mode::Runtime;
      param.type = typeExpr(p->typeExpr());
      if (p->expr())
        param.defaultValue = expr(p->expr());
      kernel->params.push_back(std::move(param));
    }
    kernel->body = block(k->block());
    return kernel;
  }

  DecoratorValue decoratorValue(TkParser::DecoratorValueContext *ctx) {
    DecoratorValue value;
    value.range = range(ctx);
    Deeper deeper(*this, ctx);
    if (!deeper.ok)
      return value;
    if (auto *dict = dynamic_cast<TkParser::DecoratorDictContext *>(ctx)) {
      value.kind = DecoratorValue::Kind::Dict;
      for (auto *entry : dict->decoratorEntry()) {
        value.entries.emplace_back(entry->IDENT()->getText(), decoratorValue(entry->decoratorValue()));
        value.entryRanges.push_back(range(entry->IDENT()->getSymbol()));
      }
    } else if (auto *list = dynamic_cast<TkParser::DecoratorListContext *>(ctx)) {
      value.kind = DecoratorValue::Kind::List;
      for (auto *item : list->decoratorValue())
        value.items.push_back(decoratorValue(item));
    } else {
      value.kind = DecoratorValue::Kind::Expr;
      value.expr = expr(static_cast<TkParser::DecoratorExprContext *>(ctx)->expr());
    }
    return value;
  }

  std::unique_ptr<TypeExpr> typeExpr(TkParser::TypeExprContext *ctx) {
    Deeper deeper(*this, ctx);
    auto type = std::make_unique<TypeExpr>();
    if (!deeper.ok)
      return type;
    type->name = ctx->IDENT()->getText();
    type->range = range(ctx);
    if (ctx->typeExpr())
      type->inner = typeExpr(ctx->typeExpr());
    for (auto *dim : ctx->expr())
      type->dims.push_back(expr(dim));
    return type;
  }

  std::unique_ptr<TypeExpr> scalarType(TkParser::ScalarTypeContext *ctx) {
    Deeper deeper(*this, ctx);
    auto type = std::make_unique<TypeExpr>();
    if (!deeper.ok)
      return type;
    type->name = ctx->IDENT()->getText();
    type->range = range(ctx);
    if (ctx->scalarType())
      type->inner = scalarType(ctx->scalarType());
    return type;
  }

  BlockPtr block(TkParser::BlockContext *ctx) {
    Deeper deeper(*this, ctx, true);
    if (!deeper.ok)
      return std::make_unique<BlockStmt>(range(ctx));
    auto result = std::make_unique<BlockStmt>(range(ctx));
    if (antlr4::Token *stop = ctx->getStop(); stop && stop->getTokenIndex() >= ctx->getStart()->getTokenIndex()) {
      result->tokens = stop->getTokenIndex() - ctx->getStart()->getTokenIndex() + 1;
      result->bytes = textBefore_[stop->getTokenIndex() + 1] - textBefore_[ctx->getStart()->getTokenIndex()];
    }
    for (auto *s : ctx->stmt())
      result->stmts.push_back(stmt(s));
    return result;
  }

  static std::optional<BinOp> assignOp(const std::string &text) {
    static const std::pair<const char *, BinOp> ops[] = {
        {"+=", BinOp::Add}, {"-=", BinOp::Sub}, {"*=", BinOp::Mul}, {"/=", BinOp::Div},
        {"%=", BinOp::Rem}, {"&=", BinOp::BitAnd}, {"|=", BinOp::BitOr}, {"^=", BinOp::BitXor},
        {"<<=", BinOp::Shl}, {">>=", BinOp::Shr}};
    for (auto &[spelling, op] : ops)
      if (text == spelling)
        return op;
    return std::nullopt;
  }

  StmtPtr stmt(TkParser::StmtContext *ctx) {
    SrcRange r = range(ctx);
    Deeper deeper(*this, ctx, true);
    if (!deeper.ok)
      return std::make_unique<BlockStmt>(r);
    if (auto *let = dynamic_cast<TkParser::LetStmtContext *>(ctx))
      return letStmt(r, false, let->IDENT()->getSymbol(), let->typeExpr(), let->expr());
    if (auto *var = dynamic_cast<TkParser::VarStmtContext *>(ctx))
      return letStmt(r, true, var->IDENT()->getSymbol(), var->typeExpr(), var->expr());
    if (auto *assign = dynamic_cast<TkParser::AssignStmtContext *>(ctx)) {
      auto s = std::make_unique<AssignStmt>(r);
      s->name = assign->IDENT()->getText();
      s->nameRange = range(assign->IDENT()->getSymbol());
      s->compound = assignOp(assign->assignOp()->getText());
      s->opRange = range(assign->assignOp());
      s->value = expr(assign->expr());
      return s;
    }
    if (auto *ifs = dynamic_cast<TkParser::IfStatementContext *>(ctx))
      return ifStmt(ifs->ifStmt());
    if (auto *fors = dynamic_cast<TkParser::ForStmtContext *>(ctx)) {
      auto s = std::make_unique<ForStmt>(r);
      s->var = fors->IDENT()->getText();
      s->varRange = range(fors->IDENT()->getSymbol());
      s->iter = expr(fors->expr());
      s->body = block(fors->block());
      return s;
    }
    if (auto *whiles = dynamic_cast<TkParser::WhileStmtContext *>(ctx)) {
      auto s = std::make_unique<WhileStmt>(r);
      s->cond = expr(whiles->expr());
      s->body = block(whiles->block());
      return s;
    }
    if (auto *ret = dynamic_cast<TkParser::ReturnStmtContext *>(ctx))
      return std::make_unique<ReturnStmt>(r, ret->expr() ? expr(ret->expr()) : nullptr);
    if (auto *blk = dynamic_cast<TkParser::BlockStmtContext *>(ctx))
      return block(blk->block());
    auto *es = static_cast<TkParser::ExprStmtContext *>(ctx);
    return std::make_unique<ExprStmt>(r, expr(es->expr()));
  }

  StmtPtr letStmt(SrcRange r, bool isVar, antlr4::Token *name, TkParser::TypeExprContext *ann,
                  TkParser::ExprContext *init) {
    auto s = std::make_unique<LetStmt>(r);
    s->isVar = isVar;
    s->name = name->getText();
    s->nameRange = range(name);
    if (ann)
      s->annotation = typeExpr(ann);
    s->init = expr(init);
    return s;
  }

  StmtPtr ifStmt(TkParser::IfStmtContext *ctx) {
    Deeper deeper(*this, ctx, true);
    if (!deeper.ok)
      return std::make_unique<BlockStmt>(range(ctx));
    auto s = std::make_unique<IfStmt>(range(ctx));
    s->cond = expr(ctx->expr());
    auto blocks = ctx->block();
    s->thenBlock = block(blocks[0]);
    if (ctx->ifStmt())
      s->elseStmt = ifStmt(ctx->ifStmt());
    else if (blocks.size() > 1)
      s->elseStmt = block(blocks[1]);
    return s;
  }

  static BinOp binOp(const std::string &text) {
    static const std::pair<const char *, BinOp> ops[] = {
        {"*", BinOp::Mul}, {"/", BinOp::Div}, {"%", BinOp::Rem}, {"+", BinOp::Add},
        {"-", BinOp::Sub}, {"<<", BinOp::Shl}, {">>", BinOp::Shr}, {"&", BinOp::BitAnd},
        {"^", BinOp::BitXor}, {"|", BinOp::BitOr}, {"==", BinOp::Eq}, {"!=", BinOp::Ne},
        {"<", BinOp::Lt}, {"<=", BinOp::Le}, {">", BinOp::Gt}, {">=", BinOp::Ge},
        {"&&", BinOp::And}, {"||", BinOp::Or}};
    for (auto &[spelling, op] : ops)
      if (text == spelling)
        return op;
    return BinOp::Add;
  }

  ExprPtr expr(TkParser::ExprContext *ctx) {
    SrcRange r = range(ctx);
    Deeper deeper(*this, ctx);
    if (!deeper.ok)
      return std::make_unique<IntLit>(r, 0);
    if (auto *p = dynamic_cast<TkParser::PrimaryExprContext *>(ctx))
      return primary(p->primary());
    if (auto *ix = dynamic_cast<TkParser::IndexExprContext *>(ctx)) {
      auto e = std::make_unique<IndexExpr>(r, expr(ix->expr()));
      for (auto *item : ix->indexItem()) {
        if (dynamic_cast<TkParser::SliceIndexContext *>(item))
          e->items.push_back(IndexItem{IndexItem::Kind::Slice, range(item), nullptr});
        else if (dynamic_cast<TkParser::NewAxisIndexContext *>(item))
          e->items.push_back(IndexItem{IndexItem::Kind::NewAxis, range(item), nullptr});
        else
          e->items.push_back(IndexItem{IndexItem::Kind::Expr, range(item),
                                       expr(static_cast<TkParser::ExprIndexContext *>(item)->expr())});
      }
      return e;
    }
    if (auto *u = dynamic_cast<TkParser::UnaryExprContext *>(ctx))
      return std::make_unique<UnaryExpr>(r, u->op->getText()[0], expr(u->expr()));
    if (auto *c = dynamic_cast<TkParser::CastExprContext *>(ctx))
      return std::make_unique<CastExpr>(r, expr(c->expr()), scalarType(c->scalarType()));
    auto *b = static_cast<TkParser::BinaryExprContext *>(ctx);
    return std::make_unique<BinaryExpr>(r, binOp(b->op->getText()), range(b->op), expr(b->expr(0)),
                                        expr(b->expr(1)));
  }

  ExprPtr primary(TkParser::PrimaryContext *ctx) {
    SrcRange r = range(ctx);
    if (auto *i = dynamic_cast<TkParser::IntLitContext *>(ctx))
      return std::make_unique<IntLit>(r, parseInt(i->INT()->getSymbol()));
    if (auto *f = dynamic_cast<TkParser::FloatLitContext *>(ctx)) {
      std::string text;
      for (char c : f->FLOAT()->getText())
        if (c != '_')
          text += c;
      double value = std::strtod(text.c_str(), nullptr);
      if (std::isinf(value))
        diags_.error(r, "float literal " + f->FLOAT()->getText() + " is out of range");
      return std::make_unique<FloatLit>(r, value);
    }
    if (auto *b = dynamic_cast<TkParser::BoolLitContext *>(ctx))
      return std::make_unique<BoolLit>(r, b->TRUE() != nullptr);
    if (auto *s = dynamic_cast<TkParser::SpecialFloatLitContext *>(ctx))
      return std::make_unique<FloatLit>(r, s->INF() ? INFINITY : NAN);
    if (dynamic_cast<TkParser::NoneLitContext *>(ctx))
      return std::make_unique<NoneLit>(r);
    if (auto *s = dynamic_cast<TkParser::StringLitContext *>(ctx))
      return std::make_unique<StringLit>(r, unquote(s->STRING()->getSymbol()));
    if (auto *call = dynamic_cast<TkParser::CallExprContext *>(ctx)) {
      auto e = std::make_unique<CallExpr>(r, call->IDENT()->getText(), range(call->IDENT()->getSymbol()));
      for (auto *arg : call->callArg()) {
        CallArg a;
        if (arg->IDENT()) {
          a.name = arg->IDENT()->getText();
          a.nameRange = range(arg->IDENT()->getSymbol());
        }
        a.value = expr(arg->expr());
        e->args.push_back(std::move(a));
      }
      return e;
    }
    if (auto *n = dynamic_cast<TkParser::NameExprContext *>(ctx))
      return std::make_unique<NameExpr>(r, n->IDENT()->getText());
    if (auto *p = dynamic_cast<TkParser::ParenExprContext *>(ctx)) {
      ExprPtr inner = expr(p->expr());
      inner->range = r;
      return inner;
    }
    auto *l = static_cast<TkParser::ListExprContext *>(ctx);
    auto e = std::make_unique<ListExpr>(r);
    for (auto *x : l->expr())
      e->elems.push_back(expr(x));
    return e;
  }

  uint64_t parseInt(antlr4::Token *tok) {
    std::string why;
    std::optional<uint64_t> value = parseIntegerLiteral(tok->getText(), why);
    if (!value)
      diags_.error(range(tok), "integer literal " + tok->getText() + " " + why);
    return value.value_or(0);
  }

  uint32_t fileId_;
  DiagEngine &diags_;
  std::vector<size_t> textBefore_;
};

} // namespace

/// The lexer's tokens, at most ParseLimits::kMaxTokens of them: past that an end of file, and
/// `capped()` says so, before a parse tree of them is built.
class CappedTokenSource : public antlr4::TokenSource {
public:
  explicit CappedTokenSource(TkLexer &lexer) : lexer_(lexer) {}
  std::unique_ptr<antlr4::Token> nextToken() override {
    std::unique_ptr<antlr4::Token> token = lexer_.nextToken();
    if (token->getType() == antlr4::Token::EOF)
      return token;
    if (++count_ > ParseLimits::kMaxTokens) { // (that many is fine: one more is not)
      capped_ = true;
      return lexer_.getTokenFactory()->create(antlr4::Token::EOF, "<EOF>");
    }
    return token;
  }
  size_t getLine() const override { return lexer_.getLine(); }
  size_t getCharPositionInLine() override { return lexer_.getCharPositionInLine(); }
  antlr4::CharStream *getInputStream() override { return lexer_.getInputStream(); }
  std::string getSourceName() override { return lexer_.getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken> *getTokenFactory() override { return lexer_.getTokenFactory(); }
  bool capped() const { return capped_; }

private:
  TkLexer &lexer_;
  size_t count_ = 0;
  bool capped_ = false;
};

std::unique_ptr<ModuleAST> parseModule(const SourceManager &sources, uint32_t fileId,
                                       DiagEngine &diags) {
  const std::string &text = sources.text(fileId);
  if (text.size() > ParseLimits::kMaxFileBytes) {
    SrcLoc loc{fileId, 1, 1};
    diags.error({loc, loc}, "source file is larger than " +
                                std::to_string(ParseLimits::kMaxFileBytes >> 20) + " MiB");
    return nullptr;
  }
  if (!validateUtf8(text, fileId, diags))
    return nullptr;
  size_t errorsBefore = diags.errorCount();

  antlr4::ANTLRInputStream input(text);
  TkLexer lexer(&input);
  lexer.removeErrorListeners();
  SyntaxErrorListener listener(fileId, diags);
  lexer.addErrorListener(&listener);
  CappedTokenSource source(lexer);
  antlr4::CommonTokenStream tokens(&source);
  tokens.fill();
  if (source.capped()) {
    const antlr4::Token *last = tokens.get(tokens.size() - 2); // (the last one kept, before the EOF)
    SrcLoc loc = tokenBegin(fileId, last);
    diags.error({loc, loc}, "the file has more than " + std::to_string(ParseLimits::kMaxTokens) +
                                " tokens, more than a kernel's source needs");
    return nullptr;
  }
  if (!prescanTokens(tokens.getTokens(), fileId, diags))
    return nullptr;

  TkParser parser(&tokens);
  parser.removeErrorListeners();
  // Two-stage parsing: the fast SLL mode first, full LL only when SLL fails.
  parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
      antlr4::atn::PredictionMode::SLL);
  parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
  TkParser::ProgramContext *tree = nullptr;
  try {
    tree = parser.program();
  } catch (const antlr4::ParseCancellationException &) {
    tokens.seek(0);
    parser.reset();
    parser.addErrorListener(&listener);
    parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::LL);
    tree = parser.program();
  }
  if (listener.count > 0 || diags.errorCount() > errorsBefore || !tree)
    return nullptr;

  std::vector<size_t> textBefore{0};
  for (const antlr4::Token *token : tokens.getTokens())
    textBefore.push_back(textBefore.back() + (token->getType() == antlr4::Token::EOF
                                                  ? 0 : token->getStopIndex() + 1 - token->getStartIndex()));
  ASTBuilder builder(fileId, diags, std::move(textBefore));
  auto module = builder.build(tree, sources.path(fileId));
  if (diags.errorCount() > errorsBefore)
    return nullptr;
  return module;
}

void runWithLargeStack(const std::function<void()> &body) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 512u << 20);
  struct Job {
    const std::function<void()> *body;
    std::exception_ptr error;
  } job{&body, nullptr};
  pthread_t thread;
  auto entry = [](void *arg) -> void * {
    auto *j = static_cast<Job *>(arg);
    try {
      (*j->body)();
    } catch (...) {
      j->error = std::current_exception();
    }
    return nullptr;
  };
  if (pthread_create(&thread, &attr, entry, &job) != 0) {
    pthread_attr_destroy(&attr);
    body(); // could not get a big stack: run here
    return;
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  if (job.error)
    std::rethrow_exception(job.error);
}

} // namespace tk
