// The CUDA backend through the driver API. Without a driver or GPU the error must say so
// (checked here in CI); with one, a kernel compiled by tk must compute the right thing.
#include "tk/Driver/Compiler.h"
#include "tk/Runtime/CudaBackend.h"
#include "tk/Runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

namespace tk {
namespace {

// bench/report.py parses this line for tk's side of every benchmark (bench/test_report.py parses
// the same text): a change here must change both.
TEST(CudaBackend, TimingLineIsTheOneBenchParses) {
  Timing timing;
  timing.perCallMs = 0.123456;
  timing.backToBackMs = 0.12;
  timing.repetitions = 100;
  timing.flushedL2 = true;
  EXPECT_EQ(timing.str(), "0.1235 ms per call (median of 100, L2 flushed), 0.1200 ms back to back (mean of 100)");
  timing.restMicroseconds = 200;
  EXPECT_EQ(timing.str(),
            "0.1235 ms per call (median of 100, L2 flushed, 200 us rest), 0.1200 ms back to back (mean of 100)");
  timing.restMicroseconds = 0;
  timing.flushedL2 = false;
  EXPECT_EQ(timing.str(), "0.1235 ms per call (median of 100), 0.1200 ms back to back (mean of 100)");
}

TEST(CudaBackend, MissingDriverOrGpuIsAClearError) {
  if (cuda::available())
    GTEST_SKIP() << "a GPU is present: this test checks machines without one";
  try {
    cuda::Driver::get();
    FAIL() << "expected tk::Error";
  } catch (const Error &e) {
    std::string message = e.what();
    EXPECT_TRUE(message.find("libcuda.so.1") != std::string::npos || message.find("no GPU") != std::string::npos)
        << message;
    EXPECT_NE(message.find("--backend=interp"), std::string::npos) << message;
  }
}

TEST(CudaBackend, VectorAddOnTheGpu) {
  if (!cuda::available())
    GTEST_SKIP() << "no GPU or CUDA driver on this machine";
  std::string source = "kernel add(x: ptr<f32>, y: ptr<f32>, out: ptr<f32>, n: i32) {\n"
                       "  let offs = program_id(0) * 256 + arange(0, 256);\n"
                       "  store(out + offs, load(x + offs, mask = offs < n) + load(y + offs, mask = offs < n), mask = offs < n);\n}\n";
  Compiler compiler(CompileOptions{});
  std::ostringstream ptx;
  ASSERT_TRUE(compiler.load("add.tk", &source) && compiler.emit(EmitKind::PTX, ptx)) << compiler.diagnosticsText();
  const int n = 1000;
  std::vector<HostBuffer> buffers(3);
  for (int b = 0; b < 3; ++b) {
    buffers[b].name = std::string(1, "xyo"[b]);
    buffers[b].bytes.assign(n * 4, 0);
  }
  for (int i = 0; i < n; ++i) {
    float x = float(i) * 0.5f, y = float(n - i);
    std::memcpy(&buffers[0].bytes[i * 4], &x, 4);
    std::memcpy(&buffers[1].bytes[i * 4], &y, 4);
  }
  CudaLaunch launch;
  launch.ptx = ptx.str();
  launch.kernel = "add";
  launch.grid = {4, 1, 1};
  launch.params = compiler.signatures()[0].args;
  launch.args = {ArgValue{0}, ArgValue{1}, ArgValue{2}, ArgValue{-1, n}};
  launch.buffers = &buffers;
  launch.sharedBytes = compiler.sharedBytes();
  runOnCuda(launch);
  for (int i = 0; i < n; ++i) {
    float out;
    std::memcpy(&out, &buffers[2].bytes[i * 4], 4);
    ASSERT_EQ(out, float(i) * 0.5f + float(n - i)) << i;
  }
}

} // namespace
} // namespace tk
