// Tiles as functions of their element index: affine ones (one address register serves every
// slot of a pointer tile) and cheap ones (a broadcast recomputes them in each thread).
#ifndef TK_CODEGEN_AFFINEADDRESSES_H
#define TK_CODEGEN_AFFINEADDRESSES_H

#include "IndexArithmetic.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace tk::codegen {
using namespace ::tk::gpu;

/// For an integer or pointer tile that is an affine function of its element index (ranges,
/// splats, shape changes, adds, subtracts and multiplies by constants, addptr): what each
/// index bit adds to an element (in elements, for pointers). None for anything else.
std::optional<std::vector<int64_t>> indexBitCoefficients(mlir::Value tile);
/// The pointer of slot `slot` of a pointer tile under its layout: slot 0's plus a constant
/// when the tile is affine in its index (the slots' index bits are constants or'ed to the
/// thread's), so that one address register serves every slot; otherwise the slot's own. i32
/// offsets that would overflow inside the tile are not wrapped then.
mlir::Value slotPointer(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptrTile, mlir::ValueRange ptrs,
                        const Distribution &layout, size_t slot,
                        const std::optional<std::vector<int64_t>> &coefficients);
/// Whether a tile is a cheap function of element indices and scalars (ranges, splats,
/// constants, shape changes, elementwise arithmetic), which a broadcast recomputes in each
/// thread instead of moving it through shared memory; given `loads`, also of plain loads of
/// such pointers (each thread reads the elements it needs), collected there.
bool rematerializable(mlir::Value tile, llvm::SetVector<mlir::Operation *> *loads = nullptr);
/// Whether `broadcast` computes the elements of its source in each thread (its layouts
/// assigned): loads too when tk-assign-layouts marked it `tkg.rereadable`, its result is in
/// a tensor-core layout and a thread needs few of them.
bool recomputedInEachThread(BroadcastOp broadcast);

} // namespace tk::codegen

#endif
