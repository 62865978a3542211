#include "tk/Support/FloatFormats.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tk::fp {

namespace {
uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Rounds `value` to a binary format with `mantBits` stored mantissa bits and exponent bias
/// `bias`, with subnormals, and returns the bits (sign | exponent | mantissa). `maxExp` is the
/// largest biased exponent of finite values; `hasInf` says whether maxExp + 1 encodes inf/NaN.
uint32_t roundToFormat(float value, int expBits, int mantBits, bool ieeeSpecials, uint32_t maxFiniteBits) {
  uint32_t u = bitsOf(value);
  uint32_t sign = (u >> 31) << (expBits + mantBits);
  int bias = (1 << (expBits - 1)) - 1;
  uint32_t expAllOnes = (1u << expBits) - 1;
  if (std::isnan(value))
    return sign | (ieeeSpecials ? (expAllOnes << mantBits) | (1u << (mantBits - 1)) : maxFiniteBits | 1u);
  if (std::isinf(value))
    return sign | (ieeeSpecials ? expAllOnes << mantBits : maxFiniteBits | 1u);
  float a = std::fabs(value);
  // Smallest normal of the target, and the scale of one unit in the last place below it.
  int minExp = 1 - bias;
  double scaled;
  int e;
  std::frexp(a, &e); // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1;   // a = 1.f * 2^exp
  if (a == 0)
    return sign;
  int quantumExp = (exp < minExp ? minExp : exp) - mantBits;
  scaled = std::ldexp((double)a, -quantumExp); // integer part = mantissa with implicit bit
  double floorScaled = std::floor(scaled);
  double rest = scaled - floorScaled;
  uint64_t mant = (uint64_t)floorScaled;
  if (rest > 0.5 || (rest == 0.5 && (mant & 1)))
    ++mant;
  // Re-normalize after rounding up across a power of two.
  uint32_t bits;
  if (exp < minExp) {
    bits = (uint32_t)mant; // subnormal (mant may have become the smallest normal: still right)
  } else {
    if (mant >> (mantBits + 1)) {
      mant >>= 1;
      ++exp;
    }
    uint32_t biased = exp + bias;
    bits = (biased << mantBits) | (uint32_t)(mant & ((1u << mantBits) - 1));
  }
  if (bits > maxFiniteBits)
    return sign | (ieeeSpecials ? expAllOnes << mantBits : maxFiniteBits | 1u);
  return sign | bits;
}

float fromFormat(uint32_t bits, int expBits, int mantBits, bool ieeeSpecials) {
  uint32_t sign = (bits >> (expBits + mantBits)) & 1;
  uint32_t exp = (bits >> mantBits) & ((1u << expBits) - 1);
  uint32_t mant = bits & ((1u << mantBits) - 1);
  int bias = (1 << (expBits - 1)) - 1;
  float value;
  if (ieeeSpecials && exp == (1u << expBits) - 1)
    value = mant ? NAN : INFINITY;
  else if (!ieeeSpecials && exp == (1u << expBits) - 1 && mant == (1u << mantBits) - 1)
    value = NAN; // f8e4m3fn: only S.1111.111 is NaN
  else if (exp == 0)
    value = std::ldexp((float)mant, 1 - bias - mantBits);
  else
    value = std::ldexp((float)(mant | (1u << mantBits)), (int)exp - bias - mantBits);
  return sign ? -value : value;
}
} // namespace

float halfToFloat(uint16_t bits) { return fromFormat(bits, 5, 10, true); }
uint16_t floatToHalf(float value) { return roundToFormat(value, 5, 10, true, 0x7BFF); }

float bf16ToFloat(uint16_t bits) { return floatOf(uint32_t(bits) << 16); }
uint16_t floatToBf16(float value) {
  uint32_t u = bitsOf(value);
  if (std::isnan(value))
    return uint16_t((u >> 16) | 0x40);
  uint32_t rounding = 0x7FFF + ((u >> 16) & 1);
  return uint16_t((u + rounding) >> 16);
}

int64_t saturatingTrunc(double v, int bits, bool isUnsigned) {
  if (std::isnan(v))
    return 0;
  v = std::trunc(v);
  if (isUnsigned) {
    double max = bits >= 64 ? 18446744073709551615.0 : std::ldexp(1.0, bits) - 1;
    if (v <= 0)
      return 0;
    if (v >= max)
      return int64_t(bits >= 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1);
    return int64_t(uint64_t(v));
  }
  double max = std::ldexp(1.0, bits - 1) - 1, min = -std::ldexp(1.0, bits - 1);
  if (v >= max)
    return bits >= 64 ? INT64_MAX : int64_t(max);
  if (v <= min)
    return int64_t(min);
  return int64_t(v);
}

float f8e4m3ToFloat(uint8_t bits) { return fromFormat(bits, 4, 3, false); }
uint8_t floatToF8e4m3(float value) { return roundToFormat(value, 4, 3, false, 0x7E); }
float f8e5m2ToFloat(uint8_t bits) { return fromFormat(bits, 5, 2, true); }
uint8_t floatToF8e5m2(float value) { return roundToFormat(value, 5, 2, true, 0x7B); }

float roundToTf32(float value) {
  if (!std::isfinite(value))
    return value;
  uint32_t u = bitsOf(value);
  uint32_t rounding = 0xFFF + ((u >> 13) & 1);
  return floatOf((u + rounding) & ~0x1FFFu);
}

namespace {
template <typename Wide> float roundToOdd(Wide value) {
  float nearest = float(value);
  if (Wide(nearest) == value || value != value) // exact, or NaN
    return nearest;
  // The neighbour toward zero, then the odd one of it and the next (exactly one is odd).
  if (std::fabs(Wide(nearest)) > std::fabs(value))
    nearest = std::nextafter(nearest, 0.0f);
  return floatOf(bitsOf(nearest) | 1u);
}
} // namespace

float toFloatRoundToOdd(double value) { return roundToOdd(value); }

float toFloatRoundToOdd(long double value) {
  static_assert(std::numeric_limits<long double>::digits >= 64, "64-bit integers must be exact in a long double");
  return roundToOdd(value);
}

uint16_t toHalfRoundedOnce(long double value) { return floatToHalf(toFloatRoundToOdd(value)); }
uint16_t toBf16RoundedOnce(long double value) { return floatToBf16(toFloatRoundToOdd(value)); }

} // namespace tk::fp
