// `tkc FILE --emit=header`: kernels compiled ahead of time into a C++ header (tk/Runtime/Aot.h
// loads them; a program that includes the header links only libtkc-runtime).
#ifndef TK_DRIVER_AOTHEADER_H
#define TK_DRIVER_AOTHEADER_H

#include "tk/Driver/Compiler.h"

#include <string>

namespace tk {

/// The header for the selected kernels of `file`: per kernel, one launcher struct per config of
/// its @autotune space (or one, at the -D constants), with the cubin for `base.sm` (when ptxas
/// is found; `warnings` says so otherwise) and the PTX. Integer arguments named in
/// `base.divisibility` are compiled divisible and checked at launch. False with the diagnostics.
bool emitAotHeader(const std::string &file, const CompileOptions &base, std::string &header, std::string &diagnostics,
                   std::string &warnings);

} // namespace tk

#endif
