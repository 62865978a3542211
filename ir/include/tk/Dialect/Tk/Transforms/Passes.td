#ifndef TK_PASSES_TD
#define TK_PASSES_TD

include "mlir/Pass/PassBase.td"

def TkCombineDotAdd : Pass<"tk-combine-dot-add", "::mlir::func::FuncOp"> {
  let summary = "Fold `dot(a, b, 0) + c` into `dot(a, b, c)`";
  let description = [{
    Users often write `acc += dot(a, b)`; the front end gives `dot` a zero accumulator and adds
    it to `acc` afterwards. Accumulating in the dot itself saves a tile-sized add and lets the
    tensor-core lowering keep `acc` in its accumulator registers. A dot with
    `max_num_imprecise_acc` keeps its add: the product is promoted to f32 there.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TkHoistLoads : Pass<"tk-hoist-loads", "::mlir::func::FuncOp"> {
  let summary = "Issue each load as early as its operands and earlier writes allow";
  let description = [{
    A load moves up its block past operations that write no memory (arithmetic, shape ops,
    reductions), stopping at the definition of an operand or at anything that may write
    memory (stores, atomics, print, assert, calls, loops and branches that contain them). On
    the GPU the load's latency then overlaps the work it skipped, such as the reductions of a
    normalization kernel, instead of following their barriers.
  }];
}

#endif
