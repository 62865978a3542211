#include "tk/Runtime/Context.h"
#include "tk/Runtime/Nvtx.h"

#include "TensorMaps.h"
#include "tk/Runtime/Aot.h"
#include "tk/Runtime/CudaDriver.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace tk {

namespace {

constexpr int kOutOfMemory = 2;

cuda::Driver &driver() { return cuda::Driver::get(); }

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GiB", bytes / double(1 << 30));
  return text;
}

int attribute(int which, cuda::CUdevice device) {
  int value = 0;
  driver().check(driver().cuDeviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
  return value;
}

} // namespace

void Grid::check(const std::string &kernel) const {
  const int64_t dims[3] = {x, y, z};
  for (int d = 0; d < 3; ++d) {
    int64_t limit = d == 0 ? INT32_MAX : 65535;
    if (dims[d] < 0 || dims[d] > limit)
      throw Error("kernel '" + kernel + "': grid dimension " + "xyz"[d] + " is " + std::to_string(dims[d]) +
                  "; it must be in [0, " + std::to_string(limit) + "]");
  }
}

Stream::~Stream() {
  if (handle_ && owned_)
    driver().cuStreamDestroy(handle_);
}

Stream &Stream::operator=(Stream &&other) noexcept {
  std::swap(handle_, other.handle_);
  std::swap(owned_, other.owned_);
  return *this;
}

void Stream::synchronize() const {
  if (!cuda::available())
    return;
  // The default stream of a thread with no CUDA context current (the interpreter's, on a
  // machine with a GPU) has nothing to wait for; the driver would call it an invalid context.
  if (!handle_) {
    cuda::CUcontext current = nullptr;
    if (driver().cuCtxGetCurrent(&current) != 0 || !current)
      return;
  }
  driver().check(driver().cuStreamSynchronize(handle_), "synchronizing a stream");
}

void Stream::beginCapture() const {
  driver().check(driver().cuStreamBeginCapture(handle_, 2 /*CU_STREAM_CAPTURE_MODE_RELAXED*/), "cuStreamBeginCapture");
}

CudaGraph Stream::endCapture() const {
  cuda::Driver &d = driver();
  cuda::CUgraph graph = nullptr;
  d.check(d.cuStreamEndCapture(handle_, &graph), "cuStreamEndCapture");
  CudaGraph captured;
  cuda::CUresult made = d.cuGraphInstantiateWithFlags(&captured.exec_, graph, 0);
  d.cuGraphDestroy(graph);
  d.check(made, "cuGraphInstantiate");
  return captured;
}

void Stream::abandonCapture() const noexcept {
  cuda::CUgraph graph = nullptr;
  driver().cuStreamEndCapture(handle_, &graph);
  if (graph)
    driver().cuGraphDestroy(graph);
}

CudaGraph::~CudaGraph() {
  if (exec_)
    driver().cuGraphExecDestroy(exec_);
}

CudaGraph &CudaGraph::operator=(CudaGraph &&other) noexcept {
  std::swap(exec_, other.exec_);
  return *this;
}

void CudaGraph::launch(const Stream &stream) const {
  driver().check(driver().cuGraphLaunch(exec_, stream.handle()), "cuGraphLaunch");
}

Backend Context::defaultBackend() { return cuda::available() ? Backend::Cuda : Backend::Interpreter; }

Context::Context(Backend backend, int device) : backend_(backend) {
  const char *blocking = std::getenv("TK_LAUNCH_BLOCKING");
  blocking_ = blocking && *blocking && std::string(blocking) != "0";
  const char *dependent = std::getenv("TK_DEPENDENT_LAUNCH");
  dependentLaunch_ = !(dependent && std::string(dependent) == "0");
  if (backend == Backend::Interpreter) {
    info_.name = "interpreter";
    info_.sharedBytesPerBlock = INT64_MAX;
    info_.registersPerBlock = INT64_MAX;
    return;
  }
  try {
    driver();
  } catch (const Error &e) {
    std::string message = e.what();
    // The driver's loader speaks to tkc users; here the remedy is the C++ spelling.
    if (size_t at = message.find("; use --backend=interp"); at != std::string::npos)
      message = message.substr(0, at);
    throw Error("tk::Context: " + message + " (tk::Backend::Interpreter runs kernels on the CPU)");
  }
  int count = 0;
  driver().check(driver().cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (device < 0 || device >= count)
    throw Error("tk::Context: there is no GPU " + std::to_string(device) + ": the CUDA driver sees " +
                std::to_string(count) + " GPU" + (count == 1 ? "" : "s"));
  cuda::CUdevice handle = 0;
  driver().check(driver().cuDeviceGet(&handle, device), "cuDeviceGet");
  driver().check(driver().cuDevicePrimaryCtxRetain(&context_, handle), "cuDevicePrimaryCtxRetain");
  makeCurrent();
  char name[256] = {0};
  driver().check(driver().cuDeviceGetName(name, sizeof(name), handle), "cuDeviceGetName");
  info_.name = name;
  info_.sm = attribute(75, handle) * 10 + attribute(76, handle);
  info_.multiprocessors = attribute(16, handle);
  info_.maxThreadsPerBlock = attribute(1, handle);
  info_.registersPerBlock = attribute(12, handle);
  info_.sharedBytesPerBlock = attribute(97, handle); // the opt-in maximum
  info_.l2Bytes = attribute(38, handle);
  size_t total = 0;
  driver().check(driver().cuDeviceTotalMem(&total, handle), "cuDeviceTotalMem");
  info_.totalMemory = int64_t(total);
}

Context::~Context() {
  if (flush_)
    driver().cuMemFree(flush_);
  if (restModule_) { // (unloaded where it was loaded: this context made current for it)
    cuda::CUcontext current = nullptr;
    driver().cuCtxGetCurrent(&current);
    driver().cuCtxSetCurrent(context_);
    driver().cuModuleUnload(restModule_);
    driver().cuCtxSetCurrent(current);
  }
}

void Context::makeCurrent() const {
  if (backend_ == Backend::Cuda)
    driver().check(driver().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

Stream Context::createStream() {
  if (backend_ == Backend::Interpreter)
    return Stream();
  cuda::CUstream stream = nullptr;
  driver().check(driver().cuStreamCreate(&stream, 0), "cuStreamCreate");
  return Stream(stream);
}

void Context::checkSync(int result, const std::string &what) {
  int launches;
  std::string last;
  {
    std::lock_guard<std::mutex> lock(launches_);
    launches = launchesSinceSync_;
    launchesSinceSync_ = 0;
    last = lastKernel_;
  }
  if (result == 0)
    return;
  const char *message = nullptr;
  driver().cuGetErrorString(result, &message);
  std::string text = message ? message : "CUDA error " + std::to_string(result);
  std::string culprit = last.empty() ? "" : " kernel '" + last + "'";
  if (launches > 1)
    culprit += " (the last of " + std::to_string(launches) +
               " kernels launched since the last synchronize; TK_LAUNCH_BLOCKING=1 pins the fault to its kernel)";
  throw Error(what + ":" + culprit + " failed: " + text +
              (result == 700 || result == 710 || result == 719 ? "; the CUDA context is unusable after this error (CUDA's rule): "
                                                "start a new process"
                                              : ""));
}

void Context::synchronize() {
  if (backend_ == Backend::Interpreter)
    return;
  checkSync(driver().cuCtxSynchronize(), "synchronize");
}

void Context::zero(const Buffer &buffer, const Stream &stream) {
  if (backend_ == Backend::Interpreter) {
    auto lock = lockHostMemory();
    auto &bytes = const_cast<Buffer &>(buffer).hostBytes();
    std::fill(bytes.begin(), bytes.end(), 0);
    return;
  }
  if (buffer.bytes())
    driver().check(driver().cuMemsetD8Async(buffer.devicePointer(), 0, buffer.bytes(), stream.handle()),
                   "zeroing a buffer");
}

void Context::copy(const Buffer &to, const Buffer &from, const Stream &stream) {
  if (to.bytes() != from.bytes())
    throw Error("tk::Context::copy: " + std::to_string(from.bytes()) + " bytes into a buffer of " +
                std::to_string(to.bytes()));
  if (backend_ == Backend::Interpreter) {
    auto lock = lockHostMemory();
    const auto &source = const_cast<Buffer &>(from).hostBytes();
    std::copy(source.begin(), source.end(), const_cast<Buffer &>(to).hostBytes().begin());
    return;
  }
  if (to.bytes())
    driver().check(driver().cuMemcpyDtoDAsync(to.devicePointer(), from.devicePointer(), to.bytes(), stream.handle()),
                   "copying a buffer");
}

void Context::noteLaunch(const std::string &kernel, const Stream &stream) {
  {
    std::lock_guard<std::mutex> lock(launches_);
    lastKernel_ = kernel;
    ++launchesSinceSync_;
  }
  if (blocking_)
    checkSync(driver().cuStreamSynchronize(stream.handle()), "TK_LAUNCH_BLOCKING");
}

void Context::launchFunction(const LoadedFunction &loaded, const std::string &kernel, const Grid &grid, int threads,
                             int64_t sharedBytes, void **params, const Stream &stream) {
  // Before any launch: the driver takes unsigned dimensions, and 2^32 + 1 programs along x
  // would launch as one.
  grid.check(kernel);
  if (grid.empty()) // (no program to run: nothing is launched)
    return;
  NvtxRange range(kernel);
  cuda::CUfunc_st *function = loaded.function;
  tensormaps::LaunchParams all(function, kernel, params);
  // A CTA for every programsPerCta programs along x (the kernel numbers them itself, in i32:
  // the grid's programs stay within x's limit, checked above, which a launch of CTAs would not).
  Grid ctas = grid;
  ctas.x = (grid.x + loaded.programsPerCta - 1) / loaded.programsPerCta;
  ctas.x = (ctas.x + loaded.clusterCtas - 1) / loaded.clusterCtas * loaded.clusterCtas;
  auto plainLaunch = [&] {
    return driver().cuLaunchKernel(function, unsigned(ctas.x), unsigned(ctas.y), unsigned(ctas.z), unsigned(threads), 1, 1,
                                   unsigned(sharedBytes), stream.handle(), all.get(), nullptr);
  };
  cuda::CUresult result;
  if (loaded.waitsForGrid && dependentLaunch_ && driver().cuLaunchKernelEx) {
    // gdc_wait: the kernel may start before the one ahead of it in the stream ends (its
    // programs wait for it in gdc_wait); under capture the graph keeps the edge programmatic.
    cuda::LaunchAttribute attribute{};
    attribute.id = cuda::kProgrammaticStreamSerialization;
    attribute.value.value = 1;
    cuda::LaunchConfig config{unsigned(ctas.x), unsigned(ctas.y), unsigned(ctas.z), unsigned(threads), 1, 1,
                              unsigned(sharedBytes), stream.handle(), &attribute, 1};
    result = driver().cuLaunchKernelEx(&config, function, all.get(), nullptr);
    if (result != 0 && plainLaunch() == 0) {
      // A driver (or a capture) that takes no programmatic edge: plain launches from now on.
      dependentLaunch_ = false;
      result = 0;
    }
  } else {
    result = plainLaunch();
  }
  if (result != 0) {
    driver().check(result, "launching kernel '" + kernel + "' (" + std::to_string(threads) + " threads, " +
                               std::to_string(sharedBytes) + " bytes of shared memory)");
  }
  noteLaunch(kernel, stream);
}

namespace {
// The rest before a timed run (Context::beforeRun): one thread sleeping until the global
// timer (nanoseconds) has moved on by the parameter. PTX, which the driver compiles for the GPU.
constexpr const char *kRestPtx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry tk_rest(.param .u64 tk_rest_ns)
{
  .reg .pred %p;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [tk_rest_ns];
  mov.u64 %rd2, %globaltimer;
  add.u64 %rd1, %rd1, %rd2;
$L_sleep:
  nanosleep.u32 1000;
  mov.u64 %rd3, %globaltimer;
  setp.lt.u64 %p, %rd3, %rd1;
  @%p bra $L_sleep;
  ret;
}
)";
} // namespace

std::function<void(int)> Context::beforeRun(const Stream &stream, bool flushL2, int restMicroseconds) {
  size_t flushBytes = size_t(std::max<int64_t>(info_.l2Bytes, 1 << 20)) * 2;
  cuda::CUfunction rest = nullptr;
  if (flushL2) {
    std::lock_guard<std::mutex> lock(launches_);
    if (!flush_)
      driver().check(driver().cuMemAlloc(&flush_, flushBytes), "cuMemAlloc of the L2 flush buffer");
    if (restMicroseconds > 0 && !rest_ && !restUnavailable_)
      loadRest();
    rest = restMicroseconds > 0 ? rest_ : nullptr;
  }
  return [this, flushL2, flushBytes, rest, restNs = uint64_t(std::max(restMicroseconds, 0)) * 1000,
          handle = stream.handle()](int r) {
    if (flushL2)
      driver().check(driver().cuMemsetD8Async(flush_, uint8_t(r), flushBytes, handle), "flushing the L2 cache");
    if (rest) {
      uint64_t ns = restNs;
      void *params[] = {&ns};
      driver().check(driver().cuLaunchKernel(rest, 1, 1, 1, 1, 1, 1, 0, handle, params, nullptr),
                     "launching the timing's rest kernel");
    }
  };
}

void Context::loadRest() {
  // The rest refines the timing: a driver that cannot compile its PTX leaves the runs
  // unrested, as before the rest existed (Timing says so), rather than failing every tune.
  // Any other failure (out of memory, a context a fault broke) is the GPU's, and throws.
  constexpr cuda::CUresult kNoBinaryForGpu = 209, kInvalidPtx = 218, kJitCompilerNotFound = 221,
                           kUnsupportedPtxVersion = 222;
  cuda::CUmodule module = nullptr;
  cuda::CUresult result = driver().cuModuleLoadData(&module, kRestPtx);
  if (result == kNoBinaryForGpu || result == kInvalidPtx || result == kJitCompilerNotFound ||
      result == kUnsupportedPtxVersion) {
    restUnavailable_ = true;
    std::cerr << "tk: warning: timing without the rest before each run: the driver cannot compile its kernel (CUDA "
                 "error " + std::to_string(result) + ")\n";
    return;
  }
  driver().check(result, "loading the timing's rest kernel");
  restModule_ = module;
  driver().check(driver().cuModuleGetFunction(&rest_, restModule_, "tk_rest"), "finding the timing's rest kernel");
}

int Context::restTaken(bool flushL2, int restMicroseconds) {
  std::lock_guard<std::mutex> lock(launches_);
  return flushL2 && rest_ ? std::max(restMicroseconds, 0) : 0;
}

namespace {
template <typename T> T medianOf(std::vector<T> values) {
  if (values.empty())
    return T(0);
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}
} // namespace

double Context::timeMedian(const std::function<void()> &launch, int warmup, int repetitions, const Stream &stream,
                           bool flushL2, int restMicroseconds) {
  if (backend_ != Backend::Cuda)
    throw Error("tk::Context::timeMedian: timing needs the CUDA backend");
  auto before = beforeRun(stream, flushL2, restMicroseconds);
  for (int r = 0; r < warmup; ++r)
    launch();
  return medianOf(eventTimes(repetitions, before, [&](int) { launch(); }, stream));
}

std::vector<double> Context::timeInterleaved(const std::vector<std::function<void()>> &launches, int rounds,
                                             const Stream &stream, bool flushL2, int restMicroseconds) {
  if (backend_ != Backend::Cuda)
    throw Error("tk::Context::timeInterleaved: timing needs the CUDA backend");
  size_t n = launches.size();
  if (n == 0)
    return {};
  auto before = beforeRun(stream, flushL2, restMicroseconds);
  for (const auto &launch : launches)
    launch();
  // Sample s is round s / n's (s % n)-th run, the order rotated by one each round.
  auto which = [n](int s) { return (size_t(s) / n + size_t(s) % n) % n; };
  std::vector<float> times = eventTimes(int(n) * std::max(rounds, 1), before, [&](int s) { launches[which(s)](); }, stream);
  std::vector<std::vector<float>> each(n);
  for (size_t s = 0; s < times.size(); ++s)
    each[which(int(s))].push_back(times[s]);
  std::vector<double> medians;
  for (auto &t : each)
    medians.push_back(medianOf(t));
  return medians;
}

double Context::timeBackToBack(const std::function<void()> &launch, int warmup, int repetitions,
                               const Stream &stream) {
  if (backend_ != Backend::Cuda)
    throw Error("tk::Context::timeBackToBack: timing needs the CUDA backend");
  if (repetitions <= 0)
    return 0;
  for (int r = 0; r < warmup; ++r)
    launch();
  auto batch = [&] {
    for (int r = 0; r < repetitions; ++r)
      launch();
  };
  return medianOf(eventTimes(3, [](int) {}, [&](int) { batch(); }, stream)) / float(repetitions);
}

std::vector<float> Context::eventTimes(int samples, const std::function<void(int)> &before,
                                       const std::function<void(int)> &between, const Stream &stream) {
  cuda::CUevent start = nullptr, stop = nullptr;
  driver().check(driver().cuEventCreate(&start, 0), "cuEventCreate");
  if (cuda::CUresult result = driver().cuEventCreate(&stop, 0); result != 0) {
    driver().cuEventDestroy(start);
    driver().check(result, "cuEventCreate");
  }
  std::vector<float> times;
  try {
    for (int i = 0; i < samples; ++i) {
      before(i);
      driver().check(driver().cuEventRecord(start, stream.handle()), "cuEventRecord");
      between(i);
      driver().check(driver().cuEventRecord(stop, stream.handle()), "cuEventRecord");
      checkSync(driver().cuEventSynchronize(stop), "timing");
      float ms = 0;
      driver().check(driver().cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
      times.push_back(ms);
    }
  } catch (...) {
    driver().cuEventDestroy(start);
    driver().cuEventDestroy(stop);
    throw;
  }
  driver().cuEventDestroy(start);
  driver().cuEventDestroy(stop);
  return times;
}

std::vector<double> Context::timeSteps(int count, const std::function<void(int)> &step, const Stream &stream) {
  std::vector<double> ms(size_t(std::max(count, 0)));
  if (backend_ != Backend::Cuda) {
    for (int i = 0; i < count; ++i) {
      auto start = std::chrono::steady_clock::now();
      step(i);
      ms[size_t(i)] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    return ms;
  }
  std::vector<cuda::CUevent> events(size_t(count) + 1, nullptr);
  auto destroy = [&] {
    for (cuda::CUevent e : events)
      if (e)
        driver().cuEventDestroy(e);
  };
  try {
    for (cuda::CUevent &e : events)
      driver().check(driver().cuEventCreate(&e, 0), "cuEventCreate");
    for (int i = 0; i < count; ++i) {
      driver().check(driver().cuEventRecord(events[size_t(i)], stream.handle()), "cuEventRecord");
      step(i);
    }
    driver().check(driver().cuEventRecord(events.back(), stream.handle()), "cuEventRecord");
    checkSync(driver().cuEventSynchronize(events.back()), "timing");
    for (int i = 0; i < count; ++i) {
      float elapsed = 0;
      driver().check(driver().cuEventElapsedTime(&elapsed, events[size_t(i)], events[size_t(i) + 1]),
                     "cuEventElapsedTime");
      ms[size_t(i)] = elapsed;
    }
  } catch (...) {
    destroy();
    throw;
  }
  destroy();
  return ms;
}

Timing Context::time(const std::function<void()> &launch, int warmup, int repetitions, const Stream &stream,
                     bool flushL2, int restMicroseconds) {
  Timing timing;
  timing.repetitions = repetitions;
  timing.flushedL2 = flushL2;
  timing.perCallMs = timeMedian(launch, warmup, repetitions, stream, flushL2, restMicroseconds);
  timing.restMicroseconds = restTaken(flushL2, restMicroseconds);
  timing.backToBackMs = timeBackToBack(launch, 0, repetitions, stream);
  return timing;
}

std::string Timing::str() const {
  char line[200];
  std::string rest = restMicroseconds > 0 ? ", " + std::to_string(restMicroseconds) + " us rest" : "";
  std::snprintf(line, sizeof line, "%.4f ms per call (median of %d%s%s), %.4f ms back to back (mean of %d)", perCallMs,
                repetitions, flushedL2 ? ", L2 flushed" : "", rest.c_str(), backToBackMs, repetitions);
  return line;
}

Context &Buffer::live(const char *what) const {
  if (alive_.expired())
    throw Error(std::string(what) + ": the buffer's tk::Context was destroyed; a context must outlive its buffers, "
                                    "modules and kernels");
  return *context_;
}

Buffer::Buffer(Context &context, Scalar elem, size_t count)
    : context_(&context), alive_(context.lifetime()), elem_(elem), count_(count) {
  size_t size = 0;
  if (__builtin_mul_overflow(count, elementBytes(elem), &size) || size > size_t(INT64_MAX))
    throw Error("tk::Buffer: " + std::to_string(count) + " " + scalarName(elem) +
                " elements do not fit in the address space");
  if (context.backend() == Backend::Interpreter) {
    try {
      host_.assign(size, 0);
    } catch (const std::bad_alloc &) {
      throw Error("tk::Buffer: cannot allocate " + std::to_string(count) + " " + scalarName(elem) + " elements (" +
                  gib(double(size)) + ") in host memory for the interpreter");
    }
    return;
  }
  cuda::CUresult result = driver().cuMemAlloc(&device_, std::max<size_t>(size, 16));
  if (result == kOutOfMemory) {
    size_t freeBytes = 0, total = 0;
    driver().cuMemGetInfo(&freeBytes, &total);
    throw Error("tk::Buffer: cannot allocate " + std::to_string(count) + " " + scalarName(elem) + " elements (" +
                gib(double(size)) + ") on " + context.device().name + ": it has " + gib(double(total)) + ", " +
                gib(double(freeBytes)) + " of them free");
  }
  driver().check(result, "tk::Buffer: cuMemAlloc of " + std::to_string(size) + " bytes");
  driver().check(driver().cuMemsetD8(device_, 0, std::max<size_t>(size, 16)), "tk::Buffer: zero-filling");
}

Buffer::~Buffer() {
  if (device_)
    driver().cuMemFree(device_);
}

Buffer::Buffer(Buffer &&other) noexcept
    : context_(other.context_), alive_(other.alive_), elem_(other.elem_), count_(other.count_), device_(other.device_),
      host_(std::move(other.host_)) {
  other.device_ = 0;
  other.count_ = 0;
}

Buffer &Buffer::operator=(Buffer &&other) noexcept {
  std::swap(context_, other.context_);
  std::swap(alive_, other.alive_);
  std::swap(elem_, other.elem_);
  std::swap(count_, other.count_);
  std::swap(device_, other.device_);
  std::swap(host_, other.host_);
  return *this;
}

void Buffer::upload(const void *data, size_t size) {
  if (size != bytes())
    throw Error("tk::Buffer::upload: " + std::to_string(size) + " bytes given for a buffer of " +
                std::to_string(bytes()) + " bytes");
  if (!data && size > 0) // (was read from: SIGSEGV)
    throw Error("tk::Buffer::upload: a null pointer given for " + std::to_string(size) + " bytes");
  Context &context = live("tk::Buffer::upload");
  if (context.backend() == Backend::Interpreter) {
    auto lock = context.lockHostMemory();
    if (size)
      std::memcpy(host_.data(), data, size);
    return;
  }
  context.synchronize(); // a fault of earlier work is reported with its kernel's name
  if (size)
    driver().check(driver().cuMemcpyHtoD(device_, data, size), "tk::Buffer::upload");
}

void Buffer::download(void *data, size_t size) const {
  if (size != bytes())
    throw Error("tk::Buffer::download: room for " + std::to_string(size) + " bytes given for a buffer of " +
                std::to_string(bytes()) + " bytes");
  if (!data && size > 0) // (was written to: SIGSEGV)
    throw Error("tk::Buffer::download: a null pointer given for " + std::to_string(size) + " bytes");
  Context &context = live("tk::Buffer::download");
  if (context.backend() == Backend::Interpreter) {
    auto lock = context.lockHostMemory();
    if (size)
      std::memcpy(data, host_.data(), size);
    return;
  }
  context.synchronize();
  if (size)
    driver().check(driver().cuMemcpyDtoH(data, device_, size), "tk::Buffer::download");
}

} // namespace tk
