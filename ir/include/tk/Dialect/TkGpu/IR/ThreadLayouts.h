// How a tile is spread over a program's threads, as arithmetic (no MLIR here: unit tests use it
// alone). `#tkg.blocked` and `#tkg.linear` (TkgAttrs.td) are these layouts in the IR.
//
// Every tile, whatever its rank, is laid out by its row-major element index. Each slot bit and
// thread-id bit of a layout maps to one bit of the element index (a linear layout in Triton's
// sense), which lets shape changes and reductions decide at compile time which elements a
// thread already holds.
#ifndef TK_DIALECT_TKGPU_IR_THREADLAYOUTS_H
#define TK_DIALECT_TKGPU_IR_THREADLAYOUTS_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace tk::gpu {

inline int log2Of(int64_t powerOfTwo) {
  int bits = 0;
  while ((int64_t(1) << bits) < powerOfTwo)
    ++bits;
  return bits;
}

/// Blocked layout of a tile of `size` elements over `threads` threads: thread t owns
/// groups of `sizePerThread` contiguous elements at (rep * threads + t) * sizePerThread,
/// rep = 0 .. reps-1. A tile smaller than threads * sizePerThread is replicated: element
/// indices wrap modulo the size.
struct BlockedLayout {
  int64_t size = 1;
  int64_t threads = 128;
  int64_t sizePerThread = 1;
  int64_t reps() const { return std::max<int64_t>(1, size / (threads * sizePerThread)); }
  int64_t perThread() const { return reps() * sizePerThread; }
  /// Threads holding distinct elements (the rest replicate them).
  int64_t owners() const { return std::min<int64_t>(threads, std::max<int64_t>(1, size / sizePerThread)); }
  static BlockedLayout of(int64_t size, int64_t threads, int64_t vectorWidth) {
    BlockedLayout l{size, threads, 1};
    l.sizePerThread = std::max<int64_t>(1, std::min<int64_t>(vectorWidth, size / threads));
    if (size >= threads * vectorWidth)
      l.sizePerThread = vectorWidth;
    return l;
  }

  /// The element-index bit each slot bit and each thread-id bit sets (-1: none, a replica).
  std::vector<int> slotBits() const {
    std::vector<int> bits;
    for (int b = 0; b < log2Of(sizePerThread); ++b)
      bits.push_back(masked(b));
    for (int b = 0; b < log2Of(reps()); ++b)
      bits.push_back(masked(log2Of(threads * sizePerThread) + b));
    return bits;
  }
  std::vector<int> threadBits() const {
    std::vector<int> bits;
    for (int b = 0; b < log2Of(threads); ++b)
      bits.push_back(masked(log2Of(sizePerThread) + b));
    return bits;
  }
  /// The element-index bits slot `slot` adds to thread t's `t * sizePerThread` (disjoint from
  /// them when the tile covers the threads whole: the index is the two or'ed).
  int64_t slotOffset(int64_t slot) const { return (slot / sizePerThread) * threads * sizePerThread + slot % sizePerThread; }
  /// The element slot `slot` of thread `t` holds.
  int64_t element(int64_t slot, int64_t t) const {
    int64_t e = ((slot / sizePerThread) * threads + t) * sizePerThread + slot % sizePerThread;
    return e & (size - 1);
  }

private:
  int masked(int bit) const { return (int64_t(1) << bit) < size ? bit : -1; }
};

/// A map between element indices of two tiles that moves single bits: bit b of the index in
/// one tile is bit `to[b]` of the index in the other, or is dropped (-1). Broadcasts, expand_dims,
/// reshapes and transposes are such maps from result to source.
using BitMap = std::vector<int>;

/// Which element-index bit each slot bit and thread-id bit of a distribution sets (-1: none).
struct LayoutBits {
  std::vector<int> slot, thread;
  bool operator==(const LayoutBits &other) const { return slot == other.slot && thread == other.thread; }
  bool operator!=(const LayoutBits &other) const { return !(*this == other); }
};

inline LayoutBits bitsOf(const BlockedLayout &l) { return {l.slotBits(), l.threadBits()}; }

/// When every thread already holds, under `source`, the element `map` sends each of its
/// `result` elements to: for each result slot, the source slot that holds it.
inline std::optional<std::vector<int64_t>> slotsInThread(const LayoutBits &result, const LayoutBits &source,
                                                         const BitMap &map) {
  auto apply = [&](int bit) { return bit < 0 ? -1 : map[bit]; };
  if (result.thread.size() != source.thread.size())
    return std::nullopt;
  for (size_t b = 0; b < result.thread.size(); ++b)
    if (apply(result.thread[b]) != source.thread[b])
      return std::nullopt;
  std::vector<int64_t> slotBit; // result slot bit -> source slot mask
  for (int bit : result.slot) {
    int target = apply(bit);
    if (target < 0) {
      slotBit.push_back(0);
      continue;
    }
    auto it = std::find(source.slot.begin(), source.slot.end(), target);
    if (it == source.slot.end())
      return std::nullopt;
    slotBit.push_back(int64_t(1) << (it - source.slot.begin()));
  }
  std::vector<int64_t> slots;
  for (int64_t slot = 0; slot < (int64_t(1) << result.slot.size()); ++slot) {
    int64_t s = 0;
    for (size_t b = 0; b < slotBit.size(); ++b)
      if (slot >> b & 1)
        s |= slotBit[b];
    slots.push_back(s);
  }
  return slots;
}

inline std::optional<std::vector<int64_t>> slotsInThread(const BlockedLayout &result, const BlockedLayout &source,
                                                         const BitMap &map) {
  return slotsInThread(bitsOf(result), bitsOf(source), map);
}

} // namespace tk::gpu

#endif
