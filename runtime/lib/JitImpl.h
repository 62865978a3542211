// What Jit.cpp (launches, compiled variants) and Autotuner.cpp (tuning, the tuning database)
// share of a kernel's state.
#ifndef TK_RUNTIME_JITIMPL_H
#define TK_RUNTIME_JITIMPL_H

#include "tk/Driver/Compiler.h"
#include "tk/Runtime/Jit.h"
#include "tk/Runtime/KernelCompile.h"

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
  Config gridConfig; // config plus the defaults of the constants it leaves out: what grids see
  int threads = 128;
  int64_t sharedBytes = 0;
  int registers = 0;
  LoadedFunction function;               // CUDA
  std::unique_ptr<Compiler> interpreted; // interpreter: the compiler owns the tk IR
  void *kernelOp = nullptr;             // its func.func
  std::vector<Type> argTypes;           // interpreter: the runtime parameters' types as compiled
};

/// What one launch argument lets its variant assume: the largest power of two up to 16 that
/// divides it (bytes for a pointer, units for an integer) and, for an integer, whether it
/// equals 1. The default assumes nothing: `nospec` parameters, floats, bools, and every
/// parameter on the interpreter.
struct Specialization {
  std::optional<uint8_t> divisibilityLog2; // 0..4: divisible by 1, 2, 4, 8 or 16; none: unspecialized
  bool equalsOne = false;

  // Inline, as the rest of this struct: every launch specializes each of its arguments.
  static Specialization ofPointer(uint64_t address) {
    return Specialization{uint8_t(tk::divisibilityLog2(address)), false};
  }
  static Specialization ofInteger(int64_t value) {
    return Specialization{uint8_t(tk::integerDivisibilityLog2(value)), value == 1};
  }
  /// 1 << divisibilityLog2, or none.
  std::optional<int64_t> divisibility() const {
    return divisibilityLog2 ? std::optional<int64_t>(int64_t(1) << *divisibilityLog2) : std::nullopt;
  }
  bool operator==(const Specialization &other) const {
    return divisibilityLog2 == other.divisibilityLog2 && equalsOne == other.equalsOne;
  }
  bool operator!=(const Specialization &other) const { return !(*this == other); }
  size_t hash() const { return (divisibilityLog2 ? 1u + *divisibilityLog2 : 0u) | (equalsOne ? 8u : 0u); }
};

/// A launch's specialization as the disk cache's keys and the tuning database write it (the
/// only place it becomes text): one character per parameter, '-' unspecialized, '1' equal to
/// one, 'a'..'e' divisible by 1..16; "" on the interpreter (no parameter is specialized there).
std::string specializationKey(const std::vector<Specialization> &spec);

/// The arguments of one launch in the form cuLaunchKernel takes, and their specialization.
struct PackedArgs {
  std::vector<uint64_t> slots;
  std::vector<void *> pointers;
  std::vector<Specialization> spec; // one per parameter on the GPU; none on the interpreter
};

/// The key of a kernel's in-memory tables of variants: the launch's constants (in name order),
/// its specialization and, for a tuned launch, the values of the tuning key's parameters.
/// Compared and hashed as values; never text.
struct LaunchKey {
  std::vector<std::pair<std::string, Const>> consts;
  std::vector<Specialization> spec;
  std::vector<int64_t> tuneValues;
};

/// A launch's key where its parts already are (its Consts, its packed specialization, its
/// arguments): what a launch looks up, so that the hot path copies and allocates nothing.
struct LaunchKeyRef {
  const Consts &consts;
  const std::vector<Specialization> &spec;
  const Arg *args = nullptr;                     // the tuning key's values are args[*tuneIndex]
  const std::vector<size_t> *tuneIndex = nullptr; // none: an untuned launch

  bool operator==(const LaunchKey &key) const {
    if (spec.size() != key.spec.size() || consts.size() != key.consts.size() ||
        (tuneIndex ? tuneIndex->size() : 0) != key.tuneValues.size())
      return false;
    for (size_t k = 0; k < spec.size(); ++k)
      if (spec[k] != key.spec[k])
        return false;
    auto stored = key.consts.begin();
    for (const auto &[name, value] : consts) {
      if (value != stored->second || name != stored->first)
        return false;
      ++stored;
    }
    for (size_t k = 0; k < key.tuneValues.size(); ++k)
      if (args[(*tuneIndex)[k]].integer() != key.tuneValues[k])
        return false;
    return true;
  }
  /// Of the constants' values (not their names: a kernel's launches mostly give the same
  /// names, and equality compares them), the specialization and the tuning values.
  size_t hash() const {
    size_t h = consts.size() * 31 + spec.size();
    auto mix = [&h](size_t v) { h = (h ^ v) * 0x100000001b3ull + (h >> 29); };
    for (const auto &entry : consts)
      mix(entry.second.hash());
    for (const Specialization &s : spec)
      mix(s.hash());
    if (tuneIndex)
      for (size_t index : *tuneIndex)
        mix(size_t(args[index].integer()));
    return h;
  }
  LaunchKey key() const {
    LaunchKey key{{consts.begin(), consts.end()}, spec, {}};
    if (tuneIndex)
      for (size_t index : *tuneIndex)
        key.tuneValues.push_back(args[index].integer());
    return key;
  }
};

/// A kernel's variants by launch key. A kernel mostly has a handful: a lookup scans their
/// hashes (one array) and compares the launch's key in place with the one whose hash matches.
/// Beyond kScan variants (a tuned kernel launched on many sizes) the hashes are indexed.
class VariantTable {
public:
  static constexpr size_t kScan = 32;
  /// The variant stored under the key, or null.
  const std::shared_ptr<Variant> *find(const LaunchKeyRef &key) const {
    std::optional<size_t> at = position(key, key.hash());
    return at ? &entries_[*at].second : nullptr;
  }
  /// Stores `variant` under the key (replacing one stored before) and returns it.
  Variant *put(const LaunchKeyRef &key, std::shared_ptr<Variant> variant) {
    size_t h = key.hash();
    if (std::optional<size_t> at = position(key, h))
      return (entries_[*at].second = std::move(variant)).get();
    hashes_.push_back(h);
    entries_.emplace_back(key.key(), std::move(variant));
    if (entries_.size() == kScan + 1)
      for (size_t i = 0; i < hashes_.size(); ++i)
        index_.emplace(hashes_[i], i);
    else if (entries_.size() > kScan + 1)
      index_.emplace(h, entries_.size() - 1);
    return entries_.back().second.get();
  }
  void clear() {
    hashes_.clear();
    entries_.clear();
    index_.clear();
  }
  size_t size() const { return entries_.size(); }

private:
  std::optional<size_t> position(const LaunchKeyRef &key, size_t h) const {
    if (entries_.size() <= kScan) {
      for (size_t i = 0; i < hashes_.size(); ++i)
        if (hashes_[i] == h && key == entries_[i].first)
          return i;
      return std::nullopt;
    }
    for (auto [it, end] = index_.equal_range(h); it != end; ++it)
      if (key == entries_[it->second].first)
        return it->second;
    return std::nullopt;
  }
  std::vector<size_t> hashes_;
  std::vector<std::pair<LaunchKey, std::shared_ptr<Variant>>> entries_;
  std::unordered_multimap<size_t, size_t> index_; // hash -> position, beyond kScan entries
};

struct Kernel::Impl {
  // Not owned: the module owns its kernels' states, and each Kernel handle holds its module
  // (an owning pointer here made a cycle that kept both, with every compiled variant, forever).
  Module::Impl *module = nullptr;
  KernelDecl decl;
  std::vector<ParamInfo> params;   // runtime parameters
  std::vector<Config> configs;     // the tuning space
  std::set<std::string> tunedNames; // every name a config sets (a launch setting one is not tuned)
  std::vector<std::string> key;    // parameters whose values select a tuning entry
  std::vector<size_t> keyIndex;    // their positions among params
  std::vector<size_t> resetIndex;  // pointer parameters zeroed before each timed run
  std::vector<size_t> restoreIndex; // pointer parameters restored before each timed run and after
  std::mutex mutex;      // the tables below
  std::mutex buildMutex; // held while a launch compiles a variant or tunes
  VariantTable variants; // untuned launches
  VariantTable winners;  // tuned launches
  Kernel::Stats stats;

  /// The module's context; tk::Error when it was destroyed before the kernel was used.
  Context &context() const {
    if (module->contextAlive.expired())
      throw Error("kernel '" + decl.name + "': its tk::Context was destroyed; a context must outlive its modules, "
                  "kernels and buffers");
    return *module->context;
  }
  /// Checks count and types against the signature (naming the parameter) and packs.
  void pack(const Arg *args, size_t count, const Consts &consts, PackedArgs &packed) const;
  /// A parameter's type at this launch: its element type bound from `consts` (else the
  /// default) where it is a dtype parameter's (`ptr<T>`). Throws tk::Error naming the constant.
  Type paramType(const ParamInfo &param, const Consts &consts) const;
  /// Throws tk::Error naming a constant the kernel does not have, or one left without a value.
  void checkConstants(const Config &config) const;
  /// The compile options of a config under a specialization.
  CompileOptions compileOptions(const Config &config, const std::vector<Specialization> &spec) const;
  /// Compiles (or takes from the disk cache) and loads one variant. Throws tk::Error with the
  /// compiler's diagnostics. Thread-safe: the tuner calls it from its pool.
  std::shared_ptr<Variant> build(const Config &config, const std::vector<Specialization> &spec, bool &fromDisk) const;
  /// Runs a variant: enqueues it (CUDA) or interprets it over the grid.
  void run(Variant &variant, const Grid &grid, PackedArgs &packed, const Arg *args, size_t count,
           const Stream &stream) const;
  /// The winner for these arguments (tunes when neither memory nor the database has it).
  std::shared_ptr<Variant> tuned(const GridSpec &grid, const Arg *args, size_t count, PackedArgs &packed,
                                 const Config &given, const LaunchKeyRef &memoryKey, const Stream &stream,
                                 const TuneProgress &progress, TuneReport *report);
  /// Kernel::launch's work.
  void launch(const GridSpec &grid, const Arg *args, size_t count, const Consts &consts, const Stream &stream);
  /// This launch's key in its table.
  LaunchKeyRef launchKey(const Consts &consts, const std::vector<Specialization> &spec, const Arg *args,
                         bool tuned) const {
    return LaunchKeyRef{consts, spec, args, tuned ? &keyIndex : nullptr};
  }
  bool tunes(const Consts &consts) const;
  void setConfigs(std::vector<Config> space);
  std::string keyValues(const Arg *args) const;
};

Config configOf(const Consts &consts);
/// What a specialization tells the compiler of the parameters: their divisibility, those equal to 1.
void specialize(CompileOptions &options, const std::vector<ParamInfo> &params, const std::vector<Specialization> &spec);
/// A config as the compiler's -D defines (the only place constants become the compiler's text).
std::map<std::string, std::string> compilerDefines(const Config &config);
/// "ptr<f32>", or "ptr<T>" for a parameter whose element type is a dtype constant's.
std::string paramTypeText(const ParamInfo &p);
/// "x: ptr<f32>, n: i32", for messages.
std::string paramList(const std::vector<ParamInfo> &params);

} // namespace tk

#endif
