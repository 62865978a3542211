// The steps reduce and scan build from: a combine region applied to values, and values moved
// between the lanes of a warp.
#ifndef TK_CODEGEN_COMBINE_H
#define TK_CODEGEN_COMBINE_H

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"

namespace tk::codegen {

/// Applies a reduce/scan combine region to (accumulators..., next values...).
llvm::SmallVector<mlir::Value> combineRegion(mlir::OpBuilder &b, mlir::Region &region, mlir::ValueRange acc,
                                             mlir::ValueRange next);
/// shfl.sync of any scalar of up to 64 bits (through i32 pieces); `clamp` is the PTX c operand.
mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, int64_t offset,
                    mlir::NVVM::ShflKind kind, int64_t clamp);

} // namespace tk::codegen

#endif
