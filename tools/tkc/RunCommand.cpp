#include "RunCommand.h"
#include "Color.h"

#include "RunArgs.h"

#include "tk/Driver/Compiler.h"
#include "tk/Frontend/FileIO.h"
#include "tk/Runtime/CudaBackend.h"
#include "tk/Runtime/KernelCompile.h"
#include "tk/Runtime/Context.h"
#include "tk/Runtime/CudaDriver.h"
#include "tk/Support/FloatFormats.h"
#include "tk/Runtime/Interpreter.h"
#include "tk/Runtime/Npy.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <iomanip>
#include <mutex>
#include <thread>


#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <sstream>

namespace tk {

namespace {
using namespace runargs;
} // namespace


namespace {
int runCuda(const RunOptions &options, const KernelSignature &sig, const InterpreterLaunch &launch,
            std::vector<HostBuffer> &buffers, bool chosen, std::ostream &err);
} // namespace

int runCommand(RunOptions options, std::ostream &out, std::ostream &err) {
  bool chosen = !options.backend.empty();
  if (!chosen) {
    options.backend = cuda::available() ? "cuda" : "interp";
  } else if (options.backend == "cuda") {
    try {
      cuda::Driver::get(); // says what is missing, in tkc's words
    } catch (const Error &e) {
      err << "tkc run: error: " << e.what() << "\n";
      return 1;
    }
  }

  CompileOptions compileOptions;
  compileOptions.tool = "tkc run";
  compileOptions.kernel = options.kernel;
  compileOptions.defines = options.defines;
  Compiler compiler(compileOptions);
  std::ostringstream ir;
  bool compiled = compiler.load(options.file) && compiler.emit(EmitKind::Tk, ir);
  err << painted(compiler.diagnosticsText());
  if (!compiled)
    return compiler.hadInternalError() ? 70 : 1;
  KernelSignature sig = compiler.signatures().at(0);

  std::vector<HostBuffer> buffers;
  InterpreterLaunch launch;
  launch.buffers = &buffers;
  launch.printStream = &out;
  std::map<std::string, int64_t> gridNames;
  try {
    launch.args = bindArguments(sig.name, sig.args, options, buffers, gridNames);
    for (auto &[name, value] : sig.constants)
      if (int64_t integer; !getAsInteger(value, 10, integer)) // floats are not grid names
        gridNames[name] = integer;
    std::vector<std::pair<std::string, std::string>> outputs;
    for (auto &[name, path] : options.saves) {
      bool isBuffer = false;
      for (auto &b : buffers)
        isBuffer |= b.name == name;
      if (!isBuffer)
        throw UsageError("--save " + name + ": '" + name + "' is not a buffer argument");
      outputs.emplace_back("--save " + name, path);
    }
    if (std::string conflict = outputConflict(outputs, loadedFiles(compiler)); !conflict.empty())
      throw UsageError(conflict);
    std::vector<std::string> dims = splitGrid(options.grid);
    if (dims.size() > 3)
      throw UsageError("--grid has " + std::to_string(dims.size()) + " dimensions; at most 3");
    for (size_t d = 0; d < dims.size(); ++d) {
      int64_t value;
      std::string error;
      if (!evaluateIntExpression(dims[d], gridNames, value, error))
        throw UsageError("--grid '" + dims[d] + "': " + error);
      int64_t limit = d == 0 ? INT32_MAX : 65535;
      if (value < 0 || value > limit) // (0: an empty grid, which runs no program)
        throw UsageError("--grid dimension " + std::to_string(d) + " is " + std::to_string(value) +
                         "; it must be in [0, " + std::to_string(limit) + "]");
      launch.grid[d] = value;
    }
  } catch (const std::exception &e) {
    err << "tkc run: error: " << e.what() << "\n";
    return 1;
  }

  if (options.backend == "cuda") {
    int status = runCuda(options, sig, launch, buffers, chosen, err);
    if (status >= 0) {
      if (status != 0)
        return status;
      return saveBuffers(options, buffers, err, "tkc run");
    }
    // -1: the GPU backend cannot compile this kernel yet and no backend was asked for.
  }
  // (--time measures GPU launches; the interpreter's time says nothing about them.)
  if (options.profile)
    err << "tkc run: note: --profile profiles launches on the GPU (--backend=cuda); the interpreter runs the "
           "kernel once, unprofiled\n";
  else if (options.timedRuns > 0)
    err << "tkc run: note: --time " << options.timedRuns
        << " times launches on the GPU (--backend=cuda); the interpreter runs the kernel once, untimed\n";
  // Long work says so: after a second in the interpreter, a note (and how long it took at the end).
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false, noted = false;
  auto started = std::chrono::steady_clock::now();
  std::thread watcher([&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (!finished.wait_for(lock, std::chrono::seconds(1), [&] { return done; })) {
      noted = true;
      int64_t programs = launch.grid[0] * launch.grid[1] * launch.grid[2];
      err << "tkc run: interpreting kernel '" << sig.name << "' on the CPU (" << programs
          << (programs == 1 ? " program" : " programs") << "; --backend=cuda runs it on a GPU)..." << std::endl;
    }
  });
  // Stopped and joined however the run ends (an exception other than a fault too).
  struct StopWatcher {
    std::function<void()> stop;
    ~StopWatcher() { stop(); }
  } stopWatcher{[&] {
    if (!watcher.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    finished.notify_one();
    watcher.join();
    if (noted)
      err << "tkc run: interpreted in " << std::fixed << std::setprecision(1)
          << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() << " s\n";
  }};
  try {
    interpretKernel(compiler.moduleOperation(), sig.name, launch);
    stopWatcher.stop();
  } catch (const RunFault &fault) {
    stopWatcher.stop();
    out.flush();
    err << fault.what() << "\n";
    return 2;
  }
  return saveBuffers(options, buffers, err, "tkc run");
}

namespace {
/// Compiles the kernel for the GPU, specialized on the arguments (the power of two up to 16
/// that divides each integer; Triton specializes on 16 only), or takes it from the disk cache,
/// and runs it. Returns the exit status, or -1 when the GPU backend cannot compile the kernel
/// and the user did not ask for it (the caller falls back to the interpreter).
/// `tkc run --profile`'s lines after the time: the launch, the kernel's resources, and its
/// buffers' bytes over the per-call time (each buffer counted once, read or written).
std::string profileText(const CudaLaunch &launch, const CudaLaunch::Resources &resources, const Timing &timing) {
  int64_t bytes = 0;
  for (const HostBuffer &b : *launch.buffers)
    bytes += int64_t(b.bytes.size());
  const auto &g = launch.grid;
  std::ostringstream os;
  os << "  launch     " << g[0] << " x " << g[1] << " x " << g[2] << " programs of " << launch.threads << " threads, "
     << launch.sharedBytes << " bytes of dynamic shared memory\n"
     << "  registers  " << resources.registers << " per thread, " << resources.localBytes
     << " bytes of local memory per thread (spills and stack)\n";
  if (timing.perCallMs > 0) {
    char rate[64];
    std::snprintf(rate, sizeof(rate), "%.1f GB/s", double(bytes) / (timing.perCallMs * 1e-3) / 1e9);
    os << "  buffers    " << bytes << " bytes: " << rate << " at the per-call time (each buffer once)\n";
  }
  return os.str();
}

int runCuda(const RunOptions &options, const KernelSignature &sig, const InterpreterLaunch &launch,
            std::vector<HostBuffer> &buffers, bool chosen, std::ostream &err) {
  CompileOptions compileOptions;
  compileOptions.tool = "tkc run";
  compileOptions.kernel = options.kernel;
  compileOptions.defines = options.defines;
  compileOptions.debug = options.debug;
  int deviceSm = Context(Backend::Cuda).device().sm;
  targetDevice(compileOptions, deviceSm);
  if (!options.arch.empty()) {
    runargs::applyArch(options.arch, compileOptions);
    // PTX of an older target runs on a newer GPU (the driver compiles it); sm_90a's on sm_90 only.
    if (compileOptions.sm > deviceSm || (compileOptions.archSpecific && compileOptions.sm != deviceSm)) {
      err << "tkc run: error: --arch " << options.arch << " does not run on this GPU (sm_" << deviceSm << ")\n";
      return 1;
    }
  }
  for (size_t k = 0; k < sig.args.size(); ++k) {
    if (!sig.args[k].second.isIntValue())
      continue;
    int64_t divisibility = int64_t(1) << integerDivisibilityLog2(launch.args[k].i);
    if (divisibility > 1)
      compileOptions.divisibility[sig.args[k].first] = divisibility;
  }
  DiskCache cache(DiskCache::defaultDir());
  std::string diagnostics;
  std::optional<CompiledKernel> compiled = compileToPtx(options.file, nullptr, compileOptions, cache, diagnostics);
  for (const std::string &warning : cache.takeWarnings())
    err << warning << "\n";
  if (!compiled) {
    if (!chosen) {
      err << "tkc run: note: kernel '" << sig.name << "' does not compile for the GPU yet; running it in the interpreter\n";
      return -1;
    }
    err << painted(diagnostics);
    return 1;
  }
  CudaLaunch cudaLaunch;
  cudaLaunch.ptx = compiled->ptx;
  cudaLaunch.sharedBytes = compiled->sharedBytes;
  cudaLaunch.kernel = sig.name;
  cudaLaunch.threads = compiled->threads;
  cudaLaunch.grid = launch.grid;
  cudaLaunch.params = sig.args;
  cudaLaunch.args = launch.args;
  cudaLaunch.buffers = &buffers;
  cudaLaunch.timedRuns = options.timedRuns;
  CudaLaunch::Resources resources;
  if (options.profile)
    cudaLaunch.resources = &resources;
  try {
    Timing timing = runOnCuda(cudaLaunch);
    if (options.timedRuns > 0)
      err << "kernel '" << sig.name << "': " << timing.str() << "\n";
    if (options.profile)
      err << profileText(cudaLaunch, resources, timing);
  } catch (const Error &e) {
    err << "tkc run: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
} // namespace

} // namespace tk
