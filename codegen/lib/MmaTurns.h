// The ping-pong turns' named barriers (tk-mma-ping-pong's ops in per-thread code).
#ifndef TK_CODEGEN_MMATURNS_H
#define TK_CODEGEN_MMATURNS_H

#include "mlir/IR/BuiltinOps.h"

namespace tk::codegen {

/// Lowers every `tkg.mma_turn_take`/`tkg.mma_turn_pass` to named barriers, or drops a
/// function's turns when they enclose a barrier of all consumers (run after tk-to-threads).
void lowerMmaTurns(mlir::ModuleOp module);

} // namespace tk::codegen

#endif
