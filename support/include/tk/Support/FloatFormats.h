// Exact conversions between float and the narrow float formats (f16, bf16, f8e4m3fn, f8e5m2):
// round to nearest, ties to even; overflow gives inf (f8e4m3fn, which has no inf, gives NaN).
#ifndef TK_SUPPORT_FLOATFORMATS_H
#define TK_SUPPORT_FLOATFORMATS_H

#include <cstdint>

namespace tk::fp {

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bf16ToFloat(uint16_t bits);
uint16_t floatToBf16(float value);
float f8e4m3ToFloat(uint8_t bits);
uint8_t floatToF8e4m3(float value);
float f8e5m2ToFloat(uint8_t bits);
uint8_t floatToF8e5m2(float value);
/// `value` as a float rounded to odd (the neighbour whose last mantissa bit is 1 when it is not
/// exact): rounding that float to nearest-even in any format of at most 22 mantissa bits (f16,
/// bf16, f8) gives what one rounding of `value` would, where rounding to nearest twice may not
/// (a value just above a midpoint first rounded onto it, then the tie to even). Integers of 64
/// bits are exact in a long double on the targets tk builds for.
float toFloatRoundToOdd(double value);
float toFloatRoundToOdd(long double value);
/// `value` rounded once (to nearest even) to f16 / bf16, as cvt.rn does: through f32 rounded
/// to odd.
uint16_t toHalfRoundedOnce(long double value);
uint16_t toBf16RoundedOnce(long double value);
/// f32 rounded to tf32 (10 mantissa bits), as tensor cores read f32 operands.
float roundToTf32(float value);
/// A float as an integer of `bits` bits, as PTX's cvt.rzi gives it (the language's `as`):
/// truncated toward zero, saturated to the type's range, NaN 0. An unsigned 64-bit value above
/// INT64_MAX comes back as its bits.
int64_t saturatingTrunc(double value, int bits, bool isUnsigned);

} // namespace tk::fp

#endif
