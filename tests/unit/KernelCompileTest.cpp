// compileToPtx: the second compile of the same kernel comes from the disk cache, byte for
// byte; anything that decides the PTX (source, constants, specialization) is a new entry.
#include "tk/Runtime/KernelCompile.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

namespace tk {
namespace {

const char *kSource = R"(
kernel scale(x: ptr<f32>, out: ptr<f32>, n: i32, const BLOCK: i32) {
    let i = program_id(0) * BLOCK + arange(0, BLOCK);
    store(out + i, load(x + i, mask = i < n, other = 0.0) * 2.0, mask = i < n);
}
)";

class KernelCompileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(dir.empty());
    options.kernel = "scale";
    options.defines = {{"BLOCK", "256"}};
  }

  std::optional<CompiledKernel> compile(const std::string &source, DiskCache &cache) {
    std::string diagnostics;
    auto compiled = compileToPtx("scale.tk", &source, options, cache, diagnostics);
    EXPECT_TRUE(compiled) << diagnostics;
    return compiled;
  }

  test::TempDir temp{"tk-compile-test"};
  std::string dir = temp.path();
  CompileOptions options;
};

TEST_F(KernelCompileTest, TheSecondCompileComesFromTheCache) {
  DiskCache cache(dir);
  std::optional<CompiledKernel> first = compile(kSource, cache);
  ASSERT_TRUE(first);
  EXPECT_FALSE(first->fromCache);
  EXPECT_NE(first->ptx.find(".entry scale("), std::string::npos);
  DiskCache again(dir); // another process's view
  std::optional<CompiledKernel> second = compile(kSource, again);
  ASSERT_TRUE(second);
  EXPECT_TRUE(second->fromCache);
  EXPECT_EQ(second->ptx, first->ptx);
  EXPECT_EQ(second->sharedBytes, first->sharedBytes);
}

TEST_F(KernelCompileTest, WhatDecidesThePtxDecidesTheEntry) {
  DiskCache cache(dir);
  ASSERT_TRUE(compile(kSource, cache));
  std::string edited = std::string(kSource) + "\n// an edit\n";
  EXPECT_FALSE(compile(edited, cache)->fromCache);
  options.defines["BLOCK"] = "512";
  EXPECT_FALSE(compile(kSource, cache)->fromCache);
  options.divisibility["n"] = 16;
  EXPECT_FALSE(compile(kSource, cache)->fromCache);
  EXPECT_TRUE(compile(kSource, cache)->fromCache);
}

TEST_F(KernelCompileTest, DumpDirGetsEveryStageOfEachCompile) {
  DiskCache cache(dir);
  ASSERT_TRUE(compile(kSource, cache)); // cached
  test::TempDir dumps("tk-dump-test");
  ::setenv("TK_DUMP_DIR", dumps.path().c_str(), 1);
  std::optional<CompiledKernel> dumped = compile(kSource, cache);
  ::unsetenv("TK_DUMP_DIR");
  ASSERT_TRUE(dumped);
  EXPECT_FALSE(dumped->fromCache); // compiled again so that the stages are written
  for (const char *stage : {"tk.mlir", "tkgpu.mlir", "ll", "ptx"}) {
    std::string command = "cat " + dumps.path() + "/scale-*." + stage + " > /dev/null 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << "no ." << stage << " dump";
  }
  std::string grepPtx = "grep -q '.entry scale(' " + dumps.path() + "/scale-*.ptx";
  EXPECT_EQ(std::system(grepPtx.c_str()), 0);
  std::string grepTk = "grep -q 'tk.load' " + dumps.path() + "/scale-*.tk.mlir";
  EXPECT_EQ(std::system(grepTk.c_str()), 0);
}

TEST_F(KernelCompileTest, AKernelThatDoesNotCompileStoresNothing) {
  DiskCache cache(dir);
  std::string diagnostics, source = "kernel scale(x: ptr<f32>) { let y = x + ; }";
  EXPECT_FALSE(compileToPtx("bad.tk", &source, options, cache, diagnostics));
  EXPECT_NE(diagnostics.find("bad.tk:1:"), std::string::npos) << diagnostics;
  EXPECT_EQ(std::system(("test -z \"$(ls -A " + dir + ")\"").c_str()), 0);
}

TEST_F(KernelCompileTest, EightProcessesCompilingIntoOneEmptyCacheLeaveOneEntry) {
  std::vector<pid_t> children;
  for (int p = 0; p < 8; ++p) {
    pid_t child = ::fork();
    if (child == 0) {
      DiskCache cache(dir);
      std::string diagnostics, source = kSource;
      std::optional<CompiledKernel> compiled = compileToPtx("scale.tk", &source, options, cache, diagnostics);
      ::_exit(compiled && compiled->ptx.find(".entry scale(") != std::string::npos ? 0 : 1);
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // One entry, no temporary files (beside the cache's secret key), and it is a valid hit.
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename() != "secret.key")
      names.push_back(entry.path().filename().string());
  ASSERT_EQ(names.size(), 1u) << names[0] << (names.size() > 1 ? " " + names[1] : "");
  EXPECT_EQ(names[0].size(), 64u + 4u) << names[0]; // <sha256>.tkc
  DiskCache cache(dir);
  std::optional<CompiledKernel> hit = compile(kSource, cache);
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->fromCache);
  EXPECT_TRUE(cache.takeWarnings().empty());
}

// The JIT's target for a device: its own chip's instructions on sm_90 (wgmma, TMA), Ada's FP8
// mma.sync on sm_89, sm_80's code below; a newer chip (sm_100) gets sm_90's portable PTX.
TEST(TargetDevice, PicksTheDevicesTarget) {
  struct Case {
    int device, sm;
    bool archSpecific;
  };
  for (Case c :
       {Case{80, 80, false}, Case{86, 80, false}, Case{89, 89, false}, Case{90, 90, true}, Case{100, 90, false}}) {
    CompileOptions options;
    targetDevice(options, c.device);
    EXPECT_EQ(options.sm, c.sm) << "sm_" << c.device;
    EXPECT_EQ(options.archSpecific, c.archSpecific) << "sm_" << c.device;
  }
}

} // namespace
} // namespace tk
