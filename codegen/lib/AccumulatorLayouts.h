// The layouts in which tensor cores leave a dot's result (TensorCores.cpp, WarpgroupMma.cpp;
// no MLIR here: unit tests use them alone).
#ifndef TK_CODEGEN_ACCUMULATORLAYOUTS_H
#define TK_CODEGEN_ACCUMULATORLAYOUTS_H

#include "tk/Dialect/TkGpu/IR/ThreadLayouts.h"

namespace tk::codegen {

/// The mma.sync accumulator layout of an m x n tile whose warps split it warpsM x warpsN.
gpu::LayoutBits accumulatorBits(int64_t m, int64_t n, int64_t warpsM, int64_t warpsN);
/// The wgmma accumulator layout of an m x n tile whose warpgroups split it groupsM x groupsN.
gpu::LayoutBits warpgroupAccumulatorBits(int64_t m, int64_t n, int64_t groupsM, int64_t groupsN);

} // namespace tk::codegen

#endif
