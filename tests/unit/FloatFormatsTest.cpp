// The interpreter's narrow-float conversions, checked exhaustively where an independent
// reference exists (the compiler's _Float16) and at the defining edge cases otherwise.
#include "tk/Support/FloatFormats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace tk::fp {
namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(FloatFormats, HalfDecodesEveryCodeLikeTheCompiler) {
  for (uint32_t code = 0; code < 65536; ++code) {
    uint16_t h = code;
    _Float16 reference;
    std::memcpy(&reference, &h, 2);
    float expected = float(reference), got = halfToFloat(h);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(got)) << code;
    else
      EXPECT_EQ(bits(got), bits(expected)) << code;
  }
}

TEST(FloatFormats, HalfRoundsLikeTheCompiler) {
  std::mt19937 rng(7);
  std::vector<float> values = {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 1e-8f, 2.9802322e-8f, 5.96e-8f,
                               1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, INFINITY, -INFINITY};
  for (int i = 0; i < 200000; ++i)
    values.push_back(fromBits(rng()));
  for (float v : values) {
    if (std::isnan(v))
      continue;
    _Float16 reference = _Float16(v);
    uint16_t expected;
    std::memcpy(&expected, &reference, 2);
    EXPECT_EQ(floatToHalf(v), expected) << v;
  }
}

TEST(FloatFormats, Bf16RoundsToNearestEven) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBf16(fromBits(0x3F808000)), 0x3F80); // tie, even stays
  EXPECT_EQ(floatToBf16(fromBits(0x3F818000)), 0x3F82); // tie, odd rounds up
  EXPECT_EQ(floatToBf16(fromBits(0x3F808001)), 0x3F81);
  EXPECT_EQ(floatToBf16(fromBits(0x7F7FFFFF)), 0x7F80); // overflow to inf
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
  for (uint32_t code = 0; code < 65536; ++code)
    if (!std::isnan(bf16ToFloat(code)))
      EXPECT_EQ(floatToBf16(bf16ToFloat(code)), code) << code;
}

TEST(FloatFormats, F8RoundTripsAndSaturates) {
  for (uint32_t code = 0; code < 256; ++code) {
    float e4 = f8e4m3ToFloat(code), e5 = f8e5m2ToFloat(code);
    if (!std::isnan(e4))
      EXPECT_EQ(floatToF8e4m3(e4), code) << code;
    if (!std::isnan(e5))
      EXPECT_EQ(floatToF8e5m2(e5), code) << code;
  }
  EXPECT_EQ(f8e4m3ToFloat(0x7E), 448.0f);
  EXPECT_EQ(floatToF8e4m3(464.0f), 0x7E);  // tie between 448 and 480 (NaN's slot): even stays
  EXPECT_EQ(floatToF8e4m3(500.0f), 0x7F);  // overflow: NaN, there is no inf
  EXPECT_EQ(f8e5m2ToFloat(0x7B), 57344.0f);
  EXPECT_EQ(floatToF8e5m2(61440.0f), 0x7C); // halfway past the largest: inf
  EXPECT_EQ(floatToF8e5m2(-1e9f), 0xFC);
  EXPECT_EQ(f8e4m3ToFloat(0x01), std::ldexp(1.0f, -9)); // smallest subnormal
}

TEST(FloatFormats, Tf32KeepsTenMantissaBits) {
  EXPECT_EQ(roundToTf32(1.0f), 1.0f);
  EXPECT_EQ(bits(roundToTf32(fromBits(0x3F801000))), 0x3F800000u); // tie, even stays
  EXPECT_EQ(bits(roundToTf32(fromBits(0x3F803000))), 0x3F804000u); // tie, odd rounds up
  EXPECT_EQ(bits(roundToTf32(fromBits(0x3F801001))), 0x3F802000u);
}

} // namespace
} // namespace tk::fp
