// From the LLVM dialect to PTX through LLVM's NVPTX backend, and PTX to cubin through ptxas.
#ifndef TK_CODEGEN_TARGET_H
#define TK_CODEGEN_TARGET_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace tk {

struct GpuTarget {
  int sm = 90;               // compute capability as a number: 80, 89, 90
  bool archSpecific = false; // sm_90a: instructions of this chip only (wgmma)
  std::string chip() const { return "sm_" + std::to_string(sm) + (archSpecific ? "a" : ""); }
};

/// The start of an FP8 mma.sync's inline PTX (TensorCores.cpp; no other mma.sync of k32 has an
/// f32 result), which needs PTX ISA 8.4.
inline constexpr char kFloat8MmaSync[] = "mma.sync.aligned.m16n8k32.row.col.f32.";
/// The start of the inline PTX of an f8 pair's conversion (Float8Casts.cpp), which needs PTX ISA
/// 8.1 on sm_89 (7.8 on sm_90).
inline constexpr char kFloat8PairCvt[] = "cvt.rn.f16x2.";
/// The PTX ISA a module is written in for `target`: 8.0, or what its instructions need (an FP8
/// mma.sync 8.4, an f8 pair's cvt on sm_89 8.1). Newer PTX needs a newer driver (8.4: CUDA
/// 12.4's), so only the kernels that need it ask for it.
std::string ptxFeatures(mlir::ModuleOp module, const GpuTarget &target);

/// Translates the module to LLVM IR for nvptx64 and optimizes it (-O3). Returns the IR text,
/// or "" with `error` set.
std::string emitLLVMIR(mlir::ModuleOp module, const GpuTarget &target, std::string &error);
/// LLVM IR through the NVPTX backend to PTX text.
std::string emitPTX(mlir::ModuleOp module, const GpuTarget &target, std::string &error);
/// PTX through ptxas (from $TK_PTXAS, the PATH, or /usr/local/cuda/bin) to a cubin.
std::string assembleCubin(const std::string &ptx, const GpuTarget &target, std::string &error,
                          std::string *report = nullptr);

} // namespace tk

#endif
