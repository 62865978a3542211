// Files as the compiler reads and writes them, for programs above the JIT (the graph layer):
// where the stdlib lives, outputs written through a temporary file and a rename, and inputs
// read only from regular files of a bounded size.
#ifndef TK_RUNTIME_FILES_H
#define TK_RUNTIME_FILES_H

#include <cstdint>
#include <string>

namespace tk {

/// The stdlib folder, as the compiler finds it: $TK_STDLIB_DIR, else share/tkc/stdlib beside
/// libtkc.so or the executable, else the source tree's stdlib/. Its std/*.tk templates load with
/// tk::Module::fromFile; a generated source named there resolves its imports there.
std::string stdlibDir();

/// Writes `bytes` to `path` as tkc writes its outputs: a temporary file created O_EXCL under a
/// random name beside it, then a rename (a device or pipe is written in place). Throws tk::Error
/// naming the file and the OS's reason.
void writeOutput(const std::string &path, const std::string &bytes);

/// The whole of `path`, a regular file of at most `maxBytes` bytes (not a device, a pipe or a
/// folder, which could read forever or block); throws tk::Error naming the file otherwise.
std::string readInput(const std::string &path, uint64_t maxBytes);

} // namespace tk

#endif
