#include "tk/Runtime/DiskCache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SHA256.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <iostream>
#include <mutex>
#include <set>
#include <sys/random.h>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace tk {

namespace {

constexpr const char *kMagic = "tk-cache 2";
constexpr size_t kSecretBytes = 32;

std::string hex(llvm::ArrayRef<uint8_t> bytes) {
  std::string digest;
  for (uint8_t byte : bytes) {
    char two[3];
    std::snprintf(two, sizeof(two), "%02x", byte);
    digest += two;
  }
  return digest;
}

/// HMAC-SHA256 (RFC 2104).
std::array<uint8_t, 32> hmacSha256(const std::string &secret, const std::string &message) {
  std::array<uint8_t, 64> block{};
  if (secret.size() > block.size()) {
    auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(secret));
    std::copy(digest.begin(), digest.end(), block.begin());
  } else {
    std::copy(secret.begin(), secret.end(), block.begin());
  }
  std::array<uint8_t, 64> inner, outer;
  for (size_t k = 0; k < 64; ++k) {
    inner[k] = block[k] ^ 0x36;
    outer[k] = block[k] ^ 0x5c;
  }
  llvm::SHA256 first;
  first.update(inner);
  first.update(llvm::StringRef(message));
  std::array<uint8_t, 32> innerDigest = first.final();
  llvm::SHA256 second;
  second.update(outer);
  second.update(innerDigest);
  return second.final();
}

std::string randomBytes(size_t count, std::string &error) {
  std::string bytes(count, '\0');
  size_t done = 0;
  while (done < count) {
    ssize_t got = ::getrandom(bytes.data() + done, count - done, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      error = std::string("cannot get random bytes for the cache key: ") + std::strerror(errno);
      return "";
    }
    done += size_t(got);
  }
  return bytes;
}

} // namespace

std::string cacheKey(const std::vector<std::string> &parts) {
  llvm::SHA256 sha;
  for (const std::string &part : parts) {
    std::string length = std::to_string(part.size()) + ":";
    sha.update(llvm::StringRef(length));
    sha.update(llvm::StringRef(part));
  }
  return hex(sha.final());
}

std::string compilerBuildId() {
  Dl_info info{};
  if (!::dladdr(reinterpret_cast<void *>(&compilerBuildId), &info) || !info.dli_fname)
    return "unknown build";
  struct stat st{};
  if (::stat(info.dli_fname, &st) != 0)
    return info.dli_fname;
  return std::string(info.dli_fname) + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

namespace {
/// Whether the directory `fd` holds nothing but what a tk cache writes: entries (*.tkc), its key,
/// and their temporaries (".NAME.tmp-XXXXXXXXXXXX", FileIO.cpp). Empty counts.
bool holdsOnlyCacheFiles(int fd) {
  DIR *dir = ::fdopendir(::dup(fd));
  if (!dir)
    return false;
  bool only = true;
  while (const dirent *entry = ::readdir(dir)) {
    llvm::StringRef name(entry->d_name);
    if (name == "." || name == "..")
      continue;
    bool temporary = name.starts_with(".") && name.contains(".tmp-");
    if (!name.ends_with(".tkc") && name != "secret.key" && !temporary) {
      only = false;
      break;
    }
  }
  ::closedir(dir);
  return only;
}
} // namespace

std::string DiskCache::defaultDir() {
  if (const char *dir = std::getenv("TK_CACHE_DIR"))
    return dir; // empty: no cache
  // The XDG base directory specification: an absolute $XDG_CACHE_HOME, else ~/.cache.
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && xdg[0] == '/')
    return std::string(xdg) + "/tk";
  if (const char *home = std::getenv("HOME"))
    return std::string(home) + "/.cache/tk";
  return "";
}

bool DiskCache::ready(std::string &error) {
  if (state_ != 0) {
    error = unusable_;
    return state_ > 0;
  }
  auto unusable = [&](const std::string &why) {
    state_ = -1;
    unusable_ = error = why;
    warnings_.push_back("tk: " + why + "; the disk cache is not used");
    return false;
  };
  // The parents as the user's umask allows; the cache directory itself private.
  size_t slash = dir_.find_last_of('/');
  if (slash != std::string::npos && slash > 0)
    if (std::error_code ec = llvm::sys::fs::create_directories(dir_.substr(0, slash))) {
      unusable_ = error = "cannot create the directory " + dir_ + ": " + ec.message();
      state_ = -1;
      return false;
    }
  if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
    unusable_ = error = "cannot create the directory " + dir_ + ": " + std::strerror(errno);
    state_ = -1;
    return false;
  }
  // Opened without following a symlink, then checked and changed through that descriptor: a
  // symlink planted in a shared folder (or swapped in between a check and a chmod by path) must
  // not lead tk to chmod and fill a directory elsewhere (the user's home, say).
  int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return unusable("the cache directory " + dir_ + " is not a directory (a symlink is not followed)");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode))
    return unusable("the cache directory " + dir_ + " is not a directory (a symlink is not followed)");
  if (st.st_uid != ::geteuid())
    return unusable("the cache directory " + dir_ + " belongs to uid " + std::to_string(st.st_uid) +
                    ", not to this user");
  // Ours. Made private when open to others only if it holds nothing but a cache's files (tk's
  // caches before the key were created 0755) or nothing: TK_CACHE_DIR may name any folder the
  // user owns (a shared project folder, '.', '/'), and tk must not take it from its group.
  if (st.st_mode & 077) {
    if (!holdsOnlyCacheFiles(fd))
      return unusable("the cache directory " + dir_ + " is open to others and holds files that are not a cache's: " +
                      "tk leaves its permissions alone (name a folder of the cache's own)");
    if (::fchmod(fd, 0700) != 0)
      return unusable("the cache directory " + dir_ + " is open to others and cannot be made private: " +
                      std::strerror(errno));
  }

  std::string keyPath = dir_ + "/secret.key", why;
  for (int attempt = 0; attempt < 2 && secret_.empty(); ++attempt) {
    bool missing = false;
    std::string text;
    if (readRegularFile(keyPath, kSecretBytes, text, why, FileKind::Private, &missing)) {
      struct stat key {};
      if (::lstat(keyPath.c_str(), &key) != 0 || (key.st_mode & 077))
        return unusable("the cache key " + keyPath + " is open to others (it must be 0600)");
      if (text.size() != kSecretBytes)
        return unusable("the cache key " + keyPath + " is not " + std::to_string(kSecretBytes) + " bytes long");
      secret_ = text;
      break;
    }
    if (!missing)
      return unusable("the cache key is not usable: " + why);
    // The first process creates it; a racing one keeps the winner's (link, not rename).
    std::string fresh = randomBytes(kSecretBytes, why);
    std::unique_ptr<AtomicFile> file = fresh.empty() ? nullptr : AtomicFile::create(keyPath, FileKind::Private, why);
    if (!file || !file->write(fresh, why) || !file->commit(why, /*replace=*/false))
      return unusable("cannot create the cache key: " + why);
  }
  if (secret_.empty())
    return unusable("cannot read the cache key " + keyPath);
  state_ = 1;
  return true;
}

std::string DiskCache::mac(const std::string &key, const std::string &payload) const {
  return hex(hmacSha256(secret_, key + "\n" + payload));
}

std::optional<std::string> DiskCache::readTrusted(const std::string &path, uint64_t maxBytes, std::string &why) {
  bool missing = false;
  std::string text;
  why.clear();
  if (readRegularFile(path, maxBytes, text, why, FileKind::Private, &missing))
    return text;
  if (missing)
    why.clear();
  else if (size_t at = why.find("': "); at != std::string::npos)
    why = why.substr(at + 3); // the reason alone: the warning names the file
  return std::nullopt;
}

std::optional<std::string> DiskCache::get(const std::string &key) {
  std::string error;
  if (dir_.empty() || !ready(error))
    return std::nullopt;
  std::string path = pathOf(key), why;
  std::optional<std::string> contents = readTrusted(path, kMaxEntryBytes + 256, why);
  // "<magic> <length> <hmac>\n<payload>"
  std::string payload;
  if (contents) {
    size_t newline = contents->find('\n');
    std::istringstream header(newline == std::string::npos ? "" : contents->substr(0, newline));
    std::string magic1, magic2, length, checksum;
    header >> magic1 >> magic2 >> length >> checksum;
    if (newline == std::string::npos || magic1 + " " + magic2 != kMagic) {
      why = "no header";
    } else {
      payload = contents->substr(newline + 1);
      if (std::to_string(payload.size()) != length)
        why = "truncated: " + std::to_string(payload.size()) + " of " + length + " bytes";
      else if (mac(key, payload) != checksum)
        why = "checksum mismatch";
    }
  }
  if (contents && why.empty())
    return payload;
  if (why.empty())
    return std::nullopt; // absent
  ::unlink(path.c_str()); // in our own directory: whatever it was, it goes
  if (reported_.insert(key).second)
    warnings_.push_back("tk: cache entry " + path + " was corrupt (" + why + "); rebuilding it");
  return std::nullopt;
}

bool DiskCache::put(const std::string &key, const std::string &payload, std::string &error) {
  if (dir_.empty()) {
    error = "no cache directory (TK_CACHE_DIR is empty and there is no HOME)";
    return false;
  }
  if (payload.size() > kMaxEntryBytes) {
    error = "a cache entry of " + std::to_string(payload.size()) + " bytes is larger than the limit";
    return false;
  }
  if (!ready(error))
    return false;
  std::string header = std::string(kMagic) + " " + std::to_string(payload.size()) + " " + mac(key, payload) + "\n";
  return writeAtomically(pathOf(key), header + payload, error, FileKind::Private);
}

std::optional<std::string> DiskCache::readPrivate(const std::string &path, uint64_t maxBytes) {
  std::string error, why;
  if (dir_.empty() || !ready(error))
    return std::nullopt;
  std::optional<std::string> text = readTrusted(path, maxBytes, why);
  if (!text && !why.empty() && reported_.insert(path).second)
    warnings_.push_back("tk: ignoring " + path + ": " + why);
  return text;
}

bool DiskCache::writePrivate(const std::string &path, const std::string &bytes, std::string &error) {
  if (dir_.empty()) {
    error = "no cache directory (TK_CACHE_DIR is empty and there is no HOME)";
    return false;
  }
  return ready(error) && writeAtomically(path, bytes, error, FileKind::Private);
}

std::vector<std::string> DiskCache::takeWarnings() {
  std::vector<std::string> taken;
  taken.swap(warnings_);
  return taken;
}

void DiskCache::printWarnings() {
  static std::mutex mutex;
  static std::set<std::string> shown;
  std::lock_guard<std::mutex> lock(mutex);
  for (const std::string &warning : takeWarnings())
    if (shown.insert(warning).second)
      std::cerr << warning << "\n";
}

} // namespace tk
