//===- SentencePieceCheck.cpp - What SentencePiece trusts in a model file -----------===//

#include "SentencePieceCheck.h"

#include "tk/Runtime/Error.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace tk::llm {
namespace {

/// One field of a protobuf message: its number, and its bytes when length-delimited.
struct Field {
  uint64_t number = 0;
  std::optional<std::string_view> bytes;
};

/// A protobuf message's fields in order (the wire format: varint keys; varint, 64-bit,
/// length-delimited and 32-bit values). Anything that runs past the end is an error.
class WireReader {
public:
  WireReader(std::string_view data, const std::string &what) : data_(data), what_(what) {}

  /// The next field, or nothing at the message's end.
  std::optional<Field> next() {
    if (data_.empty())
      return std::nullopt;
    // (Protobuf reads a key into 32 bits, dropping what is above: a key past them named another
    // field to it than to a 64-bit reading, and hid a map from the check.)
    uint64_t key = varint();
    if (key > UINT32_MAX || key >> 3 == 0)
      fail("a field key past 32 bits or of field 0");
    Field field{key >> 3, std::nullopt};
    switch (key & 7) {
    case 0:
      varint();
      break;
    case 1:
      take(8);
      break;
    case 2: {
      uint64_t size = varint();
      if (size > data_.size())
        fail("a field runs past its message");
      field.bytes = take(size_t(size));
      break;
    }
    case 5:
      take(4);
      break;
    default:
      fail("a field of an unknown wire type");
    }
    return field;
  }

private:
  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t byte = uint8_t(take(1)[0]);
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return value;
    }
    fail("a varint longer than 10 bytes");
  }
  std::string_view take(size_t n) {
    if (n > data_.size())
      fail("a field runs past its message");
    std::string_view out = data_.substr(0, n);
    data_.remove_prefix(n);
    return out;
  }
  [[noreturn]] void fail(const std::string &why) const { throw Error(what_ + ": not a SentencePiece model (" + why + ")"); }

  std::string_view data_;
  const std::string &what_;
};

/// A precompiled character map: <trie bytes, 4 little-endian><Darts-clone double array><the
/// normalized strings>, as SentencePiece's Normalizer reads it. A trie walk (its
/// commonPrefixSearch) goes from a unit that matched a byte to unit (index ^ offset) ^ c for
/// the next byte c, and reads a leaf's value at index ^ offset; a value indexes a
/// NUL-terminated string of the normalized part.
void checkCharsMap(std::string_view map, const std::string &what, const char *spec) {
  auto fail = [&](const std::string &why) {
    throw Error(what + ": a malformed " + spec + " precompiled_charsmap (" + why + ")");
  };
  uint32_t trieBytes = 0;
  if (map.size() <= sizeof trieBytes)
    fail("shorter than its header");
  std::memcpy(&trieBytes, map.data(), sizeof trieBytes); // (little-endian, as this host)
  map.remove_prefix(sizeof trieBytes);
  if (trieBytes >= map.size() || trieBytes < 4 || trieBytes % 4)
    fail("its trie takes " + std::to_string(trieBytes) + " of its " + std::to_string(map.size()) + " bytes");
  std::string_view normalized = map.substr(trieBytes);
  if (normalized.back() != '\0')
    fail("its normalized strings do not end with a NUL");
  size_t units = trieBytes / 4;
  auto unit = [&](size_t i) {
    uint32_t u;
    std::memcpy(&u, map.data() + 4 * i, 4);
    return u;
  };
  auto offset = [](uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); };
  for (size_t i = 0; i < units; ++i) {
    uint32_t u = unit(i);
    // A value unit (bit 31) never matches a byte, so no walk passes through it; the root
    // (unit 0) is where every walk starts, and a walk may match it again later (its leaf too).
    if ((u >> 31) && i != 0)
      continue;
    size_t base = i ^ offset(u);
    if ((base | 0xff) >= units)
      fail("unit " + std::to_string(i) + " leads past its " + std::to_string(units) + " units");
    if (((u >> 8) & 1) && (unit(base) & 0x7fffffffu) >= normalized.size())
      fail("unit " + std::to_string(i) + "'s value leads past its normalized strings");
  }
}

/// The precompiled_charsmap (field 2) of a NormalizerSpec, if any.
std::optional<std::string_view> charsMapOf(std::string_view spec, const std::string &what) {
  WireReader reader(spec, what);
  std::optional<std::string_view> map;
  while (std::optional<Field> field = reader.next())
    if (field->number == 2 && field->bytes)
      map = field->bytes; // (the last occurrence wins, as protobuf's parser keeps it)
  return map;
}

} // namespace

void checkSentencePieceCharsMaps(const std::string &proto, const std::string &what) {
  WireReader reader(proto, what);
  // ModelProto: normalizer_spec is field 3, denormalizer_spec field 5.
  while (std::optional<Field> field = reader.next()) {
    if ((field->number != 3 && field->number != 5) || !field->bytes)
      continue;
    std::optional<std::string_view> map = charsMapOf(*field->bytes, what);
    if (map && !map->empty())
      checkCharsMap(*map, what, field->number == 3 ? "normalizer's" : "denormalizer's");
  }
}

} // namespace tk::llm
