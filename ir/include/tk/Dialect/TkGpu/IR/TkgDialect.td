#ifndef TKG_DIALECT_TD
#define TKG_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tkg_Dialect : Dialect {
  let name = "tkg";
  let cppNamespace = "::tk::gpu";
  let summary = "The GPU backend's state: thread layouts, shared memory, asynchronous copies";
  let description = [{
    What the GPU backend decides about a `tk` program and carries in the IR until it lowers it
    to per-thread code (`tk-to-threads`): the layout of every tile over the program's threads
    (`#tkg.blocked`, `#tkg.linear` as the tile type's encoding, set by `tk-assign-layouts`),
    shared-memory rings and the asynchronous copies that fill them (`tk-pipeline-dot-loads`),
    the byte ranges of shared memory ops exchange values through (`tk-allocate-shared`), and
    moves between layouts (`tkg.convert_layout`). The interpreter runs `tk` only; nothing of
    this dialect appears before the GPU backend's passes.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let dependentDialects = ["::tk::TkDialect"];
  let extraClassDeclaration = [{
    /// Discardable attributes the GPU backend's passes put on ops, verified by the dialect.
    /// The byte offset of an op's region of the kernel's shared buffer (`tk-allocate-shared`).
    static constexpr ::llvm::StringLiteral kSharedOffset = "tkg.shared_offset";
    /// The op's region may still be read by an earlier op: a barrier before its first write.
    static constexpr ::llvm::StringLiteral kSharedBarrier = "tkg.shared_barrier";
    /// On a `tk.dot` of a pipelined loop: its MMAs stay in flight across iterations (wgmma).
    static constexpr ::llvm::StringLiteral kMmaInFlight = "tkg.mma_in_flight";
    /// On a `tk.dot` (wgmma): its MMAs stay in flight until a `tkg.dot_wait` of its results
    /// (`tk-async-dots`).
    static constexpr ::llvm::StringLiteral kMmaAsync = "tkg.mma_async";
    /// On a `tk.broadcast` whose source is computed from loads: its source may be read again
    /// where the broadcast is (nothing writes it meanwhile; `tk-assign-layouts`), so that into a
    /// tensor-core layout each thread loads the elements it needs instead of the source moving
    /// through shared memory.
    static constexpr ::llvm::StringLiteral kRereadable = "tkg.rereadable";
    /// On the module: the bytes of dynamic shared memory a program needs.
    static constexpr ::llvm::StringLiteral kSharedBytes = "tkg.shared_bytes";
    /// On the module: each kernel's `tk.dot`s on the tensor cores and by FMA, a dictionary of
    /// kernel name to [tensor cores, FMA] (`tk-assign-layouts`; `tkc --stats` prints it).
    static constexpr ::llvm::StringLiteral kDotPlacement = "tkg.dot_placement";
    /// On a kernel: the warps of its producer warpgroup (a warp-specialized TMA pipeline).
    static constexpr ::llvm::StringLiteral kProducerWarps = "tkg.producer_warps";
    /// On a kernel with a producer (i32, 2): its CTA holds that many programs of threadsOf
    /// threads each (warpgroup w is program w * nctaid.x + ctaid.x), before the producer's threads;
    /// each takes its own tiles of the persistent loop, their turns at the tensor cores in
    /// order (`warp_specialize: 3`). Their exchanges through shared memory are each program's
    /// own (`tkg.shared_program_stride` bytes apart on the module), the rings shared.
    static constexpr ::llvm::StringLiteral kProgramsPerCta = "tkg.programs_per_cta";
    /// On a kernel with a producer (i32, 2): it runs on clusters of that many CTAs (cluster k
    /// holds programs 2k and 2k + 1 of the persistent loop, with two programs a CTA also 2k + C
    /// and 2k + 1 + C of C CTAs' programs), whose producers copy the
    /// operand tiles both programs' k-steps read at once as halves multicast into both CTAs
    /// (`tkg.tma_load ... shared`), and whose consumers release each stage on both CTAs' empty
    /// barriers (`tkg.barrier_arrive ... peer`); `cluster_size: 2`.
    static constexpr ::llvm::StringLiteral kClusterCtas = "tkg.cluster_ctas";
    /// On an op with a shared offset (i32): its bytes are each program's own, program w's
    /// `w * stride` after the offset (two programs a CTA).
    static constexpr ::llvm::StringLiteral kSharedProgramStride = "tkg.shared_program_stride";
    /// On a tk.program_id of axis 0 in the producer's branch of a kernel of two programs a CTA
    /// (i32, 0 or 1): that program of the CTA's, not the executing thread's.
    static constexpr ::llvm::StringLiteral kProgramInCta = "tkg.program_in_cta";
    /// On an scf.if in the consumers' branch of a kernel of two programs a CTA (unit): its
    /// then region is program 0's copy of the consumers' code, its else region program 1's
    /// (`tk-specialize-programs`); lowered inside, the program is a constant.
    static constexpr ::llvm::StringLiteral kProgramsSplit = "tkg.programs_split";
    /// On a barrier_alloc (unit): the consumers arrive on it once a warp-specialized kernel's
    /// earlier loop over tiles has read its last stage, and the producer waits for it before
    /// filling the next loop's, so that the two loops' rings may share their bytes.
    static constexpr ::llvm::StringLiteral kRingsHandoff = "tkg.rings_handoff";
    /// On a `!tkg.tensor_map` kernel argument: how the launcher builds it (`TensorMapAttr`).
    static constexpr ::llvm::StringLiteral kTensorMap = "tkg.tensor_map";
  }];
}

class Tkg_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tkg_Dialect, mnemonic, traits>;

#endif
