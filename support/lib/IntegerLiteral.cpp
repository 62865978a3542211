#include "tk/Support/IntegerLiteral.h"

namespace tk {

namespace {
int digitValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
    return (c | 0x20) - 'a' + 10;
  return 99;
}
} // namespace

std::optional<uint64_t> parseIntegerLiteral(std::string_view text, std::string &why) {
  unsigned base = 10;
  size_t start = 0;
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    base = 16, start = 2;
  else if (text.size() >= 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B'))
    base = 2, start = 2;
  if (base == 10 && (text.empty() || text[0] == '_')) {
    why = "has no digits";
    return std::nullopt;
  }
  uint64_t value = 0;
  bool digits = false;
  for (size_t i = start; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_')
      continue;
    unsigned d = unsigned(digitValue(c));
    if (d >= base) {
      why = "is not a base-" + std::to_string(base) + " integer";
      return std::nullopt;
    }
    if (value > (UINT64_MAX - d) / base) {
      why = "does not fit in 64 bits";
      return std::nullopt;
    }
    value = value * base + d;
    digits = true;
  }
  if (!digits) {
    why = "has no digits";
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> SignedLiteral::asInt64() const {
  if (!negative)
    return magnitude <= uint64_t(INT64_MAX) ? std::optional<int64_t>(int64_t(magnitude)) : std::nullopt;
  if (magnitude <= uint64_t(INT64_MAX) + 1)
    return int64_t(0 - magnitude); // two's complement: -2^63 included
  return std::nullopt;
}

std::optional<int64_t> SignedLiteral::fitting(int bits, bool isUnsigned) const {
  if (isUnsigned) {
    if ((negative && magnitude) || (bits < 64 && magnitude >> bits))
      return std::nullopt;
    return int64_t(magnitude);
  }
  std::optional<int64_t> value = asInt64();
  if (!value || (bits < 64 && (*value < -(int64_t(1) << (bits - 1)) || *value >= int64_t(1) << (bits - 1))))
    return std::nullopt;
  return value;
}

std::optional<SignedLiteral> parseSignedIntegerLiteral(std::string_view text, std::string &why) {
  SignedLiteral literal;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    literal.negative = text[0] == '-';
    text.remove_prefix(1);
  }
  std::optional<uint64_t> magnitude = parseIntegerLiteral(text, why);
  if (!magnitude)
    return std::nullopt;
  literal.magnitude = *magnitude;
  return literal;
}

} // namespace tk
