// NVTX ranges in the "tk" domain, for Nsight Systems and other NVTX tools: tk marks each launch
// (with the kernel's name), each JIT compile and autotuning, and each step of a graph run; a
// program may mark its own work the same way. Without a tool attached (NVTX_INJECTION64_PATH,
// which `nsys profile` sets) a range costs two calls of an empty function; in a build without
// NVTX's headers (nvtx3/ of the CUDA toolkit) it costs nothing (nvtxEnabled() says which).
#ifndef TK_RUNTIME_NVTX_H
#define TK_RUNTIME_NVTX_H

#include <string>

namespace tk {

/// A range from construction to destruction, on the calling thread.
class NvtxRange {
public:
  explicit NvtxRange(const char *name);
  explicit NvtxRange(const std::string &name) : NvtxRange(name.c_str()) {}
  ~NvtxRange();
  NvtxRange(const NvtxRange &) = delete;
  NvtxRange &operator=(const NvtxRange &) = delete;
};

/// Whether this build marks ranges (it found NVTX's headers).
bool nvtxEnabled();

} // namespace tk

#endif
