// The parser: AST shapes, Rust precedence, indexing, keyword arguments, items and decorators.
#include "TestUtil.h"
#include "tk/Frontend/Parser.h"

#include <gtest/gtest.h>

namespace tk {
namespace {

/// A compact S-expression of an expression tree.
std::string sexpr(const Expr *e) {
  switch (e->kind) {
  case ExprKind::Int: return std::to_string(static_cast<const IntLit *>(e)->literal);
  case ExprKind::Float: return ConstValue::ofFloat(static_cast<const FloatLit *>(e)->literal).str();
  case ExprKind::Bool: return static_cast<const BoolLit *>(e)->literal ? "true" : "false";
  case ExprKind::None: return "None";
  case ExprKind::String: return "\"" + static_cast<const StringLit *>(e)->literal + "\"";
  case ExprKind::Name: return static_cast<const NameExpr *>(e)->name;
  case ExprKind::Unary: {
    auto *u = static_cast<const UnaryExpr *>(e);
    return std::string("(") + u->op + " " + sexpr(u->operand.get()) + ")";
  }
  case ExprKind::Binary: {
    auto *b = static_cast<const BinaryExpr *>(e);
    return std::string("(") + binOpSpelling(b->op) + " " + sexpr(b->lhs.get()) + " " + sexpr(b->rhs.get()) + ")";
  }
  case ExprKind::Cast: {
    auto *c = static_cast<const CastExpr *>(e);
    std::string target = c->target->name + (c->target->inner ? "<" + c->target->inner->name + ">" : "");
    return "(as " + sexpr(c->operand.get()) + " " + target + ")";
  }
  case ExprKind::Call: {
    auto *c = static_cast<const CallExpr *>(e);
    std::string out = "(call " + c->callee;
    for (const CallArg &a : c->args)
      out += " " + (a.name.empty() ? "" : a.name + "=") + sexpr(a.value.get());
    return out + ")";
  }
  case ExprKind::Index: {
    auto *ix = static_cast<const IndexExpr *>(e);
    std::string out = "(index " + sexpr(ix->base.get());
    for (const IndexItem &item : ix->items)
      out += item.kind == IndexItem::Kind::Slice ? " :" : item.kind == IndexItem::Kind::NewAxis ? " None" : " " + sexpr(item.expr.get());
    return out + ")";
  }
  case ExprKind::List: {
    auto *l = static_cast<const ListExpr *>(e);
    std::string out = "[";
    for (size_t i = 0; i < l->elems.size(); ++i)
      out += (i ? " " : "") + sexpr(l->elems[i].get());
    return out + "]";
  }
  }
  return "?";
}

std::unique_ptr<ModuleAST> parse(const std::string &text, SourceManager &sources, DiagEngine &diags) {
  uint32_t id = sources.addFile("test.tk", text);
  return parseModule(sources, id, diags);
}

std::string parseExpr(const std::string &expr) {
  SourceManager sources;
  DiagEngine diags(sources);
  auto module = parse("kernel k() { let x = " + expr + "; }", sources, diags);
  if (!module)
    return "error: " + diags.diagnostics().at(0).message;
  return sexpr(static_cast<LetStmt *>(module->kernels[0]->body->stmts[0].get())->init.get());
}

TEST(Parser, RustPrecedence) {
  EXPECT_EQ(parseExpr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(parseExpr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(parseExpr("a << b + c"), "(<< a (+ b c))");
  EXPECT_EQ(parseExpr("a & b == c"), "(== (& a b) c)");
  EXPECT_EQ(parseExpr("a | b ^ c & d"), "(| a (^ b (& c d)))");
  EXPECT_EQ(parseExpr("a || b && c"), "(|| a (&& b c))");
  EXPECT_EQ(parseExpr("a < b && c >= d"), "(&& (< a b) (>= c d))");
  EXPECT_EQ(parseExpr("x % y / z"), "(/ (% x y) z)");
}

TEST(Parser, AsBindsTighterThanBinaryOperatorsAndLooserThanUnary) {
  EXPECT_EQ(parseExpr("n as f32 * v"), "(* (as n f32) v)");
  EXPECT_EQ(parseExpr("-x as u32"), "(as (- x) u32)");
  EXPECT_EQ(parseExpr("a as i64 as f16"), "(as (as a i64) f16)");
  EXPECT_EQ(parseExpr("p as ptr<f16>"), "(as p ptr<f16>)");
  EXPECT_EQ(parseExpr("x as i32 < y"), "(< (as x i32) y)");
}

TEST(Parser, UnaryAndParentheses) {
  EXPECT_EQ(parseExpr("!(a && b)"), "(! (&& a b))");
  EXPECT_EQ(parseExpr("~-x"), "(~ (- x))");
  EXPECT_EQ(parseExpr("-inf"), "(- inf)");
  EXPECT_EQ(parseExpr("(a + b) * c"), "(* (+ a b) c)");
}

TEST(Parser, IndexingAddsDimensions) {
  EXPECT_EQ(parseExpr("rm[:, None]"), "(index rm : None)");
  EXPECT_EQ(parseExpr("rn[None, :]"), "(index rn None :)");
  EXPECT_EQ(parseExpr("f(x)[:, None] * 2"), "(* (index (call f x) : None) 2)");
}

TEST(Parser, CallsWithKeywordArguments) {
  EXPECT_EQ(parseExpr("load(p, mask = m, other = 0.0)"), "(call load p mask=m other=0)");
  EXPECT_EQ(parseExpr("zeros([BM, BN], f32)"), "(call zeros [BM BN] f32)");
  EXPECT_EQ(parseExpr("dot(a, b, acc = none,)"), "(call dot a b acc=None)");
}

TEST(Parser, LiteralValues) {
  EXPECT_EQ(parseExpr("0x10 + 0b11 + 1_000"), "(+ (+ 16 3) 1000)");
  EXPECT_EQ(parseExpr("2.5e-1"), "0.25");
  EXPECT_EQ(parseExpr("\"a\\tb\""), "\"a\tb\"");
}

TEST(Parser, ItemsAndDecorators) {
  SourceManager sources;
  DiagEngine diags(sources);
  auto module = parse(R"(
import "std/math.tk";
const LOG2E: f32 = 1.4426950408889634;
fn silu(x) { return x * sigmoid(x); }
@autotune(key = [M], configs = [{ BM: 128, num_warps: 8 }, { BM: 64 }])
kernel mm(a: ptr<f16>, M: i32, nospec K: i32, const BM: i32, const G: i32 = 8) { return; }
)", sources, diags);
  ASSERT_TRUE(module) << diags.format(diags.diagnostics()[0]);
  ASSERT_EQ(module->imports.size(), 1u);
  EXPECT_EQ(module->imports[0].path, "std/math.tk");
  ASSERT_EQ(module->consts.size(), 1u);
  EXPECT_EQ(module->consts[0]->name, "LOG2E");
  ASSERT_EQ(module->fns.size(), 1u);
  EXPECT_EQ(module->fns[0]->params.size(), 1u);
  ASSERT_EQ(module->kernels.size(), 1u);
  const KernelItem &k = *module->kernels[0];
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.params[2].mode, KernelParam::Mode::Nospec);
  EXPECT_EQ(k.params[3].mode, KernelParam::Mode::Const);
  EXPECT_TRUE(k.params[4].defaultValue);
  EXPECT_EQ(k.params[0].type->name, "ptr");
  EXPECT_EQ(k.params[0].type->inner->name, "f16");
  ASSERT_EQ(k.decorators.size(), 1u);
  EXPECT_EQ(k.decorators[0].args[0].first, "key");
  EXPECT_EQ(k.decorators[0].args[1].second.items.size(), 2u);
  EXPECT_EQ(k.decorators[0].args[1].second.items[0].entries[1].first, "num_warps");
}

TEST(Parser, StatementsAndSourceRanges) {
  SourceManager sources;
  DiagEngine diags(sources);
  auto module = parse("kernel k(n: i32) {\n  var acc = 0;\n  for i in range(0, n) { acc += i; }\n"
                      "  while acc > 0 { acc -= 1; }\n  if acc == 0 { return; } else if n > 1 { } else { }\n}\n",
                      sources, diags);
  ASSERT_TRUE(module);
  auto &stmts = module->kernels[0]->body->stmts;
  ASSERT_EQ(stmts.size(), 4u);
  EXPECT_EQ(stmts[0]->kind, StmtKind::Let);
  EXPECT_EQ(stmts[1]->kind, StmtKind::For);
  EXPECT_EQ(stmts[2]->kind, StmtKind::While);
  ASSERT_EQ(stmts[3]->kind, StmtKind::If);
  EXPECT_EQ(static_cast<IfStmt *>(stmts[3].get())->elseStmt->kind, StmtKind::If);
  auto *assign = static_cast<AssignStmt *>(static_cast<ForStmt *>(stmts[1].get())->body->stmts[0].get());
  EXPECT_EQ(*assign->compound, BinOp::Add);
  EXPECT_EQ(assign->nameRange.begin.line, 3u);
  EXPECT_EQ(assign->nameRange.begin.col, 26u);
  EXPECT_EQ(assign->nameRange.end.col, 29u);
}

TEST(Parser, SyntaxErrorsAreLocated) {
  EXPECT_EQ(parseExpr("a +"), "error: unexpected ';'");
  SourceManager sources;
  DiagEngine diags(sources);
  EXPECT_FALSE(parse("kernel k() { let x = 1 }", sources, diags));
  ASSERT_FALSE(diags.diagnostics().empty());
  EXPECT_EQ(diags.diagnostics()[0].message, "unexpected '}', expected ';'");
  EXPECT_EQ(diags.diagnostics()[0].range.begin.col, 24u);
}

TEST(Parser, DeepNestingIsRejectedNotCrashing) {
  SourceManager sources;
  DiagEngine diags(sources);
  std::string deep = "kernel k() { let x = " + std::string(20000, '(') + "1" + std::string(20000, ')') + "; }";
  EXPECT_FALSE(parse(deep, sources, diags));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message, "nesting is too deep (more than 256 levels)");
  SourceManager sources2;
  DiagEngine diags2(sources2);
  std::string unary = "kernel k() { let x = " + std::string(5000, '-') + "1; }";
  EXPECT_FALSE(parse(unary, sources2, diags2));
  EXPECT_EQ(diags2.diagnostics()[0].message, "nesting is too deep (more than 256 levels)");
}

TEST(Parser, TooManyTokensAreRefusedBeforeTheParseTree) {
  // 300000 terms (600000 tokens, 600 KB): refused when the lexer passes the cap, before a parse
  // tree of them (about a kilobyte a token: a 16 MiB file of them took 10 GB, then failed).
  SourceManager sources;
  DiagEngine diags(sources);
  std::string terms;
  for (int i = 0; i < 300000; ++i)
    terms += i ? "+1" : "1";
  EXPECT_FALSE(parse("kernel k() {\n  let x = " + terms + ";\n}", sources, diags));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message, "the file has more than 524288 tokens, more than a kernel's source needs");
  EXPECT_EQ(diags.diagnostics()[0].range.begin.line, 2u);
  // Exactly 2^19 tokens pass the cap (the chain is then too deep, as it should be); one more does not.
  auto chain = [](int terms, const char *extra) {
    std::string text = "kernel k() {\n  let y = 0;\n  let x = ";
    for (int i = 0; i < terms; ++i)
      text += i ? "+1" : "1";
    return text + ";" + extra + "\n}"; // 14 tokens and 2 * terms - 1
  };
  SourceManager atCap;
  DiagEngine atCapDiags(atCap);
  bool parsed = true; // (the chain's AST recurses as deep as it nests: on tkc's large stack)
  runWithLargeStack([&] { parsed = bool(parse(chain(262137, ""), atCap, atCapDiags)); });
  EXPECT_FALSE(parsed);
  ASSERT_GE(atCapDiags.errorCount(), 1u);
  EXPECT_EQ(atCapDiags.diagnostics()[0].message.find("tokens"), std::string::npos) << atCapDiags.diagnostics()[0].message;
  SourceManager past;
  DiagEngine pastDiags(past);
  EXPECT_FALSE(parse(chain(262137, ";"), past, pastDiags));
  EXPECT_EQ(pastDiags.diagnostics()[0].message, "the file has more than 524288 tokens, more than a kernel's source needs");
}

TEST(Parser, InvalidUtf8AndBinaryInput) {
  SourceManager sources;
  DiagEngine diags(sources);
  EXPECT_FALSE(parse("kernel k() {}\n// caf\xC3\x28\n", sources, diags));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message, "invalid UTF-8 byte 0xc3 in source file");
  EXPECT_EQ(diags.diagnostics()[0].range.begin.line, 2u);
  EXPECT_EQ(diags.diagnostics()[0].range.begin.col, 7u);

  SourceManager sources2;
  DiagEngine diags2(sources2);
  std::string binary("\x01\x02kernel\x00\x7f", 10);
  EXPECT_FALSE(parse(binary, sources2, diags2));
  EXPECT_GE(diags2.errorCount(), 1u);
  EXPECT_EQ(diags2.diagnostics()[0].message, "unexpected character '\\x01'"); // (escaped: a terminal shows nothing)
}

TEST(Parser, ParameterModesAndPointeesSayWhatIsWrong) {
  auto firstError = [](const std::string &text) {
    SourceManager sources;
    DiagEngine diags(sources);
    parse(text, sources, diags);
    return diags.diagnostics().empty() ? std::string("(none)") : diags.diagnostics()[0].message;
  };
  // Both words, or one twice: said so (was "unexpected 'const', expected identifier").
  EXPECT_EQ(firstError("kernel k(nospec const n: i32) {}"),
            "a parameter is 'const' (specialized on its value) or 'nospec' (never specialized), not both");
  EXPECT_EQ(firstError("kernel k(nospec nospec n: i32) {}"), "'nospec' twice");
  EXPECT_EQ(firstError("kernel k(const const n: i32) {}"), "'const' twice");
  EXPECT_EQ(firstError("kernel k(nospec n: i32, const m: i32) {}"), "(none)");
  // '>>' closing two pointers lexes as a shift.
  EXPECT_EQ(firstError("kernel k(p: ptr<ptr<f32>>) {}"),
            "unexpected '>>', expected '>' (a pointer's pointee is a scalar type: there is no ptr<ptr<...>>)");
  // A NUL byte shown as an escape.
  EXPECT_EQ(firstError(std::string("kernel k() {\0}", 14)), "unexpected character '\\x00'");
}

// Sequences a lead-byte-only check accepts but ANTLR's strict conversion throws on (a
// std::range_error out of the library: found by the fuzzer): a lead byte past U+10FFFF, a
// surrogate, an overlong form. Each must be a located diagnostic, not an exception.
TEST(Parser, StrictUtf8IsADiagnosticNotAnException) {
  for (const char *bad : {"// \xF6\x94\x9A\x8D\n", "// \xED\xA0\x80\n", "// \xE0\x80\xAF\n", "// \xF0\x80\x80\x80\n"}) {
    SourceManager sources;
    DiagEngine diags(sources);
    std::unique_ptr<ModuleAST> module;
    EXPECT_NO_THROW(module = parse(std::string("kernel k() {}\n") + bad, sources, diags)) << bad;
    EXPECT_FALSE(module);
    ASSERT_EQ(diags.errorCount(), 1u);
    EXPECT_EQ(diags.diagnostics()[0].message.rfind("invalid UTF-8 byte 0x", 0), 0u);
    EXPECT_EQ(diags.diagnostics()[0].range.begin.line, 2u);
    EXPECT_EQ(diags.diagnostics()[0].range.begin.col, 4u);
  }
}

TEST(Parser, EmptyFileIsAnEmptyModule) {
  SourceManager sources;
  DiagEngine diags(sources);
  auto module = parse("", sources, diags);
  ASSERT_TRUE(module);
  EXPECT_TRUE(module->kernels.empty());
}

} // namespace
} // namespace tk
