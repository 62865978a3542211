#ifndef TKG_OPS_TD
#define TKG_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tk/Dialect/Tk/IR/TkAttrs.td"
include "tk/Dialect/Tk/IR/TkTypes.td"
include "tk/Dialect/TkGpu/IR/TkgDialect.td"
include "tk/Dialect/TkGpu/IR/TkgTypes.td"
include "tk/Dialect/TkGpu/IR/TkgAttrs.td"

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def Tkg_ConvertLayoutOp : Tkg_Op<"convert_layout", [Pure]> {
  let summary = "the same tile in another layout";
  let description = [{
    Moves a tile's elements to the threads and slots another layout gives them: within each
    thread where it already holds them, otherwise through shared memory (in rounds when the
    tile does not fit its region). `tk-assign-layouts` inserts it where a tile in one layout
    meets an op that takes another. Source and result differ only in their encodings.
  }];
  let arguments = (ins Tk_Tile:$src);
  let results = (outs Tk_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shared-memory pipelines (made by tk-pipeline-dot-loads)
//===----------------------------------------------------------------------===//

def Tkg_LocalAllocOp : Tkg_Op<"local_alloc"> {
  let summary = "a ring of tile stages in shared memory, live for the whole kernel";
  let results = (outs Tkg_SharedBuffer:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def Tkg_AsyncCopyOp : Tkg_Op<"async_copy"> {
  let summary = "start copying a tile from global memory into one stage of a shared buffer";
  let description = [{
    Each thread copies the elements it owns under the pointer tile's layout with `cp.async`
    (16, 8 or 4 bytes per instruction: PTX ISA, "Data Movement and Conversion Instructions:
    cp.async", https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async);
    elements whose mask is false become zero. The copy joins this thread's open group
    (`tkg.async_commit`); read the stage only after `tkg.async_wait` says the group is done.
    `evict` (the `tk.load`'s it replaces): the copies' L2 eviction priority
    (`createpolicy.fractional.L2::evict_first/last` and `.L2::cache_hint`; the priority's L1
    part is dropped: 16-byte copies (`.cg`) skip L1, smaller ones (`.ca`) keep its default).
  }];
  let arguments = (ins RankedTensorOf<[Tk_Ptr]>:$ptr, Tkg_SharedBuffer:$buffer, I32:$stage,
                       Optional<RankedTensorOf<[I1]>>:$mask,
                       DefaultValuedAttr<Tk_EvictionPolicy, "::tk::EvictionPolicy::normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $buffer `[` $stage `]` (`mask` $mask^ `:` type($mask))? (`evict` `=` $evict^)? attr-dict `:`
    type($ptr) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tkg_AsyncCommitOp : Tkg_Op<"async_commit"> {
  let summary = "close this thread's group of async copies";
  let description = [{
    `cp.async.commit_group` (PTX ISA, "cp.async.commit_group",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-commit-group).
  }];
  let assemblyFormat = "attr-dict";
}

def Tkg_AsyncWaitOp : Tkg_Op<"async_wait"> {
  let summary = "wait until at most `pending` copy groups are in flight, then for every thread";
  let description = [{
    `cp.async.wait_group pending` (PTX ISA, "cp.async.wait_group",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-wait-group)
    followed by a barrier of the program (`bar.sync 0`): after it, every stage whose group
    completed holds the copies of all threads, and every thread has finished the reads it
    issued before the wait (so their stage may be refilled).
  }];
  let arguments = (ins I32Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Tkg_LocalLoadOp : Tkg_Op<"local_load", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "the tile held in one stage of a shared buffer (or its transpose)";
  let description = [{
    A tensor-core `dot` reads its operand straight from the stage: `ldmatrix` on mma.sync
    (PTX ISA, "ldmatrix",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix),
    a shared-memory matrix descriptor on wgmma (PTX ISA, "Matrix Descriptor Format",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor);
    any other user gets the elements in its layout. With `trans` the result is the transpose
    of the stage's 2-D tile (a `dot`'s B operand stored as rows of N).
  }];
  let arguments = (ins Tkg_SharedBuffer:$buffer, I32:$stage, UnitAttr:$trans);
  let results = (outs Tk_Tile:$result);
  let assemblyFormat = [{
    $buffer `[` $stage `]` (`trans` $trans^)? attr-dict `:` qualified(type($buffer)) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// TMA pipelines (made by tk-pipeline-dot-loads on sm_90a)
//===----------------------------------------------------------------------===//

def Tkg_ElectOp : Tkg_Op<"elect", [Pure]> {
  let summary = "true in the one thread of the program that issues TMA copies";
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tkg_IsProducerOp : Tkg_Op<"is_producer", [Pure]> {
  let summary = "true in the threads of the kernel's producer warpgroup";
  let description = [{
    A warp-specialized kernel (`tkg.producer_warps`) runs one warpgroup more than its tiles
    are laid out over: its threads, after the others, only issue TMA copies.
  }];
  let results = (outs I1:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tkg_ProgramInCtaOp : Tkg_Op<"program_in_cta", [Pure]> {
  let summary = "the program's index in its CTA (two programs a CTA)";
  let description = [{
    In a kernel with `tkg.programs_per_cta` = 2: 0 or 1, the consumer warpgroup's program of
    its CTA (program w of CTA c is w * nctaid.x + ctaid.x). Inside a program's own copy of the
    consumers' code (`tkg.programs_split`) it lowers to that copy's constant, elsewhere to
    tid.x / threads a program; 0 with one program a CTA.
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tkg_SetMaxRegistersOp : Tkg_Op<"set_max_registers"> {
  let summary = "give the warpgroup's registers back (producer) or take more (consumers)";
  let description = [{
    `setmaxnreg.inc/dec.sync.aligned.u32 count` (PTX ISA, "setmaxnreg",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-setmaxnreg).
  }];
  let arguments = (ins I32Attr:$count, UnitAttr:$increase);
  let assemblyFormat = "$count (`increase` $increase^)? attr-dict";
}

def Tkg_BarrierAllocOp : Tkg_Op<"barrier_alloc"> {
  let summary = "mbarriers in shared memory, each expecting `arrivals` arrivals per phase";
  let description = [{
    One thread initializes every barrier (`mbarrier.init`), fences the initialization and the
    program synchronizes, so that every thread (and the TMA unit) sees them initialized.
  }];
  let arguments = (ins I64Attr:$arrivals);
  let results = (outs Tkg_Barriers:$result);
  let assemblyFormat = "`arrivals` `=` $arrivals attr-dict `:` qualified(type($result))";
}

def Tkg_BarrierExpectOp : Tkg_Op<"barrier_expect"> {
  let summary = "arrive on a barrier expecting `bytes` more bytes of TMA copies in this phase";
  let description = [{
    `mbarrier.arrive.expect_tx` (PTX ISA, "mbarrier.expect_tx",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-expect-tx),
    by the thread that calls it (in a `tkg.elect` branch).
  }];
  let arguments = (ins Tkg_Barriers:$barriers, I32:$index, I64Attr:$bytes);
  let assemblyFormat = "$barriers `[` $index `]` `,` $bytes attr-dict `:` qualified(type($barriers))";
}

def Tkg_BarrierWaitOp : Tkg_Op<"barrier_wait"> {
  let summary = "wait until the phase of the given parity of a barrier has completed";
  let description = [{
    `mbarrier.try_wait.parity` in a loop (PTX ISA, "mbarrier.test_wait/mbarrier.try_wait",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-mbarrier-try-wait):
    phase k completes with parity k % 2; a fresh barrier counts its (never-run) phase -1 as
    complete, so waiting for parity 1 passes at once.
  }];
  let arguments = (ins Tkg_Barriers:$barriers, I32:$index, I32:$parity);
  let assemblyFormat = "$barriers `[` $index `]` `,` $parity attr-dict `:` qualified(type($barriers))";
}

def Tkg_BarrierArriveOp : Tkg_Op<"barrier_arrive", [AttrSizedOperandSegments]> {
  let summary = "one arrival per warp on a barrier";
  let description = [{
    Lane 0 of every warp arrives (`mbarrier.arrive`) once all lanes got here: a consumer
    releasing a stage, with the barrier expecting one arrival per warp. With `peer`, in a
    cluster of 2 CTAs (`tkg.cluster_ctas`) whose barrier expects both CTAs' warps: where `peer`
    holds, each warp also arrives on the other CTA's barrier `index` (`mapa`,
    `mbarrier.arrive.shared::cluster`), else twice on its own, standing in for
    the other CTA, which reads no tile there. `released` names the
    buffers whose stage this frees (the producer refills them next): a dot that reads none
    of them may keep its MMAs in flight across the release (tk-async-dots).
  }];
  let arguments = (ins Tkg_Barriers:$barriers, I32:$index, Variadic<Tkg_SharedBuffer>:$released, Optional<I1>:$peer);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`frees` `(` $released^ `:` qualified(type($released)) `)`)? (`peer` $peer^)? attr-dict `:` qualified(type($barriers))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$barriers, "::mlir::Value":$index, "::mlir::ValueRange":$released), [{
      build($_builder, $_state, barriers, index, released, ::mlir::Value());
    }]>
  ];
}

def Tkg_ClusterBarrierOp : Tkg_Op<"cluster_barrier"> {
  let summary = "every thread of the cluster's CTAs arrives, then waits for all of them";
  let description = [{
    `barrier.cluster.arrive.release` and `barrier.cluster.wait.acquire` (PTX ISA,
    https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-barrier-cluster):
    at the end of a kernel on clusters (`tkg.cluster_ctas`), so that no CTA exits while the
    other may still copy into its shared memory or arrive on its barriers.
  }];
  let assemblyFormat = "attr-dict";
}

def Tkg_TmaLoadOp : Tkg_Op<"tma_load", [AttrSizedOperandSegments]> {
  let summary = "copy a tile from global memory into one stage of a shared buffer by TMA";
  let description = [{
    `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes` (PTX ISA,
    https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor)
    of the tile whose top-left element is at `coords` (outer first) of the tensor `map`
    describes, one box per column block of the stage's swizzled layout, completing bytes on
    barrier `index`. With three coordinates (`.3d`) the first picks one matrix of a stack
    (attention's heads; the map's box is 1 along it). Issued by the thread that calls it (in a `tkg.elect` branch); elements
    outside the tensor read as zero. With `shared` and `halves` (a cluster of 2 CTAs,
    `tkg.cluster_ctas`; `halves` a map of the same tensor whose box is half the tile's rows):
    where `shared` holds, the other CTA of the cluster copies the same tile at the same stage,
    and this one copies half `%cluster_ctarank` of its rows by `halves` into both CTAs' stage,
    completing its bytes on both CTAs' barrier `index` (`.multicast::cluster`); else it
    copies the tile by `map` into its own, as without. `evict` (the `tk.load`'s it replaces):
    the copy's L2 eviction priority (`createpolicy.fractional.L2::evict_first/last` and
    `.L2::cache_hint`); a TMA copy has no L1 part.
  }];
  let arguments = (ins Tkg_TensorMap:$map, Variadic<I32>:$coords, Tkg_SharedBuffer:$buffer, I32:$stage,
                       Tkg_Barriers:$barriers, I32:$index, Optional<I1>:$shared, Optional<Tkg_TensorMap>:$halves,
                       DefaultValuedAttr<Tk_EvictionPolicy, "::tk::EvictionPolicy::normal">:$evict);
  let assemblyFormat = [{
    $map `[` $coords `]` `,` $buffer `[` $stage `]` `,` $barriers `[` $index `]` (`shared` $shared^ `halves` $halves)?
    (`evict` `=` $evict^)? attr-dict `:` qualified(type($buffer)) `,` qualified(type($barriers))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$map, "::mlir::ValueRange":$coords, "::mlir::Value":$buffer, "::mlir::Value":$stage,
                   "::mlir::Value":$barriers, "::mlir::Value":$index), [{
      build($_builder, $_state, map, coords, buffer, stage, barriers, index, ::mlir::Value(), ::mlir::Value());
    }]>
  ];
  let hasVerifier = 1;
}

def Tkg_TmaStoreOp : Tkg_Op<"tma_store"> {
  let summary = "store a tile to global memory by TMA through a shared staging buffer";
  let description = [{
    The tile's elements, from whatever layout its threads hold it in, are written into
    `buffer` (one stage, the swizzled arrangement the tensor `map`'s boxes describe) and one
    thread then copies it out with `cp.async.bulk.tensor.2d.global.shared::cta.bulk_group`
    (a buffer narrower than the tile holds a part of its columns at a time: the parts go one
    after another, each written once the copy of the one before has read the buffer)
    (PTX ISA, https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk-tensor),
    one box per column block, the tile's top-left element at `coords` (row, column); elements
    outside the tensor are not written. The threads go on at once: the copy reads the buffer
    and writes global memory in the background. Before writing the buffer again the issuing
    thread waits until its earlier copies have read it (`cp.async.bulk.wait_group.read 0`) and
    the tile's threads meet at a barrier (made by tk-tma-stores on sm_90a).
  }];
  let arguments = (ins Tk_Tile:$value, Tkg_TensorMap:$map, Variadic<I32>:$coords, Tkg_SharedBuffer:$buffer);
  let assemblyFormat = [{
    $value `,` $map `[` $coords `]` `via` $buffer attr-dict `:` type($value) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Tkg_TmaStoreWaitOp : Tkg_Op<"tma_store_wait"> {
  let summary = "wait until the program's TMA stores have read their staging buffers";
  let description = [{
    `cp.async.bulk.wait_group.read 0` in the thread that issues `tkg.tma_store`s: a program
    must not end while a copy still reads its shared memory (its global writes may still be
    under way; they complete before the kernel does). With `written`,
    `cp.async.bulk.wait_group 0`: until the copies' global writes are visible to that thread, so
    that an atomic releasing after it (and its program's barrier) orders them as it orders the
    threads' own stores.
  }];
  let arguments = (ins UnitAttr:$written);
  let assemblyFormat = "(`written` $written^)? attr-dict";
}

def Tkg_MmaTurnTakeOp : Tkg_Op<"mma_turn_take"> {
  let summary = "wait for this consumer warpgroup's turn at the tensor cores (ping-pong)";
  let description = [{
    The two consumer warpgroups of a kernel with `warp_specialize: 2` take turns issuing their
    dots (FlashAttention-3's ping-pong), so that one's softmax runs while the other's MMAs
    do. Warpgroup w waits on named barrier 2 + w (`bar.sync 2 + w, 256`: PTX ISA, "bar.sync",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-bar),
    which completes when the other warpgroup has passed the turn (`tkg.mma_turn_pass`); with
    `warpgroup`, in that warpgroup only (warpgroup 0's extra turn after a loop whose turns
    lie within each iteration: warpgroup 1's last pass).
  }];
  let arguments = (ins OptionalAttr<I32Attr>:$warpgroup);
  let assemblyFormat = "attr-dict";
}

def Tkg_MmaTurnPassOp : Tkg_Op<"mma_turn_pass"> {
  let summary = "pass the turn at the tensor cores to the other consumer warpgroup";
  let description = [{
    `bar.arrive 2 + (1 - w), 256` in warpgroup w, without waiting (the other side of
    `tkg.mma_turn_take`); with `warpgroup`, in that warpgroup only (warpgroup 1 gives
    warpgroup 0 the first turn; warpgroup 0 passes its last one after the loop).
  }];
  let arguments = (ins OptionalAttr<I32Attr>:$warpgroup);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Tensor cores
//===----------------------------------------------------------------------===//

def Tkg_DotWaitOp : Tkg_Op<"dot_wait", [AllTypesMatch<["values", "results"]>]> {
  let summary = "results of tensor-core dots whose MMAs were left in flight";
  let description = [{
    On Hopper's wgmma a dot may return before its MMAs finish: a pipelined loop leaves each
    iteration's MMAs running while the next iteration waits for its stage
    (`tkg.mma_in_flight` on the dot), and `tk-async-dots` leaves a dot's MMAs running until
    its results are first used (`tkg.mma_async`). The values are only valid after
    `wgmma.wait_group pending` (PTX ISA, "wgmma.wait_group",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions-wgmma-wait-group),
    which this op is: every group but the `pending` most recently committed is complete, so
    `pending` counts the wgmma dots issued after the one whose values these are. The results
    are the values. Elsewhere it is the identity.
  }];
  let arguments = (ins Variadic<Tk_Tile>:$values, DefaultValuedAttr<I32Attr, "0">:$pending);
  let results = (outs Variadic<Tk_Tile>:$results);
  let assemblyFormat = "$values attr-dict `:` type($values)";
  let hasVerifier = 1;
}

def Tkg_DotWaitAllOp : Tkg_Op<"dot_wait_all", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "waits for every wgmma group in flight, tying no values";
  let description = [{
    `wgmma.wait_group 0` over no registers, where no dot's values need it but ptxas must see
    a wait: tk-pipeline-dot-loads puts one where a clustered persistent kernel's k-loop ran
    no iteration, beside the `tkg.dot_wait` that ties the accumulators where it ran. Without
    it ptxas saw the accumulators, which the previous tile's wgmmas defined, used without a
    wait on that path: it injected a wait of its own (C7517) and, where each program has its
    own copy of the code, serialized every wgmma of the kernel (C7518). Its memory effects
    keep it where it is (nothing uses it). Elsewhere than on wgmma it is nothing.
  }];
  let assemblyFormat = "attr-dict";
}

#endif
