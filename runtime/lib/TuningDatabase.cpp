#include "TuningDatabase.h"

#include <cstdlib>
#include <map>
#include <sstream>

namespace tk {

namespace {

std::string quoted(const std::string &text) {
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

/// "M=4096, N=4096" as { "M": 4096, "N": 4096 }; config values as numbers, the way they were written.
std::string object(const std::map<std::string, std::string> &values, const std::string &indent) {
  std::string out = "{";
  bool first = true;
  for (const auto &[name, value] : values) {
    char *end = nullptr;
    std::strtod(value.c_str(), &end);
    bool number = !value.empty() && !*end;
    out += (first ? "\n" : ",\n") + indent + "  " + quoted(name) + ": " + (number ? value : quoted(value));
    first = false;
  }
  return out + (first ? "}" : "\n" + indent + "}");
}

std::map<std::string, std::string> splitKeyValues(const std::string &text) {
  std::map<std::string, std::string> values;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    size_t start = item.find_first_not_of(' '), eq = item.find('=');
    if (eq != std::string::npos)
      values[item.substr(start, eq - start)] = item.substr(eq + 1);
  }
  return values;
}

/// Just enough JSON for the entries this file writes: objects, strings, numbers.
class Reader {
public:
  explicit Reader(const std::string &text) : text_(text) {}
  struct Value {
    bool isObject = false;
    std::string scalar; // a string's contents or a number's text
    std::map<std::string, Value> members;
  };
  std::optional<Value> document(std::string &error) {
    std::optional<Value> value = parseValue();
    skipSpace();
    if (!value || at_ != text_.size()) {
      error = "not a tuning entry (bad JSON at byte " + std::to_string(at_) + ")";
      return std::nullopt;
    }
    return value;
  }

private:
  void skipSpace() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_])))
      ++at_;
  }
  bool take(char c) {
    skipSpace();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  std::optional<std::string> parseString() {
    if (!take('"'))
      return std::nullopt;
    std::string out;
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_++];
      if (c == '\\') {
        if (at_ >= text_.size())
          return std::nullopt;
        char e = text_[at_++];
        if (e == 'u') {
          if (at_ + 4 > text_.size())
            return std::nullopt;
          out += char(std::strtol(text_.substr(at_, 4).c_str(), nullptr, 16));
          at_ += 4;
          continue;
        }
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
      }
      out += c;
    }
    if (at_ >= text_.size())
      return std::nullopt;
    ++at_;
    return out;
  }
  std::optional<Value> parseValue() {
    skipSpace();
    Value value;
    if (at_ < text_.size() && text_[at_] == '"') {
      std::optional<std::string> s = parseString();
      if (!s)
        return std::nullopt;
      value.scalar = *s;
      return value;
    }
    if (take('{')) {
      value.isObject = true;
      if (take('}'))
        return value;
      do {
        std::optional<std::string> name = parseString();
        if (!name || !take(':'))
          return std::nullopt;
        std::optional<Value> member = parseValue();
        if (!member)
          return std::nullopt;
        value.members[*name] = std::move(*member);
      } while (take(','));
      if (!take('}'))
        return std::nullopt;
      return value;
    }
    size_t start = at_;
    while (at_ < text_.size() && std::string("+-.0123456789eE").find(text_[at_]) != std::string::npos)
      ++at_;
    if (at_ == start)
      return std::nullopt;
    value.scalar = text_.substr(start, at_ - start);
    return value;
  }

  const std::string &text_;
  size_t at_ = 0;
};

} // namespace

std::string tuningEntryJson(const TuningEntry &entry) {
  char ms[32];
  std::snprintf(ms, sizeof(ms), "%.6f", entry.ms);
  return "{\n  \"kernel\": " + quoted(entry.kernel) + ",\n  \"kernel_hash\": " + quoted(entry.kernelHash) +
         ",\n  \"gpu\": " + quoted(entry.gpu) + ",\n  \"specialization\": " + quoted(entry.specialization) +
         ",\n  \"key\": " + object(splitKeyValues(entry.keyValues), "  ") + ",\n  \"config\": " +
         object(entry.config.values, "  ") + ",\n  \"time_ms\": " + ms + "\n}\n";
}

std::optional<TuningEntry> parseTuningEntry(const std::string &text, std::string &error) {
  Reader reader(text);
  std::optional<Reader::Value> doc = reader.document(error);
  if (!doc)
    return std::nullopt;
  std::string missing; // the first field that is not there
  auto field = [&](const char *name, bool object) -> const Reader::Value * {
    auto it = doc->members.find(name);
    if (it == doc->members.end() || it->second.isObject != object) {
      if (missing.empty())
        missing = std::string("not a tuning entry (no ") + (object ? "object" : "value") + " '" + name + "')";
      return nullptr;
    }
    return &it->second;
  };
  const Reader::Value *kernel = field("kernel", false), *hash = field("kernel_hash", false), *gpu = field("gpu", false),
                      *spec = field("specialization", false), *key = field("key", true),
                      *config = field("config", true), *ms = field("time_ms", false);
  if (!kernel || !hash || !gpu || !spec || !key || !config || !ms) {
    error = missing;
    return std::nullopt;
  }
  TuningEntry entry{kernel->scalar, hash->scalar, gpu->scalar, spec->scalar, "", Config{}, std::atof(ms->scalar.c_str())};
  for (const auto &[name, value] : key->members)
    entry.keyValues += (entry.keyValues.empty() ? "" : ", ") + name + "=" + value.scalar;
  for (const auto &[name, value] : config->members)
    entry.config.values[name] = value.scalar;
  return entry;
}

} // namespace tk
