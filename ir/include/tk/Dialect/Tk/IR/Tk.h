// The tk dialect: types, attributes and operations.
#ifndef TK_DIALECT_TK_IR_TK_H
#define TK_DIALECT_TK_IR_TK_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tk/Dialect/Tk/IR/TkDialect.h.inc"
#include "tk/Dialect/Tk/IR/TkEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tk/Dialect/Tk/IR/TkTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tk/Dialect/Tk/IR/TkAttrs.h.inc"

#define GET_OP_CLASSES
#include "tk/Dialect/Tk/IR/TkOps.h.inc"

namespace tk {
/// The element type of a scalar or tile type.
mlir::Type elementTypeOf(mlir::Type type);
/// The shape of a tile type; empty for a scalar.
llvm::ArrayRef<int64_t> shapeOf(mlir::Type type);
/// Whether two types are the same scalar type, or tiles of the same shape and element type in
/// any layouts (the GPU backend's encodings).
bool sameIgnoringLayout(mlir::Type a, mlir::Type b);
/// The warps of a program: the `tk.num_warps` of the kernel that `kernelOrInside` is or is in
/// (TkDialect::kDefaultNumWarps when unset). The one place that reads it.
int64_t numWarpsOf(mlir::Operation *kernelOrInside);
/// The stages of the kernel's software pipeline: its `tk.num_stages` (1, no pipelining, when
/// unset). The one place that reads it.
int64_t numStagesOf(mlir::Operation *kernelOrInside);
/// The resource of ops kept where they were written that touch no memory themselves
/// (tk.progress, tk.gdc_launch_dependents, a prefetch's hint): a write to it keeps the op from
/// being deleted as unused and orders it with nothing else.
struct KeepAliveResource : public mlir::SideEffects::Resource::Base<KeepAliveResource> {
  llvm::StringRef getName() final { return "tk.keep_alive"; }
};
/// Whether `op`, or anything nested in it, may write or free memory (an op whose effects are
/// unknown may; a write to KeepAliveResource is none).
bool mayWriteMemory(mlir::Operation *op);
/// Registers the tk dialect and the upstream dialects tk IR uses.
void registerTkDialects(mlir::DialectRegistry &registry);
} // namespace tk

#endif
