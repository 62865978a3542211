// How many bytes of the kernel's shared buffer (`tk_smem`) each op needs, and their assignment
// (tk-allocate-shared, AllocateShared.cpp; each op family's bytes next to its lowering).
#ifndef TK_CODEGEN_SHAREDALLOCATION_H
#define TK_CODEGEN_SHAREDALLOCATION_H

#include "ThreadTypeConverter.h"

namespace tk::codegen {

/// Static shared memory a kernel may use (more needs the dynamic opt-in).
constexpr int64_t kSharedLimit = 48 * 1024;

inline int64_t roundUp16(int64_t bytes) { return (bytes + 15) / 16 * 16; }
/// The period of wgmma's and TMA's swizzle modes (1024 bytes, or 512, 256): swizzled arrays
/// start on it.
inline int64_t roundUp1024(int64_t bytes) { return (bytes + 1023) / 1024 * 1024; }

/// Bytes of shared memory an op needs (0: none), by op family.
int64_t sharedBytesOf(mlir::Operation *op, const ThreadTypeConverter &converter);
int64_t reduceSharedBytes(ReduceOp op, const ThreadTypeConverter &converter);
int64_t scanSharedBytes(ScanOp op, const ThreadTypeConverter &converter);
int64_t shapeSharedBytes(mlir::Operation *op, const ThreadTypeConverter &converter);
int64_t convertLayoutSharedBytes(ConvertLayoutOp op, const ThreadTypeConverter &converter);
int64_t dotSharedBytes(DotOp op, const ThreadTypeConverter &converter);
int64_t atomicSharedBytes(mlir::Operation *op, const ThreadTypeConverter &converter);
int64_t localAllocBytes(LocalAllocOp op);
/// Shared memory one program may use on a GPU of compute capability `sm` (dynamic, opted in).
int64_t maxSharedBytes(int sm);
/// The kernel's stage rings (its TMA stores' staging buffers apart) in groups that are never
/// in use at once, in program order: the rings used inside one op of the kernel's top level (a
/// loop over tiles) each; one group when a ring is used at the top level itself or by several
/// of its ops. Each group's rings lie one after another from the same offset.
llvm::SmallVector<llvm::SmallVector<LocalAllocOp>> ringGroups(mlir::func::FuncOp kernel);
/// The bytes the rings take so placed (each from a 1024-byte boundary): the largest group's.
int64_t ringBytes(mlir::func::FuncOp kernel);
/// Gives each op that needs shared memory its bytes of `tk_smem`: stage rings first, for the
/// whole kernel; then the exchanges, sharing nothing between ops while they fit in 48 KiB, so
/// that ops which run once need no barrier before writing. Returns the size.
mlir::FailureOr<int64_t> assignShared(mlir::func::FuncOp kernel, const ThreadTypeConverter &converter, int sm);

} // namespace tk::codegen

#endif
