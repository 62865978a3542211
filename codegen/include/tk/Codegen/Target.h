// From the LLVM dialect to PTX through LLVM's NVPTX backend, and PTX to cubin through ptxas.
#ifndef TK_CODEGEN_TARGET_H
#define TK_CODEGEN_TARGET_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace tk {

struct GpuTarget {
  int sm = 90;               // compute capability as a number: 80, 89, 90
  bool archSpecific = false; // sm_90a: instructions of this chip only (wgmma)
  /// PTX ISA 8.0, or 8.4 from sm_89 (mma.sync's FP8 operands).
  std::string features() const { return sm >= 89 ? "+ptx84" : "+ptx80"; }
  std::string chip() const { return "sm_" + std::to_string(sm) + (archSpecific ? "a" : ""); }
};

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
