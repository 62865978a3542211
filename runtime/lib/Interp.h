// Internals of the interpreter, shared by its files (one per op family).
#ifndef TK_RUNTIME_INTERP_H
#define TK_RUNTIME_INTERP_H

#include "tk/Dialect/Tk/IR/Tk.h"
#include "tk/Runtime/Interpreter.h"

#include "llvm/ADT/DenseMap.h"

#include <cstring>
#include <memory>

namespace tk::interp {

enum class DType : uint8_t { I1, I8, I16, I32, I64, F8E4M3, F8E5M2, F16, BF16, F32, F64, Ptr };

DType dtypeOf(mlir::Type type);
bool isFloat(DType t);
int bitsOf(DType t);

/// A tile (or a scalar: empty shape) of values. Integers and pointers live in `i` (integers as
/// sign-extended bit patterns, pointers as virtual addresses), f64 in `d`, every narrower float
/// in `f` holding exactly the value its format can represent.
struct Tile {
  DType dtype = DType::I32;
  std::vector<int64_t> shape;
  std::vector<int64_t> i;
  std::vector<float> f;
  std::vector<double> d;
  size_t size() const;
  static Tile make(DType dtype, std::vector<int64_t> shape);
  /// The same type, shape and bits (a NaN is the same NaN).
  bool sameAs(const Tile &o) const {
    auto sameBits = [](const auto &a, const auto &b) {
      return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])) == 0);
    };
    return dtype == o.dtype && shape == o.shape && i == o.i && sameBits(f, o.f) && sameBits(d, o.d);
  }
};
using TileRef = std::shared_ptr<const Tile>;

/// Wraps an integer to `bits` bits, sign-extended (the canonical form in Tile::i).
int64_t wrapInt(int64_t value, int bits);
/// The unsigned value of an integer of `bits` bits.
uint64_t asUnsigned(int64_t value, int bits);
/// Rounds a float to what `dtype` can represent (f16, bf16, f8; f32 unchanged).
float roundFloat(float value, DType dtype);
struct Tile;
/// Element k of a float tile set to `value` rounded once (to nearest even) to the tile's type,
/// as PTX's cvt.rn does: f64 to f16 through f32 rounded to nearest twice could land on a tie.
void writeRounded(Tile &t, size_t k, double value);
/// Element k of a float tile set to the integer `value` (of `bits` bits, unsigned or not)
/// rounded once to the tile's type.
void writeRoundedInteger(Tile &t, size_t k, int64_t value, int bits, bool isUnsigned);

class Interpreter;

/// One family of operations each: returns false when the op is not of its family.
bool execArith(Interpreter &interp, mlir::Operation *op);
bool execMemory(Interpreter &interp, mlir::Operation *op);
bool execTile(Interpreter &interp, mlir::Operation *op);

class Interpreter {
public:
  Interpreter(const InterpreterLaunch &launch, std::string kernelName)
      : launch_(launch), kernelName_(std::move(kernelName)) {}

  void runProgram(mlir::func::FuncOp kernel, std::array<int64_t, 3> pid);
  /// Runs a region's single block with these arguments; returns the terminator's operands.
  std::vector<TileRef> runRegion(mlir::Region &region, const std::vector<TileRef> &args);

  const Tile &get(mlir::Value value) const;
  TileRef ref(mlir::Value value) const;
  void set(mlir::Value value, Tile tile);
  void setRef(mlir::Value value, TileRef tile) { env_[value] = std::move(tile); }

  /// Throws a RunFault that names the kernel, program, and the op's source location.
  [[noreturn]] void fault(mlir::Operation *op, const std::string &message) const;

  // Memory: buffer i's elements start at virtual address base(i), in the middle of its slot
  // [2i << 40, (2i + 2) << 40). Pointer arithmetic that leaves the slot (an offset of 2^40
  // bytes or more either way: no buffer is that large) gives an escaped pointer, which
  // remembers the slot and never resolves, so no offset reaches another buffer.
  static int64_t bufferBase(int index) { return (2 * int64_t(index) + 1) << 40; }
  static constexpr int kSlotBits = 41;
  static int64_t escaped(int64_t slot) { return INT64_MIN | slot; }
  /// `address + offset * elementBytes`, exactly, or the escaped pointer of address's slot.
  static int64_t offsetAddress(int64_t address, int64_t offset, int64_t elementBytes) {
    if (address < 0)
      return address; // escaped stays escaped
    __int128 target = __int128(address) + __int128(offset) * elementBytes;
    int64_t slot = address >> kSlotBits;
    if (target < (__int128(slot) << kSlotBits) || target >= (__int128(slot + 1) << kSlotBits))
      return escaped(slot);
    return int64_t(target);
  }
  std::vector<HostBuffer> &buffers() { return *launch_.buffers; }
  /// Checks that `address` names `bytes` bytes inside one buffer; returns a pointer to them.
  uint8_t *resolve(mlir::Operation *op, int64_t address, int bytes, size_t element, const char *access);

  /// Counts the writes that changed memory's bytes.
  void noteMemoryChange() { ++memoryChanges_; }

  const std::array<int64_t, 3> &pid() const { return pid_; }
  const std::array<int64_t, 3> &grid() const { return launch_.grid; }
  std::ostream &printStream() { return *launch_.printStream; }

private:
  void exec(mlir::Operation *op);
  void execControlFlow(mlir::Operation *op);
  /// How a block runs so that it holds the tiles still to be read, not every tile it made
  /// (an unrolled static_range makes hundreds): made once a block, by op position.
  struct BlockPlan {
    /// The values of the block no later op reads (nor an op nested in one): dropped from env_
    /// after op k runs.
    std::vector<llvm::SmallVector<mlir::Value, 2>> deaths;
    /// Tile constants (the canonicalizer gathers them all at the top of the kernel) are made
    /// when op k first reads one, not where they are defined.
    std::vector<llvm::SmallVector<mlir::Operation *, 1>> constants;
    std::vector<bool> deferred; // op k is such a constant
  };
  const BlockPlan &planOf(mlir::Block &block);
  /// Makes the tile constants `op` reads (its plan's list) that env_ does not hold.
  void makeConstants(llvm::ArrayRef<mlir::Operation *> constants);

  const InterpreterLaunch &launch_;
  std::string kernelName_;
  std::array<int64_t, 3> pid_{0, 0, 0};
  llvm::DenseMap<mlir::Value, TileRef> env_;
  /// (Each plan its own allocation: a nested region's plan, made while an outer block runs,
  /// must not move the outer one's.)
  llvm::DenseMap<mlir::Block *, std::unique_ptr<BlockPlan>> plans_;
  uint64_t memoryChanges_ = 0;
};

} // namespace tk::interp

#endif
