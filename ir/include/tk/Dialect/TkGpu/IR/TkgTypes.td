#ifndef TKG_TYPES_TD
#define TKG_TYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "tk/Dialect/TkGpu/IR/TkgDialect.td"

def Tkg_SharedBufferType : TypeDef<Tkg_Dialect, "SharedBuffer"> {
  let mnemonic = "shared";
  let summary = "a ring of tiles in a program's shared memory";
  let description = [{
    `!tkg.shared<[3, 128, 32], f16>` holds 3 stages of a 128x32 tile, each stage row-major with
    16-byte chunks of every row XOR-swizzled so that ldmatrix reads it without bank conflicts
    (the swizzle Hopper's wgmma descriptors name). Made by the pipeliner
    (`tk-pipeline-dot-loads`) for the operands of tensor-core `dot`s.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType);
  let assemblyFormat = "`<` `[` $shape `]` `,` $elementType `>`";
  let extraClassDeclaration = [{
    int64_t stages() const { return getShape()[0]; }
    /// The shape of one stage's tile.
    ::llvm::ArrayRef<int64_t> tileShape() const { return getShape().drop_front(); }
  }];
}

def Tkg_SharedBuffer : Type<CPred<"::llvm::isa<::tk::gpu::SharedBufferType>($_self)">, "tkg shared buffer",
                            "::tk::gpu::SharedBufferType">;

def Tkg_BarriersType : TypeDef<Tkg_Dialect, "Barriers"> {
  let mnemonic = "barriers";
  let summary = "an array of mbarriers in a program's shared memory";
  let description = [{
    `!tkg.barriers<4>` holds 4 mbarriers (8 bytes each; PTX ISA, "Parallel Synchronization and
    Communication Instructions: mbarrier",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier):
    one per stage of a TMA pipeline, completing a phase when its arrivals and expected bytes
    are in.
  }];
  let parameters = (ins "int64_t":$count);
  let assemblyFormat = "`<` $count `>`";
}

def Tkg_TensorMapType : TypeDef<Tkg_Dialect, "TensorMap"> {
  let mnemonic = "tensor_map";
  let summary = "a TMA tensor map: a 128-byte kernel parameter the launcher encodes";
  let description = [{
    The `CUtensorMap` that `cp.async.bulk.tensor` reads (CUDA driver API,
    `cuTensorMapEncodeTiled`), passed by value as a `__grid_constant__` kernel parameter. Only
    a kernel argument carries it; its `tkg.tensor_map` attribute says how the launcher builds
    it from the other arguments.
  }];
}

def Tkg_Barriers : Type<CPred<"::llvm::isa<::tk::gpu::BarriersType>($_self)">, "tkg mbarrier array",
                        "::tk::gpu::BarriersType">;
def Tkg_TensorMap : Type<CPred<"::llvm::isa<::tk::gpu::TensorMapType>($_self)">, "tkg tensor map",
                         "::tk::gpu::TensorMapType"> {
  let builderCall = "::tk::gpu::TensorMapType::get($_builder.getContext())";
}

#endif
