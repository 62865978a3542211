// What a producer warpgroup computes by itself (TmaPipeline.cpp's warp specialization): the
// scalar ops its copies' coordinates and its loops' bounds come from, and whether it can run
// them at all.
#ifndef TK_CODEGEN_PRODUCERSLICE_H
#define TK_CODEGEN_PRODUCERSLICE_H

#include "RectangularAccess.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"

namespace tk::codegen {

/// The producer/consumer split a warp-specialized kernel already has (made for an earlier
/// pipeline), or null.
mlir::scf::IfOp existingSplit(mlir::func::FuncOp kernel);

/// The block whose ops run once a program at the kernel's top level: its entry, or once it
/// split, the consumers' branch (where the rest of the kernel went).
mlir::Block *topBlock(mlir::func::FuncOp kernel);

/// The values (other than the induction variable) the producer needs: the loop's bounds and
/// the atoms of the coordinates.
llvm::SmallVector<mlir::Value> producerInputs(mlir::scf::ForOp loop, llvm::ArrayRef<RectangularAccess> accesses,
                                              const RectangularAccessAnalysis &analysis);

/// Adds the ops computing scalar `v` to `slice`: ops of the kernel's top level, or of the
/// body of the loop over tiles around `loop` (the tile index its induction variable); false
/// if one has side effects or regions, or makes a tile.
bool collectScalarSlice(mlir::Value v, mlir::func::FuncOp kernel, mlir::scf::ForOp loop,
                        llvm::SetVector<mlir::Operation *> &slice, unsigned depth = 0);

/// Whether a producer warpgroup can compute the copies' coordinates and the loop's bounds by
/// itself: from kernel arguments through scalar ops of the kernel's top level.
/// In a persistent kernel, the scalar ops of the loop over tiles (before the k-loop) count too.
bool producerCanRun(mlir::scf::ForOp loop, llvm::ArrayRef<RectangularAccess> accesses,
                    const RectangularAccessAnalysis &analysis);

} // namespace tk::codegen

#endif
