// The disk cache of compiled kernels: entries survive processes, torn or corrupted entries are
// detected and rebuilt, concurrent writers leave one valid entry, a killed writer none torn.
#include "tk/Runtime/DiskCache.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace tk {
namespace {

class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_FALSE(dir.empty()); }

  std::vector<std::string> files() const {
    std::vector<std::string> names;
    if (DIR *d = ::opendir(dir.c_str())) {
      while (dirent *entry = ::readdir(d))
        if (std::string name = entry->d_name; name != "." && name != ".." && name != "secret.key")
          names.push_back(name); // temporary files (".<key>.tmp...") included; the cache's key not
      ::closedir(d);
    }
    return names;
  }
  std::string read(const std::string &path) const {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write(const std::string &path, const std::string &bytes) const {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }

  test::TempDir temp{"tk-cache-test"};
  std::string dir = temp.path();
};

TEST(DiskCacheDir, TkCacheDirThenXdgCacheHomeThenHome) {
  // (The variables as they were are put back: other tests read them.)
  auto saved = [](const char *name) { const char *v = std::getenv(name); return v ? std::optional<std::string>(v) : std::nullopt; };
  std::optional<std::string> tkDir = saved("TK_CACHE_DIR"), xdg = saved("XDG_CACHE_HOME"), home = saved("HOME");
  ::unsetenv("TK_CACHE_DIR");
  ::setenv("HOME", "/home/someone", 1);
  ::setenv("XDG_CACHE_HOME", "/var/cache/someone", 1);
  EXPECT_EQ(DiskCache::defaultDir(), "/var/cache/someone/tk");
  ::setenv("XDG_CACHE_HOME", "relative/cache", 1); // the specification ignores a relative path
  EXPECT_EQ(DiskCache::defaultDir(), "/home/someone/.cache/tk");
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(DiskCache::defaultDir(), "/home/someone/.cache/tk");
  ::setenv("TK_CACHE_DIR", "/tmp/mine", 1);
  EXPECT_EQ(DiskCache::defaultDir(), "/tmp/mine");
  for (auto &[name, value] : {std::pair{"TK_CACHE_DIR", tkDir}, std::pair{"XDG_CACHE_HOME", xdg}, std::pair{"HOME", home}})
    value ? ::setenv(name, value->c_str(), 1) : ::unsetenv(name);
}

TEST_F(DiskCacheTest, KeysSeparateTheirParts) {
  EXPECT_NE(cacheKey({"ab", "c"}), cacheKey({"a", "bc"}));
  EXPECT_EQ(cacheKey({"ab", "c"}), cacheKey({"ab", "c"}));
  EXPECT_EQ(cacheKey({}).size(), 64u);
}

TEST_F(DiskCacheTest, AnEntrySurvivesTheProcessThatWroteIt) {
  std::string key = cacheKey({"kernel"}), error;
  pid_t child = ::fork();
  if (child == 0) {
    DiskCache cache(dir);
    std::_Exit(cache.put(key, "PTX text\n", error) ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  DiskCache cache(dir);
  EXPECT_EQ(cache.get(key), std::optional<std::string>("PTX text\n"));
  EXPECT_EQ(cache.get(cacheKey({"other"})), std::nullopt);
  EXPECT_TRUE(cache.takeWarnings().empty());
}

TEST_F(DiskCacheTest, ATruncatedEntryIsReportedOnceAndRebuilt) {
  DiskCache cache(dir);
  std::string key = cacheKey({"k"}), error;
  ASSERT_TRUE(cache.put(key, std::string(1000, 'x'), error)) << error;
  std::string bytes = read(cache.pathOf(key));
  write(cache.pathOf(key), bytes.substr(0, bytes.size() - 400));
  EXPECT_EQ(cache.get(key), std::nullopt);
  std::vector<std::string> warnings = cache.takeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "tk: cache entry " + cache.pathOf(key) + " was corrupt (truncated: 600 of 1000 bytes); rebuilding it");
  EXPECT_TRUE(files().empty()); // removed
  write(cache.pathOf(key), bytes.substr(0, 10));
  EXPECT_EQ(cache.get(key), std::nullopt);
  EXPECT_TRUE(cache.takeWarnings().empty()); // once per key
  ASSERT_TRUE(cache.put(key, "rebuilt", error));
  EXPECT_EQ(cache.get(key), std::optional<std::string>("rebuilt"));
}

TEST_F(DiskCacheTest, AFlippedByteFailsTheChecksum) {
  DiskCache cache(dir);
  std::string key = cacheKey({"k"}), error;
  ASSERT_TRUE(cache.put(key, "abcdef", error));
  std::string bytes = read(cache.pathOf(key));
  bytes.back() = 'g';
  write(cache.pathOf(key), bytes);
  EXPECT_EQ(cache.get(key), std::nullopt);
  std::vector<std::string> warnings = cache.takeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("(checksum mismatch)"), std::string::npos) << warnings[0];
}

TEST_F(DiskCacheTest, EightConcurrentWritersLeaveOneValidEntry) {
  std::string key = cacheKey({"shared"}), payload(1 << 20, 'p');
  std::vector<pid_t> children;
  for (int p = 0; p < 8; ++p) {
    pid_t child = ::fork();
    if (child == 0) {
      DiskCache cache(dir);
      std::string error;
      bool ok = true;
      for (int i = 0; i < 20; ++i) {
        ok &= cache.put(key, payload, error);
        std::optional<std::string> seen = cache.get(key);
        ok &= seen == payload; // a reader never sees a torn entry
      }
      std::_Exit(ok && cache.takeWarnings().empty() ? 0 : 1);
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  EXPECT_EQ(files(), std::vector<std::string>{key + ".tkc"});
  DiskCache cache(dir);
  EXPECT_EQ(cache.get(key), payload);
}

TEST_F(DiskCacheTest, AWriterKilledMidWriteLeavesNoTornEntry) {
  std::string key = cacheKey({"killed"});
  pid_t child = ::fork();
  if (child == 0) {
    DiskCache cache(dir);
    std::string error, payload(64 << 20, 'k');
    for (;;)
      cache.put(key, payload, error);
  }
  ::usleep(100 * 1000);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  DiskCache cache(dir);
  std::optional<std::string> entry = cache.get(key);
  EXPECT_TRUE(!entry || entry->size() == size_t(64) << 20);
  EXPECT_TRUE(cache.takeWarnings().empty());
}

TEST_F(DiskCacheTest, NoDirectoryIsNoCache) {
  DiskCache cache("");
  std::string error;
  EXPECT_FALSE(cache.put(cacheKey({"k"}), "x", error));
  EXPECT_EQ(error, "no cache directory (TK_CACHE_DIR is empty and there is no HOME)");
  EXPECT_EQ(cache.get(cacheKey({"k"})), std::nullopt);
}

TEST_F(DiskCacheTest, AnUnwritableDirectoryIsAnErrorNotACrash) {
  DiskCache cache("/proc/tk-cache-test");
  std::string error;
  EXPECT_FALSE(cache.put(cacheKey({"k"}), "x", error));
  EXPECT_NE(error.find("cannot create the directory /proc/tk-cache-test"), std::string::npos) << error;
  EXPECT_EQ(cache.get(cacheKey({"k"})), std::nullopt);
}

} // namespace
} // namespace tk
