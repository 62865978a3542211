// Shared pieces of the tk-to-threads conversion: the 1:N type converter and helpers that build
// per-thread index arithmetic. One populate function per op family.
#ifndef TK_CODEGEN_THREADLOWERING_H
#define TK_CODEGEN_THREADLOWERING_H

#include "ThreadLayout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tk::codegen {

/// Groups of 32 slots in the shared scratch buffer of cross-warp reductions.
constexpr int64_t kScratchGroups = 16;

/// Converts tiles to the scalars one thread holds and tk pointers to global LLVM pointers.
class ThreadTypeConverter : public mlir::TypeConverter {
public:
  ThreadTypeConverter(mlir::MLIRContext *context, int64_t threads, int64_t vectorWidth);
  Layout1D layout(int64_t size) const { return Layout1D::of(size, threads_, vectorWidth_); }
  int64_t threads() const { return threads_; }

private:
  int64_t threads_, vectorWidth_;
};

/// Per-kernel facts the patterns need.
struct KernelInfo {
  const ThreadTypeConverter *converter;
  const AxisAnalysis *axis;
};

mlir::Value i32Constant(mlir::OpBuilder &b, mlir::Location loc, int64_t value);
mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc);
/// The index of the element that slot `slot` of this thread holds under `layout`.
mlir::Value elementIndex(mlir::OpBuilder &b, mlir::Location loc, const Layout1D &layout, int64_t slot,
                         mlir::Value tid);
/// The LLVM type of an element stored in memory (i1 is stored as a byte).
mlir::Type memoryType(mlir::Type element);
/// Applies a reduce/scan combine region to (accumulators..., next values...).
llvm::SmallVector<mlir::Value> combineRegion(mlir::OpBuilder &b, mlir::Region &region, mlir::ValueRange acc,
                                             mlir::ValueRange next);
/// shfl.sync of any scalar of up to 64 bits (through i32 pieces); `clamp` is the PTX c operand.
mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc, mlir::Value value, int64_t offset,
                    mlir::NVVM::ShflKind kind, int64_t clamp);
/// The groups of the shared scratch buffer (`tk_reduce_scratch`) that the kernel's
/// assignScratch gave a reduce or scan, through which warps exchange partial results.
class ScratchSlots {
public:
  ScratchSlots(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op);
  /// Slot `index` of the op's group `group` (groups count from the op's first).
  mlir::Value at(mlir::OpBuilder &b, mlir::Location loc, int64_t group, mlir::Value index) const;
  /// values[k] into group k at `index`, stored by the threads where `writer` holds, between the
  /// barriers the slots need; afterwards every thread may read them.
  void publish(mlir::OpBuilder &b, mlir::Location loc, mlir::Value writer, mlir::ValueRange values,
               mlir::Value index) const;

private:
  mlir::Value base_;
  int64_t firstGroup_ = 0;
  bool leadingBarrier_ = true;
};

/// Operand k of a 1:N adaptor at slot i (a scalar operand serves every slot).
inline mlir::Value slotOf(mlir::ValueRange values, size_t i) { return values.size() == 1 ? values[0] : values[i]; }

void populateElementwiseToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateMemoryToThreads(ThreadTypeConverter &converter, const AxisAnalysis &axis, mlir::RewritePatternSet &patterns);
void populateReduceToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateScanToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateRandomToThreads(ThreadTypeConverter &converter, mlir::RewritePatternSet &patterns);

} // namespace tk::codegen

#endif
