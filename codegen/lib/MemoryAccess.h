// The width of global memory accesses, one element's load, and an eviction priority's L2 policy
// (MemoryToThreads.cpp).
#ifndef TK_CODEGEN_MEMORYACCESS_H
#define TK_CODEGEN_MEMORYACCESS_H

#include "AxisAnalysis.h"
#include "ThreadTypeConverter.h"

namespace tk::codegen {

/// How many consecutive slots one memory instruction covers for a pointer tile and mask
/// (contiguous, aligned, under one mask value, at most 16 bytes).
int64_t vectorSlots(const AxisAnalysis &axis, const BlockedLayout &l, mlir::Value ptr, mlir::Value mask,
                    mlir::Type element);
/// The same for a run of `run` consecutive slots holding consecutive elements.
int64_t vectorSlots(const AxisAnalysis &axis, int64_t run, mlir::Value ptr, mlir::Value mask, mlir::Type element);
/// The same for an access of `tile` through `ptr`, within the tile's last dimension.
int64_t accessWidth(const AxisAnalysis &axis, const ThreadTypeConverter &converter, mlir::Value ptr, mlir::Value mask,
                    mlir::RankedTensorType tile);

/// One element of type `element` loaded from `ptr` where `pred` holds (always without it),
/// else `other` (zero without it): a broadcast's source element read by the thread that needs it.
mlir::Value loadElement(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr, mlir::Value pred, mlir::Value other,
                        mlir::Type element);

/// The L2 policy of an eviction priority (`createpolicy.fractional.L2::evict_first` or
/// `_last`, for an access's `.L2::cache_hint`): pure inline PTX, a constant ptxas folds, which
/// LLVM may share between ops and hoist out of loops; null for `normal`.
mlir::Value l2EvictionPolicy(mlir::OpBuilder &b, mlir::Location loc, tk::EvictionPolicy evict);

} // namespace tk::codegen

#endif
