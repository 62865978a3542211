#ifndef TKG_ATTRS_TD
#define TKG_ATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"
include "tk/Dialect/TkGpu/IR/TkgDialect.td"

// Both layouts describe where element i of a tile (its row-major index, whatever the rank)
// sits: which thread holds it and in which of that thread's slots (the scalars it keeps).
// Each is linear in Triton's sense: every slot bit and thread-id bit sets one bit of the
// element index, so a pass can decide at compile time which elements a thread already holds.

def Tkg_BlockedLayoutAttr : AttrDef<Tkg_Dialect, "BlockedLayout", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "blocked";
  let summary = "the default layout: runs of contiguous elements per thread";
  let description = [{
    Thread t of `threads` holds runs of `per_thread` contiguous elements at
    `(rep * threads + t) * per_thread`, rep = 0, 1, ..., so that its run is one vector access
    when the elements are contiguous in memory. A tile smaller than `threads * per_thread`
    elements is replicated: element indices wrap modulo its size.

    `tensor<1024xf32, #tkg.blocked<per_thread = 4, threads = 128>>`: thread 0 holds elements
    0-3 and 512-515, thread 1 holds 4-7 and 516-519, ...; `per_thread` is 16 bytes of the
    narrowest element the kernel moves through memory (`tk-assign-layouts` picks it).
  }];
  let parameters = (ins "int64_t":$perThread, "int64_t":$threads);
  let assemblyFormat = "`<` `per_thread` `=` $perThread `,` `threads` `=` $threads `>`";
  let genVerifyDecl = 1;
}

def Tkg_LinearLayoutAttr : AttrDef<Tkg_Dialect, "LinearLayout", [
    DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "linear";
  let summary = "a layout given bit by bit (tensor-core accumulators and their slices)";
  let description = [{
    Bit b of a thread's slot number sets element-index bit `slots[b]`; bit b of its lane (the
    thread id's low 5 bits) sets bit `lanes[b]`; bit b of its warp sets bit `warps[b]`; -1 sets
    none (the threads differing only in that bit hold replicas). A thread keeps
    2^len(slots) scalars.

    The mma.sync accumulator of a 16x8 tile: lane 4g + t holds rows g and g + 8, columns 2t
    and 2t + 1, so element (r, c) = 8r + c has slots = [0, 6] (c's bit 0, r's bit 3),
    lanes = [1, 2, 3, 4, 5] (c's bits 1-2, r's bits 0-2):
    `tensor<16x8xf32, #tkg.linear<slots = [0, 6], lanes = [1, 2, 3, 4, 5], warps = []>>`.
  }];
  let parameters = (ins ArrayRefParameter<"int32_t">:$slots, ArrayRefParameter<"int32_t">:$lanes,
                        ArrayRefParameter<"int32_t">:$warps);
  let assemblyFormat = [{
    `<` `slots` `=` custom<BitList>($slots) `,` `lanes` `=` custom<BitList>($lanes) `,` `warps` `=` custom<BitList>($warps) `>`
  }];
  let genVerifyDecl = 1;
}

def Tkg_TensorMapAttr : AttrDef<Tkg_Dialect, "TensorMap"> {
  let mnemonic = "tensor_map";
  let summary = "how the launcher builds a kernel's tensor-map argument from its other arguments";
  let description = [{
    On a `!tkg.tensor_map` kernel argument (as `tkg.tensor_map`): the TMA tensor map over the
    row-major tensor at pointer argument `base` with `shape` (outer dimension first) and the
    row strides of every dimension but the last (whose stride is 1), in elements; the launcher
    reads a shape or stride from the argument of that index when it is >= 0, times a factor
    that the `shape_values`/`stride_values` entry gives (a stack of matrices' stride: rows
    times row stride): that number when it is more than 1, argument `-1 - entry` when it is
    negative, none when 0 or 1; when the index is -1 the shape or stride is the entry. Each copy moves a `box` (outer first) into shared
    memory with the `swizzle` (0, 32, 64 or 128 bytes) wgmma's descriptors name, elements of
    `element_bytes` (1, 2 or 4) each; elements
    outside the shape read as zero.

    `#tkg.tensor_map<base = 0, shape = [3, 5], shape_values = [0, 0], strides = [6],
    stride_values = [0], box = [128, 64], swizzle = 128, element_bytes = 2>`: a 128x64 box of the M x K matrix
    at argument 0 (M, K: arguments 3 and 5) whose rows are argument 6 elements apart.
  }];
  let parameters = (ins "int64_t":$base, ArrayRefParameter<"int64_t">:$shape,
                        ArrayRefParameter<"int64_t">:$shapeValues, ArrayRefParameter<"int64_t">:$strides,
                        ArrayRefParameter<"int64_t">:$strideValues, ArrayRefParameter<"int64_t">:$box,
                        "int64_t":$swizzle, "int64_t":$elementBytes);
  let assemblyFormat = [{
    `<` `base` `=` $base `,` `shape` `=` `[` $shape `]` `,` `shape_values` `=` `[` $shapeValues `]` `,`
    `strides` `=` `[` $strides `]` `,` `stride_values` `=` `[` $strideValues `]` `,` `box` `=` `[` $box `]` `,`
    `swizzle` `=` $swizzle `,` `element_bytes` `=` $elementBytes `>`
  }];
  let genVerifyDecl = 1;
}

#endif
