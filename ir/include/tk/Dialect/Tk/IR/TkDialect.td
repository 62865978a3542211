#ifndef TK_DIALECT_TD
#define TK_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tk_Dialect : Dialect {
  let name = "tk";
  let cppNamespace = "::tk";
  let summary = "Tile-level operations of the tk language";
  let description = [{
    The `tk` dialect holds what a tk program computes, one program (thread block) at a time,
    on tiles: ranked tensors of scalars or of `!tk.ptr<T>` global-memory pointers. Layouts,
    threads and shared memory are not visible here; later passes assign them. Elementwise
    arithmetic and control flow come from upstream `arith`, `math` and `scf`.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect"];
}

class Tk_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tk_Dialect, mnemonic, traits>;

#endif
