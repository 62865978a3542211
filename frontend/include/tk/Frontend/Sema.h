// Semantic analysis: instantiates kernels (with their constants bound) and device functions
// (per argument types), checking every rule of the language and typing every expression.
#ifndef TK_FRONTEND_SEMA_H
#define TK_FRONTEND_SEMA_H

#include "tk/Frontend/Builtins.h"
#include "tk/Frontend/Program.h"
#include "tk/Frontend/SymbolIndex.h"

#include <map>
#include <optional>

namespace tk {

/// A runtime variable: a kernel or fn parameter, a `let`, a `var`, or a loop induction variable.
struct VarDecl {
  /// What declared it: only a `var` may be assigned to.
  enum class Origin { Let, Var, Parameter, LoopVariable };
  std::string name;
  SrcRange range;
  Type type;
  Origin origin = Origin::Let;
  bool isMutable() const { return origin == Origin::Var; }
};

struct FnInstance {
  const FnItem *decl = nullptr;
  std::string mangledName;
  std::vector<Type> argTypes;
  std::vector<std::optional<ConstValue>> constArgs;
  std::vector<VarDecl *> params; // null for const parameters
  Type returnType = Type::voidType();
  BlockPtr body;
  /// The statements and expressions its body counts against the program's limit, its own
  /// calls inlined: every further call inlines them again.
  size_t inlinedNodes = 0;
};

struct KernelArg {
  std::string name;
  SrcRange range;
  Type type;
  VarDecl *var = nullptr;
  bool nospec = false;
};

struct KernelInstance {
  const KernelItem *decl = nullptr;
  std::vector<std::pair<std::string, ConstValue>> constants;
  std::vector<KernelArg> args;
  // The launch options, at their defaults (also those of an @autotune config that leaves one
  // out, in the JIT too).
  int numWarps = 4;
  int numStages = 3;
  // 1: a producer warpgroup issues the TMA copies (sm_90a); 2: and the two consumer
  // warpgroups take turns at the tensor cores (ping-pong); 3: two programs a CTA on their own
  // tiles
  int warpSpecialize = 0;
  // 2: CTAs launched in clusters of 2 whose programs share the operand tiles both load (TMA
  // multicast; a persistent TMA pipeline with a producer warpgroup on sm_90a), else 1
  int clusterSize = 1;
  BlockPtr body;
};

/// The launch options a config or -D may set besides a kernel's constants.
inline constexpr const char *kLaunchOptions = "num_warps, num_stages, warp_specialize, cluster_size";
bool isLaunchOption(const std::string &name);

/// One `@autotune` configuration: constant values plus launch options.
struct TuneConfig {
  std::vector<std::pair<std::string, ConstValue>> values;
  std::optional<int> numWarps, numStages, warpSpecialize, clusterSize;
};

struct AutotuneSpec {
  std::vector<std::string> key;
  std::vector<std::string> resetToZero; // pointer parameters zeroed before each timed run
  std::vector<std::string> restoreValue; // pointer parameters restored before each timed run and after
  std::vector<TuneConfig> configs;
};

/// Limits on what one kernel may ask of the compiler (Triton's tile limit is 2^20 elements).
struct SemaLimits {
  static constexpr int64_t kMaxTileElements = 1 << 20;
  /// Dimensions of a tile: far past any kernel's (codegen lowers up to 3, descriptors take 5),
  /// and a bound on the types `x[None, None, ...]` makes (each `None` one more dimension).
  static constexpr size_t kMaxTileRank = 16;
  /// `multiple_of` and `max_contiguous`: the largest 32-bit power of two.
  static constexpr int64_t kMaxHintValue = int64_t(1) << 30;
  static constexpr int64_t kMaxUnroll = 1024;
  static constexpr int kMaxBlockDepth = 64;
  static constexpr int kMaxInstantiationDepth = 64;
  static constexpr size_t kMaxInstances = 4096;
  /// CUDA passes at most 32 KB of kernel arguments (4,095 pointers); LLVM's optimizer is
  /// quadratic in a function's parameters (20,000 took 3.3 GB).
  static constexpr size_t kMaxKernelParams = 4096;
  /// The PTX parameter space ptxas takes (PTX ISA 8.1 and later; 4352 bytes before, which
  /// ptxFeatures asks for past that).
  static constexpr size_t kMaxKernelParamBytes = 32764;
  /// The total work of one Sema: statements and expressions checked, counting every unrolled
  /// copy and inlined instance (nested static_ranges multiply: each is under kMaxUnroll, their
  /// product need not be), plus the size of every block copied to be unrolled or
  /// instantiated (BlockStmt::copyCost; a copy of a loop that never runs is kept but never
  /// checked).
  static constexpr size_t kMaxCheckedNodes = size_t(1) << 20;
};

class SemaImpl;

class Sema {
public:
  Sema(Program &program, DiagEngine &diags) : program_(program), diags_(diags) {}

  /// Record each checked expression's type and each name's declaration into `index` (null:
  /// record nothing).
  void setIndex(SymbolIndex *index) { index_ = index; }

  /// How diagnostics name a value of `instantiate`'s `defines`: "-D " (tkc's command line, the
  /// default) or "the config's " (the JIT's launches and tuning configs).
  void setDefinesLabel(std::string label) { definesLabel_ = std::move(label); }

  /// Reads a kernel's @autotune decorator (null when it has none; errors are reported).
  std::optional<AutotuneSpec> autotune(const KernelItem &kernel);

  /// Type-checks a kernel with its constants bound from, in order of precedence: `defines`,
  /// `config`, then defaults. Returns null when errors were reported.
  std::unique_ptr<KernelInstance> instantiate(const KernelItem &kernel,
                                              const std::map<std::string, std::string> &defines,
                                              const TuneConfig *config);

  /// The types written for a kernel's parameters, in order (errors reported; Type::error()).
  /// A `const T: dtype` parameter is `type T` at its default (bf16 without one), and so are the
  /// element types that name it (`ptr<T>`); `elemFrom` gets, per parameter, the dtype parameter
  /// its element type is ("" for none), which only instantiation binds.
  std::vector<Type> declaredParamTypes(const KernelItem &kernel, std::vector<std::string> *elemFrom = nullptr);
  /// Constant parameters that have no value from defines, config or default.
  std::vector<std::string> unboundConstants(const KernelItem &kernel,
                                            const std::map<std::string, std::string> &defines,
                                            const TuneConfig *config);

  const std::vector<std::unique_ptr<FnInstance>> &fnInstances() const { return fnInstances_; }
  /// Whether this program's instantiations together passed SemaLimits::kMaxCheckedNodes (one
  /// budget for all of them: what they keep in memory).
  bool sizeLimitReached() const { return checkedNodes_ > SemaLimits::kMaxCheckedNodes; }
  /// The nodes checked so far, instantiations and their copies together (what they keep in memory).
  size_t checkedNodes() const { return checkedNodes_; }

  // Helpers shared by the Sema implementation files.
  struct Symbol {
    enum class Kind { Var, Const };
    Kind kind = Kind::Var;
    VarDecl *var = nullptr;
    ConstValue value;
    Type type;
    SrcRange range;
  };

private:
  friend class SemaImpl;
  std::optional<ConstValue> bindDType(SemaImpl &impl, const KernelItem &kernel, const KernelParam &p,
                                      const std::map<std::string, std::string> &defines, const TuneConfig *config);
  Program &program_;
  DiagEngine &diags_;
  std::vector<std::unique_ptr<FnInstance>> fnInstances_;
  std::vector<std::unique_ptr<VarDecl>> vars_;
  std::map<const ConstItem *, std::optional<Symbol>> moduleConsts_;
  std::vector<const ConstItem *> constStack_;
  size_t checkedNodes_ = 0;
  SymbolIndex *index_ = nullptr;
  std::string definesLabel_ = "-D ";
};

/// Whether `p` is a `const NAME: dtype` parameter: a scalar type bound at compile time.
bool isDTypeParam(const KernelParam &p);

/// Whether every path through `stmt` ends in a return.
bool alwaysReturns(const Stmt &stmt);

/// Whether some path through `stmt` returns.
bool mayReturn(const Stmt &stmt);

/// The literal value of a `-D NAME=VALUE` text for a constant of type `type`.
std::optional<ConstValue> parseConstText(const std::string &text, const Type &type);

} // namespace tk

#endif
