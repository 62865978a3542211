#ifndef TK_CODEGEN_PASSES_TD
#define TK_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def TkToThreads : Pass<"tk-to-threads", "::mlir::ModuleOp"> {
  let summary = "Distribute tiles over a program's threads (blocked layout) as per-thread scalars";
  let description = [{
    Every tile, of any rank, becomes the scalars its thread owns under a blocked layout of its
    row-major element index: `num_warps * 32` threads, each holding groups of
    `size_per_thread` contiguous elements (16 bytes of the narrowest element type the kernel
    loads or stores), the groups repeating across the tile. Loads and stores of contiguous,
    aligned groups become vector accesses guarded by their mask; reductions fold each
    thread's elements, then across lanes with butterfly shuffles, then across warps through
    shared memory; shape changes move elements between threads through shared memory unless
    every thread already holds what it needs; `dot` multiplies by FMA from shared memory.
    Kernel pointers become `!llvm.ptr<1>`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
  let options = [
    Option<"debug", "debug", "bool", /*default=*/"false",
           "Check `assert` conditions on the GPU (tkc --debug); without it they are dropped">
  ];
}

def TkThreadsToLLVM : Pass<"tk-threads-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower per-thread code (arith, math, scf, func) to the LLVM and NVVM dialects";
  let description = [{
    Upstream conversions for arith, cf and func; math functions become the NVVM intrinsics
    Triton uses (`ex2.approx` for exp and exp2, `lg2.approx` for log, `rsqrt.approx`), and
    kernels become `llvm.func` with `nvvm.kernel` and `nvvm.maxntid`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif
