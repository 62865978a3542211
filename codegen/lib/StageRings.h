// Stage rings in shared memory (`tkg.local_alloc`, filled by cp.async; AsyncCopyToThreads.cpp).
#ifndef TK_CODEGEN_STAGERINGS_H
#define TK_CODEGEN_STAGERINGS_H

#include "ThreadTypeConverter.h"

namespace tk::codegen {

/// Start of stage `stage` of a shared buffer (an `!llvm.ptr<3>` to its first byte).
mlir::Value stageBase(mlir::OpBuilder &b, mlir::Location loc, mlir::Value buffer, mlir::Value stage,
                      SharedBufferType type);
/// Whether every user of a `tkg.local_load` is a tensor-core `dot` (which reads the stage itself).
bool feedsTensorCoresOnly(LocalLoadOp op);

} // namespace tk::codegen

#endif
