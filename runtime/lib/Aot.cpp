#include "tk/Runtime/Aot.h"

#include "DriverLog.h"
#include "ModuleGlobals.h"
#include "TensorMaps.h"
#include "tk/Runtime/CudaDriver.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iostream>
#include <set>

namespace tk {

namespace {
// CUjit_option: the compile's info and error logs; CUfunction_attribute: registers, shared memory.
constexpr int kInfoLog = 3, kInfoLogSize = 4, kErrorLog = 5, kErrorLogSize = 6, kNumRegs = 4, kMaxDynamicShared = 8;
// CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: a function attribute, as kNumRegs (not a JIT option).
constexpr int kLocalBytes = 3;

/// The driver's compile logs (it compiles PTX at load or link time) and their options.
struct CompileLogs {
  char info[8192] = {0}, error[8192] = {0};
  int options[4] = {kInfoLog, kInfoLogSize, kErrorLog, kErrorLogSize};
  void *values[4] = {info, reinterpret_cast<void *>(sizeof(info)), error, reinterpret_cast<void *>(sizeof(error))};

  static std::string_view text(const char (&log)[8192]) { return driverLogText(log, sizeof(log)); }

  /// The driver compiler's warnings, on stderr: a serialized wgmma, say, costs a kernel much
  /// of its speed and would otherwise go unseen.
  void reportWarnings(const std::string &kernel) const {
    for (std::string_view log : {text(info), text(error)})
      for (const std::string &warning : driverCompilerWarnings(log))
        std::cerr << ("tk: kernel '" + kernel + "': the CUDA driver's PTX compiler: " + warning + "\n"); // one write
  }
};
} // namespace

std::string_view driverLogText(const char *buffer, size_t size) { return std::string_view(buffer, strnlen(buffer, size)); }

std::vector<std::string> driverCompilerWarnings(std::string_view log) {
  std::vector<std::string> warnings;
  std::set<std::string> seen;
  while (!log.empty()) {
    size_t end = log.find('\n');
    std::string_view line = log.substr(0, end);
    log = end == std::string_view::npos ? std::string_view() : log.substr(end + 1);
    size_t first = line.find_first_not_of(" \t\r"), last = line.find_last_not_of(" \t\r");
    if (first == std::string_view::npos)
      continue;
    line = line.substr(first, last - first + 1);
    std::string lower(line);
    for (char &c : lower)
      c = char(std::tolower((unsigned char)c));
    // ptxas writes "ptxas warning : ..." (a kernel may be named `no_warning`: the colon counts).
    size_t at = lower.find("warning");
    bool warns = at != std::string::npos && lower.find_first_not_of(' ', at + 7) != std::string::npos &&
                 lower[lower.find_first_not_of(' ', at + 7)] == ':';
    if (warns && seen.insert(std::string(line)).second)
      warnings.emplace_back(line);
  }
  return warnings;
}

bool imageMayDefine(const void *image, const std::string &symbol) {
  const char *text = static_cast<const char *>(image);
  // (strncmp stops at a PTX image's NUL, however short; neither magic number holds a zero byte.)
  if (std::strncmp(text, "\x7f" "ELF", 4) == 0 || std::strncmp(text, "\x50\xed\x55\xba", 4) == 0)
    return true;
  // The name as a whole identifier (tk_grid_dependent_k is no definition of tk_grid_dependent_k2).
  auto partOfName = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
  for (const char *at = std::strstr(text, symbol.c_str()); at; at = std::strstr(at + 1, symbol.c_str()))
    if ((at == text || !partOfName(at[-1])) && !partOfName(at[symbol.size()]))
      return true;
  return false;
}

bool findModuleGlobal(const void *image, cuda::CUmodule module, const std::string &name, cuda::CUdeviceptr *address,
                      size_t *bytes, const std::string &what) {
  return imageMayDefine(image, name) && cuda::Driver::get().findGlobal(module, name, address, bytes, what);
}

LoadedFunction loadFunction(const void *image, const std::string &kernel, int64_t sharedBytes) {
  cuda::Driver &d = cuda::Driver::get();
  CompileLogs logs;
  std::string_view log = CompileLogs::text(logs.error);
  cuda::CUmodule module = nullptr;
  if (cuda::CUresult result = d.cuModuleLoadDataEx(&module, image, 4, logs.options, logs.values); result != 0) {
    const char *message = nullptr;
    d.cuGetErrorString(result, &message);
    throw Error("the CUDA driver rejected the code of kernel '" + kernel + "': " +
                (!log.empty() ? std::string(log) : message ? std::string(message) : "CUDA error " + std::to_string(result)));
  }
  logs.reportWarnings(kernel);
  cuda::CUfunction function = nullptr;
  d.check(d.cuModuleGetFunction(&function, module, kernel.c_str()), "finding kernel '" + kernel + "' in its module");
  tensormaps::load(image, module, function, kernel);
  cuda::CUdeviceptr address = 0;
  size_t bytes = 0;
  bool waitsForGrid = findModuleGlobal(image, module, "tk_grid_dependent_" + kernel, &address, &bytes,
                                       "reading whether kernel '" + kernel + "' waits for its grid dependencies");
  bool twoPrograms = findModuleGlobal(image, module, "tk_programs_per_cta_" + kernel, &address, &bytes,
                                      "reading how many programs a CTA of kernel '" + kernel + "' holds");
  bool onClusters = findModuleGlobal(image, module, "tk_cluster_ctas_" + kernel, &address, &bytes,
                                     "reading the cluster size of kernel '" + kernel + "'");
  // Beyond 48 KiB a kernel must opt in to its dynamic shared memory.
  if (sharedBytes > 48 * 1024)
    d.check(d.cuFuncSetAttribute(function, kMaxDynamicShared, int(sharedBytes)),
            "asking for " + std::to_string(sharedBytes) + " bytes of shared memory for kernel '" + kernel + "'");
  // (the module lives as long as the process: functions are cached for reuse)
  return {function, waitsForGrid, twoPrograms ? 2 : 1, onClusters ? 2 : 1};
}

namespace {
int functionAttribute(cuda::CUfunc_st *function, int attribute) {
  int value = 0;
  cuda::Driver::get().check(cuda::Driver::get().cuFuncGetAttribute(&value, attribute, function), "cuFuncGetAttribute");
  return value;
}
} // namespace

int functionRegisters(cuda::CUfunc_st *function) { return functionAttribute(function, kNumRegs); }
int functionLocalBytes(cuda::CUfunc_st *function) { return functionAttribute(function, kLocalBytes); }

int residentPrograms(cuda::CUfunc_st *function, int threads, int64_t sharedBytes) {
  int programs = 0;
  cuda::Driver::get().check(
      cuda::Driver::get().cuOccupancyMaxActiveBlocksPerMultiprocessor(&programs, function, threads, size_t(sharedBytes)),
      "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  return programs;
}

void AotKernel::launch(Context &context, const Grid &grid, void **params, const Stream &stream) {
  if (context.backend() != Backend::Cuda)
    throw Error(std::string("kernel '") + name_ + "': an AOT kernel runs on the CUDA backend only");
  LoadedFunction function;
  {
    // One function per live context (alternating contexts loads nothing again; a destroyed
    // one's entry goes, and a new context at its address loads its own).
    std::lock_guard<std::mutex> lock(loading_);
    // (std, not LLVM's helpers: libtkc-runtime links no LLVM)
    loaded_.erase(std::remove_if(loaded_.begin(), loaded_.end(), [](const Loaded &entry) { return entry.alive.expired(); }),
                  loaded_.end());
    auto found = std::find_if(loaded_.begin(), loaded_.end(), [&](const Loaded &entry) { return entry.context == &context; });
    if (found == loaded_.end()) {
      bool cubinFits = cubinBytes_ > 0 && cubinSm_ == context.device().sm;
      context.makeCurrent(); // (the module goes into the current CUDA context: this one's device)
      loaded_.push_back({&context, context.lifetime(),
                         loadFunction(cubinFits ? static_cast<const void *>(cubin_) : static_cast<const void *>(ptx_),
                                      name_, sharedBytes_)});
      found = std::prev(loaded_.end());
    }
    function = found->function;
  }
  context.launchFunction(function, name_, grid, threads_, sharedBytes_, params, stream);
}

void checkAotPointer(const char *kernel, const char *param, unsigned long long pointer, int64_t alignment) {
  if (pointer % uint64_t(alignment) != 0)
    throw Error(std::string("kernel '") + kernel + "': parameter '" + param + "' must be " + std::to_string(alignment) +
                "-byte aligned (the header was compiled assuming it); got address " + std::to_string(pointer));
}

void checkAotDivisible(const char *kernel, const char *param, int64_t value, int64_t divisor) {
  if (value % divisor != 0)
    throw Error(std::string("kernel '") + kernel + "': parameter '" + param + "' must be divisible by " +
                std::to_string(divisor) + " (the header was compiled with --divisibility " + param + "=" +
                std::to_string(divisor) + "); got " + std::to_string(value));
}

unsigned long long aotBufferPointer(const char *kernel, const char *param, const Buffer &buffer, Scalar elem) {
  if (buffer.elem() != elem)
    throw Error(std::string("kernel '") + kernel + "': parameter '" + param + "' is ptr<" + scalarName(elem) +
                "> but the buffer holds " + scalarName(buffer.elem()));
  return buffer.devicePointer();
}

unsigned long long aotBufferPointer(const char *kernel, const char *param, const Buffer &buffer, Scalar elem,
                                    const Context &context) {
  if (&buffer.context() != &context) // (context() throws when the buffer's context was destroyed)
    throw Error(std::string("kernel '") + kernel + "': parameter '" + param + "' is a buffer of another tk::Context");
  return aotBufferPointer(kernel, param, buffer, elem);
}

} // namespace tk
