// Runs a compiled kernel on the GPU through the CUDA driver: buffers are copied in, the kernel
// is launched over the grid, buffers are copied back.
#ifndef TK_RUNTIME_CUDABACKEND_H
#define TK_RUNTIME_CUDABACKEND_H

#include "tk/Driver/Compiler.h"
#include "tk/Runtime/Context.h"
#include "tk/Runtime/Interpreter.h"

namespace tk {

struct CudaLaunch {
  std::string ptx;
  std::string kernel;
  int threads = 128;
  int64_t sharedBytes = 0; // dynamic shared memory (Compiler::sharedBytes)
  std::array<int64_t, 3> grid{1, 1, 1};
  std::vector<std::pair<std::string, Type>> params; // the kernel's runtime parameters
  std::vector<ArgValue> args;
  std::vector<HostBuffer> *buffers = nullptr;
  int timedRuns = 0; // > 0: also time the kernel (Context::time over this many runs)
  /// Filled when given: what the driver's compile of the PTX gave the kernel.
  struct Resources {
    int registers = 0;  // per thread
    int localBytes = 0; // per thread: spills and stack
  } *resources = nullptr;
};

/// Throws tk::Error (no driver, a failed CUDA call, a PTX the driver rejects: with its log).
/// Returns the kernel's times when timing was asked for, else zeros.
Timing runOnCuda(const CudaLaunch &launch);

} // namespace tk

#endif
