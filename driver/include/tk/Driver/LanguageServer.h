// `tkc lsp`: the Language Server Protocol over a pair of streams (JSON-RPC with Content-Length
// framing), answering diagnostics, hover types and go-to-definition from the same checker as
// `tkc check`. It lives in libtkc beside the Compiler because it reads JSON with LLVM's.
#ifndef TK_DRIVER_LANGUAGESERVER_H
#define TK_DRIVER_LANGUAGESERVER_H

#include "tk/Driver/Compiler.h"

#include <istream>
#include <ostream>

namespace tk {

struct LanguageServerLimits {
  /// One message's body, and all of its header lines: a client that sends more is answered
  /// with an error and the rest of the stream is not trusted (the server stops).
  static constexpr size_t kMaxMessageBytes = size_t(16) << 20;
  static constexpr size_t kMaxHeaderBytes = 8192;
  /// Documents held open at once; an open beyond it is refused with a message.
  static constexpr size_t kMaxOpenDocuments = 256;
  /// The text of all open documents together (a checked document keeps its syntax tree and
  /// types, ~100 times its text): an open or change beyond it is refused with a message.
  static constexpr size_t kMaxOpenBytes = size_t(8) << 20;
  /// The checks kept for hover and go-to-definition, in the checker's nodes (unrolled loops and
  /// inlined calls count each copy; SemaLimits::kMaxCheckedNodes bounds one program): past it the
  /// least recently used documents' checks are dropped and redone when next asked about. (A
  /// 121-byte document can unroll 40,960 statements, 80 MB; 256 of them took 20 GB.)
  static constexpr size_t kMaxKeptCheckedNodes = size_t(2) << 20;
  /// JSON nesting (LLVM's parser recurses once per level): deeper is a parse error.
  static constexpr size_t kMaxJsonDepth = 256;
};

/// Serves until `exit` or the end of `in`. Returns the process's exit code: 0 when `exit`
/// followed `shutdown`, 1 otherwise (the protocol's rule). `options` supplies what every
/// document is checked with (stdlib folders, -D constants); its kernel selection is ignored.
int languageServer(std::istream &in, std::ostream &out, const CompileOptions &options);

} // namespace tk

#endif
