// The compiler driver used by tkc, tk-opt, the tests and the JIT: load a .tk file with its
// imports, check it (frontend/), and emit a stage (the tile pipeline of ir/, the GPU lowering of
// codegen/). MLIR stays behind this header.
#ifndef TK_DRIVER_COMPILER_H
#define TK_DRIVER_COMPILER_H

#include "tk/Frontend/Diagnostics.h"
#include "tk/Frontend/IntExpression.h"
#include "tk/Support/Types.h"

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace tk {

class SymbolIndex; // tk/Frontend/SymbolIndex.h: what `tkc lsp` asks of a check

struct CompileOptions {
  std::map<std::string, std::string> defines; // -D NAME=VALUE
  std::string kernel;                         // empty: every kernel of the main file
  bool optimize = true;                       // -O3 (default) runs the tile pipeline; -O0 not
  bool printLocations = false;                // print FileLineColLoc of every op
  std::vector<std::string> stdlibDirs;        // where `import` looks after the file's folder
  int sm = 90;                                // --arch=sm_80|sm_89|sm_90|sm_90a: the GPU target
  bool archSpecific = false;                  // sm_90a: Hopper's wgmma (not forward-compatible)
  bool debug = false;                         // --debug: check `assert` on the GPU
  /// Divisibility (in bytes for pointers, in units for integers) known of runtime arguments,
  /// as the JIT specializes them; pointers default to 16 (allocations are 256-byte aligned).
  std::map<std::string, int64_t> divisibility;
  /// Integer arguments known to equal 1 (the JIT's `== 1` specialization): compiled as the
  /// constant, so a unit stride makes accesses contiguous.
  std::vector<std::string> equalToOne;
  /// A -D that names no constant of the selected kernels is ignored, not an error (`tkc lsp`:
  /// its -D serve every document, each of which has its own kernels).
  bool ignoreUnknownDefines = false;
  /// The @autotune config (its index in the kernel's space) whose values the constants take
  /// where no -D gives one; none: the first. (AOT headers compile each; a value that does not
  /// fit is then reported as the config's, not as a -D the user never wrote.)
  std::optional<size_t> autotuneConfig;
  /// How diagnostics name a -D: "-D " (tkc), or "the config's " (the JIT, whose launches' and
  /// tuning configs' constants arrive as defines).
  std::string definesLabel = "-D ";
  /// The program whose diagnostics these are: one with no place in the source then reads
  /// "tkc: error: ..." as the program's own errors do; empty (a library's): "error: ...".
  std::string tool;
  /// False: the file given as text lies in no folder (an editor's untitled buffer): its imports
  /// come from the stdlib only.
  bool mainHasFolder = true;
};

/// "NAME=VALUE, ..." of a config's or a signature's constants (name-value pairs of text), in
/// their order.
template <typename Pairs> std::string configText(const Pairs &values) {
  std::string text;
  for (const auto &[name, value] : values)
    text += (text.empty() ? "" : ", ") + name + "=" + value;
  return text;
}

/// A kernel as declared, before any constant is bound: what the JIT checks launches against
/// and what the autotuner searches.
struct KernelDecl {
  struct Param {
    std::string name;
    Type type; // `type T` for a `const T: dtype` parameter (at its default, else bf16)
    bool isConst = false, nospec = false, hasDefault = false;
    /// The `const T: dtype` parameter whose value is this parameter's element type (`ptr<T>`,
    /// `T`), bound per launch; `type` holds it at T's default. Empty for none.
    std::string elemFrom;
    /// A `const` parameter's default when it is a literal ("128", "-1", "0.5", "true", "f16"),
    /// as -D writes it; empty for none or an expression. Grid functions see it in their Config.
    std::string defaultText;
  };
  std::string name;
  std::vector<Param> params;
  std::vector<std::string> tuneKey;                         // @autotune(key = [...])
  std::vector<std::string> resetToZero;                     // @autotune(reset_to_zero = [...])
  std::vector<std::string> restoreValue;                    // @autotune(restore_value = [...])
  std::vector<std::map<std::string, std::string>> configs; // constants and launch options, as text
};

/// ast, tk: front end; tkgpu: per-thread LLVM+NVVM dialect; llvm: LLVM IR; ptx; cubin (ptxas).
enum class EmitKind { AST, Tk, TkGpu, LLVM, PTX, Cubin };

/// One line per kernel for `tkc --stats` and the main job.
struct KernelSummary {
  std::string name;
  size_t runtimeArgs = 0;
  std::string constants; // "BLOCK=1024, ..."
  int numWarps = 4;
  int numStages = 3;
  size_t tileOps = 0;    // operations in the kernel after the tile pipeline
  size_t configs = 0;    // @autotune configurations (0: none)
  // Of the last GPU emit (-1: none): its dots on the tensor cores and by FMA.
  int64_t tensorCoreDots = -1, fmaDots = -1;
  int programsPerCta = 1; // of the last GPU emit: 2 with warp_specialize 3 where it applied
  int warpSpecialize = 0;  // the launch option asked for
  int clusterSize = 1;     // the launch option asked for
  int clusterCtas = 1;     // of the last GPU emit: 2 where cluster_size 2 applied
  bool producer = false;   // of the last GPU emit: whether it got a producer warpgroup
  std::string str() const;
};

/// A compiled kernel's runtime parameters (in order) and the constants it was built with.
struct KernelSignature {
  std::string name;
  std::vector<std::pair<std::string, Type>> args;
  std::vector<std::pair<std::string, Type>> constantTypes;
  std::vector<std::pair<std::string, std::string>> constants; // values as text
  int numWarps = 4;
  int numStages = 3;
  int warpSpecialize = 0;
  int clusterSize = 1;
};

class Compiler {
public:
  explicit Compiler(CompileOptions options);
  ~Compiler();
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  /// Loads the file (or `text`, named `path`) and its imports. False on any error.
  bool load(const std::string &path, const std::string *text = nullptr);
  /// Type-checks the selected kernels. Kernels whose constants have no value are skipped with
  /// a warning. False on any error.
  bool check();
  /// Writes the requested stage of the selected kernels. False on any error.
  bool emit(EmitKind kind, std::ostream &out);
  /// ptxas's resource report (registers, shared memory, spills) of the last cubin emitted.
  const std::string &ptxasReport() const;
  /// Bytes of dynamic shared memory a launch of the last GPU stage emitted must ask for.
  int64_t sharedBytes() const;
  /// Threads per program a launch of the last GPU stage emitted must ask for: num_warps * 32,
  /// plus a producer warpgroup's 128 in a warp-specialized kernel.
  int launchThreads() const;
  /// Every file loaded (the main file and its imports) as path and text, for cache keys.
  std::vector<std::pair<std::string, std::string>> sources() const;
  /// The selected kernels as declared (after a successful load). False on errors in their
  /// parameter types or @autotune decorators.
  bool declarations(std::vector<KernelDecl> &out);
  /// Summaries of the selected kernels (after a successful check or emit).
  std::vector<KernelSummary> summaries();

  /// Signatures of the kernels instantiated by the last check or emit.
  std::vector<KernelSignature> signatures() const;
  /// The tk IR module built by the last successful emit (an mlir::ModuleOp), or null.
  void *moduleOperation() const;

  const DiagEngine &diagnostics() const;
  /// The files loaded; fileIds as in diagnostics and the index.
  const SourceManager &sourceManager() const;
  /// Record what the next check finds into `index` (`tkc lsp`'s hover and definitions).
  void setIndex(SymbolIndex *index);
  /// The syntax nodes the checks so far made and kept (SemaLimits::kMaxCheckedNodes bounds one
  /// program's): what this Compiler holds in memory, in those units.
  size_t checkedNodes() const;
  /// Where the top-level `name` seen from file `fileId` (its own items, then its imports') is
  /// declared, after a successful load: found by name alone, in code no kernel instantiates too.
  std::optional<SrcRange> globalDeclaration(uint32_t fileId, const std::string &name) const;
  /// True when the front end produced IR that failed to verify: a compiler bug, not a user error.
  bool hadInternalError() const;
  /// Every diagnostic, formatted as the command line prints them.
  std::string diagnosticsText() const;

  /// The stdlib folder: $TK_STDLIB_DIR, else next to the executable, else the source tree.
  static std::string defaultStdlibDir();
  /// The version of the LLVM/MLIR inside (for `tkc --version`).
  static std::string llvmVersion();

private:
  bool emitOnThisStack(EmitKind kind, std::ostream &out);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// tk-opt: MlirOptMain with the tk dialect and passes registered.
int optMain(int argc, char **argv);

} // namespace tk

#endif
