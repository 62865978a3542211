#ifndef TK_OPS_TD
#define TK_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "tk/Dialect/Tk/IR/TkDialect.td"
include "tk/Dialect/Tk/IR/TkTypes.td"
include "tk/Dialect/Tk/IR/TkAttrs.td"

//===----------------------------------------------------------------------===//
// Program identity
//===----------------------------------------------------------------------===//

def Tk_ProgramIdOp : Tk_Op<"program_id", [Pure]> {
  let summary = "index of this program along one grid axis";
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tk_NumProgramsOp : Tk_Op<"num_programs", [Pure]> {
  let summary = "number of programs along one grid axis";
  let arguments = (ins I32Attr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile creation and shape
//===----------------------------------------------------------------------===//

def Tk_MakeRangeOp : Tk_Op<"make_range", [Pure]> {
  let summary = "the tile [start, start + 1, ..., end - 1]";
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tk_SplatOp : Tk_Op<"splat", [Pure]> {
  let summary = "a tile whose every element is one scalar";
  let arguments = (ins Tk_Scalar:$src);
  let results = (outs Tk_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tk_BroadcastOp : Tk_Op<"broadcast", [Pure, SameOperandsAndResultElementType]> {
  let summary = "repeat size-1 dimensions of a tile to a larger shape";
  let arguments = (ins Tk_Tile:$src);
  let results = (outs Tk_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tk_ExpandDimsOp : Tk_Op<"expand_dims", [Pure, SameOperandsAndResultElementType]> {
  let summary = "insert a size-1 dimension at `axis`";
  let arguments = (ins Tk_Tile:$src, I32Attr:$axis);
  let results = (outs Tk_Tile:$result);
  let assemblyFormat = "$src `,` $axis attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tk_ReshapeOp : Tk_Op<"reshape", [Pure, SameOperandsAndResultElementType]> {
  let summary = "reinterpret a tile's elements (row-major order) under another shape";
  let arguments = (ins Tk_Tile:$src);
  let results = (outs Tk_Tile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tk_TransOp : Tk_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "permute the dimensions of a tile";
  let description = [{ Result dimension `i` is source dimension `order[i]`. }];
  let arguments = (ins Tk_Tile:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tk_Tile:$result);
  let assemblyFormat = "$src `,` $order attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tk_BitcastOp : Tk_Op<"bitcast", [Pure]> {
  let summary = "reinterpret the bits of each element as another type of the same width";
  let arguments = (ins Tk_ScalarOrTile:$src);
  let results = (outs Tk_ScalarOrTile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tk_AddPtrOp : Tk_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "advance pointers by a number of elements";
  let arguments = (ins Tk_PtrLike:$ptr, Tk_IntLike:$offset);
  let results = (outs Tk_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tk_LoadOp : Tk_Op<"load", [AttrSizedOperandSegments,
                                DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "load through pointers; masked-off lanes take `other` (or are undefined)";
  let arguments = (ins Tk_PtrLike:$ptr, Optional<Tk_BoolLike>:$mask,
                       Optional<Tk_ScalarOrTile>:$other,
                       DefaultValuedAttr<Tk_CacheModifier, "::tk::CacheModifier::none">:$cache,
                       DefaultValuedAttr<Tk_EvictionPolicy, "::tk::EvictionPolicy::normal">:$evict,
                       DefaultValuedAttr<I32Attr, "0">:$prefetch_size);
  let results = (outs Tk_ScalarOrTile:$result);
  let assemblyFormat = [{
    $ptr (`mask` $mask^)? (`other` $other^)? (`cache` `=` $cache^)? (`evict` `=` $evict^)?
    (`prefetch_size` `=` $prefetch_size^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tk_StoreOp : Tk_Op<"store", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "store through pointers where `mask` is true";
  let arguments = (ins Tk_PtrLike:$ptr, Tk_ScalarOrTile:$value, Optional<Tk_BoolLike>:$mask,
                       DefaultValuedAttr<Tk_EvictionPolicy, "::tk::EvictionPolicy::normal">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`mask` $mask^)? (`evict` `=` $evict^)? attr-dict `:` type(operands)
  }];
  let hasVerifier = 1;
}

def Tk_PrefetchL2Op : Tk_Op<"prefetch_l2", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "start bringing memory into the L2 cache";
  let description = [{
    `prefetch_l2(ptrs, count, mask = ...)`: a hint that the `count` elements from each pointer
    (the owner of each element of a tile of pointers, each allowed by the mask) will be read
    soon. On sm_90 and later one `cp.async.bulk.prefetch.L2.global` per pointer (its start
    rounded down and its end up to 16-byte granules, at most 2^31 bytes; a count of zero or
    less prefetches nothing); a no-op before sm_90. The range must lie in one buffer, as a load's would: the interpreter checks
    it and does nothing else. Before `gdc_wait` it lets a kernel start streaming its weights
    while the kernel ahead of it ends. It reads memory (so it stays on its side of `gdc_wait`)
    and writes tk::KeepAliveResource, so it is never deleted as unused.
  }];
  let arguments = (ins Tk_PtrLike:$ptr, I64:$count, Optional<Tk_BoolLike>:$mask);
  let assemblyFormat = "$ptr `,` $count (`,` $mask^)? attr-dict `:` type($ptr) (`,` type($mask)^)?";
  let hasVerifier = 1;
}

def Tk_AtomicRMWOp : Tk_Op<"atomic_rmw", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "atomic read-modify-write; returns the old values";
  let arguments = (ins Tk_AtomicKind:$kind, Tk_PtrLike:$ptr, Tk_ScalarOrTile:$value,
                       Optional<Tk_BoolLike>:$mask,
                       DefaultValuedAttr<Tk_MemorySemantic, "::tk::MemorySemantic::acq_rel">:$sem);
  let results = (outs Tk_ScalarOrTile:$result);
  let assemblyFormat = [{
    $kind $ptr `,` $value (`mask` $mask^)? (`sem` `=` $sem^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tk_AtomicCASOp : Tk_Op<"atomic_cas", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "atomic compare-and-swap; returns the old values";
  let arguments = (ins Tk_PtrLike:$ptr, Tk_ScalarOrTile:$cmp, Tk_ScalarOrTile:$value,
                       DefaultValuedAttr<Tk_MemorySemantic, "::tk::MemorySemantic::acq_rel">:$sem);
  let results = (outs Tk_ScalarOrTile:$result);
  let assemblyFormat = [{
    $ptr `,` $cmp `,` $value (`sem` `=` $sem^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix product, reductions, scans
//===----------------------------------------------------------------------===//

def Tk_DotOp : Tk_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "tile matrix product: result = a * b + acc";
  let description = [{
    `max_num_imprecise_acc` (FP8 operands; 0: no limit) bounds how many products of K the
    tensor cores may sum in their reduced-precision accumulator before the sum is added in f32
    (Triton's argument of that name; DeepSeek-V3's and cuBLASLt's promotion). The front end
    gives such a dot a zero accumulator and adds its product to the accumulator after it;
    `tk-combine-dot-add` leaves that add apart. Only whole tiles are supported: the value is 0
    or at least the tile's K.
  }];
  let arguments = (ins Tk_NumericTile:$a, Tk_NumericTile:$b, Tk_NumericTile:$acc,
                       DefaultValuedAttr<Tk_DotPrecision, "::tk::DotPrecision::tf32">:$precision,
                       DefaultValuedAttr<I32Attr, "0">:$max_num_imprecise_acc);
  let results = (outs Tk_NumericTile:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`precision` `=` $precision^)?
    (`max_num_imprecise_acc` `=` $max_num_imprecise_acc^)? attr-dict
    `:` type($a) `*` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tk_ReduceOp : Tk_Op<"reduce", [Pure, SingleBlock]> {
  let summary = "reduce tiles along one axis with a combine region";
  let description = [{
    The combine region takes (accumulators..., next values...) as scalars and yields the new
    accumulators. Elements are combined in increasing index order along `axis`.
  }];
  let arguments = (ins Variadic<Tk_Tile>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tk_ScalarOrTile>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = "$srcs `axis` `=` $axis attr-dict `:` type($srcs) `->` type($results) $combine";
  let hasRegionVerifier = 1;
}

def Tk_ScanOp : Tk_Op<"scan", [Pure, SingleBlock]> {
  let summary = "inclusive scan of tiles along one axis with a combine region";
  let arguments = (ins Variadic<Tk_Tile>:$srcs, I32Attr:$axis, DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Variadic<Tk_Tile>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = "$srcs `axis` `=` $axis attr-dict `:` type($srcs) `->` type($results) $combine";
  let hasRegionVerifier = 1;
}

def Tk_YieldOp : Tk_Op<"yield", [Pure, Terminator, ReturnLike,
                                  ParentOneOf<["ReduceOp", "ScanOp"]>]> {
  let summary = "yields the combined values of a reduce or scan region";
  let arguments = (ins Variadic<Tk_Scalar>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

//===----------------------------------------------------------------------===//
// Random numbers, hints, debugging
//===----------------------------------------------------------------------===//

def Tk_RandOp : Tk_Op<"rand", [Pure]> {
  let summary = "Philox-4x32-10 random numbers keyed by (seed, offset)";
  let description = [{
    Uniform: f32 in [0, 1). Normal: standard normal by Box-Muller. The bits are a pure
    function of the seed and each element's offset, identical on every backend.
  }];
  let arguments = (ins Tk_Int:$seed, Tk_IntLike:$offsets, Tk_RandDistribution:$distribution);
  let results = (outs AnyTypeOf<[F32, RankedTensorOf<[F32]>]>:$result);
  let assemblyFormat = "$distribution $seed `,` $offsets attr-dict `:` type($seed) `,` type($offsets) `->` type($result)";
  let hasVerifier = 1;
}

def Tk_HintOp : Tk_Op<"hint", [Pure, AllTypesMatch<["src", "result"]>]> {
  let summary = "compiler facts about integer values: divisibility and contiguity";
  let arguments = (ins Tk_ScalarOrTile:$src, OptionalAttr<I32Attr>:$multiple_of,
                       OptionalAttr<I32Attr>:$max_contiguous);
  let results = (outs Tk_ScalarOrTile:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tk_PrintOp : Tk_Op<"print", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "device printf of a label and values";
  let arguments = (ins StrAttr:$prefix, Variadic<Tk_ScalarOrTile>:$args);
  let assemblyFormat = "$prefix attr-dict ($args^ `:` type($args))?";
}

def Tk_ProgressOp : Tk_Op<"progress", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "keeps a loop that has no other effect (it may never end)";
  let description = [{
    tk makes no forward-progress assumption: a `while` loop whose body has no side effect may
    run forever, and -O3 must keep it as -O0 does. The front end puts this op in such a loop's
    body; its effect (on a resource of its own) keeps every pass from deleting the loop. It
    does nothing when run, and becomes an empty `asm volatile` on the GPU.
  }];
  let assemblyFormat = "attr-dict";
}

def Tk_GridDependencyWaitOp : Tk_Op<"gdc_wait", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "wait until the grids this one depends on have finished and their writes are visible";
  let description = [{
    `gdc_wait()`. A kernel that calls it is launched as a programmatic dependent of the kernel
    before it in its stream (CUDA's programmatic dependent launch): it may start while that
    kernel still runs, and this op waits for it (PTX `griddepcontrol.wait`,
    https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-griddepcontrol).
    Before it a kernel may read only memory no earlier kernel of the stream writes (its
    weights), and write nothing; a program that returns before it still waits before it ends
    (tk-threads-to-llvm adds the wait). A no-op in the interpreter and before sm_90. Its effect
    (on all memory) keeps every memory access on its side.
  }];
  let assemblyFormat = "attr-dict";
}

def Tk_LaunchDependentsOp : Tk_Op<"gdc_launch_dependents", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "let the next kernel of the stream launch before this one ends";
  let description = [{
    `gdc_launch_dependents()`: once every program of this kernel has run it (or ended), a
    dependent kernel (one that calls `gdc_wait`) may start its programs, which then wait in
    `gdc_wait` for this kernel to end (PTX `griddepcontrol.launch_dependents`). A scheduling
    hint: it orders no memory. A no-op in the interpreter and before sm_90.
  }];
  let assemblyFormat = "attr-dict";
}

def Tk_AssertOp : Tk_Op<"assert", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "stop the program with a message where the condition is false";
  let arguments = (ins Tk_BoolLike:$cond, StrAttr:$message);
  let assemblyFormat = "$cond `,` $message attr-dict `:` type($cond)";
}

#endif
