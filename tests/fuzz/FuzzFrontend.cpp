// libFuzzer target: any bytes through the whole front end (parse, Sema, MLIRGen, verifier, tile
// pipeline). A crash, a hang, a sanitizer report, or IR that fails to verify is a bug.
#include "tk/Driver/Compiler.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  tk::CompileOptions options;
  options.stdlibDirs = {TK_FUZZ_STDLIB_DIR};
  tk::Compiler compiler(options);
  std::ostringstream out;
  if (compiler.load("fuzz.tk", &text))
    compiler.emit(tk::EmitKind::Tk, out);
  if (compiler.hadInternalError()) {
    std::fputs(compiler.diagnosticsText().c_str(), stderr);
    std::abort();
  }
  return 0;
}
