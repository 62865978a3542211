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

#endif
