// Compiled kernels on disk, shared by processes: one file per key under a directory
// ($TK_CACHE_DIR, default ~/.cache/tk). Entries are written to a temporary file and renamed, so
// readers never see a torn entry, and carry their length and a keyed hash (HMAC-SHA256 under a
// per-user secret key, `secret.key` in the directory), so a truncated, corrupted or forged one
// is detected, removed and reported once, and the caller rebuilds it.
//
// What the cache trusts: only a directory owned by this user and writable by no one else
// (created 0700; any other is not used, with one warning), and in it only regular files owned
// by this user, writable by no one else and at most kMaxEntryBytes long, whose hash verifies.
#ifndef TK_RUNTIME_DISKCACHE_H
#define TK_RUNTIME_DISKCACHE_H

#include "tk/Frontend/FileIO.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tk {

/// The key of a list of parts (each length-prefixed, so no two lists collide by
/// concatenation): a SHA-256 hex digest.
std::string cacheKey(const std::vector<std::string> &parts);

/// Identifies this build of the compiler (the shared library's path, size and modification
/// time), so entries of another build are never reused.
std::string compilerBuildId();

class DiskCache {
public:
  static constexpr uint64_t kMaxEntryBytes = 256ull << 20;

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
  /// Prints takeWarnings() on stderr, each distinct text once a process (a cache directory
  /// that cannot be used is found again by every compile).
  void printWarnings();

  /// A file under the directory that is not an entry (the tuning database): its contents when
  /// it is a regular file owned by this user, writable by no one else and at most `maxBytes`
  /// long; none otherwise (an untrusted one is reported once).
  std::optional<std::string> readPrivate(const std::string &path, uint64_t maxBytes);
  /// Writes such a file (0600, its directories 0700).
  bool writePrivate(const std::string &path, const std::string &bytes, std::string &error);

private:
  /// Creates the directory (0700) and checks that this user owns it and no one else may write
  /// it; loads or creates the secret key. False (once with a warning) when it is not usable.
  bool ready(std::string &error);
  /// Reads `path` when it is an entry this user could have written; `why` says otherwise.
  std::optional<std::string> readTrusted(const std::string &path, uint64_t maxBytes, std::string &why);
  std::string mac(const std::string &key, const std::string &payload) const;

  std::string dir_;
  int state_ = 0; // 0 unchecked, 1 ready, -1 unusable
  std::string unusable_;
  std::string secret_;
  std::vector<std::string> warnings_;
  std::set<std::string> reported_;
};

} // namespace tk

#endif
