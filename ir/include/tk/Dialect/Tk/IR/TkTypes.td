#ifndef TK_TYPES_TD
#define TK_TYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "tk/Dialect/Tk/IR/TkDialect.td"

def Tk_PtrType : TypeDef<Tk_Dialect, "Ptr"> {
  let mnemonic = "ptr";
  let summary = "pointer to an element of global memory";
  let description = [{
    `!tk.ptr<f16>` addresses one element; pointer arithmetic (`tk.addptr`) counts elements.
  }];
  let parameters = (ins "::mlir::Type":$pointee);
  let assemblyFormat = "`<` $pointee `>`";
  let builders = [TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointee), [{
    return $_get(pointee.getContext(), pointee);
  }]>];
}

def Tk_Ptr : Type<CPred<"::llvm::isa<::tk::PtrType>($_self)">, "tk pointer", "::tk::PtrType">;
def Tk_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F16, BF16, F32, F64]>;
def Tk_Int : AnyTypeOf<[I1, I8, I16, I32, I64]>;
def Tk_Scalar : AnyTypeOf<[Tk_Float, Tk_Int, Tk_Ptr]>;

def Tk_Tile : RankedTensorOf<[Tk_Float, Tk_Int, Tk_Ptr]>;
def Tk_ScalarOrTile : AnyTypeOf<[Tk_Scalar, Tk_Tile]>;
def Tk_PtrLike : AnyTypeOf<[Tk_Ptr, RankedTensorOf<[Tk_Ptr]>]>;
def Tk_IntLike : AnyTypeOf<[Tk_Int, RankedTensorOf<[Tk_Int]>]>;
def Tk_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Tk_FloatTile : RankedTensorOf<[Tk_Float]>;
def Tk_NumericTile : RankedTensorOf<[Tk_Float, Tk_Int]>;

#endif
