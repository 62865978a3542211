// tkc's help: the synopsis of every command, and each command's options and environment.
#ifndef TK_TOOLS_TKC_HELP_H
#define TK_TOOLS_TKC_HELP_H

#include <string>

namespace tk {

/// The short usage printed after a usage error.
extern const char *const kUsage;
/// `tkc [COMMAND] --help`: every option of `command` ("compile", "check", "run", "tune")
/// described, then the environment variables tkc reads.
std::string helpFor(const std::string &command);

} // namespace tk

#endif
