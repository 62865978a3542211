#include "tk/Runtime/DiskCache.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA256.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace tk {

namespace {

constexpr const char *kMagic = "tk-cache 1";

uint64_t fnv1a(const std::string &bytes) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : bytes)
    hash = (hash ^ c) * 1099511628211ull;
  return hash;
}

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

/// mkdir -p.
bool makeDirectories(const std::string &dir) {
  for (size_t at = 1; at <= dir.size(); ++at) {
    if (at != dir.size() && dir[at] != '/')
      continue;
    std::string prefix = dir.substr(0, at);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
      return false;
  }
  return true;
}

} // namespace

std::string cacheKey(const std::vector<std::string> &parts) {
  llvm::SHA256 sha;
  for (const std::string &part : parts) {
    std::string length = std::to_string(part.size()) + ":";
    sha.update(llvm::StringRef(length));
    sha.update(llvm::StringRef(part));
  }
  std::string digest;
  for (uint8_t byte : sha.final()) {
    char two[3];
    std::snprintf(two, sizeof(two), "%02x", byte);
    digest += two;
  }
  return digest;
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

std::string DiskCache::defaultDir() {
  if (const char *dir = std::getenv("TK_CACHE_DIR"))
    return dir; // empty: no cache
  if (const char *home = std::getenv("HOME"))
    return std::string(home) + "/.cache/tk";
  return "";
}

std::optional<std::string> DiskCache::get(const std::string &key) {
  if (dir_.empty())
    return std::nullopt;
  std::string path = pathOf(key);
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string contents = buffer.str();
  // "<magic> <length> <checksum>\n<payload>"
  std::string why;
  std::string payload;
  size_t newline = contents.find('\n');
  std::istringstream header(newline == std::string::npos ? "" : contents.substr(0, newline));
  std::string magic1, magic2, length, checksum;
  header >> magic1 >> magic2 >> length >> checksum;
  if (newline == std::string::npos || magic1 + " " + magic2 != kMagic) {
    why = "no header";
  } else {
    payload = contents.substr(newline + 1);
    if (std::to_string(payload.size()) != length)
      why = "truncated: " + std::to_string(payload.size()) + " of " + length + " bytes";
    else if (hex(fnv1a(payload)) != checksum)
      why = "checksum mismatch";
  }
  if (why.empty())
    return payload;
  std::remove(path.c_str());
  if (reported_.insert(key).second)
    warnings_.push_back("tk: cache entry " + path + " was corrupt (" + why + "); rebuilding it");
  return std::nullopt;
}

std::optional<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool writeAtomically(const std::string &path, const std::string &bytes, std::string &error) {
  // A device or a pipe (/dev/null, /dev/stdout) is written as it is: a rename would replace it.
  struct stat existing;
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    std::ofstream out(path, std::ios::binary);
    if (!(out << bytes) || !out.flush()) {
      error = "cannot write " + path;
      return false;
    }
    return true;
  }
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  if (!makeDirectories(dir)) {
    error = "cannot create the directory " + dir + ": " + std::strerror(errno);
    return false;
  }
  static std::atomic<unsigned> counter{0};
  std::string temporary = dir + "/." + path.substr(slash + 1) + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(counter++);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << bytes;
    out.flush();
    if (!out) {
      error = "cannot write " + temporary;
      std::remove(temporary.c_str());
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    error = "cannot rename " + temporary + ": " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

bool DiskCache::put(const std::string &key, const std::string &payload, std::string &error) {
  if (dir_.empty()) {
    error = "no cache directory (TK_CACHE_DIR is empty and there is no HOME)";
    return false;
  }
  return writeAtomically(pathOf(key), std::string(kMagic) + " " + std::to_string(payload.size()) + " " + hex(fnv1a(payload)) +
                                          "\n" + payload,
                         error);
}

std::vector<std::string> DiskCache::takeWarnings() {
  std::vector<std::string> taken;
  taken.swap(warnings_);
  return taken;
}

} // namespace tk
