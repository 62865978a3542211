#ifndef TK_CODEGEN_PASSES_TD
#define TK_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def TkPipelineDotLoads : Pass<"tk-pipeline-dot-loads", "::mlir::ModuleOp"> {
  let summary = "Turn loads feeding tensor-core dots in loops into cp.async stage rings";
  let description = [{
    In a kernel with `num_stages` S >= 2, a loop whose body loads a 2-D f16/bf16 tile used
    only as an operand of a `dot` that runs on mma.sync (directly or through `trans`), with
    masked-off elements reading as zero, gets a ring of S stages in shared memory per load
    (`tkg.local_alloc`). A prologue starts the copies of iterations 0 .. S-2
    (`tkg.async_copy`, one `tkg.async_commit` group per iteration); each iteration waits for its
    own group (`tkg.async_wait`, which ends in a barrier), starts the copies S - 1 iterations
    ahead into the stage the previous iteration read, and the dot reads its stage
    (`tkg.local_load`). Copies past the loop's end are masked off. The pure ops that compute the
    loads' addresses are cloned with the induction variable advanced; loop-carried values that
    only feed addresses are carried S - 1 updates ahead. Loops whose addresses depend on
    anything else are left as they are.

    With `wgmma` (sm_90a), a loop whose only dot takes both operands from its loads, in shapes
    wgmma takes, and accumulates into a value only the loop carries leaves each iteration's
    MMAs in flight (`tkg.mma_in_flight` on the dot): its copies run S - 2 iterations ahead
    (S >= 3), and a `tkg.dot_wait` after the loop makes the accumulator valid.
  }];
  let dependentDialects = ["::tk::gpu::TkgDialect", "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::NVVM::NVVMDialect"];
  let options = [
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Leave wgmma dots in flight across iterations (sm_90a)">
  ];
}

def TkTmaStores : Pass<"tk-tma-stores", "::mlir::ModuleOp"> {
  let summary = "Store a TMA-pipelined kernel's 16-bit result tiles by TMA";
  let description = [{
    With `wgmma` (sm_90a), after tk-assign-layouts, in a kernel that has a tensor map (its dot
    operands come by TMA): a `store` of a 2-D 16-bit tile whose pointers and mask describe a
    rectangle of a row-major matrix under exactly its bounds (as TMA loads must), directly in
    a loop over tiles at the kernel's top level (a persistent kernel's; in a warp-specialized
    one, in the consumers' branch), without an eviction hint, its rows a multiple of 8 and at
    least 16 bytes wide, whose matrix nothing else in the kernel accesses and in a kernel
    without atomics, becomes a `tkg.tma_store` of the tile in the layout it is computed in (the
    conversion the store needed goes) through a staging buffer of its own (`tkg.local_alloc`
    of one stage), with a new tensor-map argument and the rectangle's start as coordinates,
    in a branch that skips an empty rectangle; the kernel's returns get a `tkg.tma_store_wait`.
    A staging buffer that would not fit in the 227 KiB of sm_90 beside the stage rings and the
    most the kernel's exchanges may take leaves its store as it is.
  }];
  let dependentDialects = ["::tk::gpu::TkgDialect"];
  let options = [
    Option<"wgmma", "wgmma", "bool", /*default=*/"false", "Hopper (sm_90a): TMA is there">
  ];
}

def TkAssignLayouts : Pass<"tk-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "Give every tile its layout over the program's threads, as its type's encoding";
  let description = [{
    Every tile type gets an encoding that says which thread holds each element and in which
    of its slots. Results of `dot`s the tensor cores compute take the accumulator layout
    (`#tkg.linear`: mma.sync's m16n8 fragments, or wgmma's when `wgmma` is set and both
    operands are pipelined stages); elementwise ops on them, loop-carried accumulators, row
    reductions within warps (their slices) and shape changes that keep the element order
    follow, as each op's layout rule (`LayoutRuleOpInterface`, LayoutRules.cpp) says. Every
    other tile takes the default `#tkg.blocked` layout: runs of 16 bytes of the narrowest
    element the kernel moves through memory per thread. Where a tile reaches an op that does
    not take its layout, a `tkg.convert_layout` moves it; uniform tiles (splats) are copied
    into the layout their user takes. An op with tiles and no layout rule is an error.
  }];
  let dependentDialects = ["::tk::gpu::TkgDialect"];
  let options = [
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Hopper's warpgroup MMA (sm_90a) for dots whose operands are both in stages">,
    Option<"sm", "sm", "int", /*default=*/"90",
           "Compute capability of the target (80, 89, 90): FP8 dots need 89 or later">
  ];
}

def TkAsyncDots : Pass<"tk-async-dots", "::mlir::ModuleOp"> {
  let summary = "Leave wgmma dots in flight until their results are first used";
  let description = [{
    On Hopper's warpgroup MMA a dot that reads its operands in place (A and B from stages, or
    A from registers in an earlier dot's accumulator layout) need not wait for its MMAs where
    it is issued. Such a dot gets `tkg.mma_async`, and a `tkg.dot_wait` goes before the first
    op of its block that uses the result (directly or inside a region), when nothing between
    writes memory (other dots may lie between): the tensor cores then run while the
    threads do the work in between. In attention written with the next block's scores issued
    before this block's softmax (`S = QK^T`, then `O += PV`, then the softmax of S), the wait
    for S counts the PV dot issued after it (`pending = 1`: `wgmma.wait_group 1`), so the
    softmax overlaps PV's MMAs. A dot used by the op right after it, or one that stages an
    operand itself, or one a pipelined loop already leaves in flight, is left as it is.
  }];
  let dependentDialects = ["::tk::gpu::TkgDialect"];
}

def TkMmaPingPong : Pass<"tk-mma-ping-pong", "::mlir::ModuleOp"> {
  let summary = "Let two consumer warpgroups take turns at the tensor cores (ping-pong)";
  let description = [{
    In a kernel with `warp_specialize: 2` (`tk.ping_pong`) whose TMA pipeline got a producer
    warpgroup beside two consumer warpgroups, the loop with two or more dots gets turns
    (`tkg.mma_turn_take`, `tkg.mma_turn_pass`): a warpgroup takes its turn before the loop's
    last dot and passes it after the next iteration's first, so the warpgroups alternate
    issuing MMAs and one's work between the dots (attention's softmax) overlaps the other's
    MMAs (FlashAttention-3's ping-pong). Warpgroup 1 gives warpgroup 0 the first turn before
    the loop, warpgroup 0 passes its last one after it. tk-async-dots then leaves the first
    dot in flight past its pass. Other kernels are left as they are.
  }];
  let dependentDialects = ["::tk::gpu::TkgDialect"];
}

def TkAllocateShared : Pass<"tk-allocate-shared", "::mlir::ModuleOp"> {
  let summary = "Give each op that exchanges values through shared memory its byte range";
  let description = [{
    TMA stores' staging buffers (a `tkg.local_alloc` a `tkg.tma_store` writes) come first
    after the mbarriers and are never reused (their copies read them after the store
    returned). Stage rings (`tkg.local_alloc`) come next, for the whole kernel, aligned to 1024 bytes
    (the period of wgmma's swizzle); they are dead after the kernel's last wait for every copy
    group, and later exchanges reuse their bytes. Then every op that moves elements between
    threads (reductions and scans across warps, shape changes and layout conversions that a
    thread cannot do alone, dots that stage operands, atomics that return values) gets
    `tkg.shared_offset`, sharing nothing with other ops while they fit in 48 KiB, so that ops
    which run once need no barrier before writing; `tkg.shared_barrier` marks the ops that do
    (in loops, or after wrapping). The module gets `tkg.shared_bytes`, the size of the one
    dynamic buffer. An op needing more than 48 KiB, or a kernel more than the target's
    `sm` allows, is an error.
  }];
  let dependentDialects = ["::tk::gpu::TkgDialect"];
  let options = [
    Option<"sm", "sm", "int", /*default=*/"90",
           "Compute capability of the target (its shared memory limit)">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Hopper's warpgroup MMA (sm_90a): how dots stage their operands">
  ];
}

def TkSpecializePrograms : Pass<"tk-specialize-programs", "::mlir::ModuleOp"> {
  let summary = "Give each of a CTA's two programs its own copy of the consumers' code";
  let description = [{
    In a kernel of two programs a CTA (`tkg.programs_per_cta = 2`, `warp_specialize: 3`), the
    consumers' branch (after their `tkg.set_max_registers`) becomes an `scf.if` on the
    thread's program (`tkg.programs_split`): program 0's copy in the then region, program 1's
    in the else region. Lowered in such a region, the program is a constant (program ids,
    ring positions, named barriers, staging offsets), so what derives from it and from the
    CTA index is uniform across the warp to ptxas: the wgmma descriptors and ring positions
    stay in uniform registers instead of being moved there (`R2UR`) before every wgmma. The
    price is the consumers' code twice. Other kernels are left as they are.
  }];
  let dependentDialects = ["::tk::gpu::TkgDialect", "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TkToThreads : Pass<"tk-to-threads", "::mlir::ModuleOp"> {
  let summary = "Lower tiles to the scalars each thread holds under their layouts";
  let description = [{
    A 1:N conversion of every tile to the scalars its thread owns under the layout in its
    type (set by `tk-assign-layouts`; a tile without one is an error), with patterns by op
    family. Loads and stores of contiguous, aligned runs become vector accesses guarded by
    their mask; reductions fold each thread's elements, then across lanes with butterfly
    shuffles, then across warps through shared memory; shape changes and layout conversions
    move elements between threads through the shared-memory range `tk-allocate-shared` gave
    them, unless every thread already holds what it needs; dots run on mma.sync or wgmma in
    the accumulator layout, otherwise by FMA from shared memory. Kernel pointers become
    `!llvm.ptr<1>`; the module's `tkg.shared_bytes` becomes the `tk_smem` buffer.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
  let options = [
    Option<"debug", "debug", "bool", /*default=*/"false",
           "Check `assert` conditions on the GPU (tkc --debug); without it they are dropped">,
    Option<"sm", "sm", "int", /*default=*/"90",
           "Compute capability of the target (sm_90: stmatrix in the epilogue's conversions)">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Hopper's warpgroup MMA (sm_90a) for dots whose operands are both in stages">
  ];
}

def TkThreadsToLLVM : Pass<"tk-threads-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower per-thread code (arith, math, scf, func) to the LLVM and NVVM dialects";
  let description = [{
    Upstream conversions for arith, cf and func; math functions become the NVVM intrinsics
    Triton uses (`ex2.approx` for exp and exp2, `lg2.approx` for log, `rsqrt.approx`), and
    kernels become `llvm.func` with `nvvm.kernel` and `nvvm.maxntid`. First, the ping-pong's
    turns become named barriers 2 and 3, or go when they enclose a barrier of all consumers.
  }];
  let options = [
    Option<"sm", "sm", "int", /*default=*/"90",
           "Compute capability of the target (sm_89 and later: f8 conversions in hardware)">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif
