#ifndef TK_CODEGEN_PASSES_H
#define TK_CODEGEN_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"
#include "tk/Dialect/TkGpu/IR/TkGpu.h"

namespace tk {
#define GEN_PASS_DECL
#include "tk/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tk/Codegen/Passes.h.inc"

/// tk IR (after the tile pipeline) to LLVM + NVVM dialect for compute capability `sm`
/// (`archSpecific`: sm_90a, with wgmma); `debug` keeps `assert`. The module's
/// `tkg.shared_bytes` (TkgDialect::kSharedBytes) is the dynamic shared memory it needs.
void buildGpuLoweringPipeline(mlir::OpPassManager &pm, bool debug = false, int sm = 90, bool archSpecific = false);
} // namespace tk

#endif
