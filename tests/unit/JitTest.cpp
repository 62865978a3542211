// The C++ API (tk/tk.h): modules, kernels and launches on the interpreter backend (CI has no
// GPU), every argument error with its exact message, and the same kernels on the GPU when
// there is one.
#include "tk/tk.h"

#include "TestUtil.h"
#include "JitImpl.h"
#include "ModuleCache.h"
#include "TuningDatabase.h"
#include "tk/Runtime/Aot.h"
#include "tk/Runtime/CudaDriver.h"
#include "tk/Runtime/Files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <numeric>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

namespace tk {
namespace {

const char *kSource = R"(
@autotune(key = [n], configs = [{ BLOCK: 64, num_warps: 2 }, { BLOCK: 128 }, { BLOCK: 256, num_warps: 8 }])
kernel axpy(x: ptr<f32>, y: ptr<f32>, out: ptr<f32>, a: f32, n: i32, const BLOCK: i32) {
    let i = program_id(0) * BLOCK + arange(0, BLOCK);
    let m = i < n;
    store(out + i, a * load(x + i, mask = m) + load(y + i, mask = m), mask = m);
}
kernel fill(out: ptr<i32>, value: i32, stride: i32, const BLOCK: i32 = 128) {
    let i = arange(0, BLOCK);
    store(out + i * stride, full([BLOCK], value, i32));
}
)";

template <typename F> std::string errorOf(F body) { return test::messageOf<Error>(body); }

std::vector<float> ramp(int n, float scale) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i)
    v[i] = float(i) * scale;
  return v;
}

void expectAxpy(const std::vector<float> &out, const std::vector<float> &x, const std::vector<float> &y, float a) {
  ASSERT_EQ(out.size(), x.size());
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_FLOAT_EQ(out[i], std::fma(a, x[i], y[i])) << "element " << i;
}

/// What a child test printed between MESSAGE< and >END: `filter` (a disabled test of this
/// binary) run in a new process of its own, with `environment` ("NAME='value' ...") before it.
std::string childMessage(const std::string &filter, const std::string &environment) {
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string command = environment + "'" + self + "' --gtest_filter=" + filter + " --gtest_also_run_disabled_tests 2>&1";
  FILE *child = ::popen(command.c_str(), "r");
  if (!child)
    return "(popen failed)";
  std::string output;
  char chunk[512];
  for (size_t got; (got = std::fread(chunk, 1, sizeof(chunk), child)) > 0;)
    output.append(chunk, got);
  ::pclose(child);
  size_t begin = output.find("MESSAGE<"), end = output.find(">END");
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    return "(no message from the child:)\n" + output;
  return output.substr(begin + 8, end - begin - 8);
}

class JitInterpreterTest : public ::testing::Test {
protected:
  JitOptions options() {
    JitOptions o;
    o.cacheDir = cache.path();
    return o;
  }
  test::TempDir cache{"tk-jit-test"};
  Context context{Backend::Interpreter};

  /// Tunes axpy over 300 elements (the interpreter runs the first config that fits), launches
  /// it through a grid of cdiv(n, BLOCK) programs and checks the result; returns the report,
  /// with the BLOCK the grid was asked for in `seenBlock`.
  TuneReport tuneAndRunAxpy(Kernel &axpy, int64_t &seenBlock) {
    const int n = 300;
    auto x = ramp(n, 1.0f), y = ramp(n, 1.0f);
    Buffer bx = Buffer::of(context, x), by = Buffer::of(context, y), out(context, Scalar::F32, n);
    GridSpec grid([&](const Config &c) {
      seenBlock = c["BLOCK"];
      return Grid((n + c["BLOCK"] - 1) / c["BLOCK"]);
    });
    TuneReport report = axpy.tune(grid, {bx, by, out, 2.0f, n});
    axpy.launch(grid, {bx, by, out, 2.0f, n});
    expectAxpy(out.toVector<float>(), x, y, 2.0f);
    return report;
  }
};

TEST_F(JitInterpreterTest, GridFunctionsSeeHowManyProgramsFit) {
  // The interpreter runs one program at a time: no residency limit (2^30), so a persistent
  // kernel's grid is its own choice there.
  const int n = 300;
  Buffer bx = Buffer::of(context, ramp(n, 1.0f)), by = Buffer::of(context, ramp(n, 1.0f)), out(context, Scalar::F32, n);
  int64_t resident = 0;
  Module::fromString(context, kSource, "axpy.tk", options())
      .kernel("axpy")
      .launch(GridSpec([&](const Config &c) {
                resident = c[kResidentPrograms];
                return Grid((n + 255) / 256);
              }),
              {bx, by, out, 2.0f, n}, {{"BLOCK", 256}});
  EXPECT_EQ(resident, int64_t(1) << 30);
}

TEST_F(JitInterpreterTest, LaunchWithConstantsComputesAxpy) {
  Module module = Module::fromString(context, kSource, "axpy.tk", options());
  Kernel axpy = module.kernel("axpy");
  const int n = 1000;
  auto x = ramp(n, 0.5f), y = ramp(n, -2.0f);
  Buffer bx = Buffer::of(context, x), by = Buffer::of(context, y), out(context, Scalar::F32, n);
  axpy.launch(Grid((n + 127) / 128), {bx, by, out, 3.0f, n}, {{"BLOCK", 128}});
  expectAxpy(out.toVector<float>(), x, y, 3.0f);
  // The inputs came back from the interpreter unchanged.
  EXPECT_EQ(bx.toVector<float>(), x);
}

TEST_F(JitInterpreterTest, GridFunctionsSeeOneMultiprocessor) {
  // (A persistent grid of multiprocessors x resident programs is then 2^30 programs at most: one
  // a tile, as the grid functions of the stdlib's persistent kernels bound it.)
  Kernel fill = Module::fromString(context, kSource, "axpy.tk", options()).kernel("fill");
  Buffer out(context, Scalar::I32, 128);
  int64_t multiprocessors = 0, resident = 0;
  fill.launch(GridSpec([&](const Config &c) {
                multiprocessors = c[kMultiprocessors];
                resident = c[kResidentPrograms];
                return Grid(1);
              }),
              {out, 7, 1});
  EXPECT_EQ(multiprocessors, 1);
  EXPECT_EQ(resident, int64_t(1) << 30);
}

TEST_F(JitInterpreterTest, TimingNeedsTheCudaBackend) {
  std::function<void()> nothing = [] {};
  EXPECT_NE(errorOf([&] { context.timeMedian(nothing, 0, 3); }).find("timing needs the CUDA backend"), std::string::npos);
  EXPECT_NE(errorOf([&] { context.timeInterleaved({nothing, nothing}, 3); }).find("timeInterleaved: timing needs the CUDA"),
            std::string::npos);
}

TEST_F(JitInterpreterTest, AutotunedKernelRunsItsFirstConfigAndTheGridSeesIt) {
  Kernel axpy = Module::fromString(context, kSource, "axpy.tk", options()).kernel("axpy");
  int64_t seenBlock = 0;
  TuneReport report = tuneAndRunAxpy(axpy, seenBlock);
  ASSERT_EQ(report.results.size(), 3u);
  EXPECT_EQ(report.best, 0u);
  EXPECT_EQ(report.results[0].status, "chosen untimed (the interpreter cannot time kernels)");
  EXPECT_FALSE(report.results[0].ms);
  EXPECT_EQ(report.results[1].status, "not run (the interpreter runs the first config that fits)");
  EXPECT_EQ(seenBlock, 64);
}

TEST_F(JitInterpreterTest, ARestrictedTuningSpaceOffersOnlyTheConfigsKept) {
  // (The graph layer keeps split-K configs from FP8 matmuls whose rows fill the GPU unsplit.)
  Kernel axpy = Module::fromString(context, kSource, "axpy.tk", options()).kernel("axpy");
  axpy.restrictTuneSpace([](const Config &c) { return c["BLOCK"] != 64; });
  int64_t seenBlock = 0;
  TuneReport report = tuneAndRunAxpy(axpy, seenBlock);
  ASSERT_EQ(report.results.size(), 2u);
  EXPECT_EQ(report.results[0].config["BLOCK"], 128);
  EXPECT_EQ(report.results[1].config["BLOCK"], 256);
  EXPECT_EQ(seenBlock, 128); // the first config kept
  EXPECT_EQ(errorOf([&] { axpy.restrictTuneSpace([](const Config &) { return false; }); }),
            "kernel 'axpy': restricting its tuning space of 2 configs kept none");
}

// A launch option one config of the space sets and another does not is the default in the
// other, as in Triton's Config (before: the compiler started from the first config, so the
// second config below was compiled with num_warps 8 and a producer warpgroup as well).
TEST_F(JitInterpreterTest, AConfigWithoutALaunchOptionGetsTheDefaultNotTheFirstConfigs) {
  const char *source = R"(
@autotune(key = [n], configs = [{ BLOCK: 128, num_warps: 8, warp_specialize: 1, cluster_size: 2 }, { BLOCK: 64 }])
kernel scale(x: ptr<f32>, n: i32, const BLOCK: i32) {
    let r = program_id(0) * BLOCK + arange(0, BLOCK);
    store(x + r, load(x + r, mask = r < n) * 2.0, mask = r < n);
}
)";
  Kernel scale = Module::fromString(context, source, "scale.tk", options()).kernel("scale");
  std::vector<Config> seen;
  scale.restrictTuneSpace([&](const Config &c) {
    seen.push_back(c);
    return true;
  });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0]["num_warps"], 8);
  EXPECT_EQ(seen[0]["warp_specialize"], 1);
  EXPECT_EQ(seen[1]["num_warps"], 4);
  EXPECT_EQ(seen[1]["warp_specialize"], 0);
  EXPECT_EQ(seen[0]["cluster_size"], 2);
  EXPECT_EQ(seen[1]["cluster_size"], 1);
  EXPECT_FALSE(seen[1].integer("num_stages")); // (no config sets it: the compiler's default)
}

// A constant that does not fit its parameter, given by a launch or by a config of the tuning
// space, is named as the config's, not as a -D the program never wrote (before: "-D
// SHIFT=300 is not a valid i8").
TEST_F(JitInterpreterTest, AConstantThatDoesNotFitIsNamedAsTheConfigs) {
  const char *source = R"(
kernel shifted(out: ptr<i32>, const SHIFT: i8) {
    store(out, SHIFT as i32);
}
)";
  Kernel shifted = Module::fromString(context, source, "shifted.tk", options()).kernel("shifted");
  Buffer out(context, Scalar::I32, 1);
  std::string message = errorOf([&] { shifted.launch(Grid(1), {out}, {{"SHIFT", 300}}); });
  EXPECT_NE(message.find("the config's SHIFT=300 is not a valid i8"), std::string::npos) << message;
  EXPECT_EQ(message.find("-D"), std::string::npos) << message;
  const char *tuned = R"(
@autotune(key = [n], configs = [{ SHIFT: 300 }, { SHIFT: 3 }])
kernel shifted(out: ptr<i32>, n: i32, const SHIFT: i8) {
    store(out, SHIFT as i32);
}
)";
  Kernel shiftedTuned = Module::fromString(context, tuned, "tuned.tk", options()).kernel("shifted");
  message = errorOf([&] { shiftedTuned.launch(Grid(1), {out, 1}); });
  EXPECT_NE(message.find("kernel 'shifted' {SHIFT=300} does not compile"), std::string::npos) << message;
  EXPECT_NE(message.find("the config's SHIFT=300 is not a valid i8"), std::string::npos) << message;
}

// Narrowing or replacing the tuning space while another thread launches (before: the launch
// held a raw pointer to a winner the change freed, and crashed within milliseconds).
TEST_F(JitInterpreterTest, TheTuningSpaceMayChangeWhileAnotherThreadLaunches) {
  Kernel axpy = Module::fromString(context, kSource, "axpy.tk", options()).kernel("axpy");
  const int n = 256;
  std::atomic<bool> stop{false};
  std::atomic<int> launches{0};
  std::string failure;
  std::thread launcher([&] {
    try {
      Buffer bx = Buffer::of(context, ramp(n, 1.0f)), by = Buffer::of(context, ramp(n, 1.0f)),
             out(context, Scalar::F32, n);
      for (; !stop; ++launches)
        axpy.launch(GridSpec([&](const Config &c) { return Grid(tk::cdiv(n, c["BLOCK"])); }), {bx, by, out, 2.0f, n});
    } catch (const std::exception &e) {
      failure = e.what();
    }
  });
  auto start = std::chrono::steady_clock::now();
  while (launches < 500 && failure.empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    axpy.setTuneSpace({{{"BLOCK", 64}}, {{"BLOCK", 128}}}, {"n"});
    axpy.restrictTuneSpace([](const Config &c) { return c["BLOCK"] == 128; });
  }
  stop = true;
  launcher.join();
  EXPECT_EQ(failure, "");
}

TEST_F(JitInterpreterTest, EmptyKernelsAndModulesAreErrorsNotCrashes) {
  Kernel empty;
  EXPECT_EQ(errorOf([&] { (void)empty.name(); }),
            "tk::Kernel: an empty Kernel (default-constructed or moved from); take one from Module::kernel");
  Kernel axpy = Module::fromString(context, kSource, "axpy.tk", options()).kernel("axpy");
  Kernel moved = std::move(axpy);
  EXPECT_NE(errorOf([&] { axpy.launch(Grid(1), {}); }).find("an empty Kernel"), std::string::npos);
  EXPECT_NE(errorOf([&] { (void)axpy.stats(); }).find("an empty Kernel"), std::string::npos);
  EXPECT_EQ(errorOf([&] { moved.restrictTuneSpace(nullptr); }),
            "kernel 'axpy': restrictTuneSpace needs a function that says which configs to keep");
  Module module = Module::fromString(context, kSource, "axpy.tk", options());
  Module other = std::move(module);
  EXPECT_NE(errorOf([&] { (void)module.kernel("axpy"); }).find("an empty Module"), std::string::npos);
  EXPECT_NE(errorOf([&] { (void)module.kernelNames(); }).find("an empty Module"), std::string::npos);
  EXPECT_EQ(other.kernelNames().size(), 2u); // axpy and fill
}

TEST_F(JitInterpreterTest, ArgumentCountAndTypesAreCheckedByName) {
  Module module = Module::fromString(context, kSource, "axpy.tk", options());
  Kernel axpy = module.kernel("axpy");
  Buffer f32(context, Scalar::F32, 16), f16(context, Scalar::F16, 16);
  Consts block{{"BLOCK", 64}};
  EXPECT_EQ(errorOf([&] { axpy.launch(Grid(1), {f32, f32, f32, 1.0f}, block); }),
            "kernel 'axpy' takes 5 arguments (x: ptr<f32>, y: ptr<f32>, out: ptr<f32>, a: f32, n: i32), got 4");
  EXPECT_EQ(errorOf([&] { axpy.launch(Grid(1), {f32, f16, f32, 1.0f, 16}, block); }),
            "kernel 'axpy': argument 2 ('y') is ptr<f32>, got a buffer of f16");
  EXPECT_EQ(errorOf([&] { axpy.launch(Grid(1), {f32, 7, f32, 1.0f, 16}, block); }),
            "kernel 'axpy': argument 2 ('y') is ptr<f32>, got a signed integer");
  EXPECT_EQ(errorOf([&] { axpy.launch(Grid(1), {f32, f32, f32, 1.0f, 2.5}, block); }),
            "kernel 'axpy': argument 5 ('n') is i32, got a floating-point value");
  EXPECT_EQ(errorOf([&] { axpy.launch(Grid(1), {f32, f32, f32, 1.0f, int64_t(1) << 40}, block); }),
            "kernel 'axpy': argument 5 ('n') is i32, got 1099511627776, which does not fit");
  EXPECT_EQ(errorOf([&] { axpy.launch(Grid(1), {f32, f32, f32, f32, 16}, block); }),
            "kernel 'axpy': argument 4 ('a') is f32, got a buffer");
  EXPECT_EQ(errorOf([&] { axpy.launch(Grid(1), {f32, f32, DevicePointer{0x1000, Scalar::F32}, 1.0f, 16}, block); }),
            "kernel 'axpy': argument 3 ('out') is ptr<f32>, got a device pointer, which the interpreter cannot read "
            "(pass a tk::Buffer)");
  Context other{Backend::Interpreter};
  Buffer foreign(other, Scalar::F32, 16);
  EXPECT_EQ(errorOf([&] { axpy.launch(Grid(1), {f32, f32, foreign, 1.0f, 16}, block); }),
            "kernel 'axpy': argument 3 ('out') is ptr<f32>, got a buffer of another tk::Context");
}

TEST_F(JitInterpreterTest, GridsOutOfRangeNameTheKernel) {
  Kernel fill = Module::fromString(context, kSource, "axpy.tk", options()).kernel("fill");
  Buffer out(context, Scalar::I32, 128);
  EXPECT_EQ(errorOf([&] { fill.launch(Grid(-1), {out, 1, 1}); }),
            "kernel 'fill': grid dimension x is -1; it must be in [0, 2147483647]");
  EXPECT_EQ(errorOf([&] { fill.launch(Grid(1, 70000), {out, 1, 1}); }),
            "kernel 'fill': grid dimension y is 70000; it must be in [0, 65535]");
}

// A grid with a dimension of 0 runs no program, as Triton's launcher skips it (before: an
// error, so a kernel over an empty tensor needed its caller to check first).
TEST_F(JitInterpreterTest, AnEmptyGridRunsNothing) {
  Kernel fill = Module::fromString(context, kSource, "axpy.tk", options()).kernel("fill");
  Buffer out(context, Scalar::I32, 128);
  std::vector<int32_t> sevens(128, 7);
  out.upload(sevens.data(), sevens.size() * sizeof(int32_t));
  EXPECT_EQ(errorOf([&] { fill.launch(Grid(0), {out, 1, 1}); }), "");
  EXPECT_EQ(errorOf([&] { fill.launch(Grid(1, 0), {out, 1, 1}); }), "");
  EXPECT_EQ(out.toVector<int32_t>(), std::vector<int32_t>(128, 7));
  // The arguments are still checked.
  EXPECT_EQ(errorOf([&] { fill.launch(Grid(0), {out, 1}); }).substr(0, 30), "kernel 'fill' takes 3 argument");
}

TEST_F(JitInterpreterTest, AFaultNamesTheKernelAndTheContextStaysUsable) {
  Kernel fill = Module::fromString(context, kSource, "axpy.tk", options()).kernel("fill");
  Buffer small(context, Scalar::I32, 100), enough(context, Scalar::I32, 128);
  std::string message = errorOf([&] { fill.launch(Grid(1), {small, 5, 1}); });
  EXPECT_NE(message.find("axpy.tk:10:5: error: out-of-bounds store"), std::string::npos) << message;
  EXPECT_NE(message.find("kernel 'fill'"), std::string::npos) << message;
  fill.launch(Grid(1), {enough, 5, 1});
  EXPECT_EQ(enough.toVector<int32_t>(), std::vector<int32_t>(128, 5));
}

// The child of the next test: a kernel whose tiles outgrow the memory left to the process (an
// address-space limit of its own process, 1 GiB above what it holds before the launch).
TEST(JitOutOfMemoryChild, DISABLED_InterpreterRunsOutOfMemory) {
  Context ctx(Backend::Interpreter);
  std::string source = "kernel hog(x: ptr<f64>, out: ptr<f64>) {\n    let offs = arange(0, 1048576);\n", sum;
  for (int i = 0; i < 400; ++i) { // 8 MiB a tile: 3.2 GB live at the store
    source += "    let t" + std::to_string(i) + " = load(x + offs) + " + std::to_string(i) + ".0;\n";
    sum += (i ? " + t" : "t") + std::to_string(i);
  }
  source += "    store(out + offs, " + sum + ");\n}\n";
  JitOptions options;
  options.cacheDir = "";
  Kernel hog = Module::fromString(ctx, source, "hog.tk", options).kernel("hog");
  Buffer x = Buffer::of(ctx, std::vector<double>(1 << 20, 1.0)), out(ctx, Scalar::F64, 1 << 20);
  long pages = 0;
  if (FILE *statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%ld", &pages) != 1)
      pages = 0;
    std::fclose(statm);
  }
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE)) + (rlim_t(1) << 30);
  ::setrlimit(RLIMIT_AS, &limit);
  std::string message;
  try {
    hog.launch(Grid(1), {x, out});
  } catch (const Error &e) {
    message = e.what();
  }
  // Until the fix the launch left x's bytes moved out (bad_alloc is no RunFault), and reading
  // it back was a SIGSEGV.
  std::vector<double> back = x.toVector<double>();
  std::cout << "MESSAGE<" << message << " sum " << std::accumulate(back.begin(), back.end(), 0.0) << ">END\n";
}

TEST(JitOutOfMemory, TheInterpreterRunningOutOfMemoryIsAnErrorAndTheBuffersStay) {
  EXPECT_EQ(childMessage("JitOutOfMemoryChild.DISABLED_InterpreterRunsOutOfMemory", ""),
            "kernel 'hog': the interpreter ran out of memory (its tiles live in host memory) sum 1.04858e+06");
}

// An AOT header's launcher checks each buffer against the launch's context before it takes the
// buffer's device address (another context's, or a dead one's, was launched with it).
TEST(AotLaunch, ABufferOfAnotherOrADeadContextIsRefused) {
  Context launching(Backend::Interpreter);
  auto other = std::make_unique<Context>(Backend::Interpreter);
  Buffer x(*other, Scalar::F32, 16);
  EXPECT_EQ(errorOf([&] { aotBufferPointer("k", "x", x, Scalar::F32, launching); }),
            "kernel 'k': parameter 'x' is a buffer of another tk::Context");
  other.reset();
  std::string message = errorOf([&] { aotBufferPointer("k", "x", x, Scalar::F32, launching); });
  EXPECT_NE(message.find("the buffer's tk::Context was destroyed"), std::string::npos) << message;
}

TEST_F(JitInterpreterTest, ANullPointerToUploadOrDownloadIsAnError) {
  Buffer x(context, Scalar::F32, 100);
  EXPECT_EQ(errorOf([&] { x.upload(nullptr, 400); }), "tk::Buffer::upload: a null pointer given for 400 bytes");
  EXPECT_EQ(errorOf([&] { x.download(nullptr, 400); }), "tk::Buffer::download: a null pointer given for 400 bytes");
  Buffer empty(context, Scalar::F32, 0);
  empty.upload(nullptr, 0); // (nothing to read or write)
  empty.download(nullptr, 0);
}

// prefetch_l2 is only a hint, but the interpreter checks its range as a load's: the first and
// the last element of each pointer's range (not masked off) lie in one buffer.
TEST_F(JitInterpreterTest, PrefetchRangesAreCheckedAsLoads) {
  const char *source = R"(
kernel warm(x: ptr<f32>, y: ptr<f32>, count: i32, rows: i32) {
    let r = arange(0, 4);
    prefetch_l2(x + r * 8, count, mask = r < rows);
    prefetch_l2(x, count);
    store(y + r, load(x + r * 8));
}
)";
  Kernel warm = Module::fromString(context, source, "warm.tk", options()).kernel("warm");
  Buffer x(context, Scalar::F32, 32), y(context, Scalar::F32, 4);
  warm.launch(Grid(1), {x, y, 8, 4});  // each row's 8 elements
  warm.launch(Grid(1), {x, y, 0, 4});  // nothing
  warm.launch(Grid(1), {x, y, 24, 2}); // rows 2 and 3 (past the end with 24) masked off
  std::string message = errorOf([&] { warm.launch(Grid(1), {x, y, 24, 3}); });
  EXPECT_NE(message.find("warm.tk:4:5: error: out-of-bounds prefetch_l2: element 2 of the tile"), std::string::npos)
      << message;
  message = errorOf([&] { warm.launch(Grid(1), {x, y, 33, 0}); });
  EXPECT_NE(message.find("warm.tk:5:5: error: out-of-bounds prefetch_l2"), std::string::npos) << message;
}

TEST_F(JitInterpreterTest, ModuleErrorsCarryTheDiagnostics) {
  std::string message = errorOf([&] { Module::fromString(context, "kernel k(x: ptr<f32>) { let y = ; }", "bad.tk"); });
  EXPECT_EQ(message.rfind("tk::Module: bad.tk does not compile:\nbad.tk:1:33: error: unexpected ';'", 0), 0u) << message;
  message = errorOf([&] { Module::fromFile(context, "/nonexistent/k.tk"); });
  EXPECT_NE(message.find("/nonexistent/k.tk"), std::string::npos) << message;
  // Refused before it is copied or hashed (a 1 GiB string took 6 GB on its way to the parser).
  std::string huge((16u << 20) + 1, ' ');
  EXPECT_EQ(errorOf([&] { Module::fromString(context, huge, "huge.tk"); }),
            "tk::Module: huge.tk: the source is 16777217 bytes, more than 16 MiB");
  Module module = Module::fromString(context, kSource, "axpy.tk", options());
  EXPECT_EQ(errorOf([&] { module.kernel("gemm"); }), "tk::Module: axpy.tk has no kernel 'gemm' (kernels: axpy, fill)");
  Kernel fill = module.kernel("fill");
  Buffer out(context, Scalar::I32, 128);
  EXPECT_EQ(errorOf([&] { fill.launch(Grid(1), {out, 1, 1}, {{"BLOK", 64}}); }),
            "kernel 'fill' has no constant 'BLOK' (its constants: BLOCK; launch options: num_warps, num_stages, warp_specialize, cluster_size)");
  Kernel axpy = module.kernel("axpy");
  Buffer f(context, Scalar::F32, 64);
  axpy.setTuneSpace({}, {}); // no space: BLOCK must come with the launch
  EXPECT_EQ(errorOf([&] { axpy.launch(Grid(1), {f, f, f, 1.0f, 64}); }),
            "kernel 'axpy': constant BLOCK has no value: give it in the launch's constants ({{\"BLOCK\", ...}}), a "
            "default, or an @autotune space");
}

TEST_F(JitInterpreterTest, KernelsOfOneModuleShareTheirCompiledVariants) {
  Module module = Module::fromString(context, kSource, "axpy.tk", options());
  Buffer out(context, Scalar::I32, 256);
  module.kernel("fill").launch(Grid(1), {out, 3, 2});
  module.kernel("fill").launch(Grid(1), {out, 4, 2});
  EXPECT_EQ(module.kernel("fill").stats().compiles, 1);
  std::vector<int32_t> got = out.toVector<int32_t>();
  for (int i = 0; i < 256; ++i)
    ASSERT_EQ(got[i], i % 2 == 0 ? 4 : 0) << i;
}

TEST_F(JitInterpreterTest, ThreadsLaunchOneKernelConcurrently) {
  Kernel axpy = Module::fromString(context, kSource, "axpy.tk", options()).kernel("axpy");
  const int n = 500;
  auto x = ramp(n, 0.5f), y = ramp(n, 1.0f);
  std::vector<std::thread> threads;
  std::vector<std::string> failures(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      try {
        Buffer bx = Buffer::of(context, x), by = Buffer::of(context, y), out(context, Scalar::F32, n);
        for (int round = 0; round < 10; ++round) {
          float a = float(t * 10 + round);
          axpy.launch(Grid((n + 127) / 128), {bx, by, out, a, n}, {{"BLOCK", 128}});
          std::vector<float> got = out.toVector<float>();
          for (int i = 0; i < n; ++i)
            if (got[i] != std::fma(a, x[i], y[i]))
              throw Error("thread " + std::to_string(t) + " round " + std::to_string(round) + ": element " +
                          std::to_string(i) + " is wrong");
        }
      } catch (const std::exception &e) {
        failures[t] = e.what();
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (const std::string &f : failures)
    EXPECT_EQ(f, "");
  EXPECT_EQ(axpy.stats().compiles, 1); // one variant, shared
}

TEST_F(JitInterpreterTest, TuningSpacesNameTheirParameters) {
  Kernel axpy = Module::fromString(context, kSource, "axpy.tk", options()).kernel("axpy");
  EXPECT_EQ(errorOf([&] { axpy.setTuneSpace({{{"BLOCK", 64}}}, {"m"}); }),
            "kernel 'axpy': tuning key 'm' is not an integer parameter (x: ptr<f32>, y: ptr<f32>, out: ptr<f32>, "
            "a: f32, n: i32)");
  EXPECT_EQ(errorOf([&] { axpy.setTuneSpace({{{"BLOCK", 64}}}, {"n"}, {"a"}); }),
            "kernel 'axpy': reset_to_zero entry 'a' is not a pointer parameter (x: ptr<f32>, y: ptr<f32>, "
            "out: ptr<f32>, a: f32, n: i32)");
  EXPECT_EQ(errorOf([&] { axpy.setTuneSpace({{{"BLOCK", 64}}}, {"n"}, {"out"}, {"out"}); }),
            "kernel 'axpy': 'out' is in both reset_to_zero and restore_value (each timed run starts from zeros or "
            "from the values given: name it in one)");
  EXPECT_EQ(errorOf([&] { axpy.setTuneSpace({{{"BLOCK", 64}}}, {"n"}, {}, {"n"}); }),
            "kernel 'axpy': restore_value entry 'n' is not a pointer parameter (x: ptr<f32>, y: ptr<f32>, "
            "out: ptr<f32>, a: f32, n: i32)");
}

TEST_F(JitInterpreterTest, GreedyAdvanceIsNotSpecializedOnItsStep) {
  // Its step numbers change every decode step: specialized on their divisibility, a decode
  // compiled new variants in its timed steps (2, 4, 8, 16). JitGpuTest's twin counts them.
  Kernel advance = Module::fromFile(context, stdlibDir() + "/std/sampling.tk", options()).kernel("greedy_advance");
  for (const char *name : {"step", "steps", "kept_first", "kept_rows"}) {
    auto it = std::find_if(advance.params().begin(), advance.params().end(),
                           [&](const ParamInfo &p) { return p.name == name; });
    ASSERT_NE(it, advance.params().end()) << name;
    EXPECT_TRUE(it->nospec) << name;
  }
}

TEST_F(JitInterpreterTest, BufferCopiesCheckTheirSizes) {
  Buffer b(context, Scalar::F32, 4);
  std::vector<float> three(3);
  EXPECT_EQ(errorOf([&] { b.upload(three.data(), 12); }), "tk::Buffer::upload: 12 bytes given for a buffer of 16 bytes");
  EXPECT_EQ(errorOf([&] { Buffer::ofBits(context, Scalar::F16, std::vector<uint32_t>(4)); }),
            "Buffer::ofBits: f16 elements are 2 bytes, the vector's are 4");
}

TEST(JitSpecialization, AUnitStrideMakesStoresContiguous) {
  // Specialized on stride == 1, the strided store becomes 16-byte vector stores.
  CompileOptions generic, unit;
  generic.kernel = unit.kernel = "fill";
  generic.defines = unit.defines = {{"BLOCK", "512"}}; // four elements a thread
  unit.equalToOne = {"stride"};
  std::string source = kSource;
  auto emit = [&](const CompileOptions &options) {
    Compiler compiler(options);
    std::ostringstream out;
    EXPECT_TRUE(compiler.load("axpy.tk", &source) && compiler.emit(EmitKind::PTX, out)) << compiler.diagnosticsText();
    return out.str();
  };
  std::string genericPtx = emit(generic), unitPtx = emit(unit);
  EXPECT_EQ(genericPtx.find("st.global.v4"), std::string::npos);
  EXPECT_NE(unitPtx.find("st.global.v4.b32"), std::string::npos) << unitPtx;
}

TEST(JitTuningDatabase, EntriesRoundTripAndGarbageIsRefused) {
  TuningEntry entry{"matmul", "abc123", "NVIDIA H200", "eeee1", "M=4096, N=4096, K=4096",
                    Config{{{"BM", 128}, {"num_warps", 4}, {"SCALE", 0.5}, {"EVEN", true}}}, 0.3211};
  std::string json = tuningEntryJson(entry);
  EXPECT_NE(json.find("\"key\": {\n    \"K\": 4096,\n    \"M\": 4096,\n    \"N\": 4096\n  }"), std::string::npos) << json;
  std::string error;
  std::optional<TuningEntry> back = parseTuningEntry(json, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->kernel, "matmul");
  EXPECT_EQ(back->gpu, "NVIDIA H200");
  EXPECT_EQ(back->specialization, "eeee1");
  EXPECT_EQ(back->config.values, entry.config.values);
  EXPECT_EQ(back->keyValues, "K=4096, M=4096, N=4096");
  EXPECT_DOUBLE_EQ(back->ms, 0.3211);
  EXPECT_FALSE(parseTuningEntry(json.substr(0, json.size() / 2), error));
  EXPECT_EQ(error.rfind("not a tuning entry (bad JSON at byte ", 0), 0u) << error;
  EXPECT_FALSE(parseTuningEntry("{\"kernel\": \"k\"}", error));
  EXPECT_EQ(error, "not a tuning entry (no value 'kernel_hash')");
  // Values strtod reads but JSON has no number for (inf, nan, hex, a leading '+') are written
  // as strings, so the file stays JSON (they were written bare, which no parser took back);
  // an infinite time too. A key value with a control character or a quote is escaped.
  TuningEntry odd{"k", "h", "gpu \"x\"\t", "s", "A=inf, B=nan, C=0x10, D=+3, E=-0.5e-3, F=012",
                  Config{{{"SCALE", std::numeric_limits<double>::infinity()}}}, std::numeric_limits<double>::infinity()};
  std::string oddJson = tuningEntryJson(odd);
  for (const char *member : {"\"A\": \"inf\"", "\"B\": \"nan\"", "\"C\": \"0x10\"", "\"D\": \"+3\"", "\"E\": -0.5e-3",
                             "\"F\": \"012\"", "\"time_ms\": \"inf\""})
    EXPECT_NE(oddJson.find(member), std::string::npos) << member << " in " << oddJson;
  std::optional<TuningEntry> oddBack = parseTuningEntry(oddJson, error);
  ASSERT_TRUE(oddBack) << error << "\n" << oddJson;
  EXPECT_EQ(oddBack->gpu, "gpu \"x\"\t");
  // (A number reads back as the double it is: -0.5e-3 as %.17g prints it.)
  EXPECT_EQ(oddBack->keyValues, "A=inf, B=nan, C=0x10, D=+3, E=-0.00050000000000000001, F=012");
  EXPECT_TRUE(std::isinf(oddBack->ms));
}

// Each argument's specialization, and its text in the disk cache's keys and the tuning
// database: the characters the keys had before Specialization was a struct.
TEST(JitSpecialization, PointersAreSpecializedOnTheirAlignment) {
  Specialization aligned = Specialization::ofPointer(0x7f0000000100); // an allocation: 256 bytes
  EXPECT_EQ(aligned.divisibility(), 16);
  EXPECT_FALSE(aligned.equalsOne);
  Specialization eight = Specialization::ofPointer(0x7f0000000108), odd = Specialization::ofPointer(0x7f0000000101);
  EXPECT_EQ(eight.divisibility(), 8);
  EXPECT_EQ(odd.divisibility(), 1);
  EXPECT_EQ(Specialization::ofPointer(0x7f0000000104).divisibility(), 4);
  EXPECT_EQ(Specialization::ofPointer(1).divisibility(), 1); // address 1: not "equal to one"
  EXPECT_FALSE(Specialization::ofPointer(1).equalsOne);
  EXPECT_EQ(specializationKey({aligned, eight, odd, Specialization::ofPointer(0x7f0000000102)}), "edab");
}

TEST(JitSpecialization, IntegersAreSpecializedOnDivisibilityAndOne) {
  Specialization one = Specialization::ofInteger(1);
  EXPECT_TRUE(one.equalsOne);
  EXPECT_EQ(Specialization::ofInteger(4096).divisibility(), 16);
  EXPECT_EQ(Specialization::ofInteger(1000).divisibility(), 8); // 1000 = 8 * 125
  EXPECT_EQ(Specialization::ofInteger(12).divisibility(), 4);
  EXPECT_EQ(Specialization::ofInteger(6).divisibility(), 2);
  EXPECT_EQ(Specialization::ofInteger(7).divisibility(), 1);
  // 0 and negative integers claim no divisor: as a row stride, TMA (which a divisible stride
  // lets the compiler choose) cannot copy with them; before, lda = 0 failed at launch.
  EXPECT_EQ(Specialization::ofInteger(0).divisibility(), 1);
  EXPECT_EQ(Specialization::ofInteger(-32).divisibility(), 1);
  EXPECT_FALSE(Specialization::ofInteger(-1).equalsOne);
  EXPECT_FALSE(Specialization().divisibility()); // nospec, floats, bools, the interpreter
  EXPECT_EQ(specializationKey({Specialization::ofInteger(4096), one, Specialization::ofInteger(1000),
                               Specialization::ofInteger(7), Specialization()}),
            "e1da-");
  EXPECT_EQ(specializationKey({}), ""); // the interpreter's
}

// The characters of the keys, and the compile options, as the text-coded specialization had
// them (but for integers of 0 and below, which now claim no divisor): the same variants, the
// same PTX.
TEST(JitSpecialization, KeysAndCompileOptionsAreThoseOfTheCharacterCodes) {
  auto oldLog2 = [](uint64_t value) {
    int bits = 0;
    while (bits < 4 && value % (uint64_t(2) << bits) == 0)
      ++bits;
    return bits;
  };
  std::vector<int64_t> values{INT64_MIN, INT64_MAX, -4096, -17, -16, -1, 1000, 1 << 20, int64_t(1) << 40};
  for (int64_t v = 0; v <= 4096; ++v)
    values.push_back(v);
  for (int64_t v : values) {
    ASSERT_EQ(divisibilityLog2(uint64_t(v)), oldLog2(uint64_t(v))) << v;
    char pointer = char('a' + oldLog2(uint64_t(v)));
    char integer = v == 1 ? '1' : v <= 0 ? 'a' : char('a' + oldLog2(uint64_t(v)));
    std::string key = specializationKey({Specialization::ofPointer(uint64_t(v)), Specialization::ofInteger(v)});
    ASSERT_EQ(key, std::string({pointer, integer})) << v;
  }
  // Kernel::Impl::compileOptions before: '1' equal to one; 'a'..'e' divisible by 1..16, where
  // 'a' counts for pointers only.
  Type ptr = Type::value(ElemType{Scalar::F32, true}), i32 = Type::scalar(Scalar::I32);
  std::vector<ParamInfo> params{{"x", ptr}, {"p", ptr}, {"n", i32}, {"s", i32}, {"odd", i32}, {"f", ptr}, {"m", i32}};
  std::vector<Specialization> spec{Specialization::ofPointer(0x100), Specialization::ofPointer(0x101),
                                   Specialization::ofInteger(1000),   Specialization::ofInteger(1),
                                   Specialization::ofInteger(7),      Specialization(),
                                   Specialization()};
  EXPECT_EQ(specializationKey(spec), "ead1a--");
  CompileOptions options;
  specialize(options, params, spec);
  EXPECT_EQ(options.divisibility, (std::map<std::string, int64_t>{{"x", 16}, {"p", 1}, {"n", 8}}));
  EXPECT_EQ(options.equalToOne, std::vector<std::string>{"s"});
}

TEST(JitSpecialization, ComparedAndHashedAsValues) {
  EXPECT_EQ(Specialization::ofInteger(32), Specialization::ofInteger(4096)); // both: divisible by 16
  EXPECT_NE(Specialization::ofInteger(1), Specialization::ofInteger(3));     // == 1 against odd
  EXPECT_NE(Specialization::ofInteger(7), Specialization());
  EXPECT_EQ(Specialization::ofPointer(0x100), Specialization::ofInteger(16)); // the same assumption
  // A launch's key, looked up where its parts are, against the keys stored.
  Consts consts{{"BLOCK", 64}};
  std::vector<Specialization> spec{Specialization::ofPointer(0x100), Specialization::ofInteger(1)};
  LaunchKeyRef ref{consts, spec};
  LaunchKey stored = ref.key();
  EXPECT_TRUE(ref == stored);
  std::vector<Specialization> other{Specialization::ofPointer(0x100), Specialization::ofInteger(3)};
  EXPECT_FALSE((LaunchKeyRef{consts, other} == stored));
  EXPECT_NE(ref.hash(), (LaunchKeyRef{consts, other}.hash()));
  Consts asFloat{{"BLOCK", 64.0}}, otherName{{"BLOCKS", 64}}, int64{{"BLOCK", int64_t(64)}};
  EXPECT_FALSE((LaunchKeyRef{asFloat, spec} == stored)); // a float 64 is another constant
  EXPECT_FALSE((LaunchKeyRef{otherName, spec} == stored));
  EXPECT_TRUE((LaunchKeyRef{int64, spec} == stored));
  EXPECT_EQ((LaunchKeyRef{int64, spec}.hash()), ref.hash());
  std::vector<Arg> args{int32_t(4096), int32_t(7)};
  std::vector<size_t> tuneIndex{0, 1};
  LaunchKeyRef tuned{consts, spec, args.data(), &tuneIndex};
  EXPECT_FALSE(tuned == stored);
  EXPECT_EQ(tuned.key().tuneValues, (std::vector<int64_t>{4096, 7}));

  VariantTable table;
  auto first = std::make_shared<Variant>(), second = std::make_shared<Variant>();
  EXPECT_EQ(table.put(ref, first), first.get());
  EXPECT_EQ(table.put(tuned, second), second.get());
  EXPECT_EQ(table.size(), 2u);
  ASSERT_TRUE(table.find(LaunchKeyRef{int64, spec}));
  EXPECT_EQ(table.find(LaunchKeyRef{int64, spec})->get(), first.get());
  EXPECT_EQ(table.find(tuned)->get(), second.get());
  EXPECT_FALSE(table.find(LaunchKeyRef{consts, other}));
  table.put(ref, second); // replaces
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.find(ref)->get(), second.get());
  // Many variants (a tuned kernel on many sizes): indexed, each found, replaced in place.
  std::vector<Arg> sizes;
  for (int32_t n = 0; n < 200; ++n)
    sizes.emplace_back(n);
  std::vector<size_t> first0{0};
  std::vector<std::shared_ptr<Variant>> made;
  for (size_t n = 0; n < sizes.size(); ++n) {
    made.push_back(std::make_shared<Variant>());
    table.put(LaunchKeyRef{consts, spec, &sizes[n], &first0}, made.back());
  }
  EXPECT_EQ(table.size(), 202u);
  for (size_t n = 0; n < sizes.size(); ++n)
    ASSERT_EQ(table.find(LaunchKeyRef{consts, spec, &sizes[n], &first0})->get(), made[n].get()) << n;
  EXPECT_EQ(table.find(ref)->get(), second.get());
  EXPECT_EQ(table.find(tuned)->get(), second.get());
  table.put(LaunchKeyRef{consts, spec, &sizes[7], &first0}, first);
  EXPECT_EQ(table.size(), 202u);
  EXPECT_EQ(table.find(LaunchKeyRef{consts, spec, &sizes[7], &first0})->get(), first.get());
  table.clear();
  EXPECT_FALSE(table.find(ref));
}

// Constants of each kind, and the one text each has: in cache keys (Config::str) and in the
// compiler's -D defines. The same text as the former text-carrying Const, except where noted.
TEST(JitConstants, EachKindHasOneText) {
  EXPECT_EQ(Const(128).str(), "128");
  EXPECT_EQ(Const(int64_t(-3)).str(), "-3");
  EXPECT_EQ(Const(uint32_t(7)).str(), "7");
  EXPECT_EQ(Const(0.5).str(), "0.5");
  EXPECT_EQ(Const(2.0).str(), "2.0"); // stays a float literal
  EXPECT_EQ(Const(1e-6).str(), "9.9999999999999995e-07");
  EXPECT_EQ(Const(0.5f).str(), "0.5");
  EXPECT_EQ(Const(true).str(), "true");
  EXPECT_EQ(Const(false).str(), "false");
  EXPECT_EQ(Const(int64_t(4096)).kind(), Const::Kind::Int);
  EXPECT_EQ(Const(0.5f).kind(), Const::Kind::Float);
  EXPECT_EQ(Const(true).kind(), Const::Kind::Bool);
  EXPECT_EQ(errorOf([] { (void)Const(~uint64_t(0)); }),
            "tk::Const: 18446744073709551615 does not fit in a 64-bit signed constant");
}

TEST(JitConstants, ComparedByKindAndValue) {
  EXPECT_EQ(Const(64), Const(int64_t(64)));
  EXPECT_NE(Const(1), Const(1.0));
  EXPECT_NE(Const(1), Const(true));
  EXPECT_NE(Const(0.0), Const(-0.0)); // bit for bit, as their texts differ
  EXPECT_EQ(Const(std::nan("")), Const(std::nan("")));
  EXPECT_EQ(Const(0.25).hash(), Const(0.25).hash());
}

TEST(JitConstants, ParsedFromTextAsTheCompilerReadsIt) {
  EXPECT_EQ(Const::parse("128"), Const(128));
  EXPECT_EQ(Const::parse("-7"), Const(-7));
  EXPECT_EQ(Const::parse("0.5"), Const(0.5));
  EXPECT_EQ(Const::parse("1e-6"), Const(1e-6));
  EXPECT_EQ(Const::parse("true"), Const(true));
  EXPECT_EQ(Const::parse("false"), Const(false));
  // Deliberate changes: text is read as a value, so keys and defines hold its canonical text.
  EXPECT_EQ(Const::parse("0x80")->str(), "128"); // the compiler read 0x80 as 128 before too
  EXPECT_EQ(Const::parse("1.50")->str(), "1.5");
  EXPECT_FALSE(Const::parse(""));
  EXPECT_FALSE(Const::parse("BLOCK"));
  EXPECT_FALSE(Const::parse("12abc"));
  // What the compiler writes of an @autotune config comes back unchanged.
  for (const char *text : {"64", "0.5", "0.10000000000000001", "1e+20", "-3"})
    EXPECT_EQ(Const::parse(text)->str(), text);
}

TEST(JitConstants, ConfigsAreTypedAndRenderedOnce) {
  Config config{{{"BM", 128}, {"SCALE", 0.5}, {"EVEN", true}, {"num_warps", 4}}};
  EXPECT_EQ(config.str(), "BM=128, EVEN=true, SCALE=0.5, num_warps=4");
  std::map<std::string, std::string> defines{{"BM", "128"}, {"EVEN", "true"}, {"SCALE", "0.5"}, {"num_warps", "4"}};
  EXPECT_EQ(compilerDefines(config), defines);
  EXPECT_EQ(config["BM"], 128);
  EXPECT_FALSE(config.integer("SCALE"));
  EXPECT_FALSE(config.integer("EVEN"));
  EXPECT_EQ(errorOf([&] { (void)config["SCALE"]; }),
            "the config {BM=128, EVEN=true, SCALE=0.5, num_warps=4} has no integer 'SCALE'");
  EXPECT_EQ(configOf({{"BLOCK", 1024}, {"HAS_BIAS", false}}).str(), "BLOCK=1024, HAS_BIAS=false");
}

TEST_F(JitInterpreterTest, EqualConstantsOfOtherCTypesShareAVariant) {
  Module module = Module::fromString(context, kSource, "axpy.tk", options());
  Kernel fill = module.kernel("fill");
  Buffer out(context, Scalar::I32, 256);
  fill.launch(Grid(1), {out, 5, 1}, {{"BLOCK", 64}});
  fill.launch(Grid(1), {out, 6, 1}, {{"BLOCK", int64_t(64)}});
  fill.launch(Grid(1), {out, 7, 1}, {{"BLOCK", uint64_t(64)}});
  EXPECT_EQ(fill.stats().compiles, 1);
  fill.launch(Grid(1), {out, 8, 2}, {{"BLOCK", 32}});
  EXPECT_EQ(fill.stats().compiles, 2);
}

const char *kDTypeSource = R"(
kernel scale(x: ptr<T>, y: ptr<T>, a: f32, n: i32, const BLOCK: i32 = 64, const T: dtype = f32) {
    let i = program_id(0) * BLOCK + arange(0, BLOCK);
    let m = i < n;
    store(y + i, ((load(x + i, mask = m) as f32) * a) as T, mask = m);
}
kernel untyped(x: ptr<T>, const T: dtype) { }
)";

TEST_F(JitInterpreterTest, ADTypeConstantTypesThePointerParameters) {
  for (int round = 0; round < 2; ++round) { // the second module's declarations come from the disk cache
    Kernel scale = Module::fromString(context, kDTypeSource, "scale.tk", options()).kernel("scale");
    const int n = 100;
    std::vector<float> x = ramp(n, 0.25f);
    Buffer x32 = Buffer::of(context, x), y32(context, Scalar::F32, n);
    scale.launch(Grid(2), {x32, y32, 2.0f, n}); // T's default, f32
    std::vector<double> x64d(x.begin(), x.end());
    Buffer x64 = Buffer::of(context, x64d), y64(context, Scalar::F64, n);
    scale.launch(Grid(2), {x64, y64, 2.0f, n}, {{"T", Scalar::F64}});
    std::vector<float> out32 = y32.toVector<float>();
    std::vector<double> out64 = y64.toVector<double>();
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(out32[i], x[i] * 2.0f) << i;
      ASSERT_EQ(out64[i], double(x[i]) * 2.0) << i;
    }
    EXPECT_EQ(errorOf([&] {
                scale.launch(Grid(2), {x32, y32, 2.0f, n}, {{"T", Scalar::F64}});
              }),
              "kernel 'scale': argument 1 ('x') is ptr<f64>, got a buffer of f32");
    EXPECT_EQ(errorOf([&] {
                scale.launch(Grid(2), {x64, y64, 2.0f, n});
              }),
              "kernel 'scale': argument 1 ('x') is ptr<f32>, got a buffer of f64");
    EXPECT_EQ(errorOf([&] {
                scale.launch(Grid(2), {x32, y32, 2.0f});
              }),
              "kernel 'scale' takes 4 arguments (x: ptr<T>, y: ptr<T>, a: f32, n: i32), got 3");
    EXPECT_EQ(errorOf([&] {
                scale.launch(Grid(2), {x32, y32, 2.0f, n}, {{"T", 3}});
              }),
              "kernel 'scale': constant 'T' is a dtype (such as tk::Scalar::F16), got 3");
    EXPECT_EQ(errorOf([&] {
                scale.launch(Grid(2), {x32, y32, 2.0f, n}, {{"BLOCK", Scalar::F16}});
              }),
              "kernel 'scale': constant 'BLOCK' is a number (i32), got the type f16");
  }
  Kernel untyped = Module::fromString(context, kDTypeSource, "scale.tk", options()).kernel("untyped");
  Buffer u8(context, Scalar::U8, 4);
  EXPECT_EQ(errorOf([&] { untyped.launch(Grid(1), {u8}); }),
            "kernel 'untyped': constant T has no value: give it in the launch's constants ({{\"T\", "
            "tk::Scalar::F16}}, ...) or a default (parameter 'x' is ptr<T>)");
  untyped.launch(Grid(1), {u8}, {{"T", Scalar::U8}});
}

TEST(JitConstants, DTypesAreConstantsToo) {
  EXPECT_EQ(Const(Scalar::F16).str(), "f16");
  EXPECT_EQ(Const(Scalar::BF16).kind(), Const::Kind::DType);
  EXPECT_EQ(Const(Scalar::BF16).dtype(), Scalar::BF16);
  EXPECT_EQ(Const::parse("bf16"), Const(Scalar::BF16));
  EXPECT_EQ(Const::parse("f8e4m3")->str(), "f8e4m3");
  EXPECT_NE(Const(Scalar::I32), Const(int(Scalar::I32)));
  EXPECT_FALSE(Const::parse("i7"));
  Config config{{{"BLOCK", 64}, {"T", Scalar::F16}}};
  EXPECT_EQ(config.str(), "BLOCK=64, T=f16"); // in cache keys as in the compiler's defines
  EXPECT_EQ(compilerDefines(config).at("T"), "f16");
  EXPECT_FALSE(config.integer("T"));
}

TEST(JitModuleCache, DeclarationsComeBackUntilAnImportChanges) {
  test::TempDir dir("tk-module-cache");
  std::string helper = dir.path() + "/helper.tk", main = dir.path() + "/main.tk";
  auto write = [](const std::string &path, const std::string &text) {
    std::string error;
    ASSERT_TRUE(writeAtomically(path, text, error)) << error;
  };
  write(helper, "fn twice(x) { return x + x; }\n");
  std::string source = "import \"helper.tk\";\n"
                       "@autotune(key = [n], space = { B: [64, 128], num_warps: [2, 4] }, reset_to_zero = [p], "
                       "restore_value = [q])\n"
                       "kernel k(p: ptr<f32>, n: i32, nospec s: i64, const B: i32, q: ptr<i32>) {\n"
                       "  store(p + arange(0, B), twice(full([B], 1.0, f32)));\n}\n";
  write(main, source);
  CompileOptions options;
  Compiler compiler(options);
  std::vector<KernelDecl> decls;
  ASSERT_TRUE(compiler.load(main) && compiler.declarations(decls)) << compiler.diagnosticsText();
  DiskCache cache(dir.path() + "/cache");
  std::string key = moduleKey(main, source, {});
  ModuleEntry entry{decls, sourcesHash(compiler.sources())};
  storeModuleEntry(cache, key, entry, compiler.sources());
  std::optional<ModuleEntry> back = loadModuleEntry(cache, key);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->sourceHash, entry.sourceHash);
  ASSERT_EQ(back->decls.size(), 1u);
  const KernelDecl &k = back->decls[0];
  EXPECT_EQ(k.name, "k");
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.params[0].type.str(), "ptr<f32>");
  EXPECT_TRUE(k.params[2].nospec);
  EXPECT_EQ(k.params[2].type.str(), "i64");
  EXPECT_TRUE(k.params[3].isConst);
  EXPECT_EQ(k.tuneKey, std::vector<std::string>{"n"});
  EXPECT_EQ(k.resetToZero, std::vector<std::string>{"p"});
  EXPECT_EQ(k.restoreValue, std::vector<std::string>{"q"});
  EXPECT_EQ(k.configs, decls[0].configs);
  EXPECT_EQ(k.configs.size(), 4u);
  write(helper, "fn twice(x) { return 2.0 * x; }\n"); // an import changed: parse again
  EXPECT_FALSE(loadModuleEntry(cache, key));
}

TEST(JitContext, NoGpuIsAClearError) {
  if (cuda::available())
    GTEST_SKIP() << "a GPU is present: this test checks machines without one";
  std::string message = errorOf([] { Context context(Backend::Cuda); });
  EXPECT_EQ(message.rfind("tk::Context: ", 0), 0u) << message;
  EXPECT_NE(message.find("libcuda.so.1"), std::string::npos) << message;
  EXPECT_NE(message.find("(tk::Backend::Interpreter runs kernels on the CPU)"), std::string::npos) << message;
  EXPECT_EQ(Context::defaultBackend(), Backend::Interpreter);
}

// ---- On the GPU ----

class JitGpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!cuda::available())
      GTEST_SKIP() << "no GPU or CUDA driver on this machine";
    context = std::make_unique<Context>(Backend::Cuda);
  }
  JitOptions options() {
    JitOptions o;
    o.cacheDir = cache.path();
    return o;
  }
  test::TempDir cache{"tk-jit-gpu-test"};
  std::unique_ptr<Context> context;
};

TEST_F(JitGpuTest, LaunchOnAStreamAndFromTheDiskCacheInANewModule) {
  const int n = 100000;
  auto x = ramp(n, 0.25f), y = ramp(n, 1.5f);
  Buffer bx = Buffer::of(*context, x), by = Buffer::of(*context, y), out(*context, Scalar::F32, n);
  Stream stream = context->createStream();
  {
    Kernel axpy = Module::fromString(*context, kSource, "axpy.tk", options()).kernel("axpy");
    axpy.launch(Grid((n + 255) / 256), {bx, by, out, -1.0f, n}, {{"BLOCK", 256}}, stream);
    stream.synchronize();
    expectAxpy(out.toVector<float>(), x, y, -1.0f);
    EXPECT_EQ(axpy.stats().compiles, 1);
  }
  Kernel again = Module::fromString(*context, kSource, "axpy.tk", options()).kernel("axpy");
  again.launch(Grid((n + 255) / 256), {bx, by, out, 2.0f, n}, {{"BLOCK", 256}});
  expectAxpy(out.toVector<float>(), x, y, 2.0f);
  EXPECT_EQ(again.stats().compiles, 0);
  EXPECT_EQ(again.stats().diskHits, 1);
}

TEST_F(JitGpuTest, TheTuningDatabaseSurvivesTheModule) {
  const int n = 1 << 20;
  auto x = ramp(n, 1e-3f), y = ramp(n, 2e-3f);
  Buffer bx = Buffer::of(*context, x), by = Buffer::of(*context, y), out(*context, Scalar::F32, n);
  GridSpec grid([&](const Config &c) { return Grid((n + c["BLOCK"] - 1) / c["BLOCK"]); });
  {
    Kernel axpy = Module::fromString(*context, kSource, "axpy.tk", options()).kernel("axpy");
    TuneReport report = axpy.tune(grid, {bx, by, out, 0.5f, n});
    ASSERT_EQ(report.results.size(), 3u);
    for (const TuneResult &r : report.results)
      EXPECT_TRUE(r.status.empty() && r.ms && *r.ms > 0) << r.config.str() << ": " << r.status;
    EXPECT_FALSE(report.fromDatabase);
    EXPECT_EQ(axpy.stats().tunings, 1);
  }
  auto entries = std::distance(std::filesystem::directory_iterator(cache.path() + "/tuning"),
                               std::filesystem::directory_iterator());
  EXPECT_EQ(entries, 1);
  Kernel axpy = Module::fromString(*context, kSource, "axpy.tk", options()).kernel("axpy");
  axpy.launch(grid, {bx, by, out, 0.5f, n});
  expectAxpy(out.toVector<float>(), x, y, 0.5f);
  EXPECT_EQ(axpy.stats().tunings, 0);
  EXPECT_EQ(axpy.stats().databaseHits, 1);
}

TEST_F(JitGpuTest, GridFunctionsSeeHowManyProgramsFit) {
  // The driver's occupancy: axpy's 128 threads (BLOCK 256, 4 warps) fit 16 at most by
  // threads (2048 a multiprocessor on sm_80 and later); 8 warps half as many.
  const int n = 1 << 16;
  Buffer bx = Buffer::of(*context, ramp(n, 1.0f)), by = Buffer::of(*context, ramp(n, 1.0f)), out(*context, Scalar::F32, n);
  Kernel axpy = Module::fromString(*context, kSource, "axpy.tk", options()).kernel("axpy");
  for (int warps : {4, 8}) {
    int64_t resident = 0, multiprocessors = 0;
    axpy.launch(GridSpec([&](const Config &c) {
                  resident = c[kResidentPrograms];
                  multiprocessors = c[kMultiprocessors];
                  return Grid((n + 255) / 256);
                }),
                {bx, by, out, 2.0f, n}, {{"BLOCK", 256}, {"num_warps", warps}});
    EXPECT_GE(resident, 1) << warps;
    EXPECT_LE(resident * warps * 32, 2048) << warps;
    EXPECT_EQ(multiprocessors, context->device().multiprocessors) << warps;
  }
}

TEST_F(JitGpuTest, ResetToZeroKeepsTimedRunsFromAccumulating) {
  const char *source = R"(
@autotune(key = [n], configs = [{ BLOCK: 128 }, { BLOCK: 256 }], reset_to_zero = [total])
kernel count(x: ptr<f32>, total: ptr<f32>, n: i32, const BLOCK: i32) {
    let i = program_id(0) * BLOCK + arange(0, BLOCK);
    atomic_add(total + arange(0, BLOCK) * 0, load(x + i, mask = i < n), mask = i < n);
}
)";
  const int n = 4096;
  Buffer x = Buffer::of(*context, std::vector<float>(n, 1.0f)), total(*context, Scalar::F32, 1);
  Kernel count = Module::fromString(*context, source, "count.tk", options()).kernel("count");
  GridSpec grid([&](const Config &c) { return Grid((n + c["BLOCK"] - 1) / c["BLOCK"]); });
  TuneReport report = count.tune(grid, {x, total, n});
  for (const TuneResult &r : report.results)
    EXPECT_TRUE(r.status.empty()) << r.config.str() << ": " << r.status;
  // The last timed run started from zero: one run's sum, not the sum of every run.
  EXPECT_EQ(total.toVector<float>(), std::vector<float>{float(n)});
}

TEST_F(JitGpuTest, ConfigsWithinFivePercentRunAgainstEachOther) {
  // TAG changes nothing the kernel does: its two configs time alike and both become finalists,
  // run in turn; REPEAT 256 reads its inputs 256 times over, far beyond 5%, and is no finalist.
  // (128 MB in and out: about 0.1 ms a run, so that the events' jitter stays well under 5%.)
  const char *source = R"(
@autotune(key = [n], configs = [{ TAG: 1, REPEAT: 1 }, { TAG: 2, REPEAT: 256 }, { TAG: 3, REPEAT: 1 }])
kernel sum(x: ptr<f32>, out: ptr<f32>, n: i32, const TAG: i32, const REPEAT: i32) {
    let i = program_id(0) * 256 + arange(0, 256);
    var acc = zeros([256], f32);
    for r in range(0, REPEAT) {
        acc = acc + load(x + i, mask = i < n, other = 0.0);
    }
    store(out + i, acc, mask = i < n);
}
)";
  const int n = 1 << 25;
  Buffer x = Buffer::of(*context, ramp(n, 1e-8f)), out(*context, Scalar::F32, n);
  Kernel sum = Module::fromString(*context, source, "sum.tk", options()).kernel("sum");
  TuneReport report = sum.tune(Grid((n + 255) / 256), {x, out, n});
  ASSERT_EQ(report.results.size(), 3u);
  EXPECT_TRUE(report.results[0].finalMs && *report.results[0].finalMs > 0);
  EXPECT_FALSE(report.results[1].finalMs) << "REPEAT 256 took " << report.results[1].ms.value_or(0) << " ms";
  EXPECT_TRUE(report.results[2].finalMs && *report.results[2].finalMs > 0);
  ASSERT_NE(report.best, 1u);
  // (Holds by construction: what the test asks is that the final round, not the rounds, chose.)
  EXPECT_LE(*report.results[report.best].finalMs, *report.results[2 - report.best].finalMs);
}

TEST_F(JitGpuTest, TimeInterleavedRunsEachLaunchOnceARound) {
  // Three launches: a round runs each once, the order rotated by one from round to round, and
  // each median is its own launch's (the third, a million programs, the slowest by far).
  Kernel fill = Module::fromString(*context, kSource, "axpy.tk", options()).kernel("fill");
  Buffer small(*context, Scalar::I32, 128);
  std::string order;
  std::vector<std::function<void()>> launches = {
      [&] { order += 'a', fill.launch(Grid(1), {small, 1, 1}); },
      [&] { order += 'b', fill.launch(Grid(1), {small, 2, 1}); },
      [&] { order += 'c', fill.launch(Grid(1 << 20), {small, 3, 1}); }}; // (every program the same 128 stores)
  std::vector<double> ms = context->timeInterleaved(launches, 4);
  EXPECT_EQ(order, "abc" "abc" "bca" "cab" "abc"); // a warm-up run each, then the rounds
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_GT(ms[0], 0);
  EXPECT_GT(ms[1], 0);
  EXPECT_GT(ms[2], 4 * std::max(ms[0], ms[1]));
  EXPECT_TRUE(context->timeInterleaved({}, 7).empty());
}

TEST_F(JitGpuTest, PerCallTimingRestsBeforeEachRunOutsideItsTime) {
  // Each per-call run after the flush comes after the GPU rested kRestMicroseconds (a sleeping
  // kernel): the rested runs take that much longer a run than unrested ones in all, and the
  // rest is not in their time. Without the flush there is no rest (as bench/peers.py).
  Kernel fill = Module::fromString(*context, kSource, "axpy.tk", options()).kernel("fill");
  Buffer small(*context, Scalar::I32, 128);
  auto launch = [&] { fill.launch(Grid(1), {small, 1, 1}); };
  context->timeMedian(launch, 1, 3); // (the kernel compiled, the rest kernel loaded)
  const int runs = 50;
  auto wallMs = [&](int rest, double *median) {
    auto start = std::chrono::steady_clock::now();
    *median = context->timeMedian(launch, 0, runs, Stream(), true, rest);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  double restedMs = 0, unrestedMs = 0;
  double restedWall = wallMs(Context::kRestMicroseconds, &restedMs), unrestedWall = wallMs(0, &unrestedMs);
  EXPECT_GE(restedWall - unrestedWall, 0.9 * runs * Context::kRestMicroseconds / 1000.0)
      << restedWall << " ms rested against " << unrestedWall;
  EXPECT_LT(restedMs, Context::kRestMicroseconds / 1000.0 / 2) << "the rest was timed with the run";
  std::string line = context->time(launch, 1, 5).str();
  EXPECT_NE(line.find(", L2 flushed, 200 us rest)"), std::string::npos) << line;
  EXPECT_EQ(context->time(launch, 1, 5, Stream(), true, 0).restMicroseconds, 0);
  EXPECT_EQ(context->time(launch, 1, 5, Stream(), false).restMicroseconds, 0);
}

TEST_F(JitGpuTest, TuningRoundsRestBeforeEachRun) {
  // The tuner's rounds rest the GPU before each run too (session 45: unrested rounds at the
  // power cap ranked configs otherwise than per call, and so did the final round after them).
  // Two configs far apart (no final round), each shorter than the rest: 100 runs a round, three
  // rounds, so at least 600 rests of kRestMicroseconds (unrested, all of it took tens of ms).
  const char *source = R"(
@autotune(key = [n], configs = [{ STEPS: 1 }, { STEPS: 4096 }])
kernel chain(x: ptr<f32>, n: i32, const STEPS: i32) {
    let i = arange(0, 128);
    var v = load(x + i, mask = i < n, other = 0.0);
    for s in range(0, STEPS) {
        v = v * 0.999 + 1.0;
    }
    store(x + i, v, mask = i < n);
}
)";
  Buffer x(*context, Scalar::F32, 128);
  Kernel chain = Module::fromString(*context, source, "chain.tk", options()).kernel("chain");
  TuneReport report = chain.tune(Grid(1), {x, 128});
  ASSERT_EQ(report.results.size(), 2u);
  ASSERT_TRUE(report.results[0].ms && report.results[1].ms);
  ASSERT_LT(*report.results[1].ms, Context::kRestMicroseconds / 1000.0) << "a config as long as the rest";
  ASSERT_GT(*report.results[1].ms, *report.results[0].ms * 1.05) << "the configs within the final round's margin";
  EXPECT_FALSE(report.results[0].finalMs || report.results[1].finalMs);
  EXPECT_GE(report.timeSeconds, 0.9 * 2 * 3 * 100 * Context::kRestMicroseconds / 1e6) << report.timeSeconds << " s";
}

TEST_F(JitGpuTest, OneConfigIsNotTimed) {
  // As Triton's autotuner: a space of one config is chosen untimed. Timing it ran the kernel
  // many times on the launch's buffers, and a kernel that updates them in place (a decode
  // step's positions) saw every run's update.
  const char *source = R"(
@autotune(key = [n], configs = [{ BLOCK: 32 }])
kernel bump(counter: ptr<i32>, n: i32, const BLOCK: i32) {
    let i = arange(0, BLOCK);
    store(counter + i, load(counter + i, mask = i < n, other = 0) + 1, mask = i < n);
}
)";
  Buffer counter = Buffer::of(*context, std::vector<int32_t>(4, 0));
  Kernel bump = Module::fromString(*context, source, "bump.tk", options()).kernel("bump");
  bump.launch(Grid(1), {counter, 4});
  EXPECT_EQ(counter.toVector<int32_t>(), std::vector<int32_t>(4, 1));
  TuneReport report = bump.tune(Grid(1), {counter, 4});
  ASSERT_EQ(report.results.size(), 1u);
  EXPECT_FALSE(report.results[0].ms);
  EXPECT_EQ(counter.toVector<int32_t>(), std::vector<int32_t>(4, 1));
}

TEST(JitInterpreterOnAGpuMachine, StreamsSynchronizeWithNoCudaContext) {
  // tk-llama --backend interp on a machine with a GPU: a thread that never made a CUDA context
  // synchronized the interpreter's stream through the driver ("invalid device context").
  if (!cuda::available())
    GTEST_SKIP() << "no GPU or CUDA driver on this machine: the interpreter's streams never reach the driver";
  std::string failure;
  std::thread([&] { // (a fresh thread: no context current, whatever the other tests left)
    try {
      Context interp(Backend::Interpreter);
      Stream stream = interp.createStream();
      Buffer x = Buffer::of(interp, std::vector<float>{1, 2, 3});
      stream.synchronize();
      Stream().synchronize();
      if (x.toVector<float>() != std::vector<float>{1, 2, 3})
        failure = "the buffer changed";
    } catch (const Error &e) {
      failure = e.what();
    }
  }).join();
  EXPECT_EQ(failure, "");
}

TEST_F(JitGpuTest, GreedyAdvanceCompilesOnceForEveryStep) {
  // A decode's greedy_advance: steps 1 to 17 (every divisibility up to 16, and 1) run one
  // variant, compiled once.
  const int32_t vocab = 64, steps = 18;
  std::vector<uint16_t> row(vocab); // bf16 bits of small integers: (v * 37) % 64
  for (int32_t v = 0; v < vocab; ++v) {
    float value = float((v * 37) % vocab);
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    row[size_t(v)] = uint16_t(bits >> 16);
  }
  Buffer logits = Buffer::ofBits(*context, Scalar::BF16, row), ids(*context, Scalar::I32, 1);
  Buffer positions = Buffer::of(*context, std::vector<int32_t>{5}), lengths = Buffer::of(*context, std::vector<int32_t>{6});
  Buffer tokens(*context, Scalar::I32, steps), kept(*context, Scalar::BF16, 4 * vocab);
  Buffer nanAt = Buffer::of(*context, std::vector<int32_t>{-1, -1});
  Kernel advance = Module::fromFile(*context, stdlibDir() + "/std/sampling.tk", options()).kernel("greedy_advance");
  for (int32_t step = 1; step < steps; ++step)
    advance.launch(Grid(1), {logits, ids, positions, lengths, tokens, kept, nanAt, vocab, vocab, step, steps,
                             1 + (step - 1) / 4 * 4, 4},
                   {{"KEEP", Const(true)}});
  EXPECT_EQ(advance.stats().compiles + advance.stats().diskHits, 1);
  EXPECT_EQ(positions.toVector<int32_t>(), std::vector<int32_t>{5 + steps - 1});
  EXPECT_EQ(ids.toVector<int32_t>(), std::vector<int32_t>{19}); // 19 * 37 % 64 == 63
}

TEST_F(JitGpuTest, RestoreValueKeepsTimedRunsFromUpdatingInPlace) {
  // A kernel that updates its operand in place, two configs to time: each timed run starts
  // from the values given (restore_value, as Triton's), and they are as given after the tuning;
  // the launch that follows updates them once.
  const char *source = R"(
@autotune(key = [n], configs = [{ BLOCK: 32 }, { BLOCK: 64 }], restore_value = [counter])
kernel bump(counter: ptr<i32>, n: i32, const BLOCK: i32) {
    let i = arange(0, BLOCK);
    store(counter + i, load(counter + i, mask = i < n, other = 0) + 1, mask = i < n);
}
)";
  Buffer counter = Buffer::of(*context, std::vector<int32_t>{5, 6, 7, 8});
  Kernel bump = Module::fromString(*context, source, "bump.tk", options()).kernel("bump");
  TuneReport report = bump.tune(Grid(1), {counter, 4});
  for (const TuneResult &r : report.results)
    EXPECT_TRUE(r.status.empty() && r.ms) << r.config.str() << ": " << r.status;
  EXPECT_EQ(counter.toVector<int32_t>(), (std::vector<int32_t>{5, 6, 7, 8}));
  Kernel again = Module::fromString(*context, source, "bump2.tk", options()).kernel("bump");
  again.launch(Grid(1), {counter, 4}); // (tunes on its first launch, then runs once)
  EXPECT_EQ(counter.toVector<int32_t>(), (std::vector<int32_t>{6, 7, 8, 9}));
}

// A kernel that calls gdc_wait launches as a programmatic dependent of the one before it in the
// stream: it may start early, and its wait must still see everything that kernel wrote. A chain
// of such kernels, each reading what the one before it wrote (slow enough to still be running
// when the next one starts), adds up exactly.
TEST_F(JitGpuTest, ProgrammaticDependentsSeeTheWritesBeforeThem) {
  const char *source = R"(
kernel step(src: ptr<f32>, dst: ptr<f32>, bias: ptr<f32>, n: i32, reversed: i32, const BLOCK: i32) {
    // Every other step takes the blocks in reverse, so that its first programs read what the
    // last programs of the step before write.
    let block = program_id(0) + reversed * (num_programs(0) - 1 - 2 * program_id(0));
    let i = block * BLOCK + arange(0, BLOCK);
    prefetch_l2(bias + block * BLOCK, minimum(BLOCK, n - block * BLOCK)); // the bias: no kernel writes it
    let b = load(bias + i, mask = i < n);
    gdc_wait();
    gdc_launch_dependents();
    var v = load(src + i, mask = i < n);
    for k in range(0, 64) {
        v = (v + b) - b; // exact: time for the next kernel to start while this one runs
    }
    store(dst + i, v + b, mask = i < n);
}
)";
  const int n = 1 << 20, steps = 32;
  Buffer a = Buffer::of(*context, std::vector<float>(n, 0.0f)), b(*context, Scalar::F32, n);
  Buffer ones = Buffer::of(*context, std::vector<float>(n, 1.0f));
  Kernel step = Module::fromString(*context, source, "step.tk", options()).kernel("step");
  Stream stream = context->createStream();
  for (int s = 0; s < steps; ++s)
    step.launch(Grid(n / 256), {s % 2 ? b : a, s % 2 ? a : b, ones, n, s % 2}, {{"BLOCK", 256}}, stream);
  stream.synchronize();
  std::vector<float> out = a.toVector<float>();
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], float(steps)) << "element " << i;
}

TEST_F(JitGpuTest, AnAllocationBeyondTheDeviceIsAnError) {
  std::string message = errorOf([&] { Buffer huge(*context, Scalar::F64, size_t(1) << 42); });
  EXPECT_EQ(message.rfind("tk::Buffer: cannot allocate 4398046511104 f64 elements (32768.0 GiB) on ", 0), 0u) << message;
  Buffer fine(*context, Scalar::F32, 16); // the context is still usable
  EXPECT_EQ(fine.toVector<float>(), std::vector<float>(16, 0.0f));
}

// The child of the next test: a fault leaves CUDA's context unusable, so it runs in its own
// process (CUDA does not survive fork, hence a new exec of this binary).
TEST(JitGpuFaultChild, DISABLED_IllegalAddress) {
  std::string message;
  try {
    Context ctx(Backend::Cuda);
    Kernel fill = Module::fromString(ctx, kSource, "axpy.tk").kernel("fill");
    Buffer out(ctx, Scalar::I32, 128);
    fill.launch(Grid(1), {DevicePointer{out.devicePointer() + (uint64_t(1) << 40), Scalar::I32}, 1, 1});
    ctx.synchronize();
  } catch (const Error &e) {
    message = e.what();
  }
  std::cout << "MESSAGE<" << message << ">END\n";
}

TEST_F(JitGpuTest, AnIllegalAddressNamesTheKernel) {
  std::string message = childMessage("JitGpuFaultChild.DISABLED_IllegalAddress", "TK_CACHE_DIR='" + cache.path() + "' ");
  EXPECT_EQ(message.rfind("synchronize: kernel 'fill' failed: an illegal memory access was encountered", 0), 0u)
      << message;
  EXPECT_NE(message.find("start a new process"), std::string::npos) << message;
}

TEST_F(JitGpuTest, AGridPastTheDriversDimensionsIsAnErrorBeforeTheLaunch) {
  Kernel fill = Module::fromString(*context, kSource, "axpy.tk", options()).kernel("fill");
  Buffer out(*context, Scalar::I32, 128);
  // The driver takes unsigned dimensions: 2^32 + 1 programs along x launched one program.
  EXPECT_EQ(errorOf([&] { fill.launch(Grid((int64_t(1) << 32) + 1), {out, 1, 1}); }),
            "kernel 'fill': grid dimension x is 4294967297; it must be in [0, 2147483647]");
  EXPECT_EQ(errorOf([&] { fill.launch(Grid(1, 1, (int64_t(1) << 32) + 2), {out, 1, 1}); }),
            "kernel 'fill': grid dimension z is 4294967298; it must be in [0, 65535]");
  EXPECT_EQ(out.toVector<int32_t>(), std::vector<int32_t>(128, 0));
}

} // namespace
} // namespace tk
