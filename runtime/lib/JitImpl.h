// What Jit.cpp (launches, compiled variants) and Autotuner.cpp (tuning, the tuning database)
// share of a kernel's state.
#ifndef TK_RUNTIME_JITIMPL_H
#define TK_RUNTIME_JITIMPL_H

#include "tk/Driver/Compiler.h"
#include "tk/Runtime/Jit.h"

#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

namespace tk {

struct Module::Impl {
  Context *context = nullptr;
  std::weak_ptr<const bool> contextAlive; // expired: the context was destroyed
  std::string path;
  std::optional<std::string> text; // fromString's source
  JitOptions options;
  std::string cacheDir;
  std::string sourceHash; // the file and its imports
  std::vector<KernelDecl> decls;
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<Kernel::Impl>> kernels; // one state per kernel name
};

/// A kernel compiled for one config and one specialization of its arguments.
struct Variant {
  Config config;
  int threads = 128;
  int64_t sharedBytes = 0;
  int registers = 0;
  cuda::CUfunc_st *function = nullptr;  // CUDA
  std::unique_ptr<Compiler> interpreted; // interpreter: the compiler owns the tk IR
  void *kernelOp = nullptr;             // its func.func
};

/// The arguments of one launch in the form cuLaunchKernel takes, and their specialization.
struct PackedArgs {
  std::vector<uint64_t> slots;
  std::vector<void *> pointers;
  std::string spec; // one character per parameter (Kernel::Impl::specialize)
};

struct Kernel::Impl {
  std::shared_ptr<Module::Impl> module;
  KernelDecl decl;
  std::vector<ParamInfo> params;   // runtime parameters
  std::vector<Config> configs;     // the tuning space
  std::set<std::string> tunedNames; // every name a config sets (a launch setting one is not tuned)
  std::vector<std::string> key;    // parameters whose values select a tuning entry
  std::vector<size_t> keyIndex;    // their positions among params
  std::vector<size_t> resetIndex;  // pointer parameters zeroed before each timed run
  std::mutex mutex;      // the tables below
  std::mutex buildMutex; // held while a launch compiles a variant or tunes
  std::unordered_map<std::string, std::shared_ptr<Variant>> variants; // appendLaunchKey, untuned
  std::unordered_map<std::string, std::shared_ptr<Variant>> winners;  // appendLaunchKey, tuned
  Kernel::Stats stats;

  /// The module's context; tk::Error when it was destroyed before the kernel was used.
  Context &context() const {
    if (module->contextAlive.expired())
      throw Error("kernel '" + decl.name + "': its tk::Context was destroyed; a context must outlive its modules, "
                  "kernels and buffers");
    return *module->context;
  }
  /// Checks count and types against the signature (naming the parameter) and packs.
  void pack(const Arg *args, size_t count, PackedArgs &packed) const;
  /// Throws tk::Error naming a constant the kernel does not have, or one left without a value.
  void checkConstants(const Config &config) const;
  /// The compile options of a config under a specialization.
  CompileOptions compileOptions(const Config &config, const std::string &spec) const;
  /// Compiles (or takes from the disk cache) and loads one variant. Throws tk::Error with the
  /// compiler's diagnostics. Thread-safe: the tuner calls it from its pool.
  std::shared_ptr<Variant> build(const Config &config, const std::string &spec, bool &fromDisk) const;
  /// Runs a variant: enqueues it (CUDA) or interprets it over the grid.
  void run(Variant &variant, const Grid &grid, PackedArgs &packed, const Arg *args, size_t count,
           const Stream &stream) const;
  /// The winner for these arguments (tunes when neither memory nor the database has it).
  std::shared_ptr<Variant> tuned(const GridSpec &grid, const Arg *args, size_t count, PackedArgs &packed,
                                 const Config &given, const std::string &memoryKey, const Stream &stream,
                                 const TuneProgress &progress, TuneReport *report);
  /// Kernel::launch's work.
  void launch(const GridSpec &grid, const Arg *args, size_t count, const Consts &consts, const Stream &stream);
  /// The key of the in-memory tables: constants | specialization [| tuning key values].
  void appendLaunchKey(std::string &key, const Consts &consts, const std::string &spec, const Arg *args,
                       bool tuned) const;
  bool tunes(const Consts &consts) const;
  void setConfigs(std::vector<Config> space);
  std::string keyValues(const Arg *args) const;
};

Config configOf(const Consts &consts);
/// "x: ptr<f32>, n: i32", for messages.
std::string paramList(const std::vector<ParamInfo> &params);

} // namespace tk

#endif
