// Per-thread index arithmetic: which element of a tile a thread's slot holds, bit maps between
// element indices of tiles, and indices into row-major and swizzled 2-D arrays.
#ifndef TK_CODEGEN_INDEXARITHMETIC_H
#define TK_CODEGEN_INDEXARITHMETIC_H

#include "Swizzle.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/IR/Builders.h"

#include <map>
#include <optional>

namespace tk::codegen {
using namespace ::tk::gpu;

mlir::Value i32Constant(mlir::OpBuilder &b, mlir::Location loc, int64_t value);
/// The thread's index in its program (the tiles' layouts are over these): tid.x, or in a
/// kernel of two programs a CTA (`tkg.programs_per_cta`) tid.x mod threadsOf.
mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc);
/// tid.x: the thread's index in the CTA (its producer's threads come after the programs').
mlir::Value ctaThreadId(mlir::OpBuilder &b, mlir::Location loc);
/// Which program of its CTA the thread is in: tid.x / threadsOf, 0 with one program a CTA,
/// and a constant inside a region of a `tkg.programs_split` (tk-specialize-programs).
mlir::Value programInCta(mlir::OpBuilder &b, mlir::Location loc);
/// program_id(axis), or with `count` num_programs(axis): ctaid / nctaid, or along x with two
/// programs a CTA the thread's program (`namedProgram`'s, the producer's) * nctaid.x + ctaid.x,
/// of 2 * nctaid.x.
mlir::Value gridIndex(mlir::OpBuilder &b, mlir::Location loc, int axis, bool count,
                      std::optional<int64_t> namedProgram = std::nullopt);
/// Inline PTX (`$n` operands in LLVM's AT&T dialect, the one NVPTX reads); its first result, or
/// null without results. `sideEffects`: kept and ordered (barriers, fences, stores).
mlir::Value inlinePtx(mlir::OpBuilder &b, mlir::Location loc, mlir::TypeRange results, mlir::ValueRange operands,
                      llvm::StringRef text, llvm::StringRef constraints, bool sideEffects);

/// How a tile's elements sit in a program's threads: the default blocked layout, or another
/// linear layout (the tensor-core accumulator's), as bits of the element index.
struct Distribution {
  LayoutBits bits;
  std::optional<BlockedLayout> blocked; // the default layout (its index arithmetic is add/mul)
  static Distribution of(const BlockedLayout &l) { return {bitsOf(l), l}; }
  int64_t perThread() const { return int64_t(1) << bits.slot.size(); }
};
/// The distribution of a tile under the layout in its type.
Distribution distributionOf(mlir::Value tile);

/// Whether no thread bit of `d` (a tile with rows of `columns` elements) chooses which part of
/// `width` columns an element lies in: then each slot's part is the same in every thread, and a
/// TMA store stages the tile part by part without run-time tests (both powers of two).
bool partsChosenBySlots(const Distribution &d, int64_t columns, int64_t width);

/// The index of the element that slot `slot` of this thread holds under `layout`.
mlir::Value elementIndex(mlir::OpBuilder &b, mlir::Location loc, const BlockedLayout &layout, int64_t slot,
                         mlir::Value tid);
mlir::Value elementIndex(mlir::OpBuilder &b, mlir::Location loc, const Distribution &d, int64_t slot, mlir::Value tid);
/// Threads that hold distinct elements of a tile under `layout` (the others are replicas).
mlir::Value isOwner(mlir::OpBuilder &b, mlir::Location loc, const BlockedLayout &layout, mlir::Value tid);
mlir::Value isOwner(mlir::OpBuilder &b, mlir::Location loc, const Distribution &d, mlir::Value tid);

/// The bit map of a tile of 2^bits elements onto itself.
BitMap identityMap(int bits);
/// Rewrites an element index of one tile into the index of another under a bit map.
mlir::Value remapIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index, const BitMap &map);
/// The bit map from the row-major index of `shape` that drops the bits of `axis`.
BitMap dropAxis(llvm::ArrayRef<int64_t> shape, int64_t axis);
/// The bit map from a shape op's result element index to its source's.
BitMap resultToSource(mlir::Operation *op);

/// (row, column) of element `index` of a row-major tile with rows of `rowLength`.
std::pair<mlir::Value, mlir::Value> rowAndColumn(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index,
                                                 int64_t rowLength);
/// Element index of (row, column) in a swizzled 2-D array (SwizzleParams as arithmetic).
mlir::Value swizzledIndex(mlir::OpBuilder &b, mlir::Location loc, const SwizzleParams &swizzle, mlir::Value row,
                          mlir::Value column);
/// Swizzled indices of (row + R, column + C) for a thread's row and column and constants R and
/// C, written so that LLVM sees the constants (SwizzleParams::fold): each distinct low chunk of
/// C gets one base index, the rest is an offset that folds into the instruction's address
/// (otherwise every (R, C) keeps its own address register live across a loop).
class SwizzledOffsets {
public:
  SwizzledOffsets(mlir::OpBuilder &b, mlir::Location loc, const SwizzleParams &swizzle, mlir::Value row,
                  mlir::Value column)
      : b_(b), loc_(loc), swizzle_(swizzle), row_(row), column_(column) {}
  mlir::Value at(int64_t rows, int64_t columns);

private:
  mlir::OpBuilder &b_;
  mlir::Location loc_;
  SwizzleParams swizzle_;
  mlir::Value row_, column_;
  std::map<int64_t, mlir::Value> bases_;
};

} // namespace tk::codegen

#endif
