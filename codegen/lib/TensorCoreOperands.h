// The operands of tensor-core `dot`s: read in place from stage rings, staged by the dot into its
// shared region as swizzled tiles, or taken from registers (an earlier dot's accumulators).
#ifndef TK_CODEGEN_TENSORCOREOPERANDS_H
#define TK_CODEGEN_TENSORCOREOPERANDS_H

#include "IndexArithmetic.h"
#include "SharedRegion.h"
#include "ThreadTypeConverter.h"

namespace tk::codegen {

/// The stage ring a tensor-core operand is read from (`tkg.local_load`), or null.
LocalLoadOp tensorCoreStage(mlir::Value operand, const ThreadTypeConverter &converter);
/// Round to nearest (ties away from zero) at tf32's 10 mantissa bits; inf and NaN unchanged.
mlir::Value roundToTf32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
/// Stages `values` (a tile under layout `l`, rows of `swizzle.rowLength`) into `shared` at
/// `offset`, swizzled, one 16-byte store per chunk of slots (f32 rounded to tf32 first when
/// `tf32`), by the threads that own them.
void stageSwizzled(mlir::OpBuilder &b, mlir::Location loc, const SharedRegion &shared, mlir::ValueRange values,
                   const BlockedLayout &l, mlir::Value tid, int64_t offset, const SwizzleParams &swizzle,
                   bool tf32 = false);
/// The A fragment of 16-row tile `tile` and k-step `kk` (16 columns) of an m x k tile `a` held
/// in an accumulator layout: four pairs of 2-byte elements, (row, k) = (g, 2t), (g + 8, 2t),
/// (g, 2t + 8), (g + 8, 2t + 8) — mma.sync's A and wgmma's A from registers alike (a wgmma
/// 64-row tile is 16 rows per warp).
llvm::SmallVector<mlir::Value> registerFragment(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange a, int64_t k,
                                                int64_t tile, int64_t kk);

} // namespace tk::codegen

#endif
