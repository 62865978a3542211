// The 1:N type converter of tk-to-threads: a tile becomes the scalars one thread holds under
// the layout in its type, a tk pointer a global LLVM pointer.
#ifndef TK_CODEGEN_THREADTYPECONVERTER_H
#define TK_CODEGEN_THREADTYPECONVERTER_H

#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "mlir/Transforms/DialectConversion.h"

namespace tk::codegen {
using namespace ::tk::gpu;

/// Converts tiles to the scalars one thread holds under the layout in their type, and tk
/// pointers to global LLVM pointers.
class ThreadTypeConverter : public mlir::TypeConverter {
public:
  ThreadTypeConverter(mlir::MLIRContext *context, int64_t threads);
  /// The blocked layout of a tile type (a scalar: one element every thread holds). A tile in
  /// another layout here (hand-written IR: tk-assign-layouts never puts one where a lowering
  /// needs the blocked one) gets a stand-in and is remembered, so that the pass fails with a
  /// diagnostic instead of aborting mid-conversion.
  BlockedLayout layoutOf(mlir::Type type) const;
  /// The first tile type layoutOf was asked for that is not in the blocked layout, or null.
  mlir::Type misplacedLayout() const { return misplaced_; }
  int64_t threads() const { return threads_; }
  /// Whether tensor-core dots may run on Hopper's wgmma (sm_90a).
  bool warpgroupMma() const { return warpgroupMma_; }
  void setWarpgroupMma(bool on) { warpgroupMma_ = on; }
  /// Whether the target has stmatrix (sm_90): layout conversions of 16-bit accumulators use it.
  bool matrixStores() const { return matrixStores_; }
  void setMatrixStores(bool on) { matrixStores_ = on; }
  /// Whether threads write stage rings (cp.async): the tensor cores' proxy then needs a fence
  /// after the copies' waits (TMA writes through that proxy itself).
  bool stagesWrittenByThreads() const { return stagesWrittenByThreads_; }
  void setStagesWrittenByThreads(bool on) { stagesWrittenByThreads_ = on; }

private:
  int64_t threads_;
  bool warpgroupMma_ = false, matrixStores_ = false, stagesWrittenByThreads_ = true;
  mutable mlir::Type misplaced_;
};

/// Operand k of a 1:N adaptor at slot i (a scalar operand serves every slot).
inline mlir::Value slotOf(mlir::ValueRange values, size_t i) { return values.size() == 1 ? values[0] : values[i]; }

} // namespace tk::codegen

#endif
