// Proves that a masked pointer-tile load in a loop reads a rectangle of a row-major matrix and
// masks off exactly what lies outside it: the load a TMA copy does (elements outside the
// tensor map's shape read as zero). Also where a pointer comes from (its kernel argument) and
// which ops access global memory, for the passes that must know what else touches a matrix.
#ifndef TK_CODEGEN_RECTANGULARACCESS_H
#define TK_CODEGEN_RECTANGULARACCESS_H

#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <map>

namespace tk::codegen {

/// An integer polynomial over scalar SSA values ("atoms", numbered in the order the analysis
/// meets them, so that what is built from it does not depend on addresses) and the axes of a
/// tile (axis k is the element's index along dimension k, atom -1 - k).
struct Polynomial {
  using Monomial = llvm::SmallVector<int, 2>; // sorted atom numbers
  std::map<Monomial, int64_t> terms;          // no zero coefficients
  bool overflow = false;                      // a coefficient left int64: the value is unknown

  static Polynomial constant(int64_t value);
  static Polynomial atom(int id);
  static int axisAtom(unsigned axis) { return -1 - int(axis); }
  Polynomial operator+(const Polynomial &other) const;
  Polynomial operator-(const Polynomial &other) const;
  Polynomial operator*(const Polynomial &other) const;
  bool operator==(const Polynomial &other) const { return terms == other.terms; }
  bool contains(int atom) const;
  /// The terms with `atom`, divided by it (each must hold it once), and the rest.
  std::pair<Polynomial, Polynomial> splitBy(int atom) const;
  /// Renumbers axis k as axis k + shift for k >= from (a tile gaining dimensions).
  Polynomial shiftAxes(unsigned from, unsigned shift) const;
  /// With axis k at 0 (a dimension of size 1, about to be broadcast): its terms are gone.
  Polynomial withoutAxis(unsigned axis) const;
  /// As `broadcast` from `from` to `to` changes the tile: size-1 dimensions that grow lose their
  /// index (every element reads index 0), then axes move right by the ranks' difference.
  Polynomial broadcast(mlir::RankedTensorType from, mlir::RankedTensorType to) const;
  /// The atom (with coefficient 1, alone), if the polynomial is one.
  std::optional<int> singleAtom() const;
  std::optional<int64_t> constantValue() const;
};

/// A load proven to read `rows x cols` elements of the row-major matrix at kernel argument
/// `base` (`rowStride` elements between rows, the last dimension contiguous) whose top-left
/// element is (rowStart, colStart), masked exactly by the matrix's `extent`s.
struct RectangularAccess {
  mlir::BlockArgument base;
  Polynomial rowStride, rowExtent, colExtent, rowStart, colStart;
  /// Set when the matrix is one of a stack of them, rowExtent x rowStride elements apart
  /// (attention's heads): its index there (non-negative), the third, leading TMA coordinate.
  std::optional<Polynomial> stackIndex;
};

/// Polynomials of the integer and pointer values of one loop, in terms of values defined before
/// it and its induction variable; a loop-carried value bumped by the same amount every iteration
/// is its start plus the bump times the iteration's number.
class RectangularAccessAnalysis {
public:
  /// Without a loop (a store after one), every scalar that is no sum or product is an atom.
  explicit RectangularAccessAnalysis(mlir::scf::ForOp loop = {}) : loop_(loop) {}

  /// `load`'s rectangle, if it is one TMA can copy: a 2-D tile of 2-byte (or FP8) elements, its base
  /// a kernel argument aligned to 16 bytes, its row stride a constant or a kernel argument
  /// divisible by 16 bytes, the extents constants or kernel arguments.
  std::optional<RectangularAccess> match(LoadOp load);
  /// The same for a copy of the `type` tile at `ptr` under `mask` (a `tkg.async_copy`'s).
  std::optional<RectangularAccess> match(mlir::Value ptr, mlir::Value mask, mlir::RankedTensorType type);

  /// Builds `value` from its atoms, each looked up in `mapping` first (the induction variable
  /// of another iteration), in i32.
  mlir::Value build(mlir::OpBuilder &b, mlir::Location loc, const Polynomial &value, const mlir::IRMapping &mapping);

  /// The atom's value.
  mlir::Value atomValue(int id) const { return atoms_[id]; }

private:
  std::optional<Polynomial> of(mlir::Value value);
  std::optional<Polynomial> compute(mlir::Value value);
  std::optional<llvm::SmallVector<Polynomial>> negativeWhenTrue(mlir::Value mask);
  std::optional<llvm::SmallVector<Polynomial>> negativeWhenTrueOf(mlir::Operation *def, mlir::Value mask);
  /// Whether `p` is >= 0 wherever the load runs: non-negative coefficients over atoms that are
  /// (assumed) non-negative — see nonNegative.
  bool nonNegative(const Polynomial &p);
  bool nonNegative(mlir::Value atom, unsigned depth = 0);
  /// A polynomial that `value` is known to be below, if any: num_programs(d) for
  /// program_id(d), an enclosing loop's upper bound for its index (over H for the index / H,
  /// when H divides it).
  std::optional<Polynomial> knownAbove(mlir::Value value);
  int atomOf(mlir::Value value);

  mlir::scf::ForOp loop_;
  llvm::SmallVector<mlir::Value> atoms_;
  llvm::DenseMap<mlir::Value, int> atomIds_;
  llvm::DenseMap<mlir::Value, std::optional<Polynomial>> memo_;
  llvm::DenseMap<mlir::Value, bool> signs_; // nonNegative's answers
  bool cutOff_ = false;                     // whether the answer being computed hit the depth limit
  bool computeNonNegative(mlir::Value atom, unsigned depth);
  unsigned depth_ = 0; // of()'s recursion: chains deeper than kMaxDepth are not followed
};

/// The launcher's recipe for the tensor map of a `tile`-shaped access (boxes of the tile's rows
/// by one column block of its swizzled layout, Swizzle.h), or null when the attribute cannot
/// hold it (a constant past 2^32).
tk::gpu::TensorMapAttr tensorMapFor(const RectangularAccess &access, mlir::RankedTensorType tile,
                           const RectangularAccessAnalysis &analysis);

/// The kernel argument a pointer (tile) is computed from, through offsets, shape changes and
/// loop-carried pointers (the loop's start and what it yields both from it); null when that
/// cannot be told.
mlir::BlockArgument baseArgument(mlir::Value ptr);
/// Whether an atomic of this ordering orders the program's earlier writes before it (release,
/// acq_rel), and its later reads after it (acquire, acq_rel).
bool releases(tk::MemorySemantic sem);
bool acquires(tk::MemorySemantic sem);
/// The pointer (tile) through which `op` reads or writes global memory (loads, stores, atomics,
/// L2 prefetches, async copies' sources), whether it writes, and whether it releases (an atomic
/// that tells other programs about the program's earlier writes); a null pointer for other ops.
struct GlobalAccess {
  mlir::Value ptr;
  bool writes = false;
  bool releases = false;
};
GlobalAccess globalAccessOf(mlir::Operation *op);

} // namespace tk::codegen

#endif
