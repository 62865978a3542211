// The ANTLR lexer generated from grammar/Tk.g4: literals, operators, comments, garbage.
#include "TkLexer.h"
#include "antlr4-runtime.h"

#include <gtest/gtest.h>

namespace {
using tkgrammar::TkLexer;

/// "TYPE:text" for every token before EOF.
std::vector<std::string> lex(const std::string &text) {
  antlr4::ANTLRInputStream input(text);
  TkLexer lexer(&input);
  lexer.removeErrorListeners();
  std::vector<std::string> out;
  for (auto token = lexer.nextToken(); token->getType() != antlr4::Token::EOF; token = lexer.nextToken()) {
    std::string name(lexer.getVocabulary().getSymbolicName(token->getType()));
    if (name.empty())
      name = lexer.getVocabulary().getLiteralName(token->getType());
    out.push_back(name + ":" + token->getText());
  }
  return out;
}

using Tokens = std::vector<std::string>;

TEST(Lexer, IntegerLiterals) {
  EXPECT_EQ(lex("0 42 1_000 0xFF 0x_dead_beef 0b1010"),
            (Tokens{"INT:0", "INT:42", "INT:1_000", "INT:0xFF", "INT:0x_dead_beef", "INT:0b1010"}));
}

TEST(Lexer, FloatLiteralsWithExponents) {
  EXPECT_EQ(lex("1.0 1. .5 1e10 2.5E-3 1_0.2_5"),
            (Tokens{"FLOAT:1.0", "FLOAT:1.", "FLOAT:.5", "FLOAT:1e10", "FLOAT:2.5E-3", "FLOAT:1_0.2_5"}));
}

TEST(Lexer, KeywordsAndSpecialLiterals) {
  EXPECT_EQ(lex("let var fn kernel const nospec inf nan None none true false letter"),
            (Tokens{"LET:let", "VAR:var", "FN:fn", "KERNEL:kernel", "CONST:const", "NOSPEC:nospec",
                    "INF:inf", "NAN:nan", "NONE_UPPER:None", "NONE_LOWER:none", "TRUE:true",
                    "FALSE:false", "IDENT:letter"}));
}

TEST(Lexer, MultiCharacterOperatorsAreOneToken) {
  EXPECT_EQ(lex("<<= >>= << >> <= >= == != && || -> +="),
            (Tokens{"'<<=':<<=", "'>>=':>>=", "'<<':<<", "'>>':>>", "'<=':<=", "'>=':>=",
                    "'==':==", "'!=':!=", "'&&':&&", "'||':||", "'->':->", "'+=':+="}));
}

TEST(Lexer, CommentsAreSkipped) {
  EXPECT_EQ(lex("a // line comment\n/* block\n comment */ b /**/ c"),
            (Tokens{"IDENT:a", "IDENT:b", "IDENT:c"}));
}

TEST(Lexer, StringsWithEscapes) {
  EXPECT_EQ(lex(R"("plain" "with \"quote\" and \n")"),
            (Tokens{"STRING:\"plain\"", R"(STRING:"with \"quote\" and \n")"}));
}

TEST(Lexer, GarbageBecomesTokensNotFailures) {
  EXPECT_EQ(lex("a $ b"), (Tokens{"IDENT:a", "UNEXPECTED_CHAR:$", "IDENT:b"}));
  EXPECT_EQ(lex("\"open"), (Tokens{"UNTERMINATED_STRING:\"open"}));
  EXPECT_EQ(lex("x /* open"), (Tokens{"IDENT:x", "UNTERMINATED_COMMENT:/* open"}));
}
} // namespace
