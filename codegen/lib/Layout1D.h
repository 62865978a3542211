// How a 1-D tile is spread over a program's threads (no MLIR here: unit tests use it alone).
#ifndef TK_CODEGEN_LAYOUT1D_H
#define TK_CODEGEN_LAYOUT1D_H

#include <algorithm>
#include <cstdint>

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

} // namespace tk::codegen

#endif
