// What the CUDA driver's PTX compiler says when it compiles a kernel (JIT and AOT loads alike).
#ifndef TK_RUNTIME_DRIVERLOG_H
#define TK_RUNTIME_DRIVERLOG_H

#include <string>
#include <string_view>
#include <vector>

namespace tk {

/// The warnings among a driver compile's log lines (ptxas's "warning : ..." lines, such as
/// "wgmma.mma_async instructions are serialized ..."), trimmed, in order, each once.
std::vector<std::string> driverCompilerWarnings(std::string_view log);

/// The text of a log buffer the driver filled: up to its first NUL, and never past `size`
/// (a log that fills the buffer may end without one).
std::string_view driverLogText(const char *buffer, size_t size);

} // namespace tk

#endif
