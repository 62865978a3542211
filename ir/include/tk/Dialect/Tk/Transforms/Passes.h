#ifndef TK_DIALECT_TK_TRANSFORMS_PASSES_H
#define TK_DIALECT_TK_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "tk/Dialect/Tk/IR/Tk.h"

namespace tk {
#define GEN_PASS_DECL
#include "tk/Dialect/Tk/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tk/Dialect/Tk/Transforms/Passes.h.inc"

/// The tile-level cleanup pipeline that `tkc --emit=tk` runs at -O3: inline device functions,
/// canonicalize, CSE, hoist loop invariants, fold dot + add, and issue loads early.
void buildTileOptimizationPipeline(mlir::OpPassManager &pm);
} // namespace tk

#endif
