#ifndef TK_CODEGEN_PASSES_TD
#define TK_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def TkPipelineDotLoads : Pass<"tk-pipeline-dot-loads", "::mlir::ModuleOp"> {
  let summary = "Turn loads feeding tensor-core dots in loops into cp.async stage rings";
  let description = [{
    In a kernel with `num_stages` S >= 2, a loop whose body loads a 2-D f16/bf16 tile used
    only as an operand of a `dot` that runs on mma.sync (directly or through `trans`), with
    masked-off elements reading as zero, gets a ring of S stages in shared memory per load
    (`tk.local_alloc`). A prologue starts the copies of iterations 0 .. S-2
    (`tk.async_copy`, one `tk.async_commit` group per iteration); each iteration waits for its
    own group (`tk.async_wait`, which ends in a barrier), starts the copies S - 1 iterations
    ahead into the stage the previous iteration read, and the dot reads its stage
    (`tk.local_load`). Copies past the loop's end are masked off. The pure ops that compute the
    loads' addresses are cloned with the induction variable advanced; loop-carried values that
    only feed addresses are carried S - 1 updates ahead. Loops whose addresses depend on
    anything else are left as they are.

    With `wgmma` (sm_90a), a loop whose only dot takes both operands from its loads, in shapes
    wgmma takes, and accumulates into a value only the loop carries leaves each iteration's
    MMAs in flight (`tkg.mma_in_flight` on the dot): its copies run S - 2 iterations ahead
    (S >= 3), and a `tk.dot_wait` after the loop makes the accumulator valid.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
  let options = [
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Leave wgmma dots in flight across iterations (sm_90a)">
  ];
}

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
           "Check `assert` conditions on the GPU (tkc --debug); without it they are dropped">,
    Option<"sm", "sm", "int", /*default=*/"90",
           "Compute capability of the target (its shared memory limit)">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Hopper's warpgroup MMA (sm_90a) for dots whose operands are both in stages">
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
