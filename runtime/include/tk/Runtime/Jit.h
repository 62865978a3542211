// The JIT: a .tk module loaded into a Context, its kernels compiled on first launch for the
// constants and the specialization of the arguments, kept in memory and in the disk cache,
// and autotuned over their @autotune space (or one given here).
#ifndef TK_RUNTIME_JIT_H
#define TK_RUNTIME_JIT_H

#include "tk/Runtime/Context.h"

#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tk {

/// A compile-time constant: what a kernel's `const` parameters take (an integer, a float, a
/// bool, or a scalar type for a `const T: dtype` parameter), given at launch, in a tuning space
/// or in a Config.
class Const {
public:
  enum class Kind { Int, Float, Bool, DType };
  Const(int value) : kind_(Kind::Int), i_(value) {}
  Const(long value) : kind_(Kind::Int), i_(value) {}
  Const(long long value) : kind_(Kind::Int), i_(value) {}
  /// Throws tk::Error above INT64_MAX (the language's constants are at most 64-bit signed).
  Const(unsigned value) : Const(static_cast<unsigned long long>(value)) {}
  Const(unsigned long value) : Const(static_cast<unsigned long long>(value)) {}
  Const(unsigned long long value);
  Const(double value) : kind_(Kind::Float), f_(value) {}
  Const(bool value) : kind_(Kind::Bool), i_(value) {}
  /// An element type, for a `const T: dtype` parameter: `{{"T", tk::Scalar::F16}}`.
  Const(Scalar type) : kind_(Kind::DType), i_(int64_t(type)) {}
  /// Text is no constant (it would convert to a bool): see Const::parse.
  Const(const char *) = delete;
  /// A value as the language writes it: "true"/"false", a scalar type ("f16", "bf16"), an
  /// integer ("128", "0x80", as the compiler's -D reads it), else a float ("0.5", "1e-6"); none
  /// when the text is none of these.
  static std::optional<Const> parse(const std::string &text);

  Kind kind() const { return kind_; }
  /// The value of an integer or a bool (0 or 1).
  int64_t integer() const { return i_; }
  /// The type of a DType constant.
  Scalar dtype() const { return Scalar(i_); }
  /// The value of a float, or of an integer or a bool as a double.
  double real() const { return kind_ == Kind::Float ? f_ : double(i_); }
  /// As the language writes it ("128", "0.5", "2.0", "true", "f16"): the one text of a constant, in
  /// cache keys and in what the compiler is given.
  std::string str() const;

  /// Same kind and same value (floats bit for bit: 0.0 and -0.0 differ, a NaN equals itself).
  bool operator==(const Const &other) const {
    return kind_ == other.kind_ && (kind_ == Kind::Float ? bits(f_) == bits(other.f_) : i_ == other.i_);
  }
  bool operator!=(const Const &other) const { return !(*this == other); }
  size_t hash() const {
    return size_t(((kind_ == Kind::Float ? bits(f_) : uint64_t(i_)) ^ (uint64_t(kind_) << 62)) * 0x9e3779b97f4a7c15ull);
  }

private:
  static uint64_t bits(double value) {
    uint64_t out;
    std::memcpy(&out, &value, sizeof(out));
    return out;
  }
  Kind kind_;
  int64_t i_ = 0;
  double f_ = 0;
};
using Consts = std::map<std::string, Const>;

/// A device address with the element type it points to (memory the program allocated itself).
struct DevicePointer {
  unsigned long long address = 0;
  Scalar elem = Scalar::F32;
};

/// One launch argument: a buffer or device pointer for `ptr<T>`, a number for the rest.
class Arg {
public:
  enum class Kind { Buffer, Pointer, Int, Unsigned, Float, Bool };
  Arg(const Buffer &buffer) : kind_(Kind::Buffer), buffer_(&buffer) {}
  Arg(DevicePointer pointer) : kind_(Kind::Pointer), pointer_(pointer) {}
  Arg(int32_t v) : kind_(Kind::Int), i_(v) {}
  Arg(int64_t v) : kind_(Kind::Int), i_(v) {}
  Arg(uint32_t v) : kind_(Kind::Unsigned), i_(int64_t(v)) {}
  Arg(uint64_t v) : kind_(Kind::Unsigned), i_(int64_t(v)) {}
  Arg(float v) : kind_(Kind::Float), f_(v) {}
  Arg(double v) : kind_(Kind::Float), f_(v) {}
  Arg(bool v) : kind_(Kind::Bool), i_(v) {}
  Kind kind() const { return kind_; }
  const Buffer *buffer() const { return buffer_; }
  DevicePointer pointer() const { return pointer_; }
  int64_t integer() const { return i_; }
  double real() const { return f_; }

private:
  Kind kind_;
  const Buffer *buffer_ = nullptr;
  DevicePointer pointer_;
  int64_t i_ = 0;
  double f_ = 0;
};

/// The constants and launch options (num_warps, num_stages) of one compiled variant.
struct Config {
  std::map<std::string, Const> values;
  /// An integer value; throws tk::Error naming `name` when the config has none.
  int64_t operator[](const std::string &name) const;
  /// An integer value, or none.
  std::optional<int64_t> integer(const std::string &name) const;
  std::string str() const; // "BM=128, BN=64, num_warps=4" (also the config's text in cache keys)
};

/// A grid function's config also holds this value: how many programs of the variant fit on
/// one multiprocessor at once (registers, threads and shared memory, by the driver's occupancy
/// calculator; 2^30 on the interpreter, which has no such limit), for persistent kernels that
/// want every program resident.
inline constexpr const char *kResidentPrograms = "resident_programs_per_multiprocessor";
/// And this one: the GPU's multiprocessors (1 on the interpreter), so that a persistent grid
/// is `multiprocessors * resident_programs_per_multiprocessor` programs (at most one a tile).
inline constexpr const char *kMultiprocessors = "multiprocessors";

/// ceil(a / b), b > 0: how many programs of b elements cover a (Triton's `triton.cdiv`), for
/// grid functions such as `tk::Grid(cdiv(M, config["BM"]))`.
constexpr int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// A launch grid, fixed or computed from the config the tuner chose (`cdiv(M, c["BM"])`).

class GridSpec {
public:
  GridSpec(Grid grid) : fixed_(grid) {}
  GridSpec(int64_t x, int64_t y = 1, int64_t z = 1) : fixed_(x, y, z) {}
  GridSpec(std::function<Grid(const Config &)> fn) : fn_(std::move(fn)) {}
  Grid operator()(const Config &config) const { return fn_ ? fn_(config) : fixed_; }

private:
  Grid fixed_;
  std::function<Grid(const Config &)> fn_;
};

struct JitOptions {
  std::vector<std::string> stdlibDirs; // where `import` looks after the file's folder
  bool debug = false;                  // check `assert` on the GPU
  /// The disk cache: none, the default ($TK_CACHE_DIR, else ~/.cache/tk); "": no disk cache.
  std::optional<std::string> cacheDir;
  /// The tuner's compile pool: none, one thread per core.
  std::optional<int> compileThreads;
};

struct ParamInfo {
  std::string name;
  Type type; // for a parameter whose element type is a dtype constant: at that constant's default
  bool nospec = false;
  /// The `const T: dtype` parameter whose value (given at launch, else its default) is this
  /// parameter's element type (`ptr<T>`); empty for none.
  std::string elemFrom;
};

/// One config the tuner looked at: its time, or why it was left out.
struct TuneResult {
  Config config;
  std::optional<double> ms; // the median of its timing rounds' medians; none when not timed (pruned, failed, untimed)
  std::string status;       // "" timed; otherwise why not ("pruned: ...", "failed to compile: ...")
  /// A finalist's (a config within 5% of the best rounds' median, at most four, when there are
  /// two or more) median in the final round, where the finalists run in turn: what picks the
  /// winner among them.
  std::optional<double> finalMs;
};

struct TuneReport {
  std::vector<TuneResult> results;
  size_t best = 0;
  bool fromDatabase = false; // the winner came from the tuning database: nothing was timed
  double compileSeconds = 0, timeSeconds = 0;
};

/// Called while tuning: configs compiled or timed so far, of `total`, and what just finished.
using TuneProgress = std::function<void(size_t done, size_t total, const std::string &what)>;

class Module;

class Kernel {
public:
  const std::string &name() const;
  /// The runtime parameters, in order (const parameters are given in Consts).
  const std::vector<ParamInfo> &params() const;

  /// Enqueues the kernel on `stream`. Checks the argument count and each argument's type
  /// (naming the parameter), compiles on first use of these constants and this specialization
  /// (from memory or the disk cache after that), and autotunes first when the kernel has a
  /// tuning space and `consts` sets none of its constants. Throws tk::Error.
  void launch(const GridSpec &grid, std::initializer_list<Arg> args, const Consts &consts = {},
              const Stream &stream = Stream());
  void launch(const GridSpec &grid, const std::vector<Arg> &args, const Consts &consts = {},
              const Stream &stream = Stream());

  /// Replaces the @autotune space: these configs, tuned per value of the `key` parameters; the
  /// `resetToZero` buffers (outputs the kernel accumulates into) are zeroed before each timed run,
  /// the `restoreValue` ones (updated in place) copied back before each timed run and after.
  /// Like restrictTuneSpace, it may be called while other threads launch (it waits for a
  /// tuning in progress; launches already begun finish with the winner they found).
  void setTuneSpace(std::vector<Consts> configs, std::vector<std::string> key,
                    std::vector<std::string> resetToZero = {}, std::vector<std::string> restoreValue = {});
  /// Narrows the tuning space (the @autotune one, or setTuneSpace's) to the configs `keep`
  /// accepts; the key, reset_to_zero and restore_value stay. Throws tk::Error when it keeps none. Another
  /// Kernel of the same Module shares the space: narrow a Kernel of a Module of its own.
  void restrictTuneSpace(const std::function<bool(const Config &)> &keep);
  /// Tunes for these arguments now (the first launch would), or takes the winner from memory
  /// or the tuning database; the report lists every config. Runs the kernel on the arguments
  /// several times per config: outputs it accumulates into must be named in reset_to_zero, and
  /// buffers it updates in place in restore_value.
  /// `progress` must not change this kernel's tuning space (the tuning holds it).
  TuneReport tune(const GridSpec &grid, const std::vector<Arg> &args, const Consts &consts = {},
                  const Stream &stream = Stream(), const TuneProgress &progress = nullptr);

  /// What the launches so far did, for tests and benchmarks.
  struct Stats {
    int compiles = 0;      // compiled by the compiler
    int diskHits = 0;      // taken from the disk cache
    int tunings = 0;       // tuning runs that timed configs
    int databaseHits = 0;  // winners read from the tuning database
  };
  Stats stats() const;

  struct Impl;

private:
  friend class Module;
  Impl &impl() const; // throws tk::Error for an empty Kernel (default-constructed or moved from)
  std::shared_ptr<const void> module_; // its module (Module::Impl) lives as long as any of its kernels
  std::shared_ptr<Impl> impl_;
};

class Module {
public:
  /// Loads a .tk file and its imports. Throws tk::Error with the compiler's diagnostics.
  static Module fromFile(Context &context, const std::string &path, JitOptions options = {});
  /// Source text, named `path` in diagnostics; imports resolve beside that path.
  static Module fromString(Context &context, const std::string &source, const std::string &path = "module.tk",
                           JitOptions options = {});
  /// Throws tk::Error listing the module's kernels when there is none of that name.
  Kernel kernel(const std::string &name) const;
  std::vector<std::string> kernelNames() const;

  struct Impl;

private:
  Impl &impl() const; // throws tk::Error for an empty Module (default-constructed or moved from)
  std::shared_ptr<Impl> impl_;
};

} // namespace tk

#endif
