// The 1-D blocked layout of the GPU backend: which element each (thread, slot) holds.
#include "AccumulatorLayouts.h"
#include "Swizzle.h"

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>

namespace tk::codegen {
namespace {
using namespace tk::gpu;

/// The element slot `slot` of thread `t` holds (the formula tk-to-threads emits).
int64_t elementOf(const BlockedLayout &l, int64_t t, int64_t slot) {
  int64_t e = ((slot / l.sizePerThread) * l.threads + t) * l.sizePerThread + slot % l.sizePerThread;
  return l.size < l.threads * l.sizePerThread ? e & (l.size - 1) : e;
}

TEST(ThreadLayout, EveryElementIsOwnedExactlyOnceByTheOwners) {
  for (int64_t threads : {32, 128, 256, 512})
    for (int64_t width : {1, 2, 4, 8})
      for (int64_t size = 1; size <= 16384; size *= 2) {
        BlockedLayout l = BlockedLayout::of(size, threads, width);
        std::map<int64_t, int> owners;
        for (int64_t t = 0; t < l.owners(); ++t)
          for (int64_t slot = 0; slot < l.perThread(); ++slot)
            ++owners[elementOf(l, t, slot)];
        ASSERT_EQ((int64_t)owners.size(), size) << size << " over " << threads << " threads, width " << width;
        for (auto &[element, count] : owners) {
          ASSERT_GE(element, 0);
          ASSERT_LT(element, size);
          ASSERT_EQ(count, 1) << "element " << element << " of " << size;
        }
      }
}

TEST(ThreadLayout, ReplicasHoldTheSameElementsAsTheirOwner) {
  BlockedLayout l = BlockedLayout::of(64, 128, 4); // 64 elements, 128 threads: 16 owners x 4, replicated
  EXPECT_EQ(l.sizePerThread, 1);
  EXPECT_EQ(l.perThread(), 1);
  EXPECT_EQ(l.owners(), 64);
  for (int64_t t = 0; t < 128; ++t)
    EXPECT_EQ(elementOf(l, t, 0), elementOf(l, t % l.owners(), 0));
}

TEST(ThreadLayout, GroupsAreSixteenBytesWhenTheTileIsLargeEnough) {
  BlockedLayout f32 = BlockedLayout::of(1024, 128, 4);
  EXPECT_EQ(f32.sizePerThread, 4);
  EXPECT_EQ(f32.reps(), 2);
  EXPECT_EQ(f32.perThread(), 8);
  // Slots 0..3 of a thread are contiguous; the next group is one block of all threads later.
  EXPECT_EQ(elementOf(f32, 5, 0), 20);
  EXPECT_EQ(elementOf(f32, 5, 3), 23);
  EXPECT_EQ(elementOf(f32, 5, 4), 512 + 20);
  BlockedLayout f16 = BlockedLayout::of(4096, 256, 8);
  EXPECT_EQ(f16.sizePerThread, 8);
  EXPECT_EQ(f16.perThread(), 16);
}

TEST(ThreadLayout, SlotAndThreadBitsComposeTheElementIndex) {
  for (int64_t size : {1, 16, 64, 512, 4096})
    for (int64_t width : {1, 4, 8}) {
      BlockedLayout l = BlockedLayout::of(size, 128, width);
      std::vector<int> slot = l.slotBits(), thread = l.threadBits();
      for (int64_t t = 0; t < 128; ++t)
        for (int64_t s = 0; s < l.perThread(); ++s) {
          int64_t e = 0;
          for (size_t b = 0; b < slot.size(); ++b)
            if ((s >> b & 1) && slot[b] >= 0)
              e ^= int64_t(1) << slot[b];
          for (size_t b = 0; b < thread.size(); ++b)
            if ((t >> b & 1) && thread[b] >= 0)
              e ^= int64_t(1) << thread[b];
          ASSERT_EQ(e, elementOf(l, t, s)) << size << " width " << width << " thread " << t << " slot " << s;
          ASSERT_EQ(e, l.element(s, t));
        }
    }
}

TEST(ThreadLayout, ShapeChangesStayInThreadOnlyWhenEveryThreadHoldsItsSources) {
  // expand_dims/reshape of 512 elements: the identity map keeps every slot where it is.
  BlockedLayout flat = BlockedLayout::of(512, 128, 4);
  BitMap identity(9);
  for (int b = 0; b < 9; ++b)
    identity[b] = b;
  auto same = slotsInThread(flat, flat, identity);
  ASSERT_TRUE(same);
  EXPECT_EQ(*same, (std::vector<int64_t>{0, 1, 2, 3}));
  // [16, 1] -> [16, 32]: a thread's row value sits in another thread.
  BlockedLayout column = BlockedLayout::of(16, 128, 4), wide = BlockedLayout::of(512, 128, 4);
  BitMap broadcast(9, -1);
  for (int b = 5; b < 9; ++b)
    broadcast[b] = b - 5;
  EXPECT_FALSE(slotsInThread(wide, column, broadcast));
  // [1, 512] -> [4, 512] with 4 elements per thread and 128 threads: each thread's slots of
  // the result are its own columns' values, repeated along the rows (the rows are slot bits).
  BlockedLayout row = BlockedLayout::of(512, 128, 4), rows = BlockedLayout::of(2048, 128, 4);
  BitMap down(11, -1);
  for (int b = 0; b < 9; ++b)
    down[b] = b;
  auto repeated = slotsInThread(rows, row, down);
  ASSERT_TRUE(repeated);
  EXPECT_EQ(repeated->size(), 16u);
  for (int64_t s = 0; s < 16; ++s)
    EXPECT_EQ((*repeated)[s], s % 4) << s;
}

/// (row, column) of slot `slot` of thread `thread` under `bits`, for a tile of `n` columns.
std::pair<int64_t, int64_t> elementOf(const LayoutBits &bits, int64_t thread, int64_t slot, int64_t n) {
  int64_t index = 0;
  for (size_t b = 0; b < bits.slot.size(); ++b)
    if (slot >> b & 1)
      index |= int64_t(1) << bits.slot[b];
  for (size_t b = 0; b < bits.thread.size(); ++b)
    if (thread >> b & 1)
      index |= int64_t(1) << bits.thread[b];
  return {index / n, index % n};
}

TEST(ThreadLayout, AccumulatorLayoutsAreThePtxFragments) {
  // mma.sync m16n8 C fragments (PTX ISA): lane 4g + t holds c0, c1 at (g, 2t + 0/1) and c2, c3
  // at (g + 8, ...) of each 16x8 tile; a warp's tiles go n-tile first, warps along N fastest.
  for (auto [m, n, warpsM, warpsN] : {std::array<int64_t, 4>{64, 64, 2, 2}, {128, 128, 2, 2}, {64, 256, 1, 8}, {128, 64, 4, 1}}) {
    LayoutBits bits = accumulatorBits(m, n, warpsM, warpsN);
    int64_t mTiles = m / warpsM / 16, nTiles = n / warpsN / 8;
    for (int64_t thread = 0; thread < 32 * warpsM * warpsN; ++thread)
      for (int64_t slot = 0; slot < 4 * mTiles * nTiles; ++slot) {
        int64_t lane = thread % 32, warp = thread / 32, c = slot % 4, tile = slot / 4;
        int64_t row = warp / warpsN * (m / warpsM) + tile / nTiles * 16 + lane / 4 + 8 * (c / 2);
        int64_t column = warp % warpsN * (n / warpsN) + tile % nTiles * 8 + 2 * (lane % 4) + c % 2;
        ASSERT_EQ(elementOf(bits, thread, slot, n), std::make_pair(row, column)) << "mma.sync " << m << "x" << n;
      }
  }
  // wgmma m64nNk16 accumulators (PTX ISA): warp w of a warpgroup holds rows 16w .. 16w + 15,
  // register i at row lane / 4 + 8 * (i / 2 % 2), column 8 * (i / 4) + 2 * (lane % 4) + i % 2;
  // one instruction's N / 2 registers per 64-row tile; warpgroups along N fastest.
  for (auto [m, n, groupsM, groupsN] : {std::array<int64_t, 4>{128, 256, 2, 1}, {128, 128, 1, 1}, {64, 256, 1, 2}, {256, 64, 2, 1}}) {
    LayoutBits bits = warpgroupAccumulatorBits(m, n, groupsM, groupsN);
    int64_t instructionN = n / groupsN, mTiles = m / groupsM / 64;
    for (int64_t thread = 0; thread < 128 * groupsM * groupsN; ++thread)
      for (int64_t slot = 0; slot < instructionN / 2 * mTiles; ++slot) {
        int64_t lane = thread % 32, warp = thread / 32 % 4, group = thread / 128;
        int64_t i = slot % (instructionN / 2), tile = slot / (instructionN / 2);
        int64_t row = group / groupsN * (m / groupsM) + tile * 64 + 16 * warp + lane / 4 + 8 * (i / 2 % 2);
        int64_t column = group % groupsN * instructionN + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        ASSERT_EQ(elementOf(bits, thread, slot, n), std::make_pair(row, column)) << "wgmma " << m << "x" << n;
      }
  }
}

TEST(ThreadLayout, SwizzledRowsKeepLdmatrixFreeOfBankConflicts) {
  // 2-byte elements (8 to a 16-byte chunk) and tf32's 4-byte ones (4 to a chunk).
  for (int64_t bytes : {2, 4}) {
    int64_t chunkElements = 16 / bytes;
    for (int64_t rowBytes : {32, 64, 128, 256, 512}) {
      int64_t rowLength = rowBytes / bytes;
      SwizzleParams swizzle(64, rowLength, chunkElements);
      // A permutation of the tile's elements, 16-byte chunks kept whole, each row within the
      // 128 bytes of its column block.
      std::set<int64_t> seen;
      for (int64_t row = 0; row < 64; ++row)
        for (int64_t column = 0; column < rowLength; ++column) {
          int64_t at = swizzle.index(row, column);
          ASSERT_EQ(at % chunkElements, column % chunkElements);
          ASSERT_EQ(at / swizzle.blockLength, column / swizzle.blockLength * 64 + row);
          seen.insert(at);
        }
      ASSERT_EQ((int64_t)seen.size(), 64 * rowLength);
      // ldmatrix: 8 consecutive rows at one logical chunk hit 8 different 16-byte bank groups.
      for (int64_t first = 0; first < 64; first += 8)
        for (int64_t chunk = 0; chunk < rowLength / chunkElements; ++chunk) {
          std::set<int64_t> groups;
          for (int64_t row = first; row < first + 8; ++row)
            groups.insert(swizzle.index(row, chunk * chunkElements) * bytes / 16 % 8);
          EXPECT_EQ(groups.size(), 8u) << bytes << "-byte elements, row length " << rowLength << ", rows " << first
                                       << "+, chunk " << chunk;
        }
    }
  }
}

TEST(ThreadLayout, SwizzledTilesAreWgmmaSwizzleModes) {
  // What wgmma's descriptors read (PTX ISA, shared memory matrix layouts): the row-major
  // address of each column block, its bits [4, 4 + b) XORed with bits [7, 7 + b), for the
  // 128-, 64- and 32-byte modes (b = 3, 2, 1; CuTe's Swizzle<b, 4, 3>).
  for (int64_t bytes : {1, 2, 4}) {
    int64_t chunkElements = 16 / bytes;
    for (int64_t rowBytes : {32, 64, 128, 256, 512}) {
      int64_t rowLength = rowBytes / bytes, rows = 64;
      SwizzleParams swizzle(rows, rowLength, chunkElements);
      int64_t blockBytes = swizzle.blockLength * bytes;
      int modeBits = blockBytes == 128 ? 3 : blockBytes == 64 ? 2 : 1;
      for (int64_t row = 0; row < rows; ++row)
        for (int64_t column = 0; column < rowLength; ++column) {
          int64_t plain = column / swizzle.blockLength * rows * blockBytes + row * blockBytes +
                          column % swizzle.blockLength * bytes;
          int64_t swizzled = plain ^ (((plain >> 7) & ((1 << modeBits) - 1)) << 4);
          ASSERT_EQ(swizzle.index(row, column) * bytes, swizzled)
              << bytes << "-byte elements, row " << row << " of " << rowBytes << " bytes, column " << column;
        }
    }
  }
}

TEST(ThreadLayout, SwizzledOffsetsFoldWhereTheXorAgrees) {
  // Every fold equals the swizzled index computed whole, for every thread position: the
  // lowering takes them for ldmatrix k-steps and n-tiles and for cp.async rows.
  int folds = 0;
  for (int64_t chunkElements : {4, 8, 16})
    for (int64_t rowLength : {16, 32, 64, 128, 256}) {
      if (rowLength < chunkElements)
        continue;
      SwizzleParams swizzle(64, rowLength, chunkElements);
      for (int64_t rows = 0; rows <= 32; rows += 4)
        for (int64_t columns = 0; columns < rowLength; columns += chunkElements / 2) {
          auto fold = swizzle.fold(rows, columns);
          EXPECT_EQ(bool(fold), rows % (swizzle.perPhase * swizzle.maxPhase) == 0 && columns % chunkElements == 0);
          if (!fold)
            continue;
          ++folds;
          EXPECT_LT(fold->lowChunk, swizzle.maxPhase);
          for (int64_t row = 0; row < 24; ++row)
            for (int64_t column = 0; column + columns < rowLength; ++column)
              ASSERT_EQ(swizzle.index(row + rows, column + columns),
                        swizzle.index(row, column + fold->lowChunk * chunkElements) + fold->offset)
                  << "row length " << rowLength << ", chunk " << chunkElements << ", + (" << rows << ", " << columns
                  << ") from (" << row << ", " << column << ")";
        }
    }
  EXPECT_GT(folds, 100);
}

} // namespace
} // namespace tk::codegen
