// How a tile is spread over a program's threads (no MLIR here: unit tests use it alone).
//
// Every tile, whatever its rank, is laid out by its row-major element index: the 1-D blocked
// layout below over all of its elements. Its slot and thread-id bits map to single bits of the
// element index (a linear layout in Triton's sense), which lets shape changes and reductions
// decide at compile time which elements a thread already holds.
#ifndef TK_CODEGEN_LAYOUT1D_H
#define TK_CODEGEN_LAYOUT1D_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace tk::codegen {

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

inline LayoutBits bitsOf(const Layout1D &l) { return {l.slotBits(), l.threadBits()}; }

/// The mma.sync accumulator layout of an m x n tile whose warps split it warpsM x warpsN
/// (TensorCores.cpp).
LayoutBits accumulatorBits(int64_t m, int64_t n, int64_t warpsM, int64_t warpsN);
/// The wgmma accumulator layout of an m x n tile whose warpgroups split it groupsM x groupsN.
LayoutBits warpgroupAccumulatorBits(int64_t m, int64_t n, int64_t groupsM, int64_t groupsN);

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

inline std::optional<std::vector<int64_t>> slotsInThread(const Layout1D &result, const Layout1D &source,
                                                         const BitMap &map) {
  return slotsInThread(bitsOf(result), bitsOf(source), map);
}

/// The XOR swizzle of 16-byte chunks that tensor-core operands use in shared memory, the
/// layout Hopper's wgmma descriptors name (128-, 64- or 32-byte swizzle): a tile of `rows`
/// rows of `rowLength` elements is stored as column blocks of at most 128 bytes
/// (`blockLength` elements), block after block, each block `rows` rows of `blockLength`; in a
/// block, chunk c of row r is stored at chunk c ^ phase(r), so the 8 consecutive rows one
/// ldmatrix reads at one logical chunk land in 8 different 16-byte bank groups (a 128-byte
/// line holds `perPhase` rows).
struct SwizzleParams {
  int64_t rows, rowLength, chunk, blockLength, perPhase, maxPhase;
  /// `chunk` elements fill 16 bytes (8 for 2-byte elements, 4 for 4-byte ones).
  SwizzleParams(int64_t rows, int64_t rowLength, int64_t chunk = 8)
      : rows(rows), rowLength(rowLength), chunk(chunk), blockLength(std::min<int64_t>(rowLength, 8 * chunk)),
        perPhase(std::max<int64_t>(1, 8 * chunk / blockLength)),
        maxPhase(std::max<int64_t>(1, std::min<int64_t>(8, blockLength / chunk))) {}
  int64_t phase(int64_t row) const { return (row / perPhase) % maxPhase; }
  /// Elements between consecutive column blocks.
  int64_t blockStride() const { return rows * blockLength; }
  /// Element index of (row, column) in the swizzled array.
  int64_t index(int64_t row, int64_t column) const {
    int64_t inBlock = column % blockLength;
    return column / blockLength * blockStride() + row * blockLength + (((inBlock / chunk) ^ phase(row)) * chunk) +
           inBlock % chunk;
  }

  /// index(row + rows, column + columns) = index(row, column + lowChunk * chunk) + offset for
  /// every (row, column), when `rows` is whole phase periods (the row's phase stays) and
  /// `columns` whole chunks: the chunks of `columns` above the phase bits are whole blocks
  /// (a block holds maxPhase chunks), which the XOR does not touch, so only its low chunk needs
  /// its own base.
  struct Fold {
    int64_t lowChunk, offset;
  };
  std::optional<Fold> fold(int64_t rows, int64_t columns) const {
    if (rows % (perPhase * maxPhase) || columns % chunk)
      return std::nullopt;
    int64_t chunks = columns / chunk, low = chunks % maxPhase;
    return Fold{low, rows * blockLength + (chunks - low) / maxPhase * blockStride()};
  }
};

} // namespace tk::codegen

#endif
