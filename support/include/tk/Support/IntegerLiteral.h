// Integer literals as the language spells them (grammar/Tk.g4's INT): decimal digits, `0x` hex
// or `0b` binary digits, `_` anywhere after the first digit or the prefix. The parser reads
// source literals with it and the command line (`-D NAME=V`, `tkc run`'s scalar arguments)
// reads values with it, so that `010` is ten in both (not C's octal eight).
#ifndef TK_SUPPORT_INTEGERLITERAL_H
#define TK_SUPPORT_INTEGERLITERAL_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tk {

/// The value of an unsigned literal, or nullopt with `why` set (no digits, a character the
/// literal cannot hold, more than 64 bits).
std::optional<uint64_t> parseIntegerLiteral(std::string_view text, std::string &why);

/// A command-line integer: an optional sign (`-`, or `+` as C's strtoll took it), then a literal.
struct SignedLiteral {
  bool negative = false;
  uint64_t magnitude = 0;
  /// The value as an int64_t, where it fits.
  std::optional<int64_t> asInt64() const;
  /// The value where an integer of `bits` bits (signed or not) holds it, as its int64_t bits
  /// (a u64's upper half negative); nullopt where it does not fit.
  std::optional<int64_t> fitting(int bits, bool isUnsigned) const;
};
std::optional<SignedLiteral> parseSignedIntegerLiteral(std::string_view text, std::string &why);

} // namespace tk

#endif
