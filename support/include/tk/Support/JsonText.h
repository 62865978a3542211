// JSON text written by hand where no JSON library is linked (libtkc-graph) or where numbers must
// stay as written (the tuning database): a string literal with its escapes.
#ifndef TK_SUPPORT_JSONTEXT_H
#define TK_SUPPORT_JSONTEXT_H

#include <cstdio>
#include <string>
#include <string_view>

namespace tk {

/// `text` as a JSON string: quotes and backslashes escaped, control characters as \u00XX.
inline std::string jsonQuoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\u%04x", c);
      out += escape;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// The byte of the first character of `text` outside its strings for which `stop(c)` holds, or
/// npos: the walk the checks below share.
template <typename Stop> size_t jsonFindOutsideStrings(std::string_view text, Stop stop) {
  bool inString = false;
  for (size_t at = 0; at < text.size(); ++at) {
    char c = text[at];
    if (inString) {
      if (c == '\\')
        ++at;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (stop(c)) {
      return at;
    }
  }
  return std::string_view::npos;
}

/// The byte where `text`'s objects and arrays nest deeper than `limit` (outside strings), or
/// npos when they never do: checked before a recursive parser (LLVM's json::parse) sees text
/// another program wrote, which a deep enough nesting would run out of stack.
inline size_t jsonNestedTooDeep(std::string_view text, size_t limit) {
  size_t depth = 0;
  return jsonFindOutsideStrings(text, [&](char c) {
    if (c == '{' || c == '[')
      return ++depth > limit;
    if ((c == '}' || c == ']') && depth)
      --depth;
    return false;
  });
}

/// The byte where `text` holds more than `limit` values (outside strings: each object and array
/// and each comma's next member or element), or npos when it never does: checked before a
/// parser builds a document whose memory grows by tens of bytes a value (nlohmann's took 3.9 GB
/// for 100 MiB of "{},").
inline size_t jsonValuesMoreThan(std::string_view text, size_t limit) {
  size_t values = 0;
  return jsonFindOutsideStrings(text, [&](char c) { return (c == '{' || c == '[' || c == ',') && ++values > limit; });
}

} // namespace tk

#endif
