// The JIT's costs on the GPU machine (bench/jit_bench.py runs it beside Triton and torch):
//   tk-jit-bench [--benchmark_...]        host time of Kernel::launch on a cached kernel
//   tk-jit-bench --first-launch CACHE     a warm process's first launch (context made first):
//                                         module load + compile or disk-cache hit + launch + sync
//   tk-jit-bench --tune CACHE SIZE        autotuning 10 matmul configs at SIZE^3 (compile + time)
// Every mode checks the kernel's output before it reports a time.
#include <tk/Driver/Compiler.h>
#include <tk/tk.h>

#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>

namespace {

/// $TK_EXAMPLES_DIR (a copy of the tree elsewhere), else the source tree this was built from.
std::string examplesDir() {
  const char *dir = std::getenv("TK_EXAMPLES_DIR");
  return dir && *dir ? dir : TK_EXAMPLES_DIR;
}

const char *kVectorAdd = R"(
kernel add(x: ptr<f32>, y: ptr<f32>, out: ptr<f32>, n: i32, const BLOCK: i32 = 1024) {
    let offs = program_id(0) * BLOCK + arange(0, BLOCK);
    store(out + offs, load(x + offs, mask = offs < n) + load(y + offs, mask = offs < n), mask = offs < n);
}
)";

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

struct VectorAdd {
  tk::Context context;
  tk::Module module = tk::Module::fromString(context, kVectorAdd, "add.tk");
  tk::Kernel kernel = module.kernel("add");
  static constexpr int n = 1024;
  tk::Buffer x = tk::Buffer::of(context, std::vector<float>(n, 1.5f));
  tk::Buffer y = tk::Buffer::of(context, std::vector<float>(n, 2.0f));
  tk::Buffer out{context, tk::Scalar::F32, n};
  VectorAdd() {
    kernel.launch(tk::Grid(1), {x, y, out, n});
    for (float v : out.toVector<float>())
      if (v != 3.5f)
        throw tk::Error("vector add computed " + std::to_string(v) + ", expected 3.5");
  }
};

VectorAdd &setup() {
  static VectorAdd *shared = new VectorAdd();
  return *shared;
}

// Launches are asynchronous: the queue is drained every 256 launches, outside the timed part,
// so what is timed is the host's cost, not the GPU's.
template <typename Launch> void hostTimed(benchmark::State &state, Launch launch) {
  int pending = 0;
  for (auto _ : state) {
    launch();
    if (++pending == 256) {
      state.PauseTiming();
      setup().context.synchronize();
      pending = 0;
      state.ResumeTiming();
    }
  }
  setup().context.synchronize();
}

void launchLoop(benchmark::State &state, const tk::Consts &consts) {
  VectorAdd &s = setup();
  hostTimed(state, [&] { s.kernel.launch(tk::Grid(1), {s.x, s.y, s.out, VectorAdd::n}, consts); });
}

void BM_LaunchCached(benchmark::State &state) { launchLoop(state, {}); }

// The floor: the same kernel enqueued by Context::launchFunction (cuLaunchKernel and the
// launch bookkeeping) with its parameters already packed, as an AOT launcher does.
void BM_LaunchFloor(benchmark::State &state) {
  VectorAdd &s = setup(); // first: the function is loaded into its context
  static tk::LoadedFunction function = [] {
    tk::CompileOptions options;
    options.kernel = "add";
    tk::Compiler compiler(options);
    std::ostringstream ptx;
    std::string source = kVectorAdd;
    if (!compiler.load("add.tk", &source) || !compiler.emit(tk::EmitKind::PTX, ptx))
      throw tk::Error(compiler.diagnosticsText());
    static std::string text = ptx.str();
    return tk::loadFunction(text.c_str(), "add", 0);
  }();
  unsigned long long x = s.x.devicePointer(), y = s.y.devicePointer(), out = s.out.devicePointer();
  int n = VectorAdd::n;
  void *params[] = {&x, &y, &out, &n};
  hostTimed(state, [&] { s.context.launchFunction(function, "add", tk::Grid(1), 128, 0, params, tk::Stream()); });
}
BENCHMARK(BM_LaunchFloor);
void BM_LaunchCachedWithConstant(benchmark::State &state) { launchLoop(state, {{"BLOCK", 1024}}); }
BENCHMARK(BM_LaunchCached);
BENCHMARK(BM_LaunchCachedWithConstant);

struct Matmul {
  int size;
  std::vector<uint16_t> a, b;
  tk::Buffer da, db, dc;
  Matmul(tk::Context &context, int size)
      : size(size), a(size_t(size) * size), b(size_t(size) * size), da(context, tk::Scalar::F16, a.size()),
        db(context, tk::Scalar::F16, b.size()), dc(context, tk::Scalar::F16, a.size()) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(-1, 1);
    for (auto &v : a) v = tk::fp::floatToHalf(uniform(rng));
    for (auto &v : b) v = tk::fp::floatToHalf(uniform(rng));
    da.upload(a.data(), a.size() * 2);
    db.upload(b.data(), b.size() * 2);
  }
  std::vector<tk::Arg> args() const { return {da, db, dc, size, size, size, size, size, size}; }
  tk::GridSpec grid() const {
    int n = size;
    return tk::GridSpec([n](const tk::Config &c) { return tk::Grid(((n + c["BM"] - 1) / c["BM"]) * ((n + c["BN"] - 1) / c["BN"])); });
  }
  /// Checks 64 sampled elements against a double-precision dot product.
  void check() const {
    std::vector<uint16_t> c = dc.toVector<uint16_t>();
    std::mt19937 rng(2);
    for (int s = 0; s < 64; ++s) {
      int i = int(rng() % size), j = int(rng() % size);
      double want = 0;
      for (int k = 0; k < size; ++k)
        want += double(tk::fp::halfToFloat(a[size_t(i) * size + k])) * tk::fp::halfToFloat(b[size_t(k) * size + j]);
      double got = tk::fp::halfToFloat(c[size_t(i) * size + j]);
      if (std::abs(got - want) > 2e-2 * (1 + std::abs(want)))
        throw tk::Error("matmul element (" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
                        std::to_string(got) + ", expected " + std::to_string(want));
    }
  }
};

/// A cached launch of examples/matmul.tk (128x128x64 tiles) at `size`^3: at 256 (rows of 512
/// bytes) its loads go by TMA on sm_90a, and each launch also finds the two tensor maps in the
/// runtime's cache and appends them to the parameters; at 260 (rows of 520 bytes, not a
/// multiple of 16) they stay cp.async, the same launch without tensor maps.
void matmulLaunchLoop(benchmark::State &state, int size) {
  VectorAdd &s = setup(); // the shared context
  static tk::Module *module = new tk::Module(tk::Module::fromFile(s.context, examplesDir() + "/matmul.tk"));
  static tk::Kernel kernel = module->kernel("matmul");
  const tk::Consts consts{{"BM", 128}, {"BN", 128}, {"BK", 64}, {"num_warps", 8}, {"num_stages", 4}};
  Matmul m(s.context, size);
  kernel.launch(m.grid(), m.args(), consts);
  m.check();
  std::vector<tk::Arg> args = m.args();
  tk::GridSpec grid = m.grid();
  hostTimed(state, [&] { kernel.launch(grid, args, consts); });
}
void BM_LaunchCachedTma(benchmark::State &state) { matmulLaunchLoop(state, 256); }
void BM_LaunchCachedCpAsync(benchmark::State &state) { matmulLaunchLoop(state, 260); }
BENCHMARK(BM_LaunchCachedTma);
BENCHMARK(BM_LaunchCachedCpAsync);

/// Two first launches in one process with its CUDA context made: vector add, the process's first
/// use of tk (which also pays the parser's one-time start-up), then the matmul, in a process
/// that is warm. Each: module load + compile or disk-cache hit + launch + synchronize.
int firstLaunch(const std::string &cacheDir) {
  tk::Context context;
  Matmul m(context, 512);
  tk::Buffer x = tk::Buffer::of(context, std::vector<float>(1024, 1.0f)), out(context, tk::Scalar::F32, 1024);
  context.synchronize();
  tk::JitOptions options;
  options.cacheDir = cacheDir;
  auto start = std::chrono::steady_clock::now();
  tk::Kernel add = tk::Module::fromString(context, kVectorAdd, "add.tk", options).kernel("add");
  add.launch(tk::Grid(1), {x, x, out, 1024});
  context.synchronize();
  double firstUse = msSince(start);
  if (out.toVector<float>() != std::vector<float>(1024, 2.0f))
    throw tk::Error("vector add computed a wrong sum");

  start = std::chrono::steady_clock::now();
  tk::Module module = tk::Module::fromFile(context, examplesDir() + "/matmul.tk", options);
  double moduleMs = msSince(start);
  tk::Kernel matmul = module.kernel("matmul");
  matmul.launch(m.grid(), m.args(), {{"BM", 128}, {"BN", 128}, {"BK", 32}, {"num_warps", 4}, {"num_stages", 4}});
  context.synchronize();
  double ms = msSince(start);
  m.check();
  std::printf("first launch: %.3f ms (module %.3f ms; %s); the process's first use of tk (vector add): %.3f ms\n", ms,
              moduleMs, matmul.stats().diskHits ? "from the disk cache" : "compiled", firstUse);
  return 0;
}

int tune(const std::string &cacheDir, int size) {
  tk::Context context;
  Matmul m(context, size);
  tk::JitOptions options;
  options.cacheDir = cacheDir;
  tk::Kernel matmul = tk::Module::fromFile(context, examplesDir() + "/matmul.tk", options).kernel("matmul");
  std::vector<tk::Consts> space;
  for (auto [bm, bn, bk, warps, stages] : std::vector<std::array<int, 5>>{
           {128, 256, 64, 8, 3}, {128, 128, 32, 4, 4}, {128, 128, 64, 4, 3}, {128, 128, 64, 8, 3}, {64, 128, 32, 4, 4},
           {128, 64, 64, 4, 4}, {64, 64, 32, 4, 4}, {128, 128, 32, 8, 3}, {64, 256, 32, 8, 3}, {256, 128, 32, 8, 3}})
    space.push_back({{"BM", bm}, {"BN", bn}, {"BK", bk}, {"num_warps", warps}, {"num_stages", stages}});
  matmul.setTuneSpace(space, {"M", "N", "K"});
  auto start = std::chrono::steady_clock::now();
  tk::TuneReport report = matmul.tune(m.grid(), m.args());
  double total = msSince(start) / 1000;
  matmul.launch(m.grid(), m.args());
  m.check();
  for (size_t i = 0; i < report.results.size(); ++i) {
    const tk::TuneResult &r = report.results[i];
    std::printf("  %s {%s} %.4f ms %s\n", i == report.best ? "*" : " ", r.config.str().c_str(), r.ms.value_or(0),
                r.status.c_str());
  }
  std::printf("tune: %zu configs at %d^3: %.3f s (compile %.3f s, time %.3f s)%s\n", report.results.size(), size,
              total, report.compileSeconds, report.timeSeconds, report.fromDatabase ? " from the database" : "");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  try {
    if (argc >= 3 && std::string(argv[1]) == "--first-launch")
      return firstLaunch(argv[2]);
    if (argc >= 4 && std::string(argv[1]) == "--tune")
      return tune(argv[2], std::atoi(argv[3]));
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  } catch (const tk::Error &e) {
    std::cerr << "tk-jit-bench: " << e.what() << "\n";
    return 1;
  }
}
