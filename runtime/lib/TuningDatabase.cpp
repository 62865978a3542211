#include "TuningDatabase.h"
#include "tk/Support/JsonText.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdlib>
#include <map>
#include <sstream>

namespace tk {

namespace {

/// Whether `text` is a JSON number as it stands (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?):
/// strtod also takes inf, nan, hex and a leading '+', which JSON does not.
bool jsonNumber(const std::string &text) {
  size_t at = 0, n = text.size();
  auto digits = [&] {
    size_t start = at;
    while (at < n && text[at] >= '0' && text[at] <= '9')
      ++at;
    return at - start;
  };
  if (at < n && text[at] == '-')
    ++at;
  size_t whole = at;
  if (!digits() || (text[whole] == '0' && at - whole > 1))
    return false;
  if (at < n && text[at] == '.') {
    ++at;
    if (!digits())
      return false;
  }
  if (at < n && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < n && (text[at] == '+' || text[at] == '-'))
      ++at;
    if (!digits())
      return false;
  }
  return at == n;
}

/// "M=4096, N=4096" as { "M": 4096, "N": 4096 }; config values as numbers, the way they were
/// written, when they are JSON numbers (anything else, inf and nan too, as strings).
std::string object(const std::map<std::string, std::string> &values, const std::string &indent) {
  std::string out = "{";
  bool first = true;
  for (const auto &[name, value] : values) {
    out += (first ? "\n" : ",\n") + indent + "  " + jsonQuoted(name) + ": " + (jsonNumber(value) ? value : jsonQuoted(value));
    first = false;
  }
  return out + (first ? "}" : "\n" + indent + "}");
}

std::map<std::string, std::string> configText(const Config &config) {
  std::map<std::string, std::string> text;
  for (const auto &[name, value] : config.values)
    text.emplace(name, value.str());
  return text;
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

/// A scalar member's text: a string's contents, a number as written (integers exactly).
std::optional<std::string> scalarText(const llvm::json::Value &value) {
  if (std::optional<llvm::StringRef> s = value.getAsString())
    return s->str();
  if (std::optional<int64_t> i = value.getAsInteger())
    return std::to_string(*i);
  if (std::optional<double> d = value.getAsNumber()) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", *d);
    return std::string(text);
  }
  return std::nullopt;
}

} // namespace

std::string tuningEntryJson(const TuningEntry &entry) {
  char ms[32];
  std::snprintf(ms, sizeof(ms), "%.6f", entry.ms);
  std::string time = jsonNumber(ms) ? std::string(ms) : jsonQuoted(ms); // (an infinite time as a string)
  return "{\n  \"kernel\": " + jsonQuoted(entry.kernel) + ",\n  \"kernel_hash\": " + jsonQuoted(entry.kernelHash) +
         ",\n  \"gpu\": " + jsonQuoted(entry.gpu) + ",\n  \"specialization\": " + jsonQuoted(entry.specialization) +
         ",\n  \"key\": " + object(splitKeyValues(entry.keyValues), "  ") + ",\n  \"config\": " +
         object(configText(entry.config), "  ") + ",\n  \"time_ms\": " + time + "\n}\n";
}

std::optional<TuningEntry> parseTuningEntry(const std::string &text, std::string &error) {
  if (size_t at = jsonNestedTooDeep(text, kMaxJsonNesting); at != std::string::npos) {
    error = "not a tuning entry (bad JSON at byte " + std::to_string(at) + ": nested more than " +
            std::to_string(kMaxJsonNesting) + " levels deep)";
    return std::nullopt;
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) {
    std::string message = llvm::toString(parsed.takeError()); // "[line:col, byte=N]: why"
    size_t at = message.find("byte=");
    error = "not a tuning entry (bad JSON at byte " +
            (at == std::string::npos ? std::string("?") : message.substr(at + 5, message.find(']', at) - at - 5)) + ")";
    return std::nullopt;
  }
  const llvm::json::Object *doc = parsed->getAsObject();
  if (!doc) {
    error = "not a tuning entry (not a JSON object)";
    return std::nullopt;
  }
  std::string missing; // the first field that is not there
  auto note = [&](const char *name, bool object) {
    if (missing.empty())
      missing = std::string("not a tuning entry (no ") + (object ? "object" : "value") + " '" + name + "')";
  };
  auto scalar = [&](const char *name) -> std::optional<std::string> {
    const llvm::json::Value *value = doc->get(name);
    std::optional<std::string> text = value ? scalarText(*value) : std::nullopt;
    if (!text)
      note(name, false);
    return text;
  };
  auto object = [&](const char *name) -> std::optional<std::map<std::string, std::string>> {
    const llvm::json::Object *members = doc->getObject(name);
    if (!members) {
      note(name, true);
      return std::nullopt;
    }
    std::map<std::string, std::string> values;
    for (const auto &[member, value] : *members) {
      std::optional<std::string> text = scalarText(value);
      if (!text) {
        note(name, true);
        return std::nullopt;
      }
      values[member.str()] = *text;
    }
    return values;
  };
  std::optional<std::string> kernel = scalar("kernel"), hash = scalar("kernel_hash"), gpu = scalar("gpu"),
                             spec = scalar("specialization");
  std::optional<std::map<std::string, std::string>> key = object("key"), config = object("config");
  std::optional<std::string> ms = scalar("time_ms");
  if (!kernel || !hash || !gpu || !spec || !key || !config || !ms) {
    error = missing;
    return std::nullopt;
  }
  TuningEntry entry{*kernel, *hash, *gpu, *spec, "", Config{}, std::atof(ms->c_str())};
  for (const auto &[name, text] : *config) {
    std::optional<Const> value = Const::parse(text);
    if (!value) {
      error = "not a tuning entry (config value '" + name + "' is '" + text + "', not a constant)";
      return std::nullopt;
    }
    entry.config.values.emplace(name, *value);
  }
  for (const auto &[name, value] : *key)
    entry.keyValues += (entry.keyValues.empty() ? "" : ", ") + name + "=" + value;
  return entry;
}

} // namespace tk
