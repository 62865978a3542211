// How elements sit in memory: the LLVM type a value is stored as, and its bytes.
#ifndef TK_CODEGEN_MEMORYTYPES_H
#define TK_CODEGEN_MEMORYTYPES_H

#include "mlir/IR/Builders.h"

namespace tk::codegen {

/// The LLVM type of an element stored in memory (i1 and the f8 formats are stored as bytes).
mlir::Type memoryType(mlir::Type element);
/// A value as memory holds it, and back.
mlir::Value toMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value);
mlir::Value fromMemory(mlir::OpBuilder &b, mlir::Location loc, mlir::Value stored, mlir::Type type);
/// Bytes one element of a tile type (or a scalar type) takes in memory: pointers 8, i1 1.
int64_t elementBytes(mlir::Type type);
/// f8e4m3 or f8e5m2 (stored as bytes; multiplied by wgmma, or mma.sync from sm_89).
bool isFloat8(mlir::Type element);

} // namespace tk::codegen

#endif
