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
/// Whether `alloc` is a TMA store's staging buffer (else a stage ring).
bool isStaging(LocalAllocOp alloc);
/// Buffers that are used inside one op of the kernel's top level (`owner`: a loop over tiles).
struct SharedGroup {
  mlir::Operation *owner;
  llvm::SmallVector<LocalAllocOp> buffers;
};
/// The kernel's stage rings (or, with `staging`, its TMA stores' staging buffers) in groups
/// that are never in use at once, in program order: those used inside one op of the kernel's
/// top level each; one group (owner null) when a buffer is used at the top level itself or by
/// several of its ops. Each group's buffers lie one after another from the same offset.
llvm::SmallVector<SharedGroup> sharedGroups(mlir::func::FuncOp kernel, bool staging);
/// The bytes the groups take so placed (each buffer from a 1024-byte boundary): the largest
/// group's, with a buffer of `extraBytes` more used inside `extraOwner` when that is given.
int64_t groupedBytes(mlir::func::FuncOp kernel, bool staging, mlir::Operation *extraOwner = nullptr,
                     int64_t extraBytes = 0);
/// Where the run of exchanges (placed one after another from the rings' end) goes on, op by op
/// in the kernel's pre-order walk: a loop of the kernel's top level after another (a loop over
/// the tiles after whole waves) starts it again from the rings' end, reusing the earlier
/// loop's bytes; an op after such a loop goes above every byte placed so far (the loop may not
/// have run, and its barrier with it). tk-allocate-shared places by it, tk-tma-stores
/// estimates by it. With two programs a CTA the loops are those of the consumers' branch
/// (each program's exchanges are its own, behind its own barrier); a kernel of one program
/// with a producer keeps its whole branch one run (its layout as measured on the GPU).
class ExchangeRuns {
public:
  enum class Step { Go, Restart, AboveAll };
  explicit ExchangeRuns(mlir::func::FuncOp kernel);
  /// The step for exchange `op`; `topOf` then holds its op of the kernel's top level.
  Step next(mlir::Operation *op);
  mlir::Operation *topOf() const { return top_; }

private:
  mlir::Block &body_;
  mlir::Operation *lastLoop_ = nullptr, *top_ = nullptr;
  bool restarted_ = false;
};
/// Gives each op that needs shared memory its bytes of `tk_smem`: stage rings first, for the
/// whole kernel; then the exchanges, sharing nothing between ops while they fit in 48 KiB, so
/// that ops which run once need no barrier before writing. Returns the size.
mlir::FailureOr<int64_t> assignShared(mlir::func::FuncOp kernel, const ThreadTypeConverter &converter, int sm);

} // namespace tk::codegen

#endif
