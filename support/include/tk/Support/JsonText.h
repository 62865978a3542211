// JSON text written by hand where no JSON library is linked (libtkc-graph) or where numbers must
// stay as written (the tuning database): a string literal with its escapes.
#ifndef TK_SUPPORT_JSONTEXT_H
#define TK_SUPPORT_JSONTEXT_H

#include <cstdio>
#include <string>

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

} // namespace tk

#endif
