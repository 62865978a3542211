// What is known about integer and pointer tiles (contiguity, divisibility, constancy) to
// decide vector accesses.
#ifndef TK_CODEGEN_AXISANALYSIS_H
#define TK_CODEGEN_AXISANALYSIS_H

#include "tk/Dialect/TkGpu/IR/TkGpu.h"

#include "llvm/ADT/DenseMap.h"

namespace tk::codegen {

/// Triton's axis info for 1-D integer and pointer tiles: runs of `contiguity` consecutive
/// values, each run's first value divisible by `divisibility` (elements for pointers), runs of
/// `constancy` equal values.
struct AxisInfo {
  int64_t contiguity = 1;
  int64_t divisibility = 1;
  int64_t constancy = 1;
};

class AxisAnalysis {
public:
  /// Analyses one kernel; arguments marked `tk.divisibility` (TkDialect::kDivisibility) get that divisibility.
  explicit AxisAnalysis(mlir::func::FuncOp kernel);
  AxisInfo get(mlir::Value value) const;

private:
  AxisInfo compute(mlir::Operation *op, unsigned resultIndex);
  llvm::DenseMap<mlir::Value, AxisInfo> info_;
};

} // namespace tk::codegen

#endif
