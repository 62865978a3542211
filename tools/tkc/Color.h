// Diagnostics in colour on a terminal (--color=auto|always|never; NO_COLOR turns auto off).
#ifndef TK_TOOLS_TKC_COLOR_H
#define TK_TOOLS_TKC_COLOR_H

#include <string>
#include <vector>

namespace tk {

/// Sets the mode from --color's WHEN: auto, always or never (the command line checked it).
void setColorMode(const std::string &when);
/// `diagnostics` (the compiler's format: "file:line:col: error: message", the source line, the
/// caret line) with ANSI colours when the mode asks for them on standard error.
std::string painted(const std::string &diagnostics);

} // namespace tk

#endif
