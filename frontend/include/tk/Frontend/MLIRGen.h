// Emits the tk dialect (with arith, math, scf, func) from type-checked kernel instances.
#ifndef TK_FRONTEND_MLIRGEN_H
#define TK_FRONTEND_MLIRGEN_H

#include "tk/Frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace tk {

/// One func.func per kernel (attribute `tk.kernel`) and one private func.func per device
/// function instance; every op carries the FileLineColLoc of the source it came from.
mlir::OwningOpRef<mlir::ModuleOp> generateModule(mlir::MLIRContext &context,
                                                 const SourceManager &sources,
                                                 const std::vector<const KernelInstance *> &kernels,
                                                 const std::vector<std::unique_ptr<FnInstance>> &fns);

} // namespace tk

#endif
