// Hardening (issue 16) in the C++ API and the libraries behind tkc: temporary files that no
// planted symlink redirects, a disk cache that trusts only this user's authenticated entries,
// buffers shared by threads, contexts destroyed before their buffers, exact interpreter bounds,
// checked element counts, the grid expression parser and the tuning database's JSON depth.
#include "tk/tk.h"

#include "TestUtil.h"
#include "TuningDatabase.h"
#include "tk/Frontend/FileIO.h"
#include "tk/Runtime/DiskCache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace tk {
namespace {

template <typename F> std::string errorOf(F body) { return test::messageOf<Error>(body); }

std::string readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeAll(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::vector<std::string> namesIn(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *entry = ::readdir(d))
      if (std::string name = entry->d_name; name != "." && name != "..")
        names.push_back(name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

unsigned modeOf(const std::string &path) {
  struct stat st {};
  ::lstat(path.c_str(), &st);
  return st.st_mode & 07777;
}

// --- 5: temporary files ---------------------------------------------------------------------

TEST(HardeningFiles, PlantedSymlinksAtTheOldTemporaryNamesAreNeverFollowed) {
  test::TempDir dir("tk-harden");
  std::string victim = dir.path() + "/victim", target = dir.path() + "/result.ptx";
  writeAll(victim, "secret");
  ::chmod(victim.c_str(), 0600);
  // The names writeAtomically once used: .NAME.tmp.PID.N.
  for (int n = 0; n < 64; ++n)
    ASSERT_EQ(::symlink(victim.c_str(), (dir.path() + "/.result.ptx.tmp." + std::to_string(::getpid()) + "." +
                                         std::to_string(n)).c_str()), 0);
  for (int round = 0; round < 8; ++round) {
    std::string error;
    ASSERT_TRUE(writeAtomically(target, "PTX " + std::to_string(round), error)) << error;
  }
  EXPECT_EQ(readAll(victim), "secret");
  EXPECT_EQ(readAll(target), "PTX 7");
  // The target itself a symlink to the victim: the rename replaces the link, never the file.
  ::unlink(target.c_str());
  ASSERT_EQ(::symlink(victim.c_str(), target.c_str()), 0);
  std::string error;
  ASSERT_TRUE(writeAtomically(target, "new", error)) << error;
  EXPECT_EQ(readAll(victim), "secret");
  EXPECT_EQ(readAll(target), "new");
  struct stat st {};
  ASSERT_EQ(::lstat(target.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

TEST(HardeningFiles, AFailedWriteLeavesNoTemporaryFileAndSaysWhy) {
  test::TempDir dir("tk-harden");
  std::string target = dir.path() + "/sub";
  ASSERT_EQ(::mkdir(target.c_str(), 0700), 0);
  writeAll(target + "/keep", "x"); // a non-empty directory: the rename fails
  std::string error;
  EXPECT_FALSE(writeAtomically(target, "bytes", error));
  EXPECT_NE(error.find("'" + target + "'"), std::string::npos) << error;
  EXPECT_NE(error.find(": "), std::string::npos) << error;
  EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"sub"});
  EXPECT_FALSE(writeAtomically("/dev/full", "bytes", error));
  EXPECT_EQ(error, "cannot write '/dev/full': No space left on device");
  // An output into a folder that does not exist is an error (as a C compiler's -o), not a new
  // tree; the cache's private files make their folders.
  std::string missing = dir.path() + "/no/such/out.ptx";
  EXPECT_FALSE(writeAtomically(missing, "bytes", error));
  EXPECT_EQ(error, "cannot write '" + missing + "': the folder '" + dir.path() + "/no/such' does not exist");
  EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"sub"});
  EXPECT_TRUE(writeAtomically(dir.path() + "/made/here/entry", "bytes", error, FileKind::Private)) << error;
}

TEST(HardeningFiles, SigintMidWriteLeavesNoTemporaryFile) {
  test::TempDir dir("tk-harden");
  pid_t child = ::fork();
  if (child == 0) {
    std::string error, payload(64 << 20, 'k');
    for (;;)
      writeAtomically(dir.path() + "/out.bin", payload, error);
  }
  ::usleep(300 * 1000);
  ::kill(child, SIGINT);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
  for (const std::string &name : namesIn(dir.path()))
    EXPECT_EQ(name, "out.bin");
}

TEST(HardeningFiles, ReadsTakeRegularFilesOfBoundedSizeOnly) {
  test::TempDir dir("tk-harden");
  std::string text, error;
  EXPECT_FALSE(readRegularFile("/dev/zero", 1 << 20, text, error));
  EXPECT_EQ(error, "cannot read '/dev/zero': it is not a regular file");
  std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(readRegularFile(fifo, 1 << 20, text, error)); // returns: no writer is waited for
  EXPECT_EQ(error, "cannot read '" + fifo + "': it is not a regular file");
  std::string big = dir.path() + "/big";
  writeAll(big, "");
  ASSERT_EQ(::truncate(big.c_str(), off_t(3) << 30), 0); // sparse
  EXPECT_FALSE(readRegularFile(big, 1 << 20, text, error));
  EXPECT_EQ(error, "cannot read '" + big + "': it is 3221225472 bytes, more than the limit of 1048576");
  // A pseudo-file says it has 0 bytes: it is read to its end (before: as empty), within the limit.
  ASSERT_TRUE(readRegularFile("/proc/self/status", 1 << 20, text, error)) << error;
  EXPECT_NE(text.find("Name:"), std::string::npos);
  EXPECT_FALSE(readRegularFile("/proc/self/status", 16, text, error));
  EXPECT_EQ(error, "cannot read '/proc/self/status': it is more than the limit of 16 bytes");
  // A pseudo-file that is a stream (/proc/kmsg, where this user may read it) is not waited on:
  // before, tkc check /proc/kmsg hung until the next kernel message.
  if (::access("/proc/kmsg", R_OK) == 0) {
    // (A detached reader: a hung one must not hold the test at a future's destructor.)
    auto done = std::make_shared<std::promise<std::string>>();
    std::future<std::string> reading = done->get_future();
    std::thread([done] {
      std::string kmsgText, kmsgError;
      done->set_value(readRegularFile("/proc/kmsg", 1 << 20, kmsgText, kmsgError) ? std::string() : kmsgError);
    }).detach();
    ASSERT_EQ(reading.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "reading /proc/kmsg hung";
    std::string kmsgError = reading.get();
    EXPECT_TRUE(kmsgError.empty() || kmsgError == "cannot read '/proc/kmsg': it is a stream with no end to read to" ||
                kmsgError.find("Operation not permitted") != std::string::npos)
        << kmsgError;
  }
  std::string empty = dir.path() + "/empty";
  writeAll(empty, "");
  EXPECT_TRUE(readRegularFile(empty, 16, text, error));
  EXPECT_EQ(text, "");
}

// --- 4: the disk cache ------------------------------------------------------------------------

class HardeningCache : public ::testing::Test {
protected:
  test::TempDir temp{"tk-harden-cache"};
  std::string dir = temp.path() + "/cache";
  std::string key = cacheKey({"kernel"});
};

TEST_F(HardeningCache, TheDirectoryIsPrivateAndEntriesAre0600EvenUnderUmask0) {
  mode_t old = ::umask(0);
  DiskCache cache(dir);
  std::string error;
  ASSERT_TRUE(cache.put(key, "PTX", error)) << error;
  ::umask(old);
  EXPECT_EQ(modeOf(dir), 0700u);
  EXPECT_EQ(modeOf(cache.pathOf(key)), 0600u);
  EXPECT_EQ(modeOf(dir + "/secret.key"), 0600u);
  // A directory of ours left open to others (as earlier versions made it) is made private.
  ASSERT_EQ(::chmod(dir.c_str(), 0777), 0);
  DiskCache again(dir);
  EXPECT_EQ(again.get(key), std::optional<std::string>("PTX"));
  EXPECT_EQ(modeOf(dir), 0700u);
}

TEST_F(HardeningCache, AReSignedEntryIsNotLoaded) {
  DiskCache cache(dir);
  std::string error;
  ASSERT_TRUE(cache.put(key, "good PTX", error)) << error;
  // What an attacker who can write the directory did to the old cache: a new payload under the
  // same magic, its length and a recomputed unkeyed checksum (FNV-1a, as the old format had it,
  // or a plain SHA-256).
  std::string forged = "evil PTX";
  std::string magic = readAll(cache.pathOf(key));
  magic = magic.substr(0, magic.find(' ', magic.find(' ') + 1));
  uint64_t fnv = 1469598103934665603ull;
  for (unsigned char c : forged)
    fnv = (fnv ^ c) * 1099511628211ull;
  char fnvHex[17];
  std::snprintf(fnvHex, sizeof(fnvHex), "%016llx", static_cast<unsigned long long>(fnv));
  for (const std::string &checksum : {std::string(fnvHex), cacheKey({forged})}) {
    writeAll(cache.pathOf(key), magic + " " + std::to_string(forged.size()) + " " + checksum + "\n" + forged);
    DiskCache victim(dir);
    EXPECT_EQ(victim.get(key), std::nullopt) << checksum;
    std::vector<std::string> warnings = victim.takeWarnings();
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("(checksum mismatch)"), std::string::npos) << warnings[0];
  }
}

TEST_F(HardeningCache, EntriesOthersMayWriteSymlinksFifosAndHugeFilesAreRefused) {
  DiskCache cache(dir);
  std::string error;
  ASSERT_TRUE(cache.put(key, "PTX", error)) << error;
  ASSERT_EQ(::chmod(cache.pathOf(key).c_str(), 0666), 0);
  EXPECT_EQ(cache.get(key), std::nullopt);
  std::vector<std::string> warnings = cache.takeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("(others may write it)"), std::string::npos) << warnings[0];

  std::string linked = cacheKey({"linked"}), fifo = cacheKey({"fifo"}), huge = cacheKey({"huge"});
  ASSERT_TRUE(cache.put(cacheKey({"elsewhere"}), "PTX", error));
  ASSERT_EQ(::symlink(cache.pathOf(cacheKey({"elsewhere"})).c_str(), cache.pathOf(linked).c_str()), 0);
  EXPECT_EQ(cache.get(linked), std::nullopt);
  ASSERT_EQ(::mkfifo(cache.pathOf(fifo).c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(cache.get(fifo), std::nullopt); // no hang
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  writeAll(cache.pathOf(huge), "");
  ASSERT_EQ(::truncate(cache.pathOf(huge).c_str(), off_t(3) << 30), 0);
  EXPECT_EQ(cache.get(huge), std::nullopt); // refused by its size, not read
  warnings = cache.takeWarnings();
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("(it is a symlink)"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("(it is not a regular file)"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[2].find("(it is 3221225472 bytes, more than the limit"), std::string::npos) << warnings[2];
  // Each refused entry was removed, and the cache goes on working.
  ASSERT_TRUE(cache.put(fifo, "rebuilt", error)) << error;
  EXPECT_EQ(cache.get(fifo), std::optional<std::string>("rebuilt"));
}

TEST_F(HardeningCache, AnotherUsersKeyOrADirectoryOthersOwnIsNotUsed) {
  DiskCache cache(dir);
  std::string error;
  ASSERT_TRUE(cache.put(key, "PTX", error)) << error;
  ASSERT_EQ(::chmod((dir + "/secret.key").c_str(), 0644), 0); // readable by others: not secret
  DiskCache second(dir);
  EXPECT_EQ(second.get(key), std::nullopt);
  EXPECT_FALSE(second.put(key, "PTX", error));
  std::vector<std::string> warnings = second.takeWarnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("the disk cache is not used"), std::string::npos) << warnings[0];
  if (::geteuid() != 0) {
    DiskCache foreign("/"); // owned by root
    EXPECT_EQ(foreign.get(key), std::nullopt);
    EXPECT_FALSE(foreign.put(key, "PTX", error));
    EXPECT_NE(error.find("belongs to uid 0, not to this user"), std::string::npos) << error;
  }
}

// TK_CACHE_DIR naming a folder of other files that others may use (a shared project folder,
// '.', '/' as root): tk leaves its permissions (and setgid bit) alone and puts nothing in it.
// Before, it made any folder it owned 0700 and wrote its key among the user's files.
TEST_F(HardeningCache, AFolderOfOtherFilesIsNeitherMadePrivateNorFilled) {
  std::string shared = temp.path() + "/shared";
  ASSERT_EQ(::mkdir(shared.c_str(), 0775), 0);
  ASSERT_EQ(::chmod(shared.c_str(), 02775), 0);
  writeAll(shared + "/notes.txt", "the team's");
  DiskCache cache(shared);
  std::string error;
  EXPECT_FALSE(cache.put(key, "PTX", error));
  EXPECT_NE(error.find("holds files that are not a cache's"), std::string::npos) << error;
  EXPECT_EQ(modeOf(shared), 02775u);
  EXPECT_EQ(namesIn(shared), std::vector<std::string>{"notes.txt"});
  // A cache of the versions before the key (0755, entries only) is made private and used, as
  // is an empty folder made for the cache (mkdir's 0755).
  std::string old = temp.path() + "/old";
  ASSERT_EQ(::mkdir(old.c_str(), 0755), 0);
  writeAll(old + "/" + cacheKey({"old"}) + ".tkc", "an entry of an older version");
  DiskCache upgraded(old);
  ASSERT_TRUE(upgraded.put(key, "PTX", error)) << error;
  EXPECT_EQ(modeOf(old), 0700u);
  std::string fresh = temp.path() + "/fresh";
  ASSERT_EQ(::mkdir(fresh.c_str(), 0755), 0);
  DiskCache made(fresh);
  ASSERT_TRUE(made.put(key, "PTX", error)) << error;
  EXPECT_EQ(modeOf(fresh), 0700u);
}

// A symlink planted as the cache directory (in a shared folder) must not make tk chmod and fill
// the directory it points to (stat followed it before: the target became 0700 and got entries).
TEST_F(HardeningCache, ASymlinkAsTheCacheDirectoryIsNotFollowed) {
  std::string victim = temp.path() + "/victim";
  ASSERT_EQ(::mkdir(victim.c_str(), 0755), 0);
  ASSERT_EQ(::symlink(victim.c_str(), dir.c_str()), 0);
  DiskCache cache(dir);
  std::string error;
  EXPECT_FALSE(cache.put(key, "PTX", error));
  EXPECT_NE(error.find("a symlink is not followed"), std::string::npos) << error;
  EXPECT_EQ(modeOf(victim), 0755u);
  EXPECT_TRUE(namesIn(victim).empty());
}

TEST_F(HardeningCache, ACorruptModuleEntryIsReportedWhenTheJitRebuildsIt) {
  Context context(Backend::Interpreter);
  JitOptions options;
  options.cacheDir = dir;
  std::string source = "kernel k(p: ptr<f32>) { store(p, 1.0); }\n";
  Module::fromString(context, source, "corrupt.tk", options);
  std::vector<std::string> entries;
  for (const std::string &name : namesIn(dir))
    if (name.size() > 4 && name.substr(name.size() - 4) == ".tkc")
      entries.push_back(dir + "/" + name);
  ASSERT_EQ(entries.size(), 1u);
  std::string bytes = readAll(entries[0]);
  bytes.back() ^= 1;
  writeAll(entries[0], bytes);
  ::testing::internal::CaptureStderr();
  Module module = Module::fromString(context, source, "corrupt.tk", options);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(module.kernelNames(), std::vector<std::string>{"k"});
  EXPECT_NE(err.find("tk: cache entry " + entries[0] + " was corrupt (checksum mismatch); rebuilding it"),
            std::string::npos)
      << err;
}

// --- 1: buffers shared by threads --------------------------------------------------------------

const char *kAdd = R"(
kernel add(x: ptr<f32>, y: ptr<f32>, out: ptr<f32>, n: i32, const BLOCK: i32 = 64) {
    let i = program_id(0) * BLOCK + arange(0, BLOCK);
    let m = i < n;
    store(out + i, load(x + i, mask = m) + load(y + i, mask = m), mask = m);
}
)";

TEST(HardeningThreads, EightThreadsShareInputBuffersAndReadThemBack) {
  test::TempDir cache("tk-harden");
  Context context(Backend::Interpreter);
  JitOptions options;
  options.cacheDir = cache.path();
  Kernel add = Module::fromString(context, kAdd, "add.tk", options).kernel("add");
  const int n = 256;
  std::vector<float> xs(n), ys(n);
  for (int i = 0; i < n; ++i)
    xs[i] = float(i), ys[i] = float(2 * i);
  Buffer x = Buffer::of(context, xs), y = Buffer::of(context, ys);
  std::atomic<int> failures{0};
  std::string firstFailure;
  std::mutex firstMutex;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      Buffer out(context, Scalar::F32, n);
      for (int round = 0; round < 200; ++round) {
        try {
          add.launch(Grid(n / 64), {x, y, out, n});
          std::vector<float> got = out.toVector<float>(), seen = x.toVector<float>();
          if (got[n - 1] != 3.0f * (n - 1) || seen != xs)
            throw Error("wrong result");
        } catch (const std::exception &e) {
          std::lock_guard<std::mutex> lock(firstMutex);
          if (failures++ == 0)
            firstFailure = e.what();
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0) << firstFailure;
  EXPECT_EQ(x.toVector<float>(), xs);
  EXPECT_EQ(y.toVector<float>(), ys);
}

// --- 6: contexts destroyed before their buffers and kernels --------------------------------

TEST(HardeningLifetime, BuffersAndKernelsOfADestroyedContextSaySo) {
  test::TempDir cache("tk-harden");
  auto context = std::make_unique<Context>(Backend::Interpreter);
  JitOptions options;
  options.cacheDir = cache.path();
  Kernel add = Module::fromString(*context, kAdd, "add.tk", options).kernel("add");
  Buffer x(*context, Scalar::F32, 64), y(*context, Scalar::F32, 64), out(*context, Scalar::F32, 64);
  add.launch(Grid(1), {x, y, out, 64});
  context.reset();
  EXPECT_EQ(errorOf([&] { add.launch(Grid(1), {x, y, out, 64}, {{"BLOCK", 32}}); }),
            "kernel 'add': its tk::Context was destroyed; a context must outlive its modules, kernels and buffers");
  EXPECT_EQ(errorOf([&] { out.toVector<float>(); }),
            "tk::Buffer::download: the buffer's tk::Context was destroyed; a context must outlive its buffers, "
            "modules and kernels");
  EXPECT_EQ(errorOf([&] { out.upload(std::vector<float>(64).data(), 256); }).rfind("tk::Buffer::upload: ", 0), 0u);
}

// --- 9: element counts ---------------------------------------------------------------------------

TEST(HardeningCounts, ABufferWhoseBytesOverflowIsAnError) {
  Context context(Backend::Interpreter);
  EXPECT_EQ(errorOf([&] { Buffer b(context, Scalar::F32, size_t(1) << 62); }),
            "tk::Buffer: 4611686018427387904 f32 elements do not fit in the address space");
  EXPECT_EQ(errorOf([&] { Buffer b(context, Scalar::F64, SIZE_MAX / 4); }).rfind("tk::Buffer: ", 0), 0u);
}

// --- 7: interpreter bounds ------------------------------------------------------------------------

TEST(HardeningBounds, NoOffsetReachesAnotherBuffer) {
  test::TempDir cache("tk-harden");
  Context context(Backend::Interpreter);
  JitOptions options;
  options.cacheDir = cache.path();
  Kernel k = Module::fromString(context, "kernel k(x: ptr<f32>, y: ptr<f32>, off: i64) { store(x + off, 7.0); }\n",
                                "escape.tk", options)
                 .kernel("k");
  Buffer x(context, Scalar::F32, 16), y(context, Scalar::F32, 16);
  for (int64_t off : {int64_t(1) << 39, (int64_t(1) << 39) + 5, (int64_t(1) << 40) - 1, int64_t(1) << 61,
                      -(int64_t(1) << 39), INT64_MAX, INT64_MIN}) {
    std::string message = errorOf([&] { k.launch(Grid(1), {x, y, off}); });
    EXPECT_NE(message.find("out-of-bounds store"), std::string::npos) << off << ": " << message;
    EXPECT_EQ(y.toVector<float>(), std::vector<float>(16, 0.0f)) << off;
  }
  k.launch(Grid(1), {x, y, int64_t(15)});
  EXPECT_EQ(x.toVector<float>()[15], 7.0f);
}

// --- 11 and 3: the grid expression -----------------------------------------------------------------

TEST(HardeningGrid, OneCheckedExpressionNeverSourceText) {
  int64_t value = 0;
  std::string error;
  std::map<std::string, int64_t> names{{"n", 1000}, {"BLOCK", 128}};
  ASSERT_TRUE(evaluateIntExpression("cdiv(n, BLOCK) * 2 + (n % 7) - -1", names, value, error)) << error;
  EXPECT_EQ(value, 8 * 2 + 1000 % 7 + 1);
  EXPECT_FALSE(evaluateIntExpression("4294967296*4294967296+1", names, value, error));
  EXPECT_EQ(error.rfind("integer overflow in a constant expression", 0), 0u) << error;
  EXPECT_FALSE(evaluateIntExpression("1) { } import \"/etc/passwd\"; kernel zz(x: i32", names, value, error));
  EXPECT_EQ(error.rfind("unexpected ')", 0), 0u) << error;
  EXPECT_FALSE(evaluateIntExpression("n; kernel", names, value, error));
  // cdiv rounds up without a + b - 1 (which overflowed with b = INT64_MIN): only INT64_MIN / -1
  // overflows.
  ASSERT_TRUE(evaluateIntExpression("cdiv(1, -9223372036854775807 - 1)", names, value, error)) << error;
  EXPECT_EQ(value, 0);
  ASSERT_TRUE(evaluateIntExpression("cdiv(-9223372036854775807 - 1 + 2, -1)", names, value, error)) << error;
  EXPECT_EQ(value, std::numeric_limits<int64_t>::max() - 1);
  ASSERT_TRUE(evaluateIntExpression("cdiv(7, -2) * 100 + cdiv(-7, 3) * 10 + cdiv(-6, 3)", names, value, error)) << error;
  EXPECT_EQ(value, -3 * 100 + -2 * 10 + -2);
  EXPECT_FALSE(evaluateIntExpression("cdiv(-9223372036854775807 - 1, -1)", names, value, error));
  EXPECT_EQ(error.rfind("integer overflow in a constant expression", 0), 0u) << error;
  EXPECT_FALSE(evaluateIntExpression("cdiv(n, 0)", names, value, error));
  EXPECT_EQ(error.rfind("division by zero in a constant expression", 0), 0u) << error;
  std::string terms = "1";
  for (int k = 1; k < 100000; ++k)
    terms += "+1";
  ASSERT_TRUE(evaluateIntExpression(terms, names, value, error)) << error;
  EXPECT_EQ(value, 100000);
  std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_FALSE(evaluateIntExpression(deep, names, value, error));
  EXPECT_EQ(error.rfind("nesting is too deep", 0), 0u) << error;
  EXPECT_FALSE(evaluateIntExpression(std::string(100000, '-') + "1", names, value, error));
  // An error points at its operator or name (it pointed past them, at the end of what was read).
  EXPECT_FALSE(evaluateIntExpression("q", names, value, error));
  EXPECT_EQ(error, "unknown name 'q' (known: BLOCK, n) (at column 1)");
  EXPECT_FALSE(evaluateIntExpression("1 + 1/0", names, value, error));
  EXPECT_EQ(error, "division by zero in a constant expression (at column 6)");
  EXPECT_FALSE(evaluateIntExpression("4294967296*4294967296", names, value, error));
  EXPECT_EQ(error, "integer overflow in a constant expression (at column 11)");
  EXPECT_FALSE(evaluateIntExpression("2 * cdiv(n, 0)", names, value, error));
  EXPECT_EQ(error, "division by zero in a constant expression (at column 5)");
}

// --- 3: the tuning database's JSON ----------------------------------------------------------------

TEST(HardeningJson, NestingIsBoundedBeforeParsing) {
  std::string error;
  for (const std::string &open : {std::string("["), std::string("{\"a\":")}) {
    std::string deep;
    for (int k = 0; k < 100000; ++k)
      deep += open;
    EXPECT_FALSE(parseTuningEntry(deep, error));
    EXPECT_EQ(error, "not a tuning entry (bad JSON at byte " + std::to_string(kMaxJsonNesting * open.size()) +
                         ": nested more than 64 levels deep)")
        << error.substr(0, 200);
  }
}

} // namespace
} // namespace tk
