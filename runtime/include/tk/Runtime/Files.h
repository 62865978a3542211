// Files as the compiler reads and writes them, for programs above the JIT (the graph layer):
// where the stdlib lives, and outputs written through a temporary file and a rename.
#ifndef TK_RUNTIME_FILES_H
#define TK_RUNTIME_FILES_H

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

} // namespace tk

#endif
