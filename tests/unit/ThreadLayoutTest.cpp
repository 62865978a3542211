// The 1-D blocked layout of the GPU backend: which element each (thread, slot) holds.
#include "Layout1D.h"

#include <gtest/gtest.h>

#include <map>

namespace tk::codegen {
namespace {

/// The element slot `slot` of thread `t` holds (the formula tk-to-threads emits).
int64_t elementOf(const Layout1D &l, int64_t t, int64_t slot) {
  int64_t e = ((slot / l.sizePerThread) * l.threads + t) * l.sizePerThread + slot % l.sizePerThread;
  return l.size < l.threads * l.sizePerThread ? e & (l.size - 1) : e;
}

TEST(ThreadLayout, EveryElementIsOwnedExactlyOnceByTheOwners) {
  for (int64_t threads : {32, 128, 256, 512})
    for (int64_t width : {1, 2, 4, 8})
      for (int64_t size = 1; size <= 16384; size *= 2) {
        Layout1D l = Layout1D::of(size, threads, width);
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
  Layout1D l = Layout1D::of(64, 128, 4); // 64 elements, 128 threads: 16 owners x 4, replicated
  EXPECT_EQ(l.sizePerThread, 1);
  EXPECT_EQ(l.perThread(), 1);
  EXPECT_EQ(l.owners(), 64);
  for (int64_t t = 0; t < 128; ++t)
    EXPECT_EQ(elementOf(l, t, 0), elementOf(l, t % l.owners(), 0));
}

TEST(ThreadLayout, GroupsAreSixteenBytesWhenTheTileIsLargeEnough) {
  Layout1D f32 = Layout1D::of(1024, 128, 4);
  EXPECT_EQ(f32.sizePerThread, 4);
  EXPECT_EQ(f32.reps(), 2);
  EXPECT_EQ(f32.perThread(), 8);
  // Slots 0..3 of a thread are contiguous; the next group is one block of all threads later.
  EXPECT_EQ(elementOf(f32, 5, 0), 20);
  EXPECT_EQ(elementOf(f32, 5, 3), 23);
  EXPECT_EQ(elementOf(f32, 5, 4), 512 + 20);
  Layout1D f16 = Layout1D::of(4096, 256, 8);
  EXPECT_EQ(f16.sizePerThread, 8);
  EXPECT_EQ(f16.perThread(), 16);
}

} // namespace
} // namespace tk::codegen
