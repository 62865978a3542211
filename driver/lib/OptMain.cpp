#include "tk/Codegen/Passes.h"
#include "tk/Dialect/Tk/IR/Tk.h"
#include "tk/Dialect/Tk/Transforms/Passes.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"
#include "tk/Driver/Compiler.h"
#include "tk/Frontend/Parser.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace {

/// How deep an input's regions, attributes and types may nest (tk's IR: a few dozen levels):
/// MLIR's parser recurses once or more a level, and 5000 levels overflowed the default stack.
constexpr size_t kMaxMlirNesting = 10000;

/// The byte where `text` nests its `{ ( [ <` deeper than `limit`, outside strings and `//`
/// comments (an arrow's `>` closes nothing), or npos when it never does.
size_t mlirNestedTooDeep(llvm::StringRef text, size_t limit) {
  size_t depth = 0;
  for (size_t at = 0; at < text.size(); ++at) {
    char c = text[at];
    if (c == '"') {
      for (++at; at < text.size() && text[at] != '"'; ++at)
        if (text[at] == '\\')
          ++at;
    } else if (c == '/' && text.substr(at).starts_with("//")) {
      at = std::min(text.find('\n', at), text.size());
    } else if (c == '{' || c == '(' || c == '[' || c == '<') {
      if (++depth > limit)
        return at;
    } else if ((c == '}' || c == ')' || c == ']' || (c == '>' && (at == 0 || text[at - 1] != '-'))) && depth) {
      --depth;
    }
  }
  return llvm::StringRef::npos;
}

} // namespace

int tk::optMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv); // (a crash's stack trace, as mlir-opt prints it)
  mlir::DialectRegistry registry;
  registerTkDialects(registry);
  mlir::registerTransformsPasses();
  registerTkPasses();
  registerTkCodegenPasses();
  registry.insert<tk::gpu::TkgDialect, mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
  mlir::PassPipelineRegistration<>("tk-tile-pipeline",
                                   "The tile-level cleanup pipeline of tkc --emit=tk",
                                   [](mlir::OpPassManager &pm) { buildTileOptimizationPipeline(pm); });
  auto [input, output] = mlir::registerAndParseCLIOptions(argc, argv, "tk optimizer driver\n", registry);
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  int status = 1;
  // The parser, verifier and printer recurse as deep as the input nests: on a large stack.
  if (config.shouldShowDialects() || config.shouldListPasses()) { // (they read no input)
    runWithLargeStack(
        [&] { status = mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, input, output, registry)); });
    return status;
  }
  // The input (a file or standard input) is read here, so that its nesting is checked before
  // MLIR parses it, then handed to MLIR as MlirOptMain's own driver would.
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = mlir::openInputFile(input, &error);
  if (!buffer) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (size_t at = mlirNestedTooDeep(buffer->getBuffer(), kMaxMlirNesting); at != llvm::StringRef::npos) {
    llvm::errs() << (input == "-" ? std::string("<stdin>") : input) << ": nested more than " << kMaxMlirNesting
                 << " levels deep at byte " << at << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> file = mlir::openOutputFile(output, &error);
  if (!file) {
    llvm::errs() << error << "\n";
    return 1;
  }
  runWithLargeStack([&] {
    if (mlir::succeeded(mlir::MlirOptMain(file->os(), std::move(buffer), registry, config))) {
      file->keep(); // (kept only when the run succeeded, as mlir-opt does)
      status = 0;
    }
  });
  return status;
}
