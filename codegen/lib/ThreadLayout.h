// How a 1-D tile is spread over a program's threads, and what is known about integer and
// pointer tiles (contiguity, divisibility, constancy) to decide vector accesses.
#ifndef TK_CODEGEN_THREADLAYOUT_H
#define TK_CODEGEN_THREADLAYOUT_H

#include "tk/Dialect/Tk/IR/Tk.h"

#include "llvm/ADT/DenseMap.h"

namespace tk::codegen {

/// Blocked layout of a 1-D tile of `size` elements over `threads` threads: thread t owns
/// groups of `sizePerThread` contiguous elements at (rep * threads + t) * sizePerThread,
/// rep = 0 .. reps-1. A tile smaller than threads * sizePerThread is replicated: element
/// indices wrap modulo the size.
struct Layout1D {
  int64_t size = 1;
  int64_t threads = 128;
  int64_t sizePerThread = 1;
  int64_t reps() const { return std::max<int64_t>(1, size / (threads * sizePerThread)); }
  int64_t perThread() const { return reps() * sizePerThread; }
  /// Threads holding distinct elements (the rest replicate them).
  int64_t owners() const { return std::min<int64_t>(threads, std::max<int64_t>(1, size / sizePerThread)); }
  static Layout1D of(int64_t size, int64_t threads, int64_t vectorWidth) {
    Layout1D l{size, threads, 1};
    l.sizePerThread = std::max<int64_t>(1, std::min<int64_t>(vectorWidth, size / threads));
    if (size >= threads * vectorWidth)
      l.sizePerThread = vectorWidth;
    return l;
  }
};

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
  /// Analyses one kernel; arguments marked `tk.divisibility` get that divisibility.
  explicit AxisAnalysis(mlir::func::FuncOp kernel);
  AxisInfo get(mlir::Value value) const;

private:
  AxisInfo compute(mlir::Operation *op, unsigned resultIndex);
  llvm::DenseMap<mlir::Value, AxisInfo> info_;
};

} // namespace tk::codegen

#endif
