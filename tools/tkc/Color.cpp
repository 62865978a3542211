#include "Color.h"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace tk {
namespace {

enum class ColorMode { Auto, Always, Never };
ColorMode mode = ColorMode::Auto;

bool enabled() {
  if (mode != ColorMode::Auto)
    return mode == ColorMode::Always;
  const char *noColor = std::getenv("NO_COLOR"), *term = std::getenv("TERM");
  return !(noColor && *noColor) && isatty(STDERR_FILENO) && !(term && std::strcmp(term, "dumb") == 0);
}

/// The colour of a severity word, as clang paints them.
const char *colorOf(const std::string &severity) {
  return severity == "error" ? "\033[1;31m" : severity == "warning" ? "\033[1;35m" : "\033[1;36m";
}

std::string paintLine(const std::string &line) {
  const char *reset = "\033[0m";
  for (const char *severity : {"error", "warning", "note"}) {
    std::string word = std::string(severity) + ": ";
    size_t at = line.find(word);
    // "file:line:col: error: ..." or "error: ..." (the location, if any, ends in ": ").
    if (at == std::string::npos || (at != 0 && (at < 2 || line.compare(at - 2, 2, ": ") != 0)))
      continue;
    return "\033[1m" + line.substr(0, at) + reset + colorOf(severity) + severity + ":" + reset + "\033[1m" +
           line.substr(at + word.size() - 1) + reset;
  }
  bool caret = line.find('^') != std::string::npos &&
               line.find_first_not_of(" \t^~") == std::string::npos;
  return caret ? "\033[1;32m" + line + reset : line;
}

} // namespace

void setColorMode(const std::string &when) {
  mode = when == "always" ? ColorMode::Always : when == "never" ? ColorMode::Never : ColorMode::Auto;
}

std::string painted(const std::string &diagnostics) {
  if (diagnostics.empty() || !enabled())
    return diagnostics;
  std::string out;
  size_t start = 0;
  while (start < diagnostics.size()) {
    size_t end = diagnostics.find('\n', start);
    std::string line = diagnostics.substr(start, end == std::string::npos ? std::string::npos : end - start);
    out += paintLine(line);
    if (end == std::string::npos)
      break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

} // namespace tk
