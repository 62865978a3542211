// Compiled kernels on disk, shared by processes: one file per key under a directory
// ($TK_CACHE_DIR, default ~/.cache/tk). Entries are written to a temporary file and renamed, so
// readers never see a torn entry, and carry their length and checksum, so a truncated or
// corrupted one is detected, removed and reported once, and the caller rebuilds it.
#ifndef TK_RUNTIME_DISKCACHE_H
#define TK_RUNTIME_DISKCACHE_H

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tk {

/// The key of a list of parts (each length-prefixed, so no two lists collide by
/// concatenation): a SHA-256 hex digest.
std::string cacheKey(const std::vector<std::string> &parts);

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// no reader ever sees it half-written; creates the directory. A path that is not a regular
/// file (/dev/null, a pipe) is written directly. False with `error` otherwise.
bool writeAtomically(const std::string &path, const std::string &bytes, std::string &error);

/// The whole of a file, or none when it cannot be read.
std::optional<std::string> readFile(const std::string &path);

/// Identifies this build of the compiler (the shared library's path, size and modification
/// time), so entries of another build are never reused.
std::string compilerBuildId();

class DiskCache {
public:
  /// A cache in `dir`; "" is no cache (nothing is found, nothing stored).
  explicit DiskCache(std::string dir) : dir_(std::move(dir)) {}
  /// $TK_CACHE_DIR (set but empty: no cache), else $HOME/.cache/tk, else "".
  static std::string defaultDir();

  /// The payload stored under `key`; none when absent, or when the entry is corrupt (it is
  /// then removed and a warning recorded).
  std::optional<std::string> get(const std::string &key);
  /// Stores `payload` under `key` (temporary file + rename). False with `error` when the
  /// directory cannot be written; the cache is best-effort and the caller carries on.
  bool put(const std::string &key, const std::string &payload, std::string &error);
  std::string pathOf(const std::string &key) const { return dir_ + "/" + key + ".tkc"; }
  /// Warnings not yet shown (one per corrupt entry), cleared by the call.
  std::vector<std::string> takeWarnings();

private:
  std::string dir_;
  std::vector<std::string> warnings_;
  std::set<std::string> reported_;
};

} // namespace tk

#endif
