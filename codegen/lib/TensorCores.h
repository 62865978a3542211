// Tensor-core `dot`s: mma.sync (TensorCores.cpp) and Hopper's wgmma (WarpgroupMma.cpp).
#ifndef TK_CODEGEN_TENSORCORES_H
#define TK_CODEGEN_TENSORCORES_H

#include "ThreadTypeConverter.h"

namespace tk::codegen {

/// Lowers a dot whose result is in the accumulator layout (TensorCores.cpp).
void lowerToTensorCores(DotOp op, mlir::ValueRange a, mlir::ValueRange b, mlir::ValueRange acc,
                        mlir::ConversionPatternRewriter &rewriter, const ThreadTypeConverter &converter);
/// Lowers a dot whose plan is on wgmma (WarpgroupMma.cpp).
void lowerToWarpgroupMma(DotOp op, mlir::ValueRange a, mlir::ValueRange acc, mlir::ConversionPatternRewriter &rewriter,
                         const ThreadTypeConverter &converter);
/// The shared bytes a wgmma dot stages A in (none when A is a stage or in registers).
int64_t warpgroupMmaSharedBytes(DotOp op, const ThreadTypeConverter &converter);
/// `wgmma.wait_group pending`, after which `accumulators` (f32, returned) are valid: inline PTX
/// that takes and returns them, so that no use moves above it (with none, a plain wait).
llvm::SmallVector<mlir::Value> waitForWarpgroupMma(mlir::OpBuilder &b, mlir::Location loc,
                                                   mlir::ValueRange accumulators, int pending);

} // namespace tk::codegen

#endif
