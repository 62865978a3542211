#ifndef TK_PASSES_TD
#define TK_PASSES_TD

include "mlir/Pass/PassBase.td"

def TkCombineDotAdd : Pass<"tk-combine-dot-add", "::mlir::func::FuncOp"> {
  let summary = "Fold `dot(a, b, 0) + c` into `dot(a, b, c)`";
  let description = [{
    Users often write `acc += dot(a, b)`; the front end gives `dot` a zero accumulator and adds
    it to `acc` afterwards. Accumulating in the dot itself saves a tile-sized add and lets the
    tensor-core lowering keep `acc` in its accumulator registers.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif
