// The operands of tensor-core `dot`s: read in place from stage rings, staged by the dot into its
// shared region as swizzled tiles, or taken from registers (an earlier dot's accumulators); and
// mma.sync's fragments read from them (ldmatrix).
#ifndef TK_CODEGEN_TENSORCOREOPERANDS_H
#define TK_CODEGEN_TENSORCOREOPERANDS_H

#include "IndexArithmetic.h"
#include "MmaPlan.h"
#include "SharedRegion.h"
#include "ThreadTypeConverter.h"

namespace tk::codegen {

/// The stage ring a tensor-core operand is read from (`tkg.local_load`), or null.
LocalLoadOp tensorCoreStage(mlir::Value operand);
/// Whether tk-to-threads lowers `op` to wgmma (one commit group): a warpgroup plan and a result
/// in the accumulator layout (any other dot goes to mma.sync or FMA).
bool lowersToWarpgroupMma(DotOp op, int64_t threads, bool warpgroupMma);
/// Whether a wgmma dot copies A into its own shared region first: A in no stage and not in
/// registers (an earlier dot's accumulators).
bool warpgroupStagesA(DotOp op, int64_t threads);
/// Round to nearest (ties away from zero) at tf32's 10 mantissa bits; inf and NaN unchanged.
mlir::Value roundToTf32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
/// Stages `values` (a tile under layout `l`, rows of `swizzle.rowLength`) into `shared` at
/// `offset`, swizzled, one 16-byte store per chunk of slots (f32 rounded to tf32 first when
/// `tf32`), by the threads that own them.
void stageSwizzled(mlir::OpBuilder &b, mlir::Location loc, const SharedRegion &shared, mlir::ValueRange values,
                   const BlockedLayout &l, mlir::Value tid, int64_t offset, const SwizzleParams &swizzle,
                   bool tf32 = false);
/// Slots `first` and `first + 1` of `values` as one vector of two.
mlir::Value packPair(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange values, int64_t first);
/// The A fragment of 16-row tile `tile` and k-step `kk` (16 columns) of an m x k tile `a` held
/// in an accumulator layout: four pairs of 2-byte elements, (row, k) = (g, 2t), (g + 8, 2t),
/// (g, 2t + 8), (g + 8, 2t + 8) — mma.sync's A and wgmma's A from registers alike (a wgmma
/// 64-row tile is 16 rows per warp).
llvm::SmallVector<mlir::Value> registerFragment(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange a, int64_t k,
                                                int64_t tile, int64_t kk);

/// Where a mma.sync dot reads its operands from: swizzled arrays in shared memory (a stage's,
/// or the dot's region), A possibly in registers.
struct MmaOperands {
  mlir::Value tid;
  bool aInRegisters, bRowsOfN; // B from a `trans` stage: stored as rows of N
  bool loadedFragments;        // both operands in registers as loaded fragments (MmaPlan.h)
  SwizzleParams aSwizzle, bSwizzle;
  mlir::Value aBase, bBase; // the arrays' first elements
};
/// Stages the operands of a mma.sync dot that are not in a stage or in registers into its
/// shared region (A first, then B), between the region's barriers.
MmaOperands stageMmaOperands(DotOp op, mlir::ValueRange aValues, mlir::ValueRange bValues,
                             mlir::ConversionPatternRewriter &rewriter, const ThreadTypeConverter &converter);

/// mma.sync's fragments of each k-step for this thread's lane and warp: A and B by ldmatrix
/// from the swizzled arrays (B transposed on the way when stored as K rows of N), tf32's and
/// i8's B, which ldmatrix cannot transpose, element by element; A from registers as it is;
/// loaded fragments from their slots.
class MmaFragments {
public:
  MmaFragments(mlir::ConversionPatternRewriter &rewriter, mlir::Location loc, DotOp op, const MmaPlan &plan,
               const MmaOperands &operands, mlir::ValueRange aValues, mlir::ValueRange bValues);
  /// The A fragment (four registers) of each of the warp's m-tiles at k-step `kk`.
  llvm::SmallVector<llvm::SmallVector<mlir::Value>> a(int64_t kk);
  /// The B fragment (two registers) of each of the warp's n-tiles at k-step `kk`.
  llvm::SmallVector<llvm::SmallVector<mlir::Value>> b(int64_t kk);

private:
  mlir::Value constant(int64_t v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, int64_t y);
  mlir::Value elementPointer(mlir::Value base, mlir::Value index);
  llvm::SmallVector<mlir::Value> ldmatrix(mlir::Value base, mlir::Value elementIndex, int count, bool transpose);
  /// One fragment register: the elements in `first` and `first + 1` of `values`, as mma takes them.
  mlir::Value registerPair(mlir::ValueRange values, int64_t first);

  mlir::ConversionPatternRewriter &rewriter_;
  mlir::Location loc_;
  MmaPlan plan_;
  MmaOperands operands_;
  mlir::ValueRange aValues_, bValues_;
  mlir::Type element_;
  int64_t k_, kStep_, chunk_, colsPerWarp_;
  mlir::Value warpN_, groupRow_, inGroup_;
  std::optional<SwizzledOffsets> aIndex_, bIndex_, bSingle_;
};

} // namespace tk::codegen

#endif
