// Philox-4x32-10, the generator of the language's rand/randn (as Triton's tl.rand uses it) and
// of tkc's rand: buffers: a documented function of (seed, counter), so any language can
// reproduce what it gives.
#ifndef TK_SUPPORT_PHILOX_H
#define TK_SUPPORT_PHILOX_H

#include <algorithm>
#include <cstdint>

namespace tk::philox {

/// The four words of counter (offset, 0, 0, 0) under key (seed low 32 bits, seed high 32 bits).
inline void generate(uint64_t seed, uint32_t offset, uint32_t out[4]) {
  uint32_t c0 = offset, c1 = 0, c2 = 0, c3 = 0;
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(0xD2511F53u) * c0, p2 = uint64_t(0xCD9E8D57u) * c2;
    uint32_t n0 = uint32_t(p2 >> 32) ^ c1 ^ k0, n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c1 = uint32_t(p2);
    c3 = uint32_t(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0, out[1] = c1, out[2] = c2, out[3] = c3;
}

/// Triton's uint_to_uniform_float: a word as a float in [0, 1) (kept below 1.0: f32(2^31 - 1)
/// rounds up to 2^31).
inline float uniformOf(uint32_t bits) {
  int32_t x = int32_t(bits);
  if (x < 0)
    x = -x - 1;
  return std::min(float(x) * 4.6566127342e-10f, 0x1.fffffep-1f);
}

} // namespace tk::philox

#endif
