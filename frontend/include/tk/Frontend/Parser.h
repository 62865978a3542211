#ifndef TK_FRONTEND_PARSER_H
#define TK_FRONTEND_PARSER_H

#include "tk/Frontend/AST.h"

#include <functional>

namespace tk {

/// Limits that keep hostile input from exhausting the stack or the machine.
struct ParseLimits {
  static constexpr int kMaxNesting = 256;      // brackets and braces, and prefix-operator runs
  static constexpr size_t kMaxFileBytes = 16u << 20;
  /// Tokens a file may have (the stdlib's largest has about 9000): the parse tree takes up to
  /// a kilobyte or so a token, which a 16 MiB file of `1+1+...` turned into 10 GB.
  static constexpr size_t kMaxTokens = size_t(1) << 19;
  /// The depth of expressions (an operator chain `1 + 1 + ...` or `x as f32 as f32 ...` nests
  /// one level a link) and of statements (an `else if` chain nests one level a link): the
  /// walks of the tree (Sema, MLIRGen, on runWithLargeStack's stack) recurse at most this
  /// deep; its destructor does not recurse (AST.h).
  static constexpr int kMaxExprDepth = 200000;
  static constexpr int kMaxStmtDepth = 25000;
};

/// Parses file `fileId` of `sources`. Returns null when there were lexical or syntax errors,
/// all of which are reported to `diags`.
std::unique_ptr<ModuleAST> parseModule(const SourceManager &sources, uint32_t fileId,
                                       DiagEngine &diags);

/// Runs `body` on a thread with a large stack: the parser and the tree walks recurse as deep as
/// the input nests, and the limits above keep that far inside this stack.
void runWithLargeStack(const std::function<void()> &body);

} // namespace tk

#endif
