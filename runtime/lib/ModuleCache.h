// A module's kernel declarations on disk, so that a warm process loads a module without
// parsing it: the entry is keyed by the compiler build and the main file's text, and holds each
// import's path and hash, checked against the files (a changed import is a miss).
#ifndef TK_RUNTIME_MODULECACHE_H
#define TK_RUNTIME_MODULECACHE_H

#include "tk/Driver/Compiler.h"
#include "tk/Runtime/DiskCache.h"

#include <optional>

namespace tk {

struct ModuleEntry {
  std::vector<KernelDecl> decls;
  std::string sourceHash; // of the file and its imports, as the JIT keys variants
};

std::string moduleKey(const std::string &path, const std::string &text, const std::vector<std::string> &stdlibDirs);
/// The hash the JIT gives the sources (path and text of the file and each import).
std::string sourcesHash(const std::vector<std::pair<std::string, std::string>> &sources);
std::optional<ModuleEntry> loadModuleEntry(DiskCache &cache, const std::string &key);
void storeModuleEntry(DiskCache &cache, const std::string &key, const ModuleEntry &entry,
                      const std::vector<std::pair<std::string, std::string>> &sources);

} // namespace tk

#endif
